// Reading a WARC file (gzip members or plain) into records, tolerant of a cut tail: every whole record before the cut
// is kept.
import { readFile } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import zlib from 'node:zlib';
import { WARCParser } from 'warcio';
import { ArchiveError, WAYBACK_BASE_FIELD, fsReason, normalBase, type HeaderPair } from './warc.js';

export { ArchiveError } from './warc.js';

/**
 * The HTTP head of a response record. Header values are as an HTTP client sees them: one character per byte (latin1),
 * as undici decodes them.
 */
interface HttpResponseHead {
  protocol: string;
  status: number;
  statusText: string;
  headers: HeaderPair[];
}

/** The HTTP head of a request record: the request line's method and target in place of a status. */
interface HttpRequestHead {
  protocol: string;
  method: string;
  /** The request target as sent (normally the path and query). */
  target: string;
  headers: HeaderPair[];
}

export interface ArchivedRecord {
  /** WARC-Type: warcinfo, request, response, metadata, ... */
  type: string;
  recordId: string;
  targetUri?: string;
  /** WARC-Date (ISO 8601, UTC). For a Wayback capture: when it was archived. */
  date: string;
  /** WARC-Source-URI: for a Wayback capture, the Wayback URL it was fetched from. */
  sourceUri?: string;
  /** The first WARC-Concurrent-To (all of them are in `warcHeaders`). */
  concurrentTo?: string;
  /** WARC-Truncated: "length", "time", "disconnect", "unspecified". */
  truncated?: string;
  /** Every WARC header, in file order. */
  warcHeaders: HeaderPair[];
  /** For response (and revisit) records with an HTTP block. */
  http?: HttpResponseHead;
  /** For request records. */
  request?: HttpRequestHead;
  /**
   * The HTTP body as stored (still content-encoded), or the whole block for non-HTTP records (e.g. metadata fields).
   */
  payload: Buffer;
  /** Parsed application/warc-fields (warcinfo, metadata records). */
  fields?: Record<string, string>;
  /**
   * The record as one gzip member: its own bytes in the file when it was stored that way, so subsets can be written
   * byte-identical.
   */
  raw: Buffer;
  /** Offset of the record's gzip member (or, in a plain WARC, of the record) in the file. */
  offset: number;
}

