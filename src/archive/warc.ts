// WARC conventions shared by the recorder, reader, replay and subsetter: field names, header text, URL forms, the
// warcinfo record.
import { createHash, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import { UserError } from '../errors.js';
import { describeFsError } from '../grader/grade.mjs';

/** Every failure of the archive layer (opening, writing, reading a WARC file): one line naming the file. */
export class ArchiveError extends UserError {
  override readonly name = 'ArchiveError';
}

export const WARC_VERSION = 'WARC/1.1';

/**
 * The recorder keeps the HTTP message as received but must change its framing (a WARC reader
 * would otherwise try to de-chunk, or trust a length the body never reached). The values it
 * replaced are kept under this prefix, pywb's convention for "the original header", so a
 * replay can serve the headers exactly as the live client saw them.
 */
export const ORIG_HEADER_PREFIX = 'X-Archive-Orig-';

/** warc-fields of the metadata record written for an exchange that got no response. */
export const ERROR_FIELDS = {
  code: 'fetch-error-code',
  name: 'fetch-error-name',
  message: 'fetch-error-message',
} as const;

/**
 * One header as an HTTP client sees it: the name, and the value with each byte one character (latin1), as undici
 * decodes it.
 */
export type HeaderPair = [string, string];

export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/** First value of a header, by case-insensitive name. */
export function headerValue(headers: readonly HeaderPair[], name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of headers) if (k.toLowerCase() === lower) return v;
  return undefined;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * warcio writes header text as UTF-8, while the wire bytes reach us one byte per character
 * (latin1). When the wire bytes are valid UTF-8 (ASCII or UTF-8 text: virtually every real
 * header), decoding them as UTF-8 makes warcio write exactly the wire bytes. Other bytes
 * cannot be written verbatim through warcio; they are kept as their latin1 reading.
 */
export function wireToText(latin1: string): string {
  if (/^[\x00-\x7f]*$/.test(latin1)) return latin1;
  try {
    return strictUtf8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    return latin1;
  }
}

/** Header lines must stay one line each: a CR or LF in a value would end the header block early. */
export function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}

/** A WARC-Date for a moment known to the second (a Memento-Datetime): no fraction, as captures are dated. */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The absolute URL of a dispatch: origin + path, as fetch built them (fragment already gone). */
export function dispatchUrl(origin: string | URL | undefined, path: string): string {
  const base = String(origin ?? '').replace(/\/+$/, '');
  try {
    return new URL(base + path).href;
  } catch {
    return base + path;
  }
}

/** A URL as a lookup key: parsed and serialized (as warcio writes WARC-Target-URI), no fragment or credentials. */
export function urlKey(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return url;
  }
}

export function trimBase(base: string): string {
  return base.replace(/\/+$/, '');
}

/**
 * A Wayback base as compared and written: parsed (scheme and host lower case, default port dropped), no trailing slash.
 */
export function normalBase(base: string): string {
  try {
    const u = new URL(base);
    u.hash = '';
    u.search = '';
    return trimBase(u.href);
  } catch {
    return trimBase(base);
  }
}

interface WaybackRef {
  /** The timestamp as written in the URL (1 to 14 digits). */
  timestamp: string;
  /** The replay modifier, e.g. "id_", or "" for none. */
  modifier: string;
  /** The archived URL, made absolute (Wayback accepts it without scheme or URL-encoded). */
  original: string;
}

/** Parses `{base}/web/{timestamp}{modifier}/{original}`; undefined for any other URL. */
export function parseWaybackUrl(url: string, base: string): WaybackRef | undefined {
  const prefix = `${trimBase(base)}/web/`;
  if (!url.toLowerCase().startsWith(prefix.toLowerCase())) return undefined;
  const m = /^(\d{1,14})([a-z]{2}_)?\/(.+)$/s.exec(url.slice(prefix.length));
  if (!m || m[1] === undefined || m[3] === undefined) return undefined;
  return { timestamp: m[1], modifier: m[2] ?? '', original: absoluteOriginal(m[3]) };
}

/** Wayback takes the archived URL raw, URL-encoded or without scheme: this gives it as an absolute URL. */
export function absoluteOriginal(original: string): string {
  let o = original;
  if (/^https?%3a/i.test(o)) {
    try {
      o = decodeURIComponent(o);
    } catch {
      /* keep it as given */
    }
  }
  if (!/^[a-z][a-z0-9+.-]*:/i.test(o)) o = `http://${o}`;
  return urlKey(o);
}

/**
 * Key for matching a URL with the forms Wayback lists it under: scheme, a leading "www.",
 * host case and a trailing slash on the path do not count.
 */
