// The MCP server's per-session memory: one budget in bytes for everything kept (ByteBudget), and the source cache under
// it: every HTTP exchange kept, least recently used dropped first, so a source is fetched once per session whichever
// tool asks.
import type { Dispatcher } from 'undici';
import { RETRYABLE_STATUSES } from '../fetch/policy.js';

/** Bodies are handed to the client in pieces of this size, as a socket would. */
const CHUNK = 64 * 1024;

type Headers = Record<string, string | string[] | undefined>;

/** One finished response, exactly as it came through the HTTP stack (before content decoding). */
interface Stored {
  status: number;
  statusText: string;
  headers: Headers;
  /** The body as it came, in its pieces: never joined, so that keeping a large body does not hold it twice at once. */
  body: Buffer[];
  bytes: number;
}

interface SourceCacheStats {
  /** Responses served from the cache. */
  hits: number;
  /** Requests that went to the network. */
  misses: number;
  entries: number;
  bytes: number;
}

/** The request header that makes one URL answer differently (a cookie gate): part of the key. */
function cookieOf(headers: Dispatcher.DispatchOptions['headers']): string {
  if (!headers) return '';
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === 'cookie') return String(headers[i + 1]);
    }
    return '';
  }
  if (typeof (headers as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function') {
    for (const [name, value] of headers as Iterable<[string, string | string[] | undefined]>) {
      if (name.toLowerCase() === 'cookie') return String(value);
    }
    return '';
  }
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (name.toLowerCase() === 'cookie') return String(value);
  }
  return '';
}

/**
 * One budget of bytes for everything the MCP server keeps between calls: the HTTP cache's bodies and the
 * extracted sources SourceTools keeps for paging (`--cache-mb`). Entries are ordered by use; keeping one that
 * puts the total over the budget drops the least recently used others (each owner is told, and forgets it).
 */
export class ByteBudget {
  readonly #entries = new Map<string, { bytes: number; drop: () => void }>();
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes kept now. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Counts `key` at `bytes` (most recently used), dropping the least recently used others beyond the budget;
   * false, and nothing counted, when it alone is over the budget: the owner must not keep it.
   */
  keep(key: string, bytes: number, drop: () => void): boolean {
    this.forget(key);
    if (bytes > this.maxBytes) return false;
    this.#entries.set(key, { bytes, drop });
    this.#bytes += bytes;
    // The new entry is the most recently used: the others go first, and it alone fits.
    this.makeRoom(0);
    return true;
  }

  /**
   * Makes room for work under way (src/mcp/work.ts): the least recently used entries are dropped until what is kept
   * and `bytes` fit in the budget together, but for those of the URL `spare`. Entries kept later are not refused: the
   * work's own record is kept for the next call, and the next page's work makes room again.
   */
  makeRoom(bytes: number, spare?: string): void {
    for (const [k, v] of this.#entries) {
      if (this.#bytes + bytes <= this.maxBytes) break;
      // The page about to be worked on stays: dropping it would only make the work fetch or extract it again.
      if (spare !== undefined && k.slice(k.indexOf('\n') + 1).startsWith(spare)) continue;
      this.#entries.delete(k);
      this.#bytes -= v.bytes;
      v.drop();
    }
  }

  /** Marks `key` most recently used. */
  touch(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    // Map order is insertion order: re-inserting marks it most recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
  }

  /** No longer counts `key` (its owner dropped it); its drop callback is not called. */
  forget(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

/**
 * A bounded cache of HTTP responses, used as an undici interceptor under every fetch the MCP
 * server makes (the pipeline's, through CheckOptions.recorder, and its own). Only complete GET
 * responses are kept, and never a retryable status (a retry must reach the server again); a
 * timeout, a reset or a body cut at the size limit is never stored, so the next call tries
 * afresh. Keys are the URL and the request's cookies, so a cookie gate replays step by step.
 * The bodies count against the session's ByteBudget, shared with the extracted sources.
 */
export class SourceCache {
  readonly #entries = new Map<string, Stored>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  /** The session's budget: these bodies and whatever else shares it. */
  readonly budget: ByteBudget;

  constructor(
    /** Total bytes kept, or a budget shared with other keepers; the least recently used are dropped beyond it. */
    budget: number | ByteBudget,
  ) {
    this.budget = typeof budget === 'number' ? new ByteBudget(budget) : budget;
  }

  get maxBytes(): number {
    return this.budget.maxBytes;
  }

  stats(): SourceCacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#entries.size, bytes: this.#bytes };
  }

  #get(key: string): Stored | undefined {
    const hit = this.#entries.get(key);
    if (hit) this.budget.touch(`http\n${key}`);
    return hit;
  }

  #put(key: string, value: Stored): void {
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= old.bytes;
    }
    const kept = this.budget.keep(`http\n${key}`, value.bytes, () => {
      if (this.#entries.get(key) !== value) return;
      this.#entries.delete(key);
      this.#bytes -= value.bytes;
    });
    if (!kept) return;
    this.#entries.set(key, value);
    this.#bytes += value.bytes;
  }

