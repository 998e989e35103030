// npm run test:unit: the unit tests alone, for the edit-test loop. The files left out are the slow ones (their time is
// most of the suite's: browsers, containers, golden tasks, child processes, generated inputs), which `npm test` runs.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/** The test files `test:unit` leaves out, by why they are slow. */
export const SLOW_TEST_FILES = {
  /** Pages opened in headless Chromium. */
  browser: ['compare', 'report-html'],
  /** evaluate over exported tasks (a real engine's builds, namespaces, the verifier's containers) and the audit. */
  evaluate: [
    'archive-visible',
    'asof-consistency',
    'audit',
    'audit-engine',
    'bench-ideal',
    'evaluate-causes',
    'evaluate-engine',
    'evaluate-isolation',
    'evaluate-messages',
    'export-atomic',
    'export-frozen',
    'label-batches',
    'layouts',
    'readme-figures',
    'replay-base',
    'verifier',
  ],
  /** The golden tasks built and run, every task's instruction and task.toml in every variant, every shipped page against jsdom's reference. */
  golden: ['golden', 'html-identity', 'instruction-example', 'task-config'],
  /** End to end: the CLI, the MCP server and the shipped build as processes, under faults, signals, memory and CPU-time limits. */
  endToEnd: [
    'chaos',
    'hostile',
    'label-resume',
    'mcp',
    'mcp-attack',
    'mcp-load',
    'mcp-replay',
    'memory',
    'report-stream',
    'shipped',
    'startup-loads',
  ],
  /** The whole project type-checked to find who imports each export of src/ (scripts/exports.ts). */
  typeChecked: ['exports'],
  /** Generated inputs by the thousand (fast-check), and timed on large ones. */
  fuzz: ['balance', 'fuzz', 'properties'],
} as const;

export default mergeConfig(
  base,
  defineConfig({
    test: { exclude: Object.values(SLOW_TEST_FILES).flatMap((names) => names.map((name) => `test/${name}.test.ts`)) },
  }),
);
