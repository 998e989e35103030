// The loopback Wayback stub of `quotecheck wayback-stub`: the CDX lookups quotecheck's client sends, replay, captures.
//
// It lets a builder try drift offline (docs/sources-change.md#trying-drift-offline-quotecheck-wayback-stub), and
// tests, the golden drift task and the benchmarks use it instead of https://web.archive.org. It serves what
// src/wayback/cdx.ts asks, as the real services answer it:
//   - CDX server API (github.com/internetarchive/wayback/tree/master/wayback-cdx-server, README): an exact url,
//     from/to, filter=field:regex, output=json, fl and limit (fastLatest is accepted and changes nothing); a CDX
//     parameter that would change the answer and is not served (matchType, collapse, offset, paging, a negated filter,
//     a wildcard url) answers 400 naming it, rather than a wrong list,
//   - replay ("Archival URL") of the Wayback Machine (OpenWayback ReplayRequestParser), raw id_ and rewritten,
//   - Memento headers (RFC 7089).
// Only node: built-ins. It listens on loopback addresses only.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { isLoopback, listenLoopback, readJsonArray, respond, type Loopback } from './loopback.js';
import { UserError } from '../../errors.js';

// ---------------------------------------------------------------------------------------------
// Public types

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

export interface WaybackStubOptions {
  captures: Capture[];
  /** Folder that Capture.file is relative to; default process.cwd(). */
  baseDir?: string;
  /** Loopback address to listen on; default 127.0.0.1. */
  host?: string;
  /** Default 0: a random free port. */
  port?: number;
}

export interface RequestLogEntry {
  /** Request target as received: path and query string. */
  path: string;
  /** Arrival time (Date.now()). */
  at: number;
  /** Status answered. */
  status: number;
}

export interface RunningWayback {
  /** "http://<host>:<port>" */
  origin: string;
  port: number;
  /** Every request in arrival order (any path, any outcome). */
  requests: RequestLogEntry[];
  /** Stops listening and destroys open (keep-alive) sockets. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Timestamps

const TS14 = /^\d{14}$/;

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}

function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0); // day 0 of the next month = last day of this one
  return d.getUTCDate();
}

/** Clamps every field of a 14-digit string to a valid calendar value ("20209999999999" -> "20201231235959"). */
function clampTimestamp(raw: string): string {
  const year = Number(raw.slice(0, 4));
  const month = clamp(Number(raw.slice(4, 6)), 1, 12);
  const day = clamp(Number(raw.slice(6, 8)), 1, daysInMonth(year, month));
  const hms = [
    clamp(Number(raw.slice(8, 10)), 0, 23),
    clamp(Number(raw.slice(10, 12)), 0, 59),
    clamp(Number(raw.slice(12, 14)), 0, 59),
  ];
  const two = (n: number): string => String(n).padStart(2, '0');
  return raw.slice(0, 4) + two(month) + two(day) + hms.map(two).join('');
}

/**
 * Pads a 1–14 digit Wayback timestamp to 14 digits with the earliest or the latest valid values,
 * as the CDX server does for `from` (earliest: "2020" -> 20200101000000) and `to` (latest:
 * "202002" -> 20200229235959), and as replay does for a partial timestamp (latest).
 */
export function padTimestamp(ts: string, side: 'earliest' | 'latest'): string {
  if (!/^\d{1,14}$/.test(ts)) throw new RangeError(`not a 1-14 digit timestamp: ${JSON.stringify(ts)}`);
  return clampTimestamp((ts + (side === 'earliest' ? '0' : '9').repeat(14)).slice(0, 14));
}

/** Milliseconds since the epoch of a 14-digit UTC timestamp. */
function timestampMs(ts: string): number {
  const d = new Date(0);
  d.setUTCFullYear(Number(ts.slice(0, 4)), Number(ts.slice(4, 6)) - 1, Number(ts.slice(6, 8)));
  d.setUTCHours(Number(ts.slice(8, 10)), Number(ts.slice(10, 12)), Number(ts.slice(12, 14)), 0);
  return d.getTime();
}

/** RFC 7231 IMF-fixdate, the format of Memento-Datetime (RFC 7089 §2.1.1). */
function httpDate(ts: string): string {
  return new Date(timestampMs(ts)).toUTCString();
}

// ---------------------------------------------------------------------------------------------
// SURT url keys (the CDX `urlkey`), after the IA canonicalizer (python `surt`, WaybackURLKeyMaker):
// scheme and userinfo and fragment dropped, host lowercased and reversed with a leading www\d*.
// dropped, default port dropped, path and query lowercased, percent-escapes normalized, a trailing
// slash of a non-root path dropped, query arguments sorted, session ids removed.

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443', 'ftp:': '21' };

/** Known session-id query arguments that the IA canonicalizer removes. */
const SESSION_ARGS: RegExp[] = [
  /^(?:jsessionid|phpsessid|sid)=[0-9a-z]{32}$/i,
  /^aspsessionid[a-z]{8}=[a-z]{24}$/i,
  /^(?:cfid|cftoken)=[^&]*$/i,
];

/** Parses a URL as the CDX server does: a missing scheme means http://. */
function parseLooseUrl(raw: string): URL {
  const s = raw.trim();
  return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `http://${s}`);
}

