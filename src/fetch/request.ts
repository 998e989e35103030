// One fetch attempt: follow redirects by hand (cookies kept across the chain), read the body under a size cap.
import { fetch, type Dispatcher } from 'undici';
import type { ReadableStream } from 'node:stream/web';
import type { SourceCookies } from './cookies.js';
import { FetchError, classifyNetworkError, stoppedError } from './errors.js';
import { OVERLOADED_STATUSES, RETRYABLE_STATUSES, parseRetryAfter } from './policy.js';
import { defaultDispatcher } from './guard.js';
import type { SlotOutcome, SlotPriority, SlotRelease } from './slots.js';

export interface RequestSettings {
  /** Limit for one attempt, from connect to the last body byte. */
  timeoutMs: number;
  /** Largest (decoded) body accepted. */
  maxBytes: number;
  /** Redirects followed before giving up (browsers use 20; 10 is plenty for publishers). */
  maxRedirects: number;
  userAgent: string;
  /**
   * The HTTP stack; it owns the network rule (src/fetch/guard.ts). Without one, a shared agent that
   * refuses private networks unless `allowPrivate`.
   */
  dispatcher?: Dispatcher;
  /** Without a dispatcher: reach private networks too (loopback, RFC 1918, ...). Default false. */
  allowPrivate?: boolean;
  /**
   * Slots each hop takes before it is requested and gives back once its answer is read (slots.ts FetchSlots): the
   * claim's host for the first hop, a redirect's host for the next. Without them, requests are not limited.
   */
  slots?: { take(url: string, signal?: AbortSignal, priority?: SlotPriority): Promise<SlotRelease> };
  /**
   * The attempt's place in the slots' queues (slots.ts SlotPriority): `first` for a source's first attempt (its later
   * hops are `next`), `waited` for every hop of a retry after a wait the server asked for, `next` for another retry.
   */
  priority?: SlotPriority;
  /**
   * Called once the final answer's body (of `bytes` bytes) is read, before its hop gives its slots back: what the
   * caller must hold before the fetch slot goes (the run's bound on sources fetched and not yet decided) is taken here.
   */
  beforeSlotRelease?: (bytes: number) => Promise<void>;
}

export interface RawResponse {
  status: number;
  finalUrl: string;
  /** Every URL visited before the final one. */
  redirects: string[];
  headers: Headers;
  body: Buffer;
}

/**
 * Browser-like content negotiation with an honest User-Agent: publishers gate on Accept
 * and Accept-Language, and honest agents are reported to pass bot walls more often than
 * spoofed browser strings.
 */
