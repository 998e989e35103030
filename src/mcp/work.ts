// The MCP server's work budget (`--work-mb`): the bytes of the pages its calls fetch, extract and search at once; a
// page that does not fit waits its turn, in arrival order, with no clock of its fetch running
// (docs/agent-tools.md#work-budget).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Dispatcher } from 'undici';
import type { ExchangeInterceptor } from '../run/transport.js';

/**
 * A page of at most this many bytes never waits and is not counted: its work is small (some 40 MB at most), and an
 * agent's quick check is answered while large pages queue (src/mcp/lanes.ts gives it an HTML worker of its own).
 */
export const SMALL_PAGE_BYTES = 2 * 1024 * 1024;
/**
 * Memory a page holds while it is worked on, per byte of its body, as bench/mcp-load.ts measured it: the HTML worker's
 * parse, the texts (raw and normalized, article and full page), the token maps, and the garbage they leave.
 */
export const WORK_MEMORY_PER_BYTE = 20;
/** A body without Content-Length is admitted as it grows, this many bytes at a time. */
const UNDECLARED_PAGE_BYTES = 8 * 1024 * 1024;
/** The sizes of pages seen, kept for this many URLs (a page seen before waits for room before it is fetched again). */
const KNOWN_SIZES = 10_000;

/** Why a call's fetch was stopped at its response headers: the page does not fit now; the call waits for `bytes`. */
class WorkDeferred extends Error {
  override readonly name = 'WorkDeferred';
  constructor(readonly bytes: number) {
    super(`the page's ${bytes} bytes wait for the work budget`);
  }
}

/** One granted share of the budget. */
interface Lease {
  bytes: number;
}

interface Waiter {
  bytes: number;
  url: string | undefined;
  grant: (lease: Lease) => void;
}

/**
 * The budget: leases of bytes, granted in arrival order while they fit (a page larger than the whole budget when
 * nothing else runs); a small page (SMALL_PAGE_BYTES) that fits passes the larger ones waiting.
 */
export class WorkBudget {
  readonly #queue: Waiter[] = [];
  #inUse = 0;

  constructor(
    readonly maxBytes: number,
    /** Told the bytes in work whenever more are granted, and the page's URL (the cache makes room for them). */
    readonly onGrant: (inUse: number, url: string | undefined) => void = () => {},
  ) {}

  get inUse(): number {
    return this.#inUse;
  }

  /** Calls waiting now. */
  get waiting(): number {
    return this.#queue.length;
  }