/** Google-style escape normalization: unescape repeatedly, then escape controls, space, non-ASCII, '#' and '%'. */
function normalizeEscapes(s: string): string {
  let prev: string;
  let cur = s;
  do {
    prev = cur;
    cur = cur.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  } while (cur !== prev);
  let out = '';
  for (const ch of cur) {
    const c = ch.charCodeAt(0);
    out +=
      c <= 0x20 || c >= 0x7f || ch === '#' || ch === '%' ? `%${c.toString(16).toUpperCase().padStart(2, '0')}` : ch;
  }
  return out;
}

/** "www.Example.org" -> "org,example"; IPv6 literals are kept as they are. */
function surtHost(hostname: string): string {
  let host = hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[')) return host;
  host = host.replace(/^www\d*\./, '');
  return host.split('.').reverse().join(',');
}

/** The CDX urlkey of a URL: `http://www.Example.org/a/b?x=1` -> `org,example)/a/b?x=1`. */
export function surtKey(url: string): string {
  const u = parseLooseUrl(url);
  const port = u.port && u.port !== DEFAULT_PORTS[u.protocol] ? `:${u.port}` : '';
  let p = normalizeEscapes(u.pathname || '/');
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  const args = u.search
    .slice(1)
    .split('&')
    .map(normalizeEscapes)
    .filter((a) => !SESSION_ARGS.some((re) => re.test(a)));
  const query = args.length === 1 && args[0] === '' ? '' : args.sort().join('&');
  return `${surtHost(u.hostname)}${port})${p}${query ? `?${query}` : ''}`.toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// The capture index

const CDX_FIELDS = ['urlkey', 'timestamp', 'original', 'mimetype', 'statuscode', 'digest', 'length'] as const;
type CdxField = (typeof CDX_FIELDS)[number];

interface Indexed {
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
function buildIndex(captures: Capture[], baseDir: string): Indexed[] {
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

function fieldOf(row: Indexed, field: CdxField): string {
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

/** Reads a JSON array of Capture objects (bodies inline as strings, or files relative to the stub's baseDir). */
export function loadCaptures(file: string): Capture[] {
  const data = readJsonArray(file, 'capture table', 'captures');
  data.forEach((c: unknown, i: number) => {
    const o = c as Partial<Capture> | null;
    if (
      typeof o !== 'object' ||
      o === null ||
      typeof o.url !== 'string' ||
      typeof o.timestamp !== 'string' ||
      !TS14.test(o.timestamp)
    ) {
      throw new Error(`capture table ${file}: capture #${i} needs a string "url" and a 14-digit string "timestamp"`);
    }
  });
  return data as Capture[];
}

/** A captures input that cannot be served: its message is one line naming the file, the capture and what is wrong. */
class CapturesInputError extends UserError {
  override readonly name = 'CapturesInputError';
}

/**
 * What `quotecheck wayback-stub --captures` reads: the captures, and the folder their `file` bodies are relative to.
 */
export interface CapturesInput {
  captures: Capture[];
  baseDir: string;
  /** The file the captures came from. */
  file: string;
}

/** The files a captures folder may hold, tried in this order. */
const CAPTURES_FILES = ['captures.json', 'captures.jsonl'] as const;

const CAPTURE_KEYS = new Set(['url', 'timestamp', 'status', 'mimetype', 'headers', 'file', 'body', 'location']);

/** Why one capture (a parsed JSON value) cannot be served, or undefined when it can. */
function captureProblem(o: unknown, baseDir: string): string | undefined {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return 'is not a JSON object';
  const c = o as Record<string, unknown>;
  const unknownKey = Object.keys(c).find((k) => !CAPTURE_KEYS.has(k));
  if (unknownKey !== undefined)
    return `has an unknown field ${JSON.stringify(unknownKey)} (fields: ${[...CAPTURE_KEYS].join(', ')})`;
  if (typeof c.url !== 'string') return 'needs a string "url"';
  let parsed: URL | undefined;
  try {
    parsed = new URL(c.url);
  } catch {
    // said below
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    return `"url" ${JSON.stringify(c.url)} is not an http(s) URL`;
  if (typeof c.timestamp !== 'string' || !TS14.test(c.timestamp) || clampTimestamp(c.timestamp) !== c.timestamp) {
    return '"timestamp" must be a string of 14 digits, a valid UTC time (yyyyMMddhhmmss)';
  }
  if (
    c.status !== undefined &&
    (typeof c.status !== 'number' || !Number.isInteger(c.status) || c.status < 100 || c.status > 599)
  )
    return '"status" must be an HTTP status (100-599)';
  if (c.mimetype !== undefined && typeof c.mimetype !== 'string') return '"mimetype" must be a string';
  if (
    c.headers !== undefined &&
    (typeof c.headers !== 'object' ||
      c.headers === null ||
      Array.isArray(c.headers) ||
      Object.values(c.headers).some((v) => typeof v !== 'string'))
  ) {
    return '"headers" must be an object of strings';
  }
  if (c.location !== undefined && typeof c.location !== 'string') return '"location" must be a string';
  if (c.body !== undefined && typeof c.body !== 'string') return '"body" must be a string';
  if (c.file !== undefined && c.body !== undefined) return 'has both "file" and "body": give one';
  if (c.file !== undefined) {
    if (typeof c.file !== 'string' || c.file === '') return '"file" must be a path (relative to the captures file)';
    const full = path.resolve(baseDir, c.file);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(full);
    } catch {
      return `"file" ${c.file}: no such file ${full}`;
    }
    if (!stat.isFile()) return `"file" ${c.file}: ${full} is not a file`;
  }
  return undefined;
}

/**
 * The captures of a JSON array (`.json`) or of JSON Lines (one capture a line; blank lines skipped), each with where it
 * was.
 */
function parseCapturesFile(file: string, text: string): { value: unknown; where: string }[] {
  const lines = /\.jsonl$/i.test(file) || (!text.trimStart().startsWith('[') && text.trim() !== '');
  if (!lines) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new CapturesInputError(`--captures ${file}: not valid JSON: ${(err as Error).message}`);
    }
    if (!Array.isArray(data))
      throw new CapturesInputError(
        `--captures ${file}: must be a JSON array of captures (or JSON Lines, one capture a line)`,
      );
    return data.map((value, i) => ({ value, where: `capture #${i}` }));
  }
  const out: { value: unknown; where: string }[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push({ value: JSON.parse(line), where: `line ${i + 1}` });
    } catch (err) {
      throw new CapturesInputError(`--captures ${file}: line ${i + 1} is not valid JSON: ${(err as Error).message}`);
    }
  });
  return out;
}

/**
 * Reads what `quotecheck wayback-stub --captures` names: a JSON file (an array of captures, or JSON Lines with one a
 * line), or a folder holding captures.json (or captures.jsonl). Each capture is a Capture: `url`, `timestamp` (14
 * digits) and optionally `status`, `mimetype`, `headers`, `location`, and its body inline (`body`) or from `file`,
 * relative to the captures file. Every capture is checked before anything is served: the first problem is one line.
 */
export function readCapturesInput(input: string): CapturesInput {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(input);
  } catch {
    throw new CapturesInputError(`--captures ${input}: no such file or folder`);
  }
  let file = input;
  if (stat.isDirectory()) {
    const found = CAPTURES_FILES.map((name) => path.join(input, name)).find((f) => fs.existsSync(f));
    if (!found) throw new CapturesInputError(`--captures ${input}: the folder has no ${CAPTURES_FILES.join(' or ')}`);
    file = found;
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CapturesInputError(
      `--captures ${file}: cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  const baseDir = path.dirname(path.resolve(file));
  const entries = parseCapturesFile(file, text);
  if (entries.length === 0) throw new CapturesInputError(`--captures ${file}: holds no captures`);
  for (const { value, where } of entries) {
    const problem = captureProblem(value, baseDir);
    if (problem) {
      const o = value as { url?: unknown; timestamp?: unknown } | null;
      const named =
        typeof o === 'object' && o !== null && typeof o.url === 'string'
          ? ` (${o.url}${typeof o.timestamp === 'string' ? ` @ ${o.timestamp}` : ''})`
          : '';
      throw new CapturesInputError(`--captures ${file}: ${where}${named} ${problem}`);
    }
  }
  return { captures: entries.map((e) => e.value as Capture), baseDir, file };
}

// ---------------------------------------------------------------------------------------------
// CDX server: GET /cdx/search/cdx

interface CdxFilter {
  field: CdxField;
  re: RegExp;
}

interface CdxQuery {
  key: string;
  from: string | undefined;
  to: string | undefined;
  limit: number;
  filters: CdxFilter[];
  fields: CdxField[];
  json: boolean;
}

function asField(name: string): CdxField | undefined {
  return (CDX_FIELDS as readonly string[]).includes(name) ? (name as CdxField) : undefined;
}

/**
 * CDX parameters that would change the answer and that the stub does not serve (src/wayback/cdx.ts never sends them):
 * they answer 400 rather than a list the real server would not give. Others (fastLatest, gzip, ...) change nothing.
 */
const NOT_SERVED = [
  'matchType',
  'collapse',
  'offset',
  'page',
  'pageSize',
  'showNumPages',
  'showResumeKey',
  'resumeKey',
  'closest',
  'sort',
] as const;

/** The 400 message of what the stub does not serve. */
function notServed(what: string): string {
  return (
    `wayback stub: ${what} is not served; the stub serves only the CDX queries quotecheck's client sends ` +
    '(an exact url, from, to, filter=field:regex, output=json, fl, limit)'
  );
}

/** filter=field:regex; the regex is a Java regex applied with matches(), i.e. to the whole value. */
function parseFilter(spec: string): CdxFilter | string {
  if (spec.startsWith('!')) return notServed(`the negated filter ${JSON.stringify(spec)}`);
  const colon = spec.indexOf(':');
  const field = asField(colon > 0 ? spec.slice(0, colon) : '');
  if (!field)
    return `bad filter ${JSON.stringify(spec)}: expected field:regex with field one of ${CDX_FIELDS.join(',')}`;
  let pattern = spec.slice(colon + 1);
  let flags = '';
  if (pattern.startsWith('(?i)')) {
    // Java's embedded case-insensitive flag, common in CDX filters; JS has no inline flags.
    pattern = pattern.slice(4);
    flags = 'i';
  }
  try {
    return { field, re: new RegExp(`^(?:${pattern})$`, flags) };
  } catch (err) {
    return `bad filter regex ${JSON.stringify(pattern)}: ${(err as Error).message}`;
  }
}

/** The exact url's key; a string result is the 400 message (no url, a wildcard, an invalid one). */
function queryKey(params: URLSearchParams): string | { key: string } {
  const url = params.get('url');
  if (url === null || url.trim() === '') return 'url parameter is required';
  if (url.startsWith('*.') || url.endsWith('*')) return notServed(`the wildcard url ${JSON.stringify(url)}`);
  const refused = NOT_SERVED.find(
    (name) => params.has(name) && !(name === 'matchType' && params.get(name) === 'exact'),
  );
  if (refused !== undefined) return notServed(`the ${refused} parameter`);
  try {
    return { key: surtKey(url) };
  } catch {
    return `invalid url ${JSON.stringify(url)}`;
  }
}

/** Parses the query string; a string result is the 400 message. */
function parseCdxQuery(params: URLSearchParams): CdxQuery | string {
  const key = queryKey(params);
  if (typeof key === 'string') return key;
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  for (const [name, v] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (v !== '' && !/^\d{1,14}$/.test(v)) return `${name} must be a 1-14 digit timestamp`;
  }
  const limitRaw = params.get('limit') ?? '0';
  if (!/^-?\d+$/.test(limitRaw)) return 'limit must be an integer';
  const filters: CdxFilter[] = [];
  for (const spec of params.getAll('filter')) {
    const f = parseFilter(spec);
    if (typeof f === 'string') return f;
    filters.push(f);
  }
  const fl = params.get('fl');
  const fields: CdxField[] = [];
  for (const name of fl ? fl.split(',') : CDX_FIELDS) {
    const f = asField(name.trim());
    if (!f) return `unknown field ${JSON.stringify(name)} in fl`;
    fields.push(f);
  }
  return {
    key: key.key,
    from: from === '' ? undefined : padTimestamp(from, 'earliest'),
    to: to === '' ? undefined : padTimestamp(to, 'latest'),
    limit: Number(limitRaw),
    filters,
    fields,
    json: params.get('output') === 'json',
  };
}

/**
 * Runs a query in the real server's order on the captures of its exact url (in CDX order): the from/to range
 * (inclusive), regex filters, then limit: N > 0 the first N, N < 0 the last N still in ascending order
 * (LastNLineProcessor), 0 all.
 */
function runCdxQuery(captures: readonly Indexed[], q: CdxQuery): Indexed[] {
  const rows = captures.filter(
    (r) =>
      (q.from === undefined || r.timestamp >= q.from) &&
      (q.to === undefined || r.timestamp <= q.to) &&
      q.filters.every((f) => f.re.test(fieldOf(r, f.field))),
  );
  if (q.limit > 0) return rows.slice(0, q.limit);
  if (q.limit < 0) return rows.slice(Math.max(0, rows.length + q.limit));
  return rows;
}

/** output=json: field-name row first, one array of strings per capture, `[]` when empty; else space-separated lines. */
function formatCdx(rows: Indexed[], q: CdxQuery): { type: string; body: string } {
  const table = rows.map((r) => q.fields.map((f) => fieldOf(r, f)));
  if (q.json) {
    const all = rows.length === 0 ? [] : [[...q.fields], ...table];
    return { type: 'application/json', body: `[${all.map((row) => JSON.stringify(row)).join(',\n')}]` };
  }
  return { type: 'text/plain; charset=utf-8', body: table.map((row) => `${row.join(' ')}\n`).join('') };
}

// ---------------------------------------------------------------------------------------------
// Replay: GET /web/{timestamp}{flag}/{original url}

interface ReplayRequest {
  /** 1–14 digits, or '' for a dateless request (= the latest capture). */
  timestamp: string;
  /** 'id_' serves the original bytes; '' (or any other flag) the rewritten page. */
  flag: string;
  url: string;
}

/** Splits "/web/2020id_/http://x.org/a?b=1"; the query string belongs to the original URL. */
function parseReplayPath(target: string): ReplayRequest | undefined {
  if (!target.startsWith('/web/')) return undefined;
  const rest = target.slice('/web/'.length);
  const m = /^(\d{1,14})([a-z]{2}_)?\/(.+)$/.exec(rest);
  let timestamp = '';
  let flag = '';
  let url = rest;
  if (m) {
    timestamp = m[1] ?? '';
    flag = m[2] ?? '';
    url = m[3] ?? '';
  } else if (/^[\d*]/.test(rest) && !/^\d+\.\d/.test(rest)) {
    return undefined; // calendar ("*") or malformed timestamp; a leading IPv4 host is a dateless URL
  }
  // The original may come percent-encoded as a whole ("http%3A%2F%2F..."), or with the double
  // slash collapsed by a path normalizer ("http:/x.org").
  if (/^https?%3a/i.test(url)) {
    try {
      url = decodeURIComponent(url);
    } catch {
      return undefined;
    }
  }
  url = url.replace(/^(https?):\/+/i, '$1://');
  if (url === '') return undefined;
  return { timestamp, flag, url };
}

/** The capture nearest in absolute time (ties: the earlier), any status, as replay redirects do. */
function nearest(captures: Indexed[], ms: number): Indexed | undefined {
  let best: Indexed | undefined;
  for (const c of captures) if (best === undefined || Math.abs(c.ms - ms) < Math.abs(best.ms - ms)) best = c;
  return best;
}

function isHtml(contentType: string | undefined): boolean {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase();
  return essence === 'text/html' || essence === 'application/xhtml+xml';
}

/**
 * The rewritten (non-id_) page: like the real Wayback Machine, absolute links point back into the
 * archive, a toolbar is inserted right after <body>, and a trailer comment is appended. The bytes
 * are handled as latin1 so that any charset survives untouched outside the inserted parts.
 */
function rewriteHtml(body: Buffer, row: Indexed, origin: string): Buffer {
  const prefix = `${origin}/web/${row.timestamp}/`;
  let html = body.toString('latin1');
  html = html.replace(/(\s(?:href|src|action)\s*=\s*)(["'])(https?:\/\/)/gi, `$1$2${prefix}$3`);
  const toolbar =
    `<div id="wm-ipp"><!-- BEGIN WAYBACK TOOLBAR INSERT -->The Wayback Machine - ${prefix}${row.original}` +
    `<!-- END WAYBACK TOOLBAR INSERT --></div>`;
  const bodyTag = /<body\b[^>]*>/i.exec(html);
  html = bodyTag
    ? html.slice(0, bodyTag.index + bodyTag[0].length) + toolbar + html.slice(bodyTag.index + bodyTag[0].length)
    : toolbar + html;
  html +=
    `\n<!--\n     FILE ARCHIVED ON ${httpDate(row.timestamp)} AND RETRIEVED FROM THE\n     INTERNET ARCHIVE ` +
    `(loopback stub).\n-->\n`;
  return Buffer.from(html, 'latin1');
}

const NOT_ARCHIVED_BODY =
  '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Wayback Machine</title></head>' +
  '<body><p>Hrm.</p><p>Wayback Machine has not archived that URL.</p></body></html>\n';

// ---------------------------------------------------------------------------------------------
// Server

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function text(status: number, message: string, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
    body: Buffer.from(`${message}\n`),
  };
}

/** A URL as a header value: the original as captured, with only non-visible/non-ASCII characters escaped. */
function headerSafe(url: string): string {
  return url.replace(/[^\x21-\x7e]/gu, (ch) => encodeURIComponent(ch));
}

/**
 * The archive one stub serves: its captures grouped by urlkey, each group in CDX order. Both a CDX query (an exact url
 * only) and replay ask for one urlkey's captures.
 */
type Archive = Map<string, Indexed[]>;

function groupByKey(rows: Indexed[]): Map<string, Indexed[]> {
  const map = new Map<string, Indexed[]>();
  for (const r of rows) {
    const list = map.get(r.urlkey);
    if (list) list.push(r);
    else map.set(r.urlkey, [r]);
  }
  return map;
}

function cdx(archive: Archive, target: URL): Answer {
  const q = parseCdxQuery(target.searchParams);
  if (typeof q === 'string') return text(400, q);
  const { type, body } = formatCdx(runCdxQuery(archive.get(q.key) ?? [], q), q);
  return { status: 200, headers: { 'content-type': type }, body: Buffer.from(body, 'utf8') };
}

function replayUrl(origin: string, ts: string, flag: string, url: string): string {
  return `${origin}/web/${ts}${flag}/${url}`;
}

function notArchived(): Answer {
  return { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from(NOT_ARCHIVED_BODY) };
}

function replay(archive: Archive, origin: string, r: ReplayRequest): Answer {
  let key: string;
  try {
    key = surtKey(r.url);
  } catch {
    return notArchived();
  }
  const captures = archive.get(key) ?? [];
  // The flag is kept on redirects, as the real Wayback Machine does (id_ stays id_).
  const exact = TS14.test(r.timestamp) ? captures.find((c) => c.timestamp === r.timestamp) : undefined;
  if (exact !== undefined) return memento(origin, exact, r.flag);
  if (captures.length === 0) return notArchived();
  // A partial timestamp asks for the LATEST time within its range (OpenWayback
  // ReplayRequestParser: Timestamp.parseAfter); none asks for the latest capture.
  const want = r.timestamp === '' ? Number.MAX_SAFE_INTEGER : timestampMs(padTimestamp(r.timestamp, 'latest'));
  const best = nearest(captures, want)!;
  // Not a memento: no Memento-Datetime on this redirect.
  return {
    status: 302,
    headers: {
      location: replayUrl(origin, best.timestamp, r.flag, headerSafe(best.original)),
      'content-type': 'text/plain; charset=utf-8',
    },
    body: Buffer.alloc(0),
  };
}

/**
 * A capture replayed: original headers as X-Archive-Orig-*, Memento headers, raw bytes for id_, else rewritten HTML.
 */
function memento(origin: string, c: Indexed, flag: string): Answer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(c.headers)) headers[`x-archive-orig-${name.toLowerCase()}`] = value;
  if (c.contentType !== undefined) headers['content-type'] = c.contentType;
  headers['memento-datetime'] = httpDate(c.timestamp);
  const original = headerSafe(c.original);
  headers.link =
    `<${original}>; rel="original", <${origin}/web/${original}>; rel="timegate", ` +
    `<${replayUrl(origin, c.timestamp, '', original)}>; rel="memento"; datetime="${httpDate(c.timestamp)}"`;
  // A replayed redirect points at the archived copy of its target at the same time.
  if (c.location !== undefined) headers.location = replayUrl(origin, c.timestamp, flag, c.location);
  const body = flag === 'id_' || !isHtml(c.contentType) ? c.body : rewriteHtml(c.body, c, origin);
  return { status: c.status, headers, body };
}

/** GET and HEAD only: the CDX API, replay, else 404. */
function route(archive: Archive, origin: string, req: http.IncomingMessage, targetRaw: string): Answer {
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(405, 'Method Not Allowed', { allow: 'GET, HEAD' });
  const target = new URL(targetRaw, origin);
  if (target.pathname === '/cdx/search/cdx') return cdx(archive, target);
  const r = parseReplayPath(targetRaw);
  if (r) return replay(archive, origin, r);
  return text(404, 'Not Found');
}

// ---------------------------------------------------------------------------------------------
// Listening on loopback

/** Logs the request and answers it from the archive (a 500 when that throws). */
function handle(stub: Stub, req: http.IncomingMessage, res: http.ServerResponse, loop: Loopback): void {
  const targetRaw = req.url ?? '/';
  const entry: RequestLogEntry = { path: targetRaw, at: Date.now(), status: 0 };
  stub.requests.push(entry);
  let answer: Answer;
  try {
    answer = route(stub.archive, loop.originFor(stub.host), req, targetRaw);
  } catch (err) {
    answer = text(500, `wayback stub error: ${(err as Error).message}`);
  }
  entry.status = answer.status;
  respond(req, res, answer.status, answer.headers, answer.body);
}

/** What one running stub holds: its archive and its request log. */
interface Stub {
  host: string;
  archive: Archive;
  requests: RequestLogEntry[];
}

/** Starts the stub on a loopback address. */
export async function startWaybackStub(opts: WaybackStubOptions): Promise<RunningWayback> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopback(host)) throw new Error(`wayback stub: ${host} is not a loopback address`);
  const archive = groupByKey(buildIndex(opts.captures, opts.baseDir ?? process.cwd()));
  const stub: Stub = { host, archive, requests: [] };
  const loop = await listenLoopback({
    hosts: [host],
    port: opts.port,
    name: 'wayback stub',
    handler: (req, res, l) => handle(stub, req, res, l),
  });
  return { origin: loop.originFor(host), port: loop.port, requests: stub.requests, close: () => loop.close() };
}
