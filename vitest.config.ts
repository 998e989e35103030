import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // The self-contained builds tasks ship (dist/bundle/), made from src/ before any test: never stale.
    globalSetup: ['test/global-setup.ts'],
  },
});
