// Subsets: the records a replay of some sources needs (redirect hops, retries, Wayback lookups and captures), written
// as a new archive.
import { rename, unlink, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import zlib from 'node:zlib';
import { recordedWaybackBases, type ArchivedRecord, type Archive } from './read.js';
import {
  ArchiveError,
  absoluteOriginal,
  fsReason,
  headerValue,
  looseUrlKey,
  parseWaybackUrl,
  serializeRecord,
  trimBase,
  urlKey,
  warcinfoRecord,
} from './warc.js';

const DEFAULT_WAYBACK = 'https://web.archive.org';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Everything a replay of these sources needs, in archive order: for each source URL its live
 * exchanges (every attempt), followed through every recorded redirect to the exchanges of
 * each URL reached; the Wayback captures of those URLs, the Wayback redirect hops and CDX
 * queries about them (and the captures a CDX answer lists); with each exchange's request and
 * metadata records. The warcinfo record is left out: `writeArchive` writes a fresh one.
 */
export function selectForSources(
  archive: Archive,
  sourceUrls: readonly string[],
  options: { waybackBase?: string } = {},
): ArchivedRecord[] {
  const base = trimBase(options.waybackBase ?? DEFAULT_WAYBACK);
  const records = archive.records.filter((r) => r.type !== 'warcinfo');
  const byTarget = groupBy(records, (r) => (r.targetUri && !r.sourceUri ? urlKey(r.targetUri) : undefined));
  const bySource = groupBy(records, (r) => (r.sourceUri ? urlKey(r.sourceUri) : undefined));
  // Captures by the archived URL, loosely: Wayback lists a page under other schemes and www. forms.
  const capturesOf = groupBy(records, (r) => (r.sourceUri && r.targetUri ? looseUrlKey(r.targetUri) : undefined));
  // Wayback lookups (raw capture URLs, their redirects, CDX queries) by the URL they are about.
  const lookupsAbout = groupBy(records, (r) => {
    if (!r.targetUri || r.sourceUri) return undefined;
    const about = waybackSubject(urlKey(r.targetUri), base);
    return about === undefined ? undefined : looseUrlKey(about);
  });

  const chosen = new Set<ArchivedRecord>();
  const seen = new Set<string>();
  const queue: string[] = sourceUrls.map(urlKey);
  const take = (list: readonly ArchivedRecord[] | undefined, from: string): void => {
    for (const r of list ?? []) {
      if (chosen.has(r)) continue;
      chosen.add(r);
      // A recorded redirect leads to more exchanges the replay will ask for.
      const status = r.http?.status;
      const location =
        r.http && status !== undefined && REDIRECTS.has(status) ? headerValue(r.http.headers, 'location') : undefined;
      if (location) {
        const next = resolve(location, r.sourceUri ?? from);
        if (next) queue.push(next);
      }
      // A CDX answer names the captures the pipeline goes on to fetch.
      if (r.http && r.targetUri && isCdxQuery(urlKey(r.targetUri), base))
        for (const u of cdxCaptureUrls(r, base)) queue.push(u);
    }
  };
  while (queue.length > 0) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    seen.add(url);
    take(byTarget.get(url), url);
    take(bySource.get(url), url);
    // Only a page's own URL has captures and lookups; a Wayback URL is itself a lookup.
    if (waybackSubject(url, base) === undefined) {
      take(capturesOf.get(looseUrlKey(url)), url);
      take(lookupsAbout.get(looseUrlKey(url)), url);
    }
  }

  // Each exchange whole: requests and error metadata linked to what was chosen, either way round.
  const ids = new Set([...chosen].map((r) => r.recordId));
  const linked = new Set([...chosen].flatMap(concurrentTo));
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of records) {
      if (chosen.has(r) || !(linked.has(r.recordId) || concurrentTo(r).some((id) => ids.has(id)))) continue;
      chosen.add(r);
      ids.add(r.recordId);
      for (const id of concurrentTo(r)) linked.add(id);
      grew = true;
    }
  }
  return records.filter((r) => chosen.has(r));
}

