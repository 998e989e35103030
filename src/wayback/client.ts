// The Wayback Machine client: captures of a URL near a date (CDX) and their raw bytes, paced, cached, and abandoned
// politely.
import { FetchError } from '../fetch/errors.js';
import { requestOnce, type RequestSettings } from '../fetch/request.js';
import { SourceCookies } from '../fetch/cookies.js';
import { fetchedSource, type FetchedSource } from '../fetch/source.js';
import { cdxQueryUrl, parseCdxJson, type AsOfDate, type CdxError, type CaptureRef } from './cdx.js';
import { Pacer, PaceError } from './pace.js';

/** Captures listed at or before the date: the few nearest, among which one may prove itself by its hash. */
const CAPTURES_LISTED = 5;
/** 429s in a row after which the archive is left alone for the rest of the run. */
const MAX_RATE_LIMITED = 3;
/** Failures in a row (5xx, network) after which the archive is taken to be down for this run. */
const MAX_FAILURES = 4;
/** How long a 429 without Retry-After pauses the client. */
const DEFAULT_PAUSE_MS = 30_000;

export interface WaybackOptions {
  /** `https://web.archive.org`, or another (the loopback Wayback stub in tests). */
  base: string;
  /** Requests a minute to the archive (all kinds together); Infinity when replaying. */
  perMinute: number;
  /** Per-request settings (timeout, size cap, dispatcher): the same HTTP stack as sources. */
  request: RequestSettings;
  /** Longest Retry-After honoured; the archive asking for more is left alone for the run. */
  maxWaitMs: number;
  /** The run's stop signal. */
  signal?: AbortSignal;
  /** No wait for the archive may end after this instant (epoch ms): the run's --deadline. */
  deadlineAt?: number;
  /** Told what the archive is doing whenever it changes (a request queued, sent or answered): for progress. */
  onActivity?: (activity: ArchiveActivity) => void;
}

/**
 * What the archive is doing now, for progress: requests sent, those waiting for their paced slot, and when the next
 * goes.
 */
export interface ArchiveActivity {
  /** CDX lookups begun (one per URL and date). */
  lookups: number;
  /** Requests sent so far, retries included. */
  requests: number;
  /** Requests waiting for their slot of the pacer. */
  queued: number;
  /** When the first of them is sent (epoch ms); undefined when none waits. */
  nextAt?: number;
  /** Why the archive was left alone for the rest of the run, if it was. */
  abandoned?: string;
}

/** Why the archive could not answer: `abandoned` for the whole run, `failed` for this request only. */
export class WaybackError extends Error {
  override readonly name = 'WaybackError';
  constructor(
    message: string,
    readonly kind: 'abandoned' | 'failed' | 'stopped',
  ) {
    super(message);
  }
}

interface CaptureListing {
  /** Captures with status 200 at or before the date, newest first (at most CAPTURES_LISTED). */
  before: CaptureRef[];
  /** When there are none: the earliest capture after the date, if any. */
  after?: CaptureRef;
}

export interface WaybackStats {
  /** CDX lookups (one per URL and date). */
  lookups: number;
  /** Every request sent to the archive, retries included. */
  requests: number;
  /** Captures whose bytes were fetched. */
  captures: number;
  /** 429 answers. */
  rateLimited: number;
  /** Why the archive was left alone for the rest of the run, if it was. */
  abandoned?: string;
}

/**
 * One client per run. Every request waits for a slot of the shared pacer; a 429 pauses all of
 * them for its Retry-After; repeated 429s (or an archive that keeps failing) end the client's
 * use for the run, and every later call fails at once with the reason. Lookups and capture
 * bytes are cached, so a URL and date is looked up once however many claims need it.
 */
export class WaybackClient {
  readonly stats: WaybackStats = { lookups: 0, requests: 0, captures: 0, rateLimited: 0 };
  private readonly pacer: Pacer;
  /** Lookups by URL, then by date (`end14`). */
  private readonly listings = new Map<string, Map<string, Promise<CaptureListing>>>();
  private readonly bodies = new Map<string, Promise<FetchedSource>>();
  private rateLimitedInARow = 0;
  private failuresInARow = 0;

  constructor(private readonly options: WaybackOptions) {
    this.pacer = new Pacer(options.perMinute, options.deadlineAt, () => this.tell());
  }

  /** What the archive is doing now (also passed to `onActivity` as it changes). */
  get activity(): ArchiveActivity {
    const { lookups, requests, abandoned } = this.stats;
    const nextAt = this.pacer.nextAt;
    return {
      lookups,
      requests,
      queued: this.pacer.queued,
      ...(nextAt !== undefined ? { nextAt } : {}),
      ...(abandoned !== undefined ? { abandoned } : {}),
    };
  }

  private tell(): void {
    this.options.onActivity?.(this.activity);
  }

  get abandoned(): string | undefined {
    return this.stats.abandoned;
  }

