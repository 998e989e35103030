// Before the suite: the JavaScript the suite's processes run compiled from src/ when a source is newer (a single-file run
// after an edit tests the edited code), and the self-contained builds a task ships (scripts/bundle.ts), made from src/
// itself, so that tests of the oracle, the grader and the WARC reader never run a stale build; the golden tasks get theirs.
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { buildBundles } from '../scripts/bundle.js';
import { installGoldenShipped } from '../golden/lib/tasks.js';
import { staleSources } from './compiled.js';

const ROOT = resolve(import.meta.dirname, '..');

/** tsc -p . when dist/ is behind src/: type errors stop the suite here, with tsc's own messages. */
function compileIfStale(): void {
  const stale = staleSources(ROOT);
  if (stale.length === 0) return;
  process.stderr.write(`global setup: ${stale.length} source file(s) newer than dist/ (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', ...' : ''}): compiling (tsc -p .)\n`);
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', ROOT], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    throw new Error('global setup: tsc -p . failed (its errors are above): the suite would test stale code');
  }
}

export default async function setup(): Promise<void> {
  compileIfStale();
  await buildBundles();
  installGoldenShipped();
}
