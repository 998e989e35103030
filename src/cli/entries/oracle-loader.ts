// The oracle's loader (solution/quotecheck.mjs, scripts/bundle.ts): a task's solve.sh unpacks the packed oracle
// (quotecheck.tgz) in the background while Node.js starts this file, which waits for the unpacking to end and then
// runs the unpacked command line: the unpacking costs no start-up time (docs/datasets.md#the-oracles-build).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The variable solve.sh names the unpacked folder by. */
const UNPACKED_ENV = 'QUOTECHECK_UNPACKED';

/** The file solve.sh writes (by rename) when the unpacking has ended: the exit status of tar. */
const DONE_FILE = '.unpacked';

/** How long the unpacking may take (it takes milliseconds; a machine under load may take seconds). */
const WAIT_MS = 120_000;

/** Sleeps the thread for `ms` without spinning. */
const sleep = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const dir = process.env[UNPACKED_ENV];
if (!dir) {
  process.stderr.write(`quotecheck: ${UNPACKED_ENV} is not set: run the oracle by its solve.sh\n`);
  process.exit(2);
}
const done = join(dir, DONE_FILE);
const until = Date.now() + WAIT_MS;
while (!existsSync(done)) {
  if (Date.now() > until) {
    process.stderr.write(`quotecheck: the oracle was not unpacked into ${dir} within ${WAIT_MS / 1000} s\n`);
    process.exit(2);
  }
  sleep(1);
}
const status = readFileSync(done, 'utf8').trim();
if (status !== '0') {
  process.stderr.write(`quotecheck: unpacking the oracle into ${dir} failed (tar exit status ${status})\n`);
  process.exit(2);
}
await import(pathToFileURL(join(dir, 'quotecheck.mjs')).href);
