// Fetching one source: attempts with exponential backoff and jitter (p-retry), Retry-After honoured up to a cap.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { SourceCookies } from './cookies.js';
import { FetchError, stoppedError, type FetchErrorKind } from './errors.js';
import { PausableTimeout, requestOnce, type RawResponse, type RequestSettings } from './request.js';
import type { SlotPriority } from './slots.js';

export interface FetchSettings extends RequestSettings {
  /** Further attempts after the first, for retryable failures only. */
  retries: number;
  /**
   * First backoff delay; doubles per attempt, times a random factor in [1, 2). Not used when the server sent
   * Retry-After.
   */
  backoffMinMs: number;
  backoffMaxMs: number;
  /** Longest Retry-After honoured (the wait before the next attempt); a server asking for more gets this much. */
  retryAfterCapMs: number;
  /** Time for the whole source: every attempt and every wait between them. */
  budgetMs: number;
}

interface SourceBase {
  /** The URL requested (the claim's URL without fragment). */
  url: string;
  finalUrl?: string;
  status?: number;
  contentType?: string;
  headers?: Record<string, string>;
  attempts: number;
  ms: number;
  /** When the outcome was settled (ISO 8601, UTC): the "as of" of a live text. */
  fetchedAt: string;
}

export interface FetchedSource extends SourceBase {
  ok: true;
  finalUrl: string;
  status: number;
  redirects: string[];
  headers: Record<string, string>;
  body: Buffer;
  /** sha256 of the (content-decoded) body, hex. */
  sha256: string;
}

export interface FailedSource extends SourceBase {
  ok: false;
  error: FetchErrorKind;
  message: string;
  /** An error page's body, capped, for diagnosis. */
  body?: Buffer;
}

export type SourceOutcome = FetchedSource | FailedSource;

/** A successful response as the pipeline keeps it: the body's sha256 (after Content-Encoding) and when it arrived. */
export function fetchedSource(url: string, res: RawResponse, attempts: number, startedAt: number): FetchedSource {
  return {
    ok: true,
    url,
    finalUrl: res.finalUrl,
    redirects: res.redirects,
    status: res.status,
    contentType: res.headers.get('content-type') ?? undefined,
    headers: Object.fromEntries(res.headers),
    body: res.body,
    sha256: createHash('sha256').update(res.body).digest('hex'),
    attempts,
    ms: Math.round(performance.now() - startedAt),
    fetchedAt: new Date().toISOString(),
  };
}

/**
 * How long to wait before the next attempt. A server that says when to come back (Retry-After)
 * is taken at its word, up to the cap, as urllib3 does: waiting longer only slows the run, and
 * waiting less gets another 429. Otherwise exponential backoff with jitter: the minimum delay
 * doubled per attempt, times a random factor in [1, 2), at most the maximum.
 */
export function retryDelay(
  error: FetchError,
  attemptNumber: number,
  settings: Pick<FetchSettings, 'backoffMinMs' | 'backoffMaxMs' | 'retryAfterCapMs'>,
): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, settings.retryAfterCapMs);
  const exponential = settings.backoffMinMs * 2 ** (attemptNumber - 1) * (1 + Math.random());
  return Math.min(Math.round(exponential), settings.backoffMaxMs);
}

/** `settings` whose slots pause the source's budget while a request queues for its slot. */
function budgetPausedInQueue(settings: FetchSettings, clock: PausableTimeout): FetchSettings {
  const { slots } = settings;
  if (!slots) return settings;
  return {
    ...settings,
    slots: {
      take: async (hop, stop, priority) => {
        clock.pause();
        try {
          return await slots.take(hop, stop, priority);
        } finally {
          clock.run();
        }
      },
    },
  };
}

/** Fetches `url` with retries; never throws: failures come back as a FailedSource. */
export async function fetchSource(
  url: string,
  settings: FetchSettings,
  runSignal?: AbortSignal,
): Promise<SourceOutcome> {
  const started = performance.now();
  const cookies = new SourceCookies();
  let attempts = 0;
  // The source's budget, like an attempt's limit, does not run while a request queues for its slot.
  const clock = new PausableTimeout(settings.budgetMs);
  const budget = clock.signal;
  const signal = runSignal ? AbortSignal.any([runSignal, budget]) : budget;
  const attemptSettings = budgetPausedInQueue(settings, clock);
  // A retry's place in the slots' queues (slots.ts): before other hops when its server asked for the wait.
  let priority: SlotPriority = 'first';
  clock.run();
  try {
    const res = await pRetry(
      () => {
        attempts++;
        return requestOnce(url, cookies, { ...attemptSettings, priority }, signal);
      },
      {
        retries: settings.retries,
        // The wait between attempts is ours (onFailedAttempt): p-retry adds none.
        minTimeout: 0,
        maxTimeout: 0,
        signal,
        shouldRetry: ({ error }) => error instanceof FetchError && error.retryable,
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
          if (retriesLeft > 0 && error instanceof FetchError && error.retryable) {
            priority = error.retryAfterMs !== undefined ? 'waited' : 'next';
            await sleep(retryDelay(error, attemptNumber, settings), undefined, { signal });
          }
        },
      },
    );
    return fetchedSource(url, res, attempts, started);
  } catch (err) {
    let e =
      err instanceof FetchError
        ? err
        : signal.aborted
          ? stoppedError(err)
          : new FetchError(String((err as Error)?.message ?? err), { kind: 'other', cause: err });
    if (budget.aborted && !runSignal?.aborted && (e.kind === 'aborted' || e.kind === 'timeout')) {
      e = new FetchError(`source time budget of ${settings.budgetMs / 1000} s used up`, {
        kind: 'timeout',
        finalUrl: e.finalUrl,
        cause: err,
      });
    }
    return {
      ok: false,
      url,
      finalUrl: e.finalUrl,
      status: e.status,
      contentType: e.contentType,
      headers: e.headers,
      error: e.kind,
      message: attempts > 1 ? `${e.message} (after ${attempts} attempts)` : e.message,
      body: e.body,
      attempts,
      ms: Math.round(performance.now() - started),
      fetchedAt: new Date().toISOString(),
    };
  } finally {
    clock.pause();
  }
}
