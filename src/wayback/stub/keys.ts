// How the Wayback stub addresses captures, as the Internet Archive does: 14-digit timestamps (padded, clamped, as
// dates) and SURT url keys (the CDX `urlkey`).
export const TS14 = /^\d{14}$/;

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}

function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0); // day 0 of the next month = last day of this one
  return d.getUTCDate();
}

/** Clamps every field of a 14-digit string to a valid calendar value ("20209999999999" -> "20201231235959"). */
export function clampTimestamp(raw: string): string {
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
export function timestampMs(ts: string): number {
  const d = new Date(0);
  d.setUTCFullYear(Number(ts.slice(0, 4)), Number(ts.slice(4, 6)) - 1, Number(ts.slice(6, 8)));
  d.setUTCHours(Number(ts.slice(8, 10)), Number(ts.slice(10, 12)), Number(ts.slice(12, 14)), 0);
  return d.getTime();
}

/** RFC 7231 IMF-fixdate, the format of Memento-Datetime (RFC 7089 §2.1.1). */
export function httpDate(ts: string): string {
  return new Date(timestampMs(ts)).toUTCString();
}

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
