import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Test files at once. Vitest's default is one less than the cores: one worker on a 2-core machine, though most
    // tests wait on child processes and loopback servers, not the CPU. One a core: three on 2 cores was faster still
    // (issue 26), but under load the tests with CPU-time limits (hostile.test.ts: Readability's 20 s, a run's time
    // budget; mcp-attack.test.ts's memory test) failed. `--maxWorkers N` overrides it.
    maxWorkers: Math.max(2, availableParallelism()),
    // `npm pack` (golden.test.ts) packs the dist/ the global setup built, without its prepack rebuild: rebuilding
    // dist/ (tsc rewrites every file, the bundle folder is removed and made again) under tests running at once in
    // other workers would pull their CLI and shipped builds from under them.
    env: { npm_config_ignore_scripts: 'true' },
    // The self-contained builds tasks ship (dist/bundle/), made from src/ before any test: never stale.
    globalSetup: ['test/global-setup.ts'],
  },
});
