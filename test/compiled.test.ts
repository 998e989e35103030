// The suite tests the code as it is: no source is newer than the JavaScript its processes run (the global setup compiles).
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { staleSources } from './compiled.js';

test('dist/ is not behind src/, golden/, bench/ or scripts/: the CLI and the HTML worker the tests spawn run the edited code', () => {
  expect(staleSources(resolve(import.meta.dirname, '..'))).toEqual([]);
});
