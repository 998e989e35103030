// The suite tests the code as it is (no source newer than the JavaScript its processes run: the global setup compiles
// what staleSources names), and one version everywhere.
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { VERSION } from '../../src/config/defaults.js';
import { expect, test } from 'vitest';
import { COMPILED_FOLDERS, staleSources } from '../support/compiled.js';
import { tempDir } from '../support/helpers.js';

test('staleSources names every source whose dist/ JavaScript is missing or older, and only those: what the global setup compiles', () => {
  const root = tempDir();
  const file = (rel: string, mtimeSec: number) => {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '');
    utimesSync(path, mtimeSec, mtimeSec);
  };
  for (const folder of COMPILED_FOLDERS) mkdirSync(join(root, folder), { recursive: true });
  file('src/fresh.ts', 1000);
  file('dist/src/fresh.js', 2000);
  file('src/edited.ts', 3000);
  file('dist/src/edited.js', 2000);
  file('src/never-built.ts', 1000);
  file('golden/deep/edited.ts', 3000);
  file('dist/golden/deep/edited.js', 2000);
  file('src/grader/grade.mjs', 3000); // src/'s JavaScript, copied by tsc: the task's grader
  file('dist/src/grader/grade.mjs', 2000);
  file('golden/copied.mjs', 3000); // outside src/ tsc leaves it alone: never stale
  file('src/vendor.d.ts', 3000); // declarations compile to nothing
  file('bench/node_modules/dep/index.ts', 3000);
  expect(staleSources(root).sort()).toEqual([
    'golden/deep/edited.ts',
    'src/edited.ts',
    'src/grader/grade.mjs',
    'src/never-built.ts',
  ]);
});

test("VERSION (what --version, the User-Agent and the WARC records say) is package.json's version", () => {
  const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  expect(VERSION).toBe(pkg.version);
});
