// `npm run demo`: serve the golden sources on loopback, run the oracle and the baseline on every golden task
// through its own solve.sh and test.sh, print the scoreboard and the diagnosis confusion matrix.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeBenchReports } from '../src/harbor/reports.js';
import { benchGolden, diagnosisTable, scoreDiagnosis, serveGolden, table } from './scoreboard.js';
import { GOLDEN_PORT, GOLDEN_WAYBACK_URL, goldenDir, projectRoot, type RunningServer } from './server.js';

/** What to check when every source of a task failed although the demo serves them itself. */
const OWN_SERVER_HINT = `the demo serves the golden sources itself on 127.0.0.1:${GOLDEN_PORT}: is a firewall or a proxy (HTTP_PROXY, NO_PROXY) in the way of loopback connections?`;
/** ... and when it could not, because the port was taken. */
const PORT_TAKEN_HINT = `port ${GOLDEN_PORT} was taken, so the demo used whatever listens there: stop it and run the demo again, or start the golden server yourself (\`node dist/golden/server.js &\`) and run the demo`;

async function main(): Promise<number> {
  const outDir = join(projectRoot(), '.demo');
  rmSync(outDir, { recursive: true, force: true });
  let server: RunningServer | null;
  try {
    server = await serveGolden();
    if (!server) process.stdout.write(`port ${GOLDEN_PORT} is in use: using the server already listening there (a golden server started with \`node dist/golden/server.js &\`?)\n\n`);
  } catch (err) {
    process.stderr.write(`quotecheck demo: error: cannot serve the golden sources: ${(err as Error).message}\n`);
    return 1;
  }
  if (server) process.stdout.write(`golden sources served on ${server.origin} (and 127.0.0.2, 127.0.0.3; the Wayback stand-in on ${GOLDEN_WAYBACK_URL})\n\n`);
  try {
    const bench = await benchGolden(outDir, server ? OWN_SERVER_HINT : PORT_TAKEN_HINT);
    const oracleReports = writeBenchReports(bench.oracle, join(outDir, 'oracle'));
    writeBenchReports(bench.baseline, join(outDir, 'baseline'));
    process.stdout.write(`${table(bench)}\n\n`);
    const diagnosis = await scoreDiagnosis(join(goldenDir(), 'diagnosis'), join(outDir, 'diagnosis'));
    process.stdout.write(`diagnosis of ${diagnosis.total} labelled no_match cases (golden/diagnosis):\n${diagnosisTable(diagnosis)}\n\n`);
    for (const m of diagnosis.misses) process.stdout.write(`  ${m.id}: expected ${m.expected}, got ${m.got}: ${m.note}\n`);
    process.stdout.write(`tasks ran through their own solve.sh and test.sh (${bench.oracle.isolation === 'namespace' ? 'each phase in its own mount and PID namespaces, container paths bind-mounted, golden/ hidden from the agents' : 'container paths by QUOTECHECK_*_DIR: not root, so the agents were not isolated'});\n`);
    process.stdout.write(`open ${oracleReports.html} for every claim's evidence (the baseline's: ${join(outDir, 'baseline', 'report.html')});\n`);
    process.stdout.write(`each task's answers: ${outDir}/{oracle,baseline}/trials/<task>/app/answers.json; the oracle's evidence report: ${outDir}/oracle/trials/<task>/logs/agent/report.jsonl\n`);
    const failed = bench.oracle.tasks.filter((t) => t.reward < 1);
    if (failed.length) {
      const why = bench.oracle.advice.length ? ' (see what to check above, and the report)' : ' (see the report)';
      process.stdout.write(`ORACLE BELOW 1.000 on: ${failed.map((t) => t.task).join(', ')}${why}\n`);
      return 1;
    }
    return 0;
  } finally {
    await server?.close();
  }
}

process.exitCode = await main();