function requestHeaders(userAgent: string, cookie: string, authorization?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': userAgent,
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf,text/plain;q=0.8,*/*;q=0.5',
    'accept-language': 'en-US,en;q=0.9',
    'accept-encoding': 'gzip, deflate, br',
  };
  if (cookie) headers.cookie = cookie;
  if (authorization) headers.authorization = authorization;
  return headers;
}

/** Error pages are kept for diagnosis, but only this much of them. */
const ERROR_BODY_CAP = 1 << 20;

/**
 * The body, at most `cap` bytes. With `expected` (a declared length the body is not re-encoded from), the bytes go
 * straight into one buffer of that size as they come, not into pieces joined at the end: a large page is held once,
 * not twice, while it is read. A body that outgrows its declared length is read on in pieces.
 */
async function readCapped(
  body: ReadableStream | null,
  cap: number,
  expected?: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  if (!body) return { bytes: Buffer.alloc(0), truncated: false };
  let whole = expected !== undefined && expected > 0 && expected <= cap ? Buffer.allocUnsafe(expected) : undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (whole && size + value.byteLength <= whole.length) {
        whole.set(value, size);
        size += value.byteLength;
        continue;
      }
      if (whole) {
        chunks.push(whole.subarray(0, size));
        whole = undefined;
      }
      size += value.byteLength;
      if (size > cap) {
        await reader.cancel().catch(() => {});
        chunks.push(value.subarray(0, value.byteLength - (size - cap)));
        return { bytes: Buffer.concat(chunks), truncated: true };
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  if (whole) return { bytes: size === whole.length ? whole : whole.subarray(0, size), truncated: false };
  return { bytes: Buffer.concat(chunks), truncated: false };
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * A time limit that runs only while its work is under way: paused while a request queues for its slot (slots.ts), so
 * an attempt (and a source's whole budget) that waited for a busy host still gets all of its time, as when the slot
 * was taken before the work began. `signal` aborts with a TimeoutError when the running time adds up to the limit.
 */
export class PausableTimeout {
  readonly #controller = new AbortController();
  #left: number;
  #since = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(limitMs: number) {
    this.#left = limitMs;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  run(): void {
    if (this.#timer !== undefined || this.#controller.signal.aborted) return;
    this.#since = performance.now();
    this.#timer = setTimeout(
      () => this.#controller.abort(new DOMException('The attempt timed out', 'TimeoutError')),
      Math.max(0, this.#left),
    );
    this.#timer.unref();
  }

  pause(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#left -= performance.now() - this.#since;
  }
}

/**
 * Performs one attempt. Throws FetchError for every failure: HTTP error statuses (with the
 * capped body and Retry-After), network errors, the size cap and redirect trouble.
 * `signal` is the run's own stop signal; the per-attempt timeout is added here.
 */
export async function requestOnce(
  url: string,
  cookies: SourceCookies,
  settings: RequestSettings,
  signal?: AbortSignal,
): Promise<RawResponse> {
  const clock = new PausableTimeout(settings.timeoutMs);
  const timeout = clock.signal;
  const attemptSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const redirects: string[] = [];
  const { href: start, origin, authorization } = withoutCredentials(url);
  let current = start;
  const dispatcher = settings.dispatcher ?? defaultDispatcher(settings.allowPrivate ?? false);
  try {
    for (;;) {
      // Each hop holds its host's slot only while it is requested and read: not through a wait, nor another host's hop.
      // The attempt's time limit runs while it is on the network, not while it queues for a slot.
      clock.pause();
      const attempt = settings.priority ?? 'first';
      const priority = attempt === 'first' && redirects.length > 0 ? 'next' : attempt;
      const release = settings.slots ? await settings.slots.take(current, signal, priority) : undefined;
      clock.run();
      let outcome: SlotOutcome = 'none';
      try {
        const cookie = await cookies.header(current);
        const res = await fetch(current, {
          redirect: 'manual',
          // Credentials from the claim's URL go to its own origin only, never to a redirect's.
          headers: requestHeaders(
            settings.userAgent,
            cookie,
            new URL(current).origin === origin ? authorization : undefined,
          ),
          signal: attemptSignal,
          dispatcher,
        });
        outcome = overloaded(res) ? 'overloaded' : 'answered';
        await cookies.keep(res.headers.getSetCookie(), current);
        const location = res.headers.get('location');
        if (REDIRECT_STATUSES.has(res.status) && location) {
          current = await redirectTarget(res, location, current, redirects, settings.maxRedirects);
          continue;
        }
        const contentType = res.headers.get('content-type') ?? undefined;
        if (res.status >= 400) throw await statusError(res, current, contentType);
        const declared = Number(res.headers.get('content-length'));
        // The declared length is of the encoded body; a decoded body can only be larger.
        if (Number.isFinite(declared) && declared > settings.maxBytes) {
          await res.body?.cancel().catch(() => {});
          throw tooLarge(settings.maxBytes, current, res.status, contentType, `declares ${declared} bytes`);
        }
        // A body re-encoded in transit (gzip, br) is decoded here: its declared length is not the decoded one.
        const encoded = (res.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
        const expected = Number.isFinite(declared) && !encoded ? declared : undefined;
        const { bytes, truncated } = await readCapped(res.body, settings.maxBytes, expected);
        if (truncated) throw tooLarge(settings.maxBytes, current, res.status, contentType, 'body kept growing');
        clock.pause();
        await settings.beforeSlotRelease?.(bytes.length);
        return { status: res.status, finalUrl: current, redirects, headers: res.headers, body: bytes };
      } finally {
        release?.(outcome);
      }
    }
  } catch (err) {
    if (err instanceof FetchError) throw withFinalUrl(err, current);
    if (signal?.aborted) throw stoppedError(err, current);
    if (timeout.aborted) {
      throw new FetchError(`timed out after ${settings.timeoutMs / 1000} s`, {
        kind: 'timeout',
        retryable: true,
        finalUrl: current,
        cause: err,
      });
    }
    throw withFinalUrl(classifyNetworkError(err, current), current);
  } finally {
    clock.pause();
  }
}

/** The response fetch() gives. */
type FetchResponse = Awaited<ReturnType<typeof fetch>>;

/**
 * A redirect's target (its body dropped; fragment and credentials removed), once `current` is counted among
 * `redirects`. Throws FetchError for a target that is not http(s), or one redirect too many.
 */
async function redirectTarget(
  res: FetchResponse,
  location: string,
  current: string,
  redirects: string[],
  maxRedirects: number,
): Promise<string> {
  await res.body?.cancel().catch(() => {});
  const next = new URL(location, current);
  next.hash = '';
  next.username = '';
  next.password = '';
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new FetchError(`redirect to a non-http(s) URL refused: ${next.protocol}`, {
      kind: 'redirects',
      finalUrl: current,
    });
  }
  redirects.push(current);
  if (redirects.length > maxRedirects) {
    throw new FetchError(`more than ${maxRedirects} redirects`, {
      kind: 'redirects',
      finalUrl: next.href,
      status: res.status,
    });
  }
  return next.href;
}

/**
 * Whether the answer says its server is overloaded without saying when to come back (slots.ts Pace): one that sends a
 * usable Retry-After has said what it needs, that request again after the wait, and gets just that.
 */
function overloaded(res: FetchResponse): boolean {
  return OVERLOADED_STATUSES.has(res.status) && parseRetryAfter(res.headers.get('retry-after')) === undefined;
}

/** An HTTP error status as a FetchError, with its capped body, headers and Retry-After. */
async function statusError(res: FetchResponse, current: string, contentType: string | undefined): Promise<FetchError> {
  const { bytes } = await readCapped(res.body, ERROR_BODY_CAP).catch(() => ({ bytes: Buffer.alloc(0) }));
  return new FetchError(`HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, {
    kind: 'http_status',
    status: res.status,
    retryable: RETRYABLE_STATUSES.has(res.status),
    retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
    finalUrl: current,
    contentType,
    body: bytes,
    headers: Object.fromEntries(res.headers),
  });
}

/**
 * fetch() refuses URLs with credentials; a claim's `http://user:pass@host/` means Basic
 * authentication, so the credentials become an Authorization header for that origin.
 */
function withoutCredentials(url: string): { href: string; origin: string; authorization?: string } {
  const u = new URL(url);
  if (!u.username && !u.password) return { href: u.href, origin: u.origin };
  const credentials = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  const authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  u.username = '';
  u.password = '';
  return { href: u.href, origin: u.origin, authorization };
}

function tooLarge(
  cap: number,
  finalUrl: string,
  status: number,
  contentType: string | undefined,
  why: string,
): FetchError {
  return new FetchError(`body larger than the ${Math.round(cap / 1e6)} MB cap (${why})`, {
    kind: 'too_large',
    finalUrl,
    status,
    contentType,
  });
}

function withFinalUrl(err: FetchError, finalUrl: string): FetchError {
  err.finalUrl ??= finalUrl;
  return err;
}
