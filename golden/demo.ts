// `npm run demo`: serve the golden sources on loopback, run the oracle and the baseline on every golden task
// through its own solve.sh and test.sh, print the scoreboard and the diagnosis confusion matrix.
//
//   npm run demo                    the golden server on a free port, the tasks copied for it to .demo/golden/
//   npm run demo -- --port 41733    on that port; when it is taken, whatever golden server listens there
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeEvaluationReports } from '../src/results/report-files.js';
import { evaluateGolden, diagnosisTable, scoreDiagnosis, serveGolden, table } from './scoreboard.js';
import { goldenAtPort } from './lib/tasks.js';
import { GOLDEN_PORT, goldenWaybackUrl, projectRoot, startGoldenServer, type RunningServer } from './server.js';
import { isolationSummary } from '../src/results/isolations.js';

/** What to check when every source of a task failed although the demo serves them itself. */
const ownServerHint = (port: number): string =>
  `the demo serves the golden sources itself on 127.0.0.1:${port}: is a firewall or a proxy (HTTP_PROXY, NO_PROXY) in the way of loopback connections?`;
/** ... and when it could not, because the port it was given was taken. */
const portTakenHint = (port: number): string =>
  `port ${port} was taken, so the demo used whatever listens there: stop it and run the demo again, run it without --port (a free port), or start the golden server yourself (\`node dist/golden/server.js ${port === GOLDEN_PORT ? '' : `${port} `}&\`) and run the demo`;

/** `--port N` (0: a free one, the default). */
function portOption(argv: readonly string[]): number {
  const i = argv.indexOf('--port');
  if (i < 0) return 0;
  const port = Number(argv[i + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port ${argv[i + 1] ?? ''}: give a port from 0 (a free one) to 65535`);
  return port;
}

async function main(): Promise<number> {
  const outDir = join(projectRoot(), '.demo');
  let server: RunningServer | null;
  let port: number;
  try {
    port = portOption(process.argv.slice(2));
    rmSync(outDir, { recursive: true, force: true });
    // A free port unless told: never another demo's, another checkout's or a golden server's the user started.
    server = port === 0 ? await startGoldenServer({ port: 0 }) : await serveGolden(port);
    if (!server)
      process.stdout.write(
        `port ${port} is in use: using the server already listening there (a golden server started with \`node dist/golden/server.js &\`?)\n\n`,
      );
    else port = server.port;
  } catch (err) {
    process.stderr.write(`quotecheck demo: error: cannot serve the golden sources: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    // The committed tasks' URLs carry GOLDEN_PORT: on another port the demo runs a copy whose URLs carry that one.
    const golden = goldenAtPort(port, join(outDir, 'golden'));
    if (server)
      process.stdout.write(
        `golden sources served on ${server.origin} (and 127.0.0.2, 127.0.0.3; ` +
          `the Wayback stub on ${goldenWaybackUrl(port)})\n`,
      );
    process.stdout.write(
      `${port === GOLDEN_PORT ? 'the golden tasks: golden/tasks' : `the golden tasks with their URLs on port ${port}: ${golden.tasksDir}`}\n\n`,
    );
    const runs = await evaluateGolden(outDir, server ? ownServerHint(port) : portTakenHint(port), golden);
    const oracleReports = writeEvaluationReports(runs.oracle, join(outDir, 'oracle'));
    writeEvaluationReports(runs.baseline, join(outDir, 'baseline'));
    process.stdout.write(`${table(runs)}\n\n`);
    const diagnosis = await scoreDiagnosis(golden.diagnosisDir, join(outDir, 'diagnosis'));
    process.stdout.write(
      `diagnosis of ${diagnosis.total} labelled no_match cases (golden/diagnosis):\n${diagnosisTable(diagnosis)}\n\n`,
    );
    for (const m of diagnosis.misses)
      process.stdout.write(`  ${m.id}: expected ${m.expected}, got ${m.got}: ${m.note}\n`);
    process.stdout.write(
      `tasks ran through their own solve.sh and test.sh (${runs.oracle.isolation === 'paths' ? 'container paths by QUOTECHECK_*_DIR: not root, so the agents were not isolated' : isolationSummary(runs.oracle.isolation)});\n`,
    );
    process.stdout.write(
      `open ${oracleReports.html} for every claim's evidence (the baseline's: ${join(outDir, 'baseline', 'report.html')});\n`,
    );
    process.stdout.write(
      `each task's answers: ${outDir}/{oracle,baseline}/trials/<task>/app/answers.json; the oracle's evidence report: ${outDir}/oracle/trials/<task>/logs/agent/report.jsonl\n`,
    );
    const failed = runs.oracle.tasks.filter((t) => t.reward < 1);
    if (failed.length) {
      const why = runs.oracle.advice.length ? ' (see what to check above, and the report)' : ' (see the report)';
      process.stdout.write(`ORACLE BELOW 1.000 on: ${failed.map((t) => t.task).join(', ')}${why}\n`);
      return 1;
    }
    return 0;
  } finally {
    await server?.close();
  }
}

process.exitCode = await main();
