// The run's tunable settings (what DEFAULT_OPTIONS fills in and the CLI flags set): types and their few constant lists,
// importing nothing, so defaults.ts and check.ts both depend on it and not on each other.

/** Which HTML views may make a quote verbatim (`--html-view`). PDFs and text files have one view, always used. */
export type HtmlViewChoice = 'article' | 'full' | 'any';

/** `--wayback`: when captures are looked up. */
export type WaybackMode = 'off' | 'auto' | 'always' | 'strict';

/** Every `--wayback` mode, in the order help lists them. */
export const WAYBACK_MODES: readonly WaybackMode[] = ['off', 'auto', 'always', 'strict'];

/**
 * `--report-order`: the order of a report's lines, as claims were decided (streamed) or the input's (rewritten once at
 * the end).
 */
export type ReportOrder = 'decision' | 'input';

/**
 * Every `--report-order`, in the order help lists them (here, not in report-file.ts, so that the command line's parsing
 * loads no report code).
 */
export const REPORT_ORDERS: readonly ReportOrder[] = ['decision', 'input'];

/**
 * Every setting of a run that has a default (DEFAULT_OPTIONS); CheckOptions adds the optional ones and the run's hooks.
 */
export interface RunSettings {
  htmlView: HtmlViewChoice;
  /** Requests at once, in all (fetch slots: a source waiting for a retry holds none). */
  concurrency: number;
  /** Requests at once to one host (a redirect's hop takes its own host's slot). */
  perHost: number;
  /** Per-attempt limit for one HTTP request, in milliseconds. */
  timeoutMs: number;
  retries: number;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  retryAfterCapMs: number;
  /** Time for one source's fetch, all attempts and waits included. */
  sourceBudgetMs: number;
  /**
   * Reach private networks too (`--allow-private`): loopback, RFC 1918, link-local, unique-local and every
   * address that is not global unicast (src/fetch/guard.ts). Off by default: claims' URLs come from strangers.
   */
  allowPrivate: boolean;
  backoffMinMs: number;
  backoffMaxMs: number;
  /** Time limit for extracting one source (pdftotext, or the HTML parser and Readability in a worker). */
  extractTimeoutMs: number;
  /** When Wayback captures are looked up (docs/sources-change.md#when-the-archive-is-asked). */
  wayback: WaybackMode;
  /** The Wayback Machine's base URL (the loopback Wayback stub in tests). */
  waybackUrl: string;
  /** Requests a minute to the Wayback Machine. */
  waybackPerMinute: number;
  /** Longest Retry-After the Wayback Machine may ask for before it is left alone for the run. */
  waybackMaxWaitMs: number;
}
