// Which TypeScript sources are newer than the JavaScript the suite's processes run (bin/quotecheck.js runs dist/src/, the
// demo and bench scripts dist/golden/ and dist/bench/): the global setup compiles when there are any, and a test checks.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The folders tsc -p . compiles into dist/ (tsconfig.json's include). */
export const COMPILED_FOLDERS = ['src', 'golden', 'bench', 'scripts'] as const;

/** The sources under `dir`: TypeScript, and with `mjs` the JavaScript tsc checks and copies too (src/'s `.mjs`: the task's grader). */
function tsFiles(dir: string, mjs = false): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...tsFiles(path, mjs));
    } else if ((entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) || (mjs && entry.name.endsWith('.mjs'))) {
      out.push(path);
    }
  }
  return out;
}

function mtimeOrZero(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Sources (relative to `root`) whose dist/ JavaScript is missing or older than they are. */
export function staleSources(root: string): string[] {
  const stale: string[] = [];
  for (const folder of COMPILED_FOLDERS) {
    for (const file of tsFiles(join(root, folder), folder === 'src')) {
      const rel = relative(root, file);
      const js = join(root, 'dist', rel.replace(/\.ts$/, '.js')); // a .mjs keeps its name
      if (mtimeOrZero(js) < statSync(file).mtimeMs) stale.push(rel);
    }
  }
  return stale;
}
