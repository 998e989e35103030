// What a recorded exchange's records say of the wire: the request's headers and body as dispatched, the response's
// headers as received and reframed for a de-chunked body, and an error described for a WARC metadata record.
import type { Dispatcher } from 'undici';
import { errorCode } from '../fetch/errors.js';
import { ORIG_HEADER_PREFIX, type HeaderPair } from './warc.js';

/**
 * The body below the dispatcher is already de-chunked, so the recorded message must say so:
 * Transfer-Encoding goes and Content-Length is the recorded length (else a WARC reader would
 * de-chunk or trust a length a cut body never reached). Replaced values are kept as
 * X-Archive-Orig-* so a replay can restore the headers the client saw.
 */
export function reframed(headers: readonly HeaderPair[], size: number): HeaderPair[] {
  const out: HeaderPair[] = [];
  const orig: HeaderPair[] = [];
  let placed = false;
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (lower === 'transfer-encoding' || lower === 'content-length') {
      if (lower === 'transfer-encoding' || value.trim() !== String(size))
        orig.push([`${ORIG_HEADER_PREFIX}${name}`, value]);
      if (!placed) out.push([lower === 'content-length' ? name : 'Content-Length', String(size)]);
      placed = true;
      continue;
    }
    out.push([name, value]);
  }
  if (!placed) out.push(['Content-Length', String(size)]);
  return [...out, ...orig];
}

export function requestBody(body: Dispatcher.DispatchOptions['body']): Buffer | undefined {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return undefined;
}

/** The request headers as dispatched (any of undici's forms), after the Host header undici derives from the origin. */
export function requestHeaders(opts: Dispatcher.DispatchOptions): HeaderPair[] {
  const pairs: HeaderPair[] = [];
  const add = (name: unknown, value: unknown): void => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) for (const v of value) pairs.push([String(name), String(v)]);
    else pairs.push([String(name), Buffer.isBuffer(value) ? value.toString('latin1') : String(value)]);
  };
  const h = opts.headers as unknown;
  if (Array.isArray(h)) {
    if (h.length > 0 && Array.isArray(h[0])) for (const [k, v] of h as [unknown, unknown][]) add(k, v);
    else for (let i = 0; i + 1 < h.length; i += 2) add(h[i], h[i + 1]);
  } else if (h && typeof h === 'object' && typeof (h as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const entry of h as Iterable<[unknown, unknown]>) add(entry[0], entry[1]);
  } else if (h && typeof h === 'object') {
    for (const [k, v] of Object.entries(h)) add(k, v);
  }
  if (!pairs.some(([k]) => k.toLowerCase() === 'host')) {
    try {
      pairs.unshift(['Host', new URL(String(opts.origin)).host]);
    } catch {
      /* no origin: nothing to derive */
    }
  }
  return pairs;
}

function latin1(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
}

/**
 * The response headers as received: from the raw header list when the dispatcher below
 * exposes it (names in their case, order and repeats as sent), else from the parsed object.
 */
export function receivedHeaders(
  controller: Dispatcher.DispatchController | undefined,
  headers: Record<string, unknown>,
): HeaderPair[] {
  const raw = controller?.rawHeaders;
  const pairs: HeaderPair[] = [];
  if (Array.isArray(raw) && raw.length % 2 === 0) {
    for (let i = 0; i < raw.length; i += 2) {
      const value: unknown = raw[i + 1];
      if (Array.isArray(value)) for (const v of value) pairs.push([latin1(raw[i]), latin1(v)]);
      else pairs.push([latin1(raw[i]), latin1(value)]);
    }
    return pairs;
  }
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (Array.isArray(value)) for (const v of value) pairs.push([name, latin1(v)]);
    else if (value !== undefined) pairs.push([name, latin1(value)]);
  }
  return pairs;
}

export function errorName(err: unknown): string {
  return err && typeof err === 'object' && typeof (err as Error).name === 'string' ? (err as Error).name : typeof err;
}

/** An error's code (the errno-style code, else its name: an abort has only a name), name and message. */
export function errorFields(err: unknown): { code: string; name: string; message: string } {
  const name = errorName(err);
  const code = errorCode(err) ?? name;
  let message =
    err instanceof Error || (err && typeof err === 'object' && 'message' in err)
      ? String((err as Error).message)
      : String(err);
  // The message that goes with the code, when the code sits on a cause.
  for (
    let e = err as { code?: unknown; cause?: unknown; message?: unknown } | undefined, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e.code === code && typeof e.message === 'string' && e.message) {
      message = e.message;
      break;
    }
  }
  return { code, name, message };
}