  #fits(bytes: number): boolean {
    return this.#inUse === 0 || this.#inUse + bytes <= this.maxBytes;
  }

  #take(bytes: number, url: string | undefined): Lease {
    this.#inUse += bytes;
    this.onGrant(this.#inUse, url);
    return { bytes };
  }

  /**
   * A lease now when it fits and no one is waiting ahead (a small page need not fit behind a waiting one); else none.
   */
  tryTake(bytes: number, url?: string): Lease | undefined {
    const ahead = this.#queue.length > 0 && bytes > SMALL_PAGE_BYTES;
    return !ahead && this.#fits(bytes) ? this.#take(bytes, url) : undefined;
  }

  /** A lease of `bytes` once it is this call's turn; rejects with the signal's reason if the call stops first. */
  take(bytes: number, signal: AbortSignal, url?: string): Promise<Lease> {
    const now = this.tryTake(bytes, url);
    if (now) return Promise.resolve(now);
    return new Promise<Lease>((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        url,
        grant: (lease) => {
          signal.removeEventListener('abort', stop);
          resolve(lease);
        },
      };
      const stop = (): void => {
        const i = this.#queue.indexOf(waiter);
        if (i !== -1) this.#queue.splice(i, 1);
        this.#pump();
        reject(signal.reason as Error);
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** Gives a lease back (once) and lets the next waiting calls in. */
  release(lease: Lease): void {
    this.#inUse -= lease.bytes;
    lease.bytes = 0;
    this.#pump();
  }

  #pump(): void {
    for (let i = 0; i < this.#queue.length; ) {
      const w = this.#queue[i]!;
      // In arrival order: the first waiting page holds back the larger ones behind it, not small pages that fit.
      if ((i === 0 || w.bytes <= SMALL_PAGE_BYTES) && this.#fits(w.bytes)) {
        this.#queue.splice(i, 1);
        w.grant(this.#take(w.bytes, w.url));
      } else i++;
    }
  }
}

/** What one tool call holds of the budget, found by its fetches through AsyncLocalStorage. */
export class CallWork {
  readonly leases: Lease[] = [];
  /** Bytes this call's leases cover. */
  covered = 0;
  /** Set when a response did not fit: the call stops, waits for these bytes, and runs again. */
  deferred: number | undefined;
  /** On the call's last turn every response passes: a page that keeps outgrowing its lease is read all the same. */
  lastTurn = false;

  /** Stops the call's attempt (its fetch, its extraction) when its page must wait. */
  stopAttempt: (reason: Error) => void = () => {};

  constructor(readonly budget: WorkBudget) {}

  hold(lease: Lease): void {
    this.leases.push(lease);
    this.covered += lease.bytes;
  }

  /** Gives every lease back. */
  releaseAll(): void {
    for (const lease of this.leases.splice(0)) this.budget.release(lease);
    this.covered = 0;
  }
}

/** The call each fetch runs for. */
export const currentCall = new AsyncLocalStorage<CallWork>();

/** The sizes of pages seen this session, by URL: a call on a page seen before waits for room before it fetches. */
export class KnownSizes {
  readonly #sizes = new Map<string, number>();

  get(url: string): number | undefined {
    return this.#sizes.get(url);
  }

  set(url: string, bytes: number): void {
    this.#sizes.delete(url);
    this.#sizes.set(url, bytes);
    if (this.#sizes.size > KNOWN_SIZES) this.#sizes.delete(this.#sizes.keys().next().value!);
  }
}

/**
 * Admits a response of `bytes` for `call`: covered already, small, or granted now; otherwise the call is deferred
 * (false): its attempt stops and it waits in the queue for the bytes.
 */
function admit(call: CallWork, bytes: number, url: string): boolean {
  if (bytes <= call.covered || bytes <= SMALL_PAGE_BYTES || call.lastTurn) return true;
  const lease = call.budget.tryTake(bytes - call.covered, url);
  if (lease) {
    call.hold(lease);
    return true;
  }
  call.deferred = Math.max(call.deferred ?? 0, bytes);
  call.stopAttempt(new WorkDeferred(bytes));
  return false;
}

/** Passes a response on while its call's lease covers it; stops it at its headers, or as it grows, when it does not. */
class GatedHandler implements Dispatcher.DispatchHandler {
  #received = 0;
  #stopped = false;

  constructor(
    readonly inner: Dispatcher.DispatchHandler,
    readonly call: CallWork,
    readonly url: string,
    readonly sizes: KnownSizes,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.inner.onRequestUpgrade?.(...args);
  }

  #stop(controller: Dispatcher.DispatchController, bytes: number): void {
    this.#stopped = true;
    this.sizes.set(this.url, bytes);
    controller.abort(new WorkDeferred(bytes));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
    statusMessage?: string,
  ): void {
    const declared = Number(headers['content-length']);
    const bytes = Number.isFinite(declared) && declared > 0 ? declared : 0;
    if (statusCode < 300 && bytes > 0) {
      this.sizes.set(this.url, bytes);
      if (!admit(this.call, bytes, this.url)) return this.#stop(controller, bytes);
    }
    this.inner.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#stopped) return;
    this.#received += chunk.length;
    // A body without a declared length is admitted as it grows, a page's worth at a time.
    if (this.#received > this.call.covered && this.#received > SMALL_PAGE_BYTES) {
      const want = Math.ceil(this.#received / UNDECLARED_PAGE_BYTES) * UNDECLARED_PAGE_BYTES;
      if (!admit(this.call, want, this.url)) return this.#stop(controller, want);
    }
    this.inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Record<string, string | string[]>): void {
    if (!this.#stopped) this.inner.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, err: Error): void {
    this.inner.onResponseError?.(controller, err);
  }
}

/**
 * The gate over the session's HTTP stack (outside its cache, so that a page served from memory is counted too): each
 * response of a tool call passes while the call's lease covers it. Fetches outside a call (none today) pass.
 */
export function gatedInterceptor(inner: ExchangeInterceptor, sizes: KnownSizes): ExchangeInterceptor {
  return {
    interceptor: () => (dispatch) => {
      const cached = inner.interceptor()(dispatch);
      return (opts, handler) => {
        const call = currentCall.getStore();
        if (!call || (opts.method ?? 'GET').toUpperCase() !== 'GET') return cached(opts, handler);
        const url = `${String(opts.origin ?? '')}${opts.path}`;
        return cached(opts, new GatedHandler(handler, call, url, sizes));
      };
    },
  };
}
