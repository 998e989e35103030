// `npm run demo`: serve the golden sources on loopback, run the oracle and the baseline on every golden task
// through its own solve.sh and test.sh, print the scoreboard and the diagnosis confusion matrix.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeBenchReports } from '../src/harbor/reports.js';
import { benchGolden, diagnosisTable, scoreDiagnosis, table } from './scoreboard.js';
import { GOLDEN_WAYBACK_URL, goldenDir, projectRoot, startGoldenServer } from './server.js';

async function main(): Promise<number> {
  const outDir = join(projectRoot(), '.demo');
  rmSync(outDir, { recursive: true, force: true });
  const server = await startGoldenServer();
  process.stdout.write(`golden sources served on ${server.origin} (and 127.0.0.2, 127.0.0.3; the Wayback stand-in on ${GOLDEN_WAYBACK_URL})\n\n`);
  try {
    const bench = await benchGolden(outDir);
    const oracleReports = writeBenchReports(bench.oracle, join(outDir, 'oracle'));
    writeBenchReports(bench.baseline, join(outDir, 'baseline'));
    process.stdout.write(`${table(bench)}\n\n`);
    const diagnosis = await scoreDiagnosis(join(goldenDir(), 'diagnosis'), join(outDir, 'diagnosis'));
    process.stdout.write(`diagnosis of ${diagnosis.total} labelled no_match cases (golden/diagnosis):\n${diagnosisTable(diagnosis)}\n\n`);
    for (const m of diagnosis.misses) process.stdout.write(`  ${m.id}: expected ${m.expected}, got ${m.got}: ${m.note}\n`);
    process.stdout.write(`tasks ran through their own solve.sh and test.sh (${bench.oracle.isolation === 'namespace' ? 'container paths bind-mounted' : 'container paths by QUOTECHECK_*_DIR'});\n`);
    process.stdout.write(`open ${oracleReports.html} for every claim's evidence; trials in ${outDir}/{oracle,baseline}/trials/\n`);
    const failed = bench.oracle.tasks.filter((t) => t.reward < 1);
    if (failed.length) {
      process.stdout.write(`ORACLE BELOW 1.000 on: ${failed.map((t) => t.task).join(', ')} (see the report)\n`);
      return 1;
    }
    return 0;
  } finally {
    await server.close();
  }
}

process.exitCode = await main();