/**
 * Writes a new archive: a fresh warcinfo record, then each record's own gzip member, byte for
 * byte. Written to a temporary file and renamed, so a reader never sees half an archive. The
 * warcinfo names the Wayback base(s) the records were recorded from (`waybackBases`, else those
 * the records themselves show), so a replay of the subset needs no --wayback-url either.
 */
export async function writeArchive(
  path: string,
  records: readonly ArchivedRecord[],
  options: { software?: string; waybackBases?: readonly string[] } = {},
): Promise<void> {
  const bases =
    options.waybackBases ?? recordedWaybackBases({ path, records: records.filter((r) => r.type !== 'warcinfo') });
  const info = await serializeRecord(warcinfoRecord(basename(path), options.software, bases));
  const members = records.map((r) => (isGzipMember(r.raw) ? r.raw : zlib.gzipSync(r.raw)));
  const temp = `${path}.tmp-${process.pid}-${Date.now()}`;
  try {
    await writeFile(temp, Buffer.concat([info, ...members]));
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw new ArchiveError(`cannot write the archive ${path}: ${fsReason(err)}`);
  }
}

function isGzipMember(raw: Buffer): boolean {
  return raw.length >= 18 && raw[0] === 0x1f && raw[1] === 0x8b;
}

function groupBy(
  records: readonly ArchivedRecord[],
  keyOf: (r: ArchivedRecord) => string | undefined,
): Map<string, ArchivedRecord[]> {
  const map = new Map<string, ArchivedRecord[]>();
  for (const r of records) {
    const key = keyOf(r);
    if (key === undefined) continue;
    const list = map.get(key);
    if (list) list.push(r);
    else map.set(key, [r]);
  }
  return map;
}

function concurrentTo(r: ArchivedRecord): string[] {
  return r.warcHeaders.filter(([k]) => k.toLowerCase() === 'warc-concurrent-to').map(([, v]) => v);
}

/** A Location resolved as the fetch layer does: against the URL it came from, fragment and credentials dropped. */
function resolve(location: string, against: string): string | undefined {
  try {
    return urlKey(new URL(location, against).href);
  } catch {
    return undefined;
  }
}

function isCdxQuery(url: string, base: string): boolean {
  return url.toLowerCase().startsWith(`${base}/cdx/search/cdx`.toLowerCase());
}

/** The page URL a Wayback URL is about: `{base}/web/{ts}{mod}/{url}` or `{base}/cdx/search/cdx?url={url}&...`. */
function waybackSubject(url: string, base: string): string | undefined {
  const ref = parseWaybackUrl(url, base);
  if (ref) return ref.original;
  if (isCdxQuery(url, base)) {
    const q = new URL(url).searchParams.get('url');
    return q ? absoluteOriginal(q) : undefined;
  }
  return undefined;
}

/** The raw capture URLs (`{base}/web/{timestamp}id_/{original}`) a recorded CDX JSON answer lists. */
function cdxCaptureUrls(r: ArchivedRecord, base: string): string[] {
  try {
    const encoding = (headerValue(r.http!.headers, 'content-encoding') ?? '').trim().toLowerCase();
    const body =
      encoding === 'gzip' || encoding === 'x-gzip'
        ? zlib.gunzipSync(r.payload)
        : encoding === 'br'
          ? zlib.brotliDecompressSync(r.payload)
          : encoding === 'deflate'
            ? zlib.inflateSync(r.payload)
            : r.payload;
    const rows: unknown = JSON.parse(body.toString('utf8'));
    if (!Array.isArray(rows) || !Array.isArray(rows[0])) return [];
    const header = rows[0] as unknown[];
    const ts = header.indexOf('timestamp');
    const original = header.indexOf('original');
    if (ts < 0 || original < 0) return [];
    return rows.slice(1).flatMap((row: unknown) => {
      if (!Array.isArray(row) || typeof row[ts] !== 'string' || typeof row[original] !== 'string') return [];
      return [urlKey(`${base}/web/${row[ts] as string}id_/${row[original] as string}`)];
    });
  } catch {
    return []; // not a JSON answer (an error page): it names no captures
  }
}