export interface Archive {
  path: string;
  records: ArchivedRecord[];
  /** Set when the file ends inside a record (or is damaged there): what was read before it is kept. */
  cut?: { offset: number; reason: string };
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const WARC_MAGIC = Buffer.from('WARC/');

/** Reads the whole file; a missing file or one that is not a WARC is an ArchiveError with a one-line reason. */
export async function readArchive(path: string): Promise<Archive> {
  let file: Buffer;
  try {
    file = await readFile(path);
  } catch (err) {
    throw new ArchiveError(`cannot read the archive ${path}: ${fsReason(err)}`);
  }
  if (file.length === 0) throw new ArchiveError(`${path} is empty, not a WARC file`);
  const gzip = file[0] === 0x1f && (file.length < 2 || file[1] === 0x8b);
  if (!gzip && !isPrefixAt(file, 0, WARC_MAGIC)) {
    throw new ArchiveError(`${path} is not a WARC file (it starts with neither a gzip member nor "WARC/")`);
  }
  const archive: Archive = { path, records: [] };
  if (gzip) await readMembers(file, archive);
  else await readPlain(file, archive);
  return archive;
}

/** `buf` at `at` starts with `magic`, or is cut inside it. */
function isPrefixAt(buf: Buffer, at: number, magic: Buffer): boolean {
  const n = Math.min(magic.length, buf.length - at);
  return n > 0 && buf.subarray(at, at + n).equals(magic.subarray(0, n));
}

function notWarc(archive: Archive): ArchiveError {
  return new ArchiveError(`${archive.path} is not a WARC file (its content does not start with a "WARC/" record)`);
}

type MemberResult = { ok: true; end: number; data: Buffer } | { ok: false; reason: string; partial?: Buffer };

/** Header length of the gzip member at `at` (RFC 1952 §2.3), or why there is none. */
function gzipHeaderLength(buf: Buffer, at: number): number | 'short' | 'bad' {
  const avail = buf.length - at;
  const magic = [0x1f, 0x8b, 0x08];
  for (let i = 0; i < Math.min(3, avail); i++) if (buf[at + i] !== magic[i]) return 'bad';
  if (avail < 10) return 'short';
  const flags = buf[at + 3]!;
  let p = at + 10;
  if (flags & 0x04) {
    if (p + 2 > buf.length) return 'short';
    p += 2 + buf.readUInt16LE(p);
  }
  for (const bit of [0x08, 0x10]) {
    if (flags & bit) {
      const zero = buf.indexOf(0, p);
      if (zero < 0) return 'short';
      p = zero + 1;
    }
  }
  if (flags & 0x02) p += 2;
  return p > buf.length ? 'short' : p - at;
}

/**
 * Inflates the one gzip member at `at`. zlib stops at the end of the deflate stream and says
 * how much input it used, which gives the member's end without trusting anything else; the
 * trailer's CRC-32 and length then prove the member whole.
 */
function readMember(buf: Buffer, at: number): MemberResult {
  const header = gzipHeaderLength(buf, at);
  if (header === 'bad')
    return { ok: false, reason: `no gzip member where one should start (damaged data at byte ${at})` };
  if (header === 'short') return { ok: false, reason: 'the file ends inside a record (in a gzip header)' };
  const start = at + header;
  let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    inflated = zlib.inflateRawSync(buf.subarray(start), { info: true }) as unknown as typeof inflated;
  } catch (err) {
    const truncated = (err as NodeJS.ErrnoException).code === 'Z_BUF_ERROR';
    let partial: Buffer | undefined;
    try {
      partial = zlib.inflateRawSync(buf.subarray(start), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    } catch {
      partial = undefined;
    }
    return {
      ok: false,
      reason: truncated ? 'the file ends inside a record' : `damaged gzip data (${(err as Error).message})`,
      partial,
    };
  }
  const trailer = start + inflated.engine.bytesWritten;
  if (trailer + 8 > buf.length)
    return { ok: false, reason: 'the file ends inside a record (in a gzip trailer)', partial: inflated.buffer };
  const data = inflated.buffer;
  if (zlib.crc32(data) !== buf.readUInt32LE(trailer) || data.length >>> 0 !== buf.readUInt32LE(trailer + 4)) {
    return { ok: false, reason: 'damaged gzip member (CRC or length mismatch)' };
  }
  return { ok: true, end: trailer + 8, data };
}

interface Slice {
  start: number;
  blockStart: number;
  blockEnd: number;
  /** After the record's closing CRLF CRLF. */
  end: number;
}

/** Splits WARC records by their Content-Length; stops at the first one that is not whole. */
function splitRecords(data: Buffer): { slices: Slice[]; stop?: { at: number; reason: string; notWarc?: boolean } } {
  const slices: Slice[] = [];
  let p = 0;
  for (;;) {
    // Writers differ in the blank lines between records; none of them is content.
    while (p < data.length && (data[p] === 0x0d || data[p] === 0x0a)) p++;
    if (p >= data.length) return { slices };
    if (!isPrefixAt(data, p, WARC_MAGIC))
      return { slices, stop: { at: p, reason: 'not a WARC record', notWarc: true } };
    const headerEnd = data.indexOf(CRLFCRLF, p);
    if (headerEnd < 0) return { slices, stop: { at: p, reason: 'the file ends inside a record' } };
    const m = /\r\ncontent-length:[ \t]*(\d+)[ \t]*(?:\r\n|$)/i.exec(data.toString('latin1', p, headerEnd));
    if (!m) return { slices, stop: { at: p, reason: 'a record without Content-Length' } };
    const blockStart = headerEnd + 4;
    const blockEnd = blockStart + Number(m[1]);
    if (data.length < blockEnd + 4) return { slices, stop: { at: p, reason: 'the file ends inside a record' } };
    if (!data.subarray(blockEnd, blockEnd + 4).equals(CRLFCRLF)) {
      return { slices, stop: { at: p, reason: 'a record whose Content-Length does not match its content' } };
    }
    slices.push({ start: p, blockStart, blockEnd, end: blockEnd + 4 });
    p = blockEnd + 4;
  }
}

/** Reads a .warc.gz: one record per gzip member (as quotecheck writes), or several per member (as some tools do). */
async function readMembers(file: Buffer, archive: Archive): Promise<void> {
  let sinceYield = 0;
  for (let at = 0; at < file.length; ) {
    const member = readMember(file, at);
    if (!member.ok) {
      // Records of a cut member that are followed by more of it are whole; the last one cannot be proven so.
      if (member.partial) {
        const { slices, stop } = splitRecords(member.partial);
        if (
          stop?.notWarc &&
          archive.records.length === 0 &&
          slices.length === 0 &&
          stop.at === 0 &&
          member.partial.length >= WARC_MAGIC.length
        )
          throw notWarc(archive);
        const proven = stop ? slices : slices.slice(0, -1);
        for (const s of proven) archive.records.push(await toRecord(member.partial, s, gzipOf(member.partial, s), at));
      }
      archive.cut = { offset: at, reason: member.reason };
      return;
    }
    const { slices, stop } = splitRecords(member.data);
    if (stop?.notWarc && archive.records.length === 0 && slices.length === 0) throw notWarc(archive);
    const own = slices.length === 1 && !stop;
    for (const s of slices) {
      const record = await toRecord(member.data, s, own ? file.subarray(at, member.end) : gzipOf(member.data, s), at);
      if (own) inflateOnRead(record, member.data);
      archive.records.push(record);
    }
    if (stop) {
      archive.cut = { offset: at, reason: `${stop.reason} (inside the gzip member at byte ${at})` };
      return;
    }
    sinceYield += member.end - at + member.data.length;
    at = member.end;
    // Inflating is synchronous: let the event loop run between big stretches of a large archive.
    if (sinceYield > 16 << 20) {
      sinceYield = 0;
      await nextTurn();
    }
  }
}

/** Payloads at least this large are inflated again from `raw` when read rather than held. */
const HELD_PAYLOAD_MAX = 4096;

/**
 * A record that is its own gzip member keeps only its compressed bytes: a large payload is
 * inflated again each time it is read, so a replay of a large archive holds about its file size
 * in memory, not its inflated size (the bench's archive: bench/results.json record.archive_mb). Small
 * payloads are copied out, so the member's inflated buffer can go.
 */
function inflateOnRead(record: ArchivedRecord, data: Buffer): void {
  const { payload, raw } = record;
  if (payload.length < HELD_PAYLOAD_MAX) {
    record.payload = Buffer.from(payload);
    return;
  }
  const start = payload.byteOffset - data.byteOffset;
  const end = start + payload.length;
  Object.defineProperty(record, 'payload', {
    enumerable: true,
    configurable: true,
    get: () => zlib.gunzipSync(raw).subarray(start, end),
  });
}

/** Reads an uncompressed .warc; records are gzipped one by one for `raw`. */
async function readPlain(file: Buffer, archive: Archive): Promise<void> {
  const { slices, stop } = splitRecords(file);
  for (const s of slices) archive.records.push(await toRecord(file, s, gzipOf(file, s), s.start));
  if (stop) {
    if (stop.notWarc && slices.length === 0) throw notWarc(archive);
    archive.cut = { offset: stop.at, reason: stop.reason };
  }
}

function gzipOf(data: Buffer, s: Slice): Buffer {
  return zlib.gzipSync(data.subarray(s.start, s.end));
}

async function toRecord(data: Buffer, s: Slice, raw: Buffer, offset: number): Promise<ArchivedRecord> {
  // warcio parses the WARC header block (continuation lines, repeated fields); the block itself is sliced, not copied.
  const parsed = await WARCParser.parse([data.subarray(s.start, s.blockStart)], {
    keepHeadersCase: true,
    parseHttp: false,
  });
  const warcHeaders: HeaderPair[] = parsed ? [...parsed.warcHeaders.headers].map(([k, v]) => [k, v]) : [];
  const get = (name: string): string | undefined => {
    const lower = name.toLowerCase();
    return warcHeaders.find(([k]) => k.toLowerCase() === lower)?.[1];
  };
  const block = data.subarray(s.blockStart, s.blockEnd);
  const type = get('WARC-Type') ?? '';
  const contentType = (get('Content-Type') ?? '').toLowerCase();
  const record: ArchivedRecord = {
    type,
    recordId: get('WARC-Record-ID') ?? '',
    targetUri: unbracket(get('WARC-Target-URI')),
    date: get('WARC-Date') ?? '',
    sourceUri: unbracket(get('WARC-Source-URI')),
    concurrentTo: get('WARC-Concurrent-To'),
    truncated: get('WARC-Truncated'),
    warcHeaders,
    payload: block,
    raw,
    offset,
  };
  const isHttp =
    contentType.startsWith('application/http') || type === 'response' || type === 'request' || type === 'revisit';
  if (isHttp && block.length > 0) {
    const head = parseHttpHead(block);
    if (head) {
      record.payload = block.subarray(head.bodyStart);
      const [a = '', b = '', c = ''] = splitLine(head.firstLine);
      if (/^HTTP\//i.test(a)) record.http = { protocol: a, status: Number(b), statusText: c, headers: head.headers };
      else record.request = { method: a, target: b, protocol: c, headers: head.headers };
    }
  }
  if (contentType.startsWith('application/warc-fields')) record.fields = parseFields(block);
  return record;
}

/** WARC 1.0 wrote some URIs in angle brackets. */
function unbracket(uri: string | undefined): string | undefined {
  return uri?.startsWith('<') && uri.endsWith('>') ? uri.slice(1, -1) : uri;
}

/**
 * "HTTP/1.1 200 OK" -> ["HTTP/1.1", "200", "OK"]; "GET /x HTTP/1.1" -> ["GET", "/x", "HTTP/1.1"]. The third part keeps
 * its spaces.
 */
function splitLine(line: string): string[] {
  const m = /^(\S+)[ \t]+(\S+)(?:[ \t](.*))?$/.exec(line);
  return m ? [m[1]!, m[2]!, m[3] ?? ''] : [line];
}

/** The HTTP head as bytes-as-characters, so header values are what the client saw, whatever their charset. */
function parseHttpHead(block: Buffer): { firstLine: string; headers: HeaderPair[]; bodyStart: number } | undefined {
  let end = block.indexOf(CRLFCRLF);
  let bodyStart = end + 4;
  if (end < 0) {
    // A head without a body may lack its blank line; it is still a head.
    if (!/^(HTTP\/|[A-Z]+ )/.test(block.toString('latin1', 0, 8))) return undefined;
    end = block.length;
    bodyStart = block.length;
  }
  const lines = block.toString('latin1', 0, end).split(/\r?\n/);
  const firstLine = lines.shift() ?? '';
  const headers: HeaderPair[] = [];
  for (const line of lines) {
    const last = headers[headers.length - 1];
    if (/^[ \t]/.test(line) && last) {
      last[1] = `${last[1]} ${line.trim()}`; // obsolete line folding
      continue;
    }
    const colon = line.indexOf(':');
    if (colon > 0) headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return { firstLine, headers, bodyStart };
}

/** application/warc-fields: "name: value" lines (UTF-8); the first of a repeated name wins. */
function parseFields(block: Buffer): Record<string, string> {
  // No prototype: a field named "__proto__" or "constructor" is just a field.
  const fields = Object.create(null) as Record<string, string>;
  for (const line of block.toString('utf8').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    if (!(name in fields)) fields[name] = line.slice(colon + 1).trim();
  }
  return fields;
}

/** A capture's WARC-Source-URI: `{base}/web/{timestamp}id_/{url}`. */
const CAPTURE_SOURCE = /^(https?:\/\/.*?)\/web\/\d{1,14}id_\//i;
/** A CDX query's URL: `{base}/cdx/search/cdx?...`. */
const CDX_QUERY = /^(https?:\/\/.*?)\/cdx\/search\/cdx(?:\?|$)/i;

/**
 * The Wayback Machine base(s) a recorded run asked: the `wayback-base` field of its warcinfo record(s). An archive
 * written before the field existed (or by another tool) has them inferred from what was recorded: the bases of
 * the captures' WARC-Source-URIs and of the CDX queries' URLs. Several only in an archive joined from runs
 * against different bases; none when nothing says (no base recorded, no archive request).
 */
export function recordedWaybackBases(archive: Archive): string[] {
  const bases = new Set<string>();
  const infos = archive.records.filter((r) => r.type === 'warcinfo');
  for (const info of infos)
    for (const base of (info.fields?.[WAYBACK_BASE_FIELD] ?? '').split(/\s+/)) if (base) bases.add(normalBase(base));
  // A file (or part of a joined file) whose warcinfo says nothing is read for its bases.
  if (infos.length === 0 || infos.some((info) => info.fields?.[WAYBACK_BASE_FIELD] === undefined)) {
    for (const r of archive.records) {
      const m = r.sourceUri ? CAPTURE_SOURCE.exec(r.sourceUri) : CDX_QUERY.exec(r.targetUri ?? '');
      if (m?.[1]) bases.add(normalBase(m[1]));
    }
  }
  return [...bases];
}
