// Defaults and version: what the CLI needs before it loads any pipeline code.
import type { RunSettings } from './settings.js';

export const VERSION = '0.1.0';

/** The environment variable that makes `run` (and `verify`) replay a WARC file, so an unchanged solve.sh can run offline. */
export const REPLAY_ENV = 'QUOTECHECK_REPLAY';

export const DEFAULT_OPTIONS: Readonly<RunSettings> = {
  htmlView: 'any',
  concurrency: 16,
  perHost: 2,
  timeoutMs: 30_000,
  retries: 3,
  maxBytes: 50 * 1024 * 1024,
  maxRedirects: 10,
  userAgent: `quotecheck/${VERSION} (quote verification for benchmarks; +https://www.npmjs.com/package/quotecheck)`,
  retryAfterCapMs: 30_000,
  sourceBudgetMs: 120_000,
  allowPrivate: false,
  backoffMinMs: 500,
  backoffMaxMs: 8_000,
  extractTimeoutMs: 60_000,
  wayback: 'auto',
  waybackUrl: 'https://web.archive.org',
  // The Internet Archive's guidance for API clients: about 15 requests a minute.
  waybackPerMinute: 15,
  waybackMaxWaitMs: 120_000,
};
