// Before the suite: the JavaScript the suite's processes run compiled from src/ when a source is newer (a single-file run
// after an edit tests the edited code), and the self-contained builds a task ships (scripts/bundle.ts), made from src/
// itself, so that tests of the oracle, the grader and the WARC reader never run a stale build; the golden tasks get theirs.
//
// Two runs may start at once in one checkout (two terminals, an editor's runner): all of it holds the checkout's build
// lock (scripts/bundle.ts withBuildLock), the second run finds everything up to date and writes nothing, and whatever is
// written replaces a file by a rename (tsc's output too), so a run already testing never reads a file half written.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { buildBundles, bundlesUpToDate, withBuildLock } from '../scripts/bundle.js';
import { installGoldenShipped } from '../golden/lib/tasks.js';
import { staleSources } from './support/compiled.js';

const ROOT = resolve(import.meta.dirname, '..');

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, join(rel, e.name)) : [join(rel, e.name)],
  );
}

/**
 * tsc -p . when dist/ is behind src/: type errors stop the suite here, with tsc's own messages. tsc writes into a
 * folder of its own beside dist/ (as deep, so the source maps' relative paths hold), then each file is renamed over its
 * old self in dist/.
 */
function compileIfStale(): void {
  const stale = staleSources(ROOT);
  if (stale.length === 0) return;
  process.stderr.write(
    `global setup: ${stale.length} source file(s) newer than dist/ (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', ...' : ''}): compiling (tsc -p .)\n`,
  );
  const dist = join(ROOT, 'dist');
  mkdirSync(dist, { recursive: true });
  const staging = mkdtempSync(join(ROOT, '.dist-tsc-'));
  try {
    try {
      execFileSync(
        process.execPath,
        [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', ROOT, '--outDir', staging],
        {
          cwd: ROOT,
          stdio: ['ignore', 'inherit', 'inherit'],
        },
      );
    } catch {
      throw new Error('global setup: tsc -p . failed (its errors are above): the suite would test stale code');
    }
    for (const file of filesUnder(staging)) {
      mkdirSync(dirname(join(dist, file)), { recursive: true });
      renameSync(join(staging, file), join(dist, file));
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export default async function setup(): Promise<void> {
  await withBuildLock(
    ROOT,
    async () => {
      compileIfStale();
      if (!bundlesUpToDate(ROOT)) await buildBundles(ROOT);
      installGoldenShipped();
    },
    (line) => process.stderr.write(`global setup: ${line}\n`),
  );
}
