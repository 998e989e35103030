// The MCP server's per-session source cache: every HTTP exchange kept (bounded in bytes, least recently used dropped first) so a source is fetched once per session whichever tool asks.
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
  body: Buffer;
}

export interface SourceCacheStats {
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
 * A bounded cache of HTTP responses, used as an undici interceptor under every fetch the MCP
 * server makes (the pipeline's, through CheckOptions.recorder, and its own). Only complete GET
 * responses are kept, and never a retryable status (a retry must reach the server again); a
 * timeout, a reset or a body cut at the size limit is never stored, so the next call tries
 * afresh. Keys are the URL and the request's cookies, so a cookie gate replays step by step.
 */
export class SourceCache {
  readonly #entries = new Map<string, Stored>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  constructor(
    /** Total body bytes kept; the least recently used responses are dropped beyond it. */
    readonly maxBytes: number,
  ) {}

  stats(): SourceCacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#entries.size, bytes: this.#bytes };
  }

  #get(key: string): Stored | undefined {
    const hit = this.#entries.get(key);
    if (hit) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  #put(key: string, value: Stored): void {
    if (value.body.length > this.maxBytes) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#bytes -= old.body.length;
      this.#entries.delete(key);
    }
    this.#entries.set(key, value);
    this.#bytes += value.body.length;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= v.body.length;
    }
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
      for (let at = 0; at < stored.body.length; at += CHUNK) {
        if (stopped()) return;
        handler.onResponseData?.(controller, stored.body.subarray(at, at + CHUNK));
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

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Headers, statusMessage?: string): void {
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
      } else this.#chunks.push(Buffer.from(chunk));
    }
    this.inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Headers): void {
    if (this.#keep && !controller.aborted) {
      this.done({ status: this.#status, statusText: this.#statusText, headers: this.#headers, body: Buffer.concat(this.#chunks, this.#size) });
    }
    this.inner.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, err: Error): void {
    this.#keep = false;
    this.inner.onResponseError?.(controller, err);
  }
}
