// The Wayback stub's captures: what one is (its URL, timestamp, status, headers, body), and their index as the CDX
// server answers it (url key, digest, length), grouped by url key.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { TS14, clampTimestamp, surtKey, timestampMs } from './keys.js';
export interface Capture {
  /** Original URL as captured (the CDX `original` field). */
  url: string;
  /** 14 digits, UTC (yyyyMMddhhmmss). */
  timestamp: string;
  /** Default 200. */
  status?: number;
  /** CDX mimetype; default: the essence of headers['content-type'], else 'text/html'. */
  mimetype?: string;
  /** Original response headers (content-type etc.), replayed as X-Archive-Orig-<name>. */
  headers?: Record<string, string>;
  /** Body from this file, relative to WaybackStubOptions.baseDir. */
  file?: string;
  /** Or an inline body. */
  body?: string | Buffer;
  /** For 3xx captures: the original Location (absolute, or relative to url). Default: headers.location. */
  location?: string;
}

export const CDX_FIELDS = ['urlkey', 'timestamp', 'original', 'mimetype', 'statuscode', 'digest', 'length'] as const;

export type CdxField = (typeof CDX_FIELDS)[number];

export interface Indexed {
  urlkey: string;
  timestamp: string;
  ms: number;
  original: string;
  status: number;
  mimetype: string;
  contentType: string | undefined;
  headers: Record<string, string>;
  body: Buffer;
  digest: string;
  /** Absolute redirect target of a 3xx capture. */
  location: string | undefined;
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (no padding needed for SHA-1's 20 bytes). */
function base32(buf: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

/** The CDX `digest` of a payload: base32 of its SHA-1, as the real CDX gives it. */
export function cdxDigest(body: Buffer | string): string {
  return base32(createHash('sha1').update(body).digest());
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

function bodyOf(c: Capture, baseDir: string): Buffer {
  if (c.file !== undefined) {
    const full = path.resolve(baseDir, c.file);
    try {
      return fs.readFileSync(full);
    } catch (err) {
      throw new Error(`capture ${c.url} @ ${c.timestamp}: cannot read ${full}: ${(err as Error).message}`);
    }
  }
  if (c.body === undefined) return Buffer.alloc(0);
  return typeof c.body === 'string' ? Buffer.from(c.body, 'utf8') : c.body;
}

function indexCapture(c: Capture, baseDir: string): Indexed {
  const where = `capture ${JSON.stringify(c.url)} @ ${JSON.stringify(c.timestamp)}`;
  if (typeof c.url !== 'string') throw new Error(`${where}: url must be a string`);
  if (typeof c.timestamp !== 'string' || !TS14.test(c.timestamp) || clampTimestamp(c.timestamp) !== c.timestamp) {
    throw new Error(`${where}: timestamp must be 14 digits of a valid UTC time`);
  }
  let urlkey: string;
  try {
    urlkey = surtKey(c.url);
  } catch {
    throw new Error(`${where}: not a valid URL`);
  }
  const headers = c.headers ?? {};
  const contentType = headerValue(headers, 'content-type');
  const essence = contentType?.split(';')[0]?.trim().toLowerCase();
  const mimetype = c.mimetype ?? (essence || 'text/html');
  const status = c.status ?? 200;
  const rawLocation = c.location ?? headerValue(headers, 'location');
  const body = bodyOf(c, baseDir);
  return {
    urlkey,
    timestamp: c.timestamp,
    ms: timestampMs(c.timestamp),
    original: c.url,
    status,
    mimetype,
    // A revisit record has no type of its own: only an explicit header gives one.
    contentType: contentType ?? (mimetype === 'warc/revisit' ? undefined : mimetype),
    headers,
    body,
    digest: cdxDigest(body),
    location: rawLocation !== undefined && status >= 300 && status < 400 ? new URL(rawLocation, c.url).href : undefined,
  };
}

/** Indexes captures in CDX order: by urlkey, then timestamp (stable for equal keys). */
export function buildIndex(captures: Capture[], baseDir: string): Indexed[] {
  const rows = captures.map((c) => indexCapture(c, baseDir));
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) =>
      a.r.urlkey < b.r.urlkey
        ? -1
        : a.r.urlkey > b.r.urlkey
          ? 1
          : a.r.timestamp.localeCompare(b.r.timestamp) || a.i - b.i,
    )
    .map((x) => x.r);
}

export function fieldOf(row: Indexed, field: CdxField): string {
  switch (field) {
    case 'urlkey':
      return row.urlkey;
    case 'timestamp':
      return row.timestamp;
    case 'original':
      return row.original;
    case 'mimetype':
      return row.mimetype;
    case 'statuscode':
      return String(row.status);
    case 'digest':
      return row.digest;
    case 'length':
      return String(row.body.length);
  }
}

/**
 * The archive one stub serves: its captures grouped by urlkey, each group in CDX order. Both a CDX query (an exact url
 * only) and replay ask for one urlkey's captures.
 */
export type CapturesByKey = Map<string, Indexed[]>;

export function groupByKey(rows: Indexed[]): Map<string, Indexed[]> {
  const map = new Map<string, Indexed[]>();
  for (const r of rows) {
    const list = map.get(r.urlkey);
    if (list) list.push(r);
    else map.set(r.urlkey, [r]);
  }
  return map;
}
