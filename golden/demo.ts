// `npm run demo`: serve the golden sources on loopback, run the oracle and the baseline on every golden task, print the scoreboard.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { diagnosisTable, scoreAll, scoreDiagnosis, table } from './scoreboard.js';
import { goldenDir, projectRoot, startGoldenServer } from './server.js';

async function main(): Promise<number> {
  const outDir = join(projectRoot(), '.demo');
  rmSync(outDir, { recursive: true, force: true });
  const server = await startGoldenServer();
  process.stdout.write(`golden sources served on ${server.origin} (and 127.0.0.2, 127.0.0.3)\n\n`);
  try {
    const scores = await scoreAll(join(goldenDir(), 'tasks'), outDir);
    process.stdout.write(`${table(scores)}\n\n`);
    const diagnosis = await scoreDiagnosis(join(goldenDir(), 'diagnosis'), join(outDir, 'diagnosis'));
    process.stdout.write(`diagnosis of ${diagnosis.total} labelled no_match cases (golden/diagnosis):\n${diagnosisTable(diagnosis)}\n\n`);
    for (const m of diagnosis.misses) process.stdout.write(`  ${m.id}: expected ${m.expected}, got ${m.got}: ${m.note}\n`);
    process.stdout.write(`answers and evidence reports: ${outDir}/<task>/{answers.json,baseline.json,report.jsonl}\n`);
    const failed = scores.filter((s) => s.oracle < 1);
    if (failed.length) {
      process.stdout.write(`ORACLE BELOW 1.000 on: ${failed.map((s) => s.task).join(', ')} (see the reports)\n`);
      return 1;
    }
    return 0;
  } finally {
    await server.close();
  }
}

process.exitCode = await main();
