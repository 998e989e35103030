// Every default in one place: the run's (DEFAULT_OPTIONS), and what the CLI and the MCP server add; the version. Loads
// nothing, so --help costs nothing.
import type { RunSettings } from './settings.js';

export const VERSION = '0.1.0';

/**
 * The environment variable that makes `run` (and `verify`) replay a WARC file, so an unchanged solve.sh can run
 * offline.
 */
export const REPLAY_ENV = 'QUOTECHECK_REPLAY';

/**
 * The User-Agent a run sends unless told otherwise: the product and its version, and a comment saying what it does
 * (RFC 9110 §10.1.5: product tokens, then comments). No URL: quotecheck has no public page (it is not on the npm
 * registry), and a crawler should point a site's operator only at a page that exists. Whoever runs it at scale adds
 * their own contact with --user-agent, as crawlers do with "+URL" (docs/cli.md, `quotecheck run`).
 */
export const DEFAULT_USER_AGENT = `quotecheck/${VERSION} (automated quote verification for benchmarks)`;

export const DEFAULT_OPTIONS: Readonly<RunSettings> = {
  htmlView: 'any',
  /**
   * Requests at once, in all: a run's first requests are out as early as its hosts' limits let them (eight hosts at
   * four each), so a source whose server asks it to wait starts waiting early (docs/performance.md#the-bound).
   */
  concurrency: 32,
  /**
   * Requests at once to one host. HTTP sets no number (RFC 9112 §9.4 asks a client to be conservative; RFC 2616's two
   * was dropped as impractical); browsers open six, Scrapy eight. Four, halved while the host answers 429 or 503
   * without a Retry-After and restored one at a time as it answers again (fetch/slots.ts).
   */
  perHost: 4,
  timeoutMs: 30_000,
  retries: 3,
  maxBytes: 50 * 1024 * 1024,
  maxRedirects: 10,
  userAgent: DEFAULT_USER_AGENT,
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

/** What the command line adds to DEFAULT_OPTIONS: settings of the commands, not of a run. */
export const CLI_DEFAULTS = {
  /**
   * `run --max-claims-mb`: the largest claims file read (claims-file.ts DEFAULT_MAX_CLAIMS_BYTES); about 250,000
   * claims.
   */
  maxClaimsMb: 64,
  /** `export --per-task`: about ten claims a task, as the golden tasks have. */
  perTask: 10,
} as const;

/** What the MCP server adds to DEFAULT_OPTIONS (`quotecheck mcp`). */
export const MCP_DEFAULTS = {
  /** `--cache-mb`: room for a few dozen PDFs and pages in one agent session. */
  cacheMb: 256,
  /** `--work-mb`: pages worked on at once, in megabytes of their bodies (bench/mcp-load.ts measured the bound). */
  workMb: 16,
  /** `--call-timeout`: the longest one tool call may take, in seconds. */
  callTimeoutSeconds: 300,
} as const;

/** The WARC file `run` and `verify` replay when no --replay is given: $QUOTECHECK_REPLAY, when set and not empty. */
export function replayFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return env[REPLAY_ENV] || undefined;
}