  /** An interceptor for `Agent#compose` (or CheckOptions.recorder's): answers from the cache, or fetches and keeps. */
  interceptor(): Dispatcher.DispatcherComposeInterceptor {
    return (dispatch) => (opts, handler) => {
      if ((opts.method ?? 'GET').toUpperCase() !== 'GET') return dispatch(opts, handler);
      const key = `${String(opts.origin ?? '')}${opts.path}\n${cookieOf(opts.headers)}`;
      const hit = this.#get(key);
      if (hit) {
        this.#hits++;
        serve(hit, handler);
        return true;
      }
      this.#misses++;
      return dispatch(opts, new KeepingHandler(handler, (stored) => this.#put(key, stored), this.maxBytes));
    };
  }
}

/** A controller for a response served from memory: abort stops the delivery. */
class ServedController implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  abort(reason: Error): void {
    this.aborted = true;
    this.reason = reason;
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
}

/** Delivers a stored response to a handler as the network would: start, headers, body in pieces, end. */
function serve(stored: Stored, handler: Dispatcher.DispatchHandler): void {
  const controller = new ServedController();
  const stopped = (): boolean => {
    if (!controller.aborted) return false;
    handler.onResponseError?.(controller, controller.reason ?? new Error('aborted'));
    return true;
  };
  setImmediate(() => {
    try {
      handler.onRequestStart?.(controller, {});
      if (stopped()) return;
      handler.onResponseStart?.(controller, stored.status, stored.headers, stored.statusText);
      for (const piece of stored.body) {
        for (let at = 0; at < piece.length; at += CHUNK) {
          if (stopped()) return;
          handler.onResponseData?.(controller, piece.subarray(at, at + CHUNK));
        }
      }
      if (stopped()) return;
      handler.onResponseEnd?.(controller, {});
    } catch (err) {
      handler.onResponseError?.(controller, err as Error);
    }
  });
}

/** Passes a network response through untouched and keeps a copy when it completes. */
class KeepingHandler implements Dispatcher.DispatchHandler {
  #status = 0;
  #statusText = '';
  #headers: Headers = {};
  #chunks: Buffer[] = [];
  #size = 0;
  /** False once the response is not worth keeping (retryable status, too large). */
  #keep = true;

  constructor(
    readonly inner: Dispatcher.DispatchHandler,
    readonly done: (stored: Stored) => void,
    readonly maxBytes: number,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.#keep = false;
    this.inner.onRequestUpgrade?.(...args);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Headers,
    statusMessage?: string,
  ): void {
    this.#status = statusCode;
    this.#statusText = statusMessage ?? '';
    this.#headers = headers;
    if (RETRYABLE_STATUSES.has(statusCode)) this.#keep = false;
    this.inner.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#keep) {
      this.#size += chunk.length;
      if (this.#size > this.maxBytes) {
        this.#keep = false;
        this.#chunks = [];
      } else {
        // The piece itself, not a copy: the HTTP stack's pieces are its own, never written again (undici hands on each
        // socket read), so a large page's body is held once while it is read and worked on, not twice (Issue 46).
        this.#chunks.push(chunk);
      }
    }
    this.inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Headers): void {
    if (this.#keep && !controller.aborted) {
      this.done({
        status: this.#status,
        statusText: this.#statusText,
        headers: this.#headers,
        body: this.#chunks,
        bytes: this.#size,
      });
    }
    this.inner.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, err: Error): void {
    this.#keep = false;
    this.inner.onResponseError?.(controller, err);
  }
}