  /** The captures of `url` nearest `asOf` (latest at or before; else the earliest after). Cached per URL and date. */
  captures(url: string, asOf: AsOfDate): Promise<CaptureListing> {
    let byDate = this.listings.get(url);
    if (!byDate) {
      byDate = new Map();
      this.listings.set(url, byDate);
    }
    let listing = byDate.get(asOf.end14);
    if (!listing) {
      listing = this.lookup(url, asOf);
      byDate.set(asOf.end14, listing);
    }
    return listing;
  }

  /** Drops what is cached for `url` (its lookups) and for the captures named: nothing will ask for them again. */
  forget(url: string, captureRawUrls: Iterable<string>): void {
    this.listings.delete(url);
    for (const raw of captureRawUrls) this.bodies.delete(raw);
  }

  /** URLs with cached lookups and captures with cached bytes: what the client holds now. */
  get cached(): { urls: number; captures: number } {
    return { urls: this.listings.size, captures: this.bodies.size };
  }

  /** A capture's raw bytes (`id_`), fetched once per capture. */
  fetchCapture(capture: CaptureRef): Promise<FetchedSource> {
    let body = this.bodies.get(capture.rawUrl);
    if (!body) {
      body = this.download(capture);
      this.bodies.set(capture.rawUrl, body);
    }
    return body;
  }

  private async lookup(url: string, asOf: AsOfDate): Promise<CaptureListing> {
    this.stats.lookups++;
    const before = await this.list(cdxQueryUrl(this.options.base, url, asOf, CAPTURES_LISTED), false);
    if (before.length > 0) return { before };
    const [after] = await this.list(cdxQueryUrl(this.options.base, url, asOf, 1, true), true);
    return { before, after };
  }

  private async list(query: string, after: boolean): Promise<CaptureRef[]> {
    const res = await this.get(query);
    try {
      return parseCdxJson(res.body.toString('utf8'), this.options.base, after);
    } catch (err) {
      throw new WaybackError(
        `the Wayback Machine's CDX answer could not be read: ${(err as CdxError).message}`,
        'failed',
      );
    }
  }

  private async download(capture: CaptureRef): Promise<FetchedSource> {
    const started = performance.now();
    const res = await this.get(capture.rawUrl);
    this.stats.captures++;
    return fetchedSource(capture.rawUrl, res, 1, started);
  }

  /** One GET through the pacer, with the archive's etiquette: Retry-After honoured, repeated refusals end its use. */
  private async get(url: string): Promise<Awaited<ReturnType<typeof requestOnce>>> {
    // The archive's agent trusts its origin whatever its address (src/check.ts): only requests built from the base go
    // there.
    if (new URL(url).origin !== new URL(this.options.base).origin)
      throw new WaybackError(
        `refused: ${url} is not on the archive's origin ${new URL(this.options.base).origin}`,
        'failed',
      );
    for (;;) {
      if (this.stats.abandoned) throw new WaybackError(this.stats.abandoned, 'abandoned');
      if (this.options.signal?.aborted) throw new WaybackError('the run was stopped', 'stopped');
      try {
        await this.pacer.slot(this.options.signal);
      } catch (err) {
        if (err instanceof PaceError) throw this.abandon(`Wayback Machine left alone: ${err.message}`);
        throw new WaybackError('the run was stopped', 'stopped');
      }
      this.stats.requests++;
      this.tell();
      try {
        const res = await requestOnce(url, new SourceCookies(), this.options.request, this.options.signal);
        this.rateLimitedInARow = 0;
        this.failuresInARow = 0;
        return res;
      } catch (err) {
        const e = err instanceof FetchError ? err : new FetchError(String(err), { kind: 'other' });
        if (e.kind === 'aborted' || this.options.signal?.aborted)
          throw new WaybackError('the run was stopped', 'stopped');
        if (e.status === 429) {
          this.stats.rateLimited++;
          this.rateLimitedInARow++;
          if (this.rateLimitedInARow >= MAX_RATE_LIMITED) {
            throw this.abandon(
              `Wayback Machine left alone for the rest of the run after ${this.rateLimitedInARow} rate-limit ` +
                `answers (429) in a row`,
            );
          }
          const wait = e.retryAfterMs ?? DEFAULT_PAUSE_MS;
          if (wait > this.options.maxWaitMs) {
            throw this.abandon(
              `Wayback Machine left alone for the rest of the run: it asked to wait ${Math.ceil(wait / 1000)} s ` +
                `(429 Retry-After), more than ${Math.round(this.options.maxWaitMs / 1000)} s`,
            );
          }
          this.pacer.pause(wait);
          continue;
        }
        if (!e.retryable) throw new WaybackError(`the Wayback Machine answered ${e.message} for ${url}`, 'failed');
        this.failuresInARow++;
        if (this.failuresInARow >= MAX_FAILURES) {
          throw this.abandon(
            `Wayback Machine left alone for the rest of the run after ${this.failuresInARow} failed requests in a ` +
              `row (last: ${e.message})`,
          );
        }
      }
    }
  }

  private abandon(reason: string): WaybackError {
    if (this.stats.abandoned === undefined) {
      this.stats.abandoned = reason;
      this.tell();
    }
    return new WaybackError(this.stats.abandoned, 'abandoned');
  }
}
