// The task's grader (tests/grade.mjs, built by scripts/bundle.ts): `node grade.mjs --answers FILE --gold FILE --logs DIR`.
// It writes DIR/reward.txt whatever happens (0 until the grade is known) and prints the grade or the reason for 0.
// Node's own modules only: test.sh runs it by absolute path under `env -i`, trusting nothing but the runtime.
import { parseArgs } from 'node:util';
import { verify } from './verifier.js';

function main(argv: string[]): number {
  let values: { answers?: string; gold?: string; logs?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { answers: { type: 'string' }, gold: { type: 'string' }, logs: { type: 'string' } }, strict: true }));
  } catch (err) {
    process.stderr.write(`grade: ${(err as Error).message}\n`);
    return 2;
  }
  const { answers, gold, logs } = values;
  if (!answers || !gold || !logs) {
    process.stderr.write('usage: grade.mjs --answers FILE --gold FILE --logs DIR\n');
    return 2;
  }
  const verdict = verify({ answers, gold, logsDir: logs });
  process.stdout.write(`${verdict.text}\n`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  // The gold file or the log folder failed us: the task's fault, said plainly; test.sh keeps the reward at 0.
  process.stderr.write(`grade: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
