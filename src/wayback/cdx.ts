// The Wayback Machine's CDX API (wayback-cdx-server): the query for captures near a date, and its JSON answer parsed.
/** A date a claim is judged as of: the whole of a calendar day (UTC), or one instant (src/asof/date.ts parses it). */
export interface AsOfDate {
  /** As given: "2024-05-01" or "2024-05-01T12:00:00Z". */
  input: string;
  /** The last second it covers, as a Wayback timestamp (14 digits, UTC): the CDX `to` bound. */
  end14: string;
  /** The first second after it, as a Wayback timestamp: the CDX `from` bound for "the earliest capture after". */
  after14: string;
}

/** One capture as the CDX index lists it. */
export interface CaptureRef {
  /** 14-digit UTC timestamp of the capture. */
  timestamp: string;
  /** The URL as it was captured (scheme, `www.` and case may differ from the claim's URL). */
  original: string;
  /** Base32 SHA-1 of the capture's payload: equal digests are the same bytes, fetched once. */
  digest?: string;
  mimetype?: string;
  /** The raw capture: `{base}/web/{timestamp}id_/{original}` (`id_`: the archived bytes, no Wayback rewriting). */
  rawUrl: string;
  /** True when the capture is after the as-of date (there was none at or before it). */
  after: boolean;
}

/** The fields asked for, in this order; the answer's header row says where each one is. */
const FIELDS = ['timestamp', 'original', 'statuscode', 'digest', 'mimetype'] as const;

export class CdxError extends Error {
  override readonly name = 'CdxError';
}

function trimBase(base: string): string {
  return base.replace(/\/+$/, '');
}

/** `{base}/web/{timestamp}id_/{url}`: the capture's own bytes, as archived. */
function rawCaptureUrl(base: string, timestamp: string, original: string): string {
  return `${trimBase(base)}/web/${timestamp}id_/${original}`;
}

/**
 * The CDX query for the latest `count` captures with status 200 at or before the end of the
 * date (a negative limit asks for the last N of the range), or with `after`, the earliest one
 * after it.
 */
export function cdxQueryUrl(base: string, url: string, asOf: AsOfDate, count: number, after = false): string {
  const q = new URLSearchParams({ url });
  if (after) q.set('from', asOf.after14);
  else q.set('to', asOf.end14);
  q.append('filter', 'statuscode:200');
  q.set('output', 'json');
  q.set('fl', FIELDS.join(','));
  q.set('limit', after ? '1' : String(-count));
  if (!after) q.set('fastLatest', 'true');
  return `${trimBase(base)}/cdx/search/cdx?${q}`;
}

/**
 * Parses a CDX JSON answer: `[]`, or a header row of field names followed by one row of
 * strings per capture (oldest first). Rows whose status is not 200 are dropped even if the
 * server ignored the filter. Returns captures newest first.
 */
export function parseCdxJson(body: string, base: string, after: boolean): CaptureRef[] {
  let data: unknown;
  try {
    data = body.trim() === '' ? [] : JSON.parse(body);
  } catch {
    throw new CdxError(`the CDX answer is not JSON: ${JSON.stringify(body.slice(0, 80))}`);
  }
  if (!Array.isArray(data)) throw new CdxError('the CDX answer is not a JSON array');
  if (data.length === 0) return [];
  const [header, ...rows] = data as unknown[];
  if (!Array.isArray(header) || !header.every((h) => typeof h === 'string'))
    throw new CdxError('the CDX answer has no header row');
  const at = (name: string) => (header as string[]).indexOf(name);
  const ts = at('timestamp');
  const original = at('original');
  if (ts < 0 || original < 0) throw new CdxError('the CDX answer lacks the timestamp or original field');
  const status = at('statuscode');
  const digest = at('digest');
  const mimetype = at('mimetype');
  const captures: CaptureRef[] = [];
  for (const row of rows) {
    if (!Array.isArray(row)) continue;
    const cell = (i: number) => (i >= 0 && typeof row[i] === 'string' ? (row[i] as string) : undefined);
    const timestamp = cell(ts);
    const url = cell(original);
    if (!timestamp || !/^\d{14}$/.test(timestamp) || !url) continue;
    if (status >= 0 && cell(status) !== '200') continue;
    captures.push({
      timestamp,
      original: url,
      digest: cell(digest),
      mimetype: cell(mimetype),
      rawUrl: rawCaptureUrl(base, timestamp, url),
      after,
    });
  }
  return captures.sort((a, b) => b.timestamp.localeCompare(a.timestamp));
}
