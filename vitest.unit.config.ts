// npm run test:unit: the unit tests alone, for the edit-test loop, chosen by folder: every test/<room>/ folder (the
// rooms of src/ and the house rules, test/house/) holds fast tests of its parts. The files at test/ itself are the slow
// ones (their time is most of the suite's: browsers, containers, golden tasks, child processes, generated inputs),
// which `npm test` runs with the rest.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// Not mergeConfig: it would add this include to the base's (every test) instead of replacing it.
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/*/**/*.test.ts'], exclude: ['test/support/**', 'test/fixtures/**'] },
});
