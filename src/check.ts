// The pipeline: claims -> sources (each URL fetched once) -> texts -> matches -> one result per claim.
import { Agent } from 'undici';
import type { Claim, ClaimEntry } from './claims.js';
import { ExtractError, extractSource, type SourceText } from './extract/index.js';
import { FetchLimits, fetchSource, type FetchSettings, type SourceOutcome } from './fetch/index.js';
import { guardedLookup } from './fetch/guard.js';
import { findQuote, normalizeViews, textQuoteSelector, type HtmlViewChoice, type Match, type NormalizedView, type TextQuoteSelector } from './match.js';
import { normalize } from './normalize.js';
import type { Label } from './answers.js';
import { diagnose, type Diagnosis, type Nearest } from './diagnose/index.js';
import { DEFAULT_OPTIONS } from './defaults.js';

export { DEFAULT_OPTIONS, VERSION } from './defaults.js';

export interface CheckOptions {
  htmlView: HtmlViewChoice;
  /** Sources fetched at once, in all. */
  concurrency: number;
  /** Sources fetched at once from one host. */
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
  /** Refuse private-network targets (loopback, RFC 1918, link-local, ...), for hosted use. */
  blockPrivate: boolean;
  backoffMinMs: number;
  backoffMaxMs: number;
  /** Time limit for extracting one source (pdftotext, or the HTML parser and Readability in a worker). */
  extractTimeoutMs: number;
  /** pdftotext executable (default: from PATH). */
  pdftotext?: string;
  /** Stops the run: claims not decided by then are answered `no_match`. */
  signal?: AbortSignal;
  /** Called as each claim is decided (in decision order). */
  onResult?: (result: ClaimResult) => void;
  /** Called as each source is settled (fetched and extracted, or failed). */
  onSource?: (source: SourceRecord) => void;
}

/** What happened to one source, shared by every claim that cites it. */
export interface SourceRecord {
  url: string;
  fetch: SourceOutcome;
  text?: SourceText;
  views?: NormalizedView[];
  extractError?: ExtractError;
}

export interface ClaimResult {
  id: string;
  index: number;
  label: Label;
  diagnosis: Diagnosis;
  url?: string;
  quote?: string;
  finalUrl?: string;
  httpStatus?: number;
  contentType?: string;
  sourceSha256?: string;
  charset?: string;
  extractor?: string;
  match: Match | null;
  /** For a verbatim claim: the match as a W3C TextQuoteSelector over the page's own text. */
  selector?: TextQuoteSelector;
  /** For a no_match claim with text: the closest span of the source and its similarity. */
  nearest?: Nearest | null;
  note?: string;
  /** Time spent on this claim's source, match and diagnosis, in milliseconds. */
  ms: number;
}

export interface CheckRun {
  /** One result per claim, in input order. */
  results: ClaimResult[];
  sources: SourceRecord[];
  /** Why the run ended early, if it did: claims not decided were answered `no_match`. */
  stopped?: string;
  ms: number;
}

function resultFor(claim: Claim, source: SourceRecord, choice: HtmlViewChoice, sourceMs: number): ClaimResult {
  const t0 = performance.now();
  const { fetch, text, views } = source;
  const quote = normalize(claim.quote);
  const match = views ? findQuote(quote, views, choice) : null;
  const label: Label = match ? 'verbatim' : 'no_match';
  let selector: TextQuoteSelector | undefined;
  if (match && text && views) {
    const i = views.findIndex((v) => v.name === match.view);
    selector = textQuoteSelector(text.views[i]!, views[i]!.text, match);
  }
  let diagnosed: ReturnType<typeof diagnose>;
  try {
    diagnosed = diagnose({ label, quote, source, match, htmlView: choice });
  } catch (err) {
    // A fault in the diagnosis must not cost the claim its label, nor the run its other claims.
    diagnosed = { diagnosis: label === 'verbatim' ? 'verbatim' : 'not_found', note: `diagnosis failed (a quotecheck bug; the label stands): ${(err as Error).message}`, nearest: null };
  }
  const { diagnosis, note, nearest } = diagnosed;
  return {
    id: claim.id,
    index: claim.index,
    label,
    diagnosis,
    url: claim.url,
    quote: claim.quote,
    finalUrl: fetch.finalUrl,
    httpStatus: fetch.status,
    contentType: fetch.contentType,
    sourceSha256: fetch.ok ? fetch.sha256 : undefined,
    charset: text?.charset,
    extractor: match?.extractor ?? (nearest ? views?.find((v) => v.name === nearest.view)?.extractor : undefined) ?? text?.views[0]?.extractor,
    match,
    selector,
    nearest,
    // A verbatim claim has no diagnosis note; the source may still have one (no article view, and why).
    note: note ?? text?.note,
    ms: sourceMs + Math.round(performance.now() - t0),
  };
}