export function looseUrlKey(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname.toLowerCase().replace(/^www\./, '');
    const port = u.port && u.port !== '80' && u.port !== '443' ? `:${u.port}` : '';
    return `${host}${port}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return url;
  }
}

/**
 * The warcinfo field (WARC 1.1 §6.2 allows any named field) naming the Wayback Machine base(s) a run asked, so a replay
 * answers archive requests from them whatever its own --wayback-url: bases separated by a space (URLs have none).
 */
export const WAYBACK_BASE_FIELD = 'wayback-base';

/**
 * The warcinfo record that opens every file quotecheck writes; `waybackBases`: the Wayback Machine(s) its exchanges
 * asked.
 */
export function warcinfoRecord(
  filename: string,
  software: string | undefined,
  waybackBases: readonly string[] = [],
): WARCRecord {
  const info: Record<string, string> = {
    software: software ?? 'quotecheck',
    format: 'WARC File Format 1.1',
    conformsTo: 'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
    description:
      'HTTP exchanges of a quotecheck run: every redirect hop and retry attempt; bodies as received (still ' +
      'content-encoded)',
  };
  const bases = [...new Set(waybackBases.map(normalBase))];
  if (bases.length) info[WAYBACK_BASE_FIELD] = bases.join(' ');
  return WARCRecord.createWARCInfo(
    { filename, warcVersion: WARC_VERSION, warcHeaders: { 'WARC-Record-ID': newRecordId() } },
    info,
  );
}

/** One record as one gzip member (warcio computes the block and payload digests: sha256, hex). */
export async function serializeRecord(record: WARCRecord): Promise<Buffer> {
  const digested = record.warcType !== 'warcinfo'; // warcinfo digests are optional (WARC 1.1 §5.8, §5.9)
  if (digested) {
    // warcio hashes in WebAssembly on the main thread; node:crypto is native and several times faster.
    // Placeholders of the digests' own length stop warcio hashing and keep every length right.
    record.warcHeaders.headers.set('WARC-Block-Digest', BLOCK_PLACEHOLDER);
    record.warcHeaders.headers.set('WARC-Payload-Digest', PAYLOAD_PLACEHOLDER);
  }
  const bytes = await WARCSerializer.serialize(record, { gzip: false });
  const plain = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (digested) fillDigests(plain);
  // zlib in libuv's thread pool: one gzip member per record, off the main thread.
  return gzipAsync(plain);
}

const gzipAsync = promisify(zlib.gzip);
const BLOCK_PLACEHOLDER = `sha256:${'0'.repeat(63)}1`;
const PAYLOAD_PLACEHOLDER = `sha256:${'0'.repeat(63)}2`;
const sha256Hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Writes the block and payload sha256 (WARC 1.1 §5.8, §5.9) over their placeholders in a serialized record. */
function fillDigests(record: Buffer): void {
  const headEnd = record.indexOf('\r\n\r\n');
  const head = record.toString('latin1', 0, headEnd);
  const length = Number(/\r\nContent-Length: *(\d+)/i.exec(head)?.[1] ?? 0);
  const block = record.subarray(headEnd + 4, headEnd + 4 + length);
  // An HTTP message's payload is its body: what follows the message's own blank line.
  const http = /\r\nContent-Type: *application\/http/i.test(head);
  const split = http ? block.indexOf('\r\n\r\n') : -1;
  const payload = split >= 0 ? block.subarray(split + 4) : block;
  for (const [placeholder, digest] of [
    [BLOCK_PLACEHOLDER, sha256Hex(block)],
    [PAYLOAD_PLACEHOLDER, sha256Hex(payload)],
  ] as const) {
    const at = head.indexOf(placeholder);
    if (at < 0) throw new ArchiveError('a WARC record lost its digest header while being written');
    record.write(`sha256:${digest}`, at, 'latin1');
  }
}

/**
 * A file-system error as a short reason ("permission denied"), for one-line messages that already name the file:
 * messages.ts's words, "folder" said where an archive path may be one.
 */
export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EISDIR') return 'it is a folder';
  return describeFsError(err);
}

/**
 * A chunked body (RFC 9112 §7.1) as its content, or undefined when the framing is broken. Only records from other tools
 * keep it: quotecheck stores bodies de-chunked.
 */
export function dechunk(body: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  for (let p = 0; ; ) {
    const eol = body.indexOf('\r\n', p);
    if (eol < 0) return undefined;
    const size = Number.parseInt(body.toString('latin1', p, eol).split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size) || size < 0) return undefined;
    if (size === 0) return Buffer.concat(parts);
    const start = eol + 2;
    if (start + size > body.length) return undefined;
    parts.push(body.subarray(start, start + size));
    p = start + size + 2;
  }
}

/** Undoes Content-Encoding (gzip, deflate, br, in the order applied); undefined when a coding is unknown or broken. */
export function decodeContent(body: Buffer, encoding: string | undefined): Buffer | undefined {
  let out = body;
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity')
    .reverse();
  try {
    for (const coding of codings) {
      if (coding === 'gzip' || coding === 'x-gzip') out = zlib.gunzipSync(out);
      else if (coding === 'deflate')
        out = out[0] !== undefined && (out[0] & 0x0f) === 8 ? zlib.inflateSync(out) : zlib.inflateRawSync(out);
      else if (coding === 'br') out = zlib.brotliDecompressSync(out);
      else return undefined;
    }
  } catch {
    return undefined;
  }
  return out;
}
