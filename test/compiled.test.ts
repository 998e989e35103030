// The suite tests the code as it is (no source newer than the JavaScript its processes run: the global setup compiles), and one version everywhere.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { VERSION } from '../src/defaults.js';
import { expect, test } from 'vitest';
import { staleSources } from './support/compiled.js';

test('dist/ is not behind src/, golden/, bench/ or scripts/: the CLI and the HTML worker the tests spawn run the edited code', () => {
  expect(staleSources(resolve(import.meta.dirname, '..'))).toEqual([]);
});

test("VERSION (what --version, the User-Agent and the WARC records say) is package.json's version", () => {
  const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string };
  expect(VERSION).toBe(pkg.version);
});