function undecided(entry: ClaimEntry, why: string): ClaimResult {
  return {
    id: entry.id,
    index: entry.index,
    label: 'no_match',
    diagnosis: 'fetch_failed',
    url: entry.url,
    quote: entry.kind === 'claim' ? entry.quote : undefined,
    match: null,
    note: `not decided: ${why}`,
    ms: 0,
  };
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : 'stopped';
}

/**
 * Checks every claim. Never throws for a bad source: each claim gets a result. When
 * `options.signal` aborts, the run returns at once with the claims not yet decided
 * answered `no_match`.
 */
export async function checkClaims(entries: readonly ClaimEntry[], opts: Partial<CheckOptions> = {}): Promise<CheckRun> {
  const options: CheckOptions = { ...DEFAULT_OPTIONS, ...opts };
  const started = performance.now();
  const results = new Array<ClaimResult | undefined>(entries.length);
  const sources: SourceRecord[] = [];
  const decide = (r: ClaimResult): void => {
    results[r.index] = r;
    options.onResult?.(r);
  };

  const groups = new Map<string, Claim[]>();
  for (const entry of entries) {
    if (entry.kind === 'invalid') {
      decide({
        id: entry.id,
        index: entry.index,
        label: 'no_match',
        diagnosis: 'invalid_claim',
        url: entry.url,
        match: null,
        note: entry.problems.join('; '),
        ms: 0,
      });
      continue;
    }
    const group = groups.get(entry.fetchUrl);
    if (group) group.push(entry);
    else groups.set(entry.fetchUrl, [entry]);
  }

  const dispatcher = new Agent({
    connections: options.perHost * 2,
    keepAliveTimeout: 4_000,
    ...(options.blockPrivate ? { connect: { lookup: guardedLookup } } : {}),
  });
  const settings: FetchSettings = {
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    maxRedirects: options.maxRedirects,
    userAgent: options.userAgent,
    retries: options.retries,
    backoffMinMs: options.backoffMinMs,
    backoffMaxMs: options.backoffMaxMs,
    retryAfterCapMs: options.retryAfterCapMs,
    budgetMs: options.sourceBudgetMs,
    blockPrivate: options.blockPrivate,
    dispatcher,
  };
  const limits = new FetchLimits(options.concurrency, options.perHost);

  const processSource = async (url: string, claims: Claim[]): Promise<void> => {
    const t0 = performance.now();
    const fetched = await limits.run(url, () => fetchSource(url, settings, options.signal));
    const record: SourceRecord = { url, fetch: fetched };
    if (fetched.ok && !options.signal?.aborted) {
      try {
        // Extraction bounds its own CPU work: HTML workers and pdftotext processes, one of each per core.
        record.text = await extractSource(
          { body: fetched.body, contentType: fetched.contentType, url: fetched.finalUrl },
          { timeoutMs: options.extractTimeoutMs, pdftotext: options.pdftotext, signal: options.signal },
        );
        record.views = normalizeViews(record.text.views);
      } catch (err) {
        record.extractError = err instanceof ExtractError ? err : new ExtractError('failed', `extraction failed: ${(err as Error).message}`, { cause: err });
      }
    }
    if (options.signal?.aborted) return; // the stop path answers these claims
    sources.push(record);
    options.onSource?.(record);
    const ms = Math.round(performance.now() - t0);
    for (const claim of claims) decide(resultFor(claim, record, options.htmlView, ms));
  };

  const all = Promise.all([...groups].map(([url, claims]) => processSource(url, claims)));
  all.catch(() => {}); // after a stop nobody awaits it; a late failure must not surface as unhandled
  try {
    if (options.signal) {
      const signal = options.signal;
      await Promise.race([
        all,
        new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          signal.addEventListener('abort', () => resolve(), { once: true });
        }),
      ]);
    } else {
      await all;
    }
  } finally {
    // Do not wait for in-flight work when stopping: close sockets in the background.
    void dispatcher.destroy().catch(() => {});
  }

  const stopped = options.signal?.aborted ? abortReason(options.signal) : undefined;
  const final = entries.map((entry, i) => results[i] ?? undecided(entry, stopped ?? 'run ended'));
  return { results: final, sources, stopped, ms: Math.round(performance.now() - started) };
}
