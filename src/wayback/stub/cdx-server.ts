// The Wayback stub's CDX server (GET /cdx/search/cdx, wayback-cdx-server's README): an exact url, from/to,
// filter=field:regex, output=json, fl and limit; a parameter that would change the answer and is not served answers 400
// naming it, rather than a wrong list.
import { CDX_FIELDS, fieldOf, type CdxField, type Indexed } from './captures.js';
import { padTimestamp, surtKey } from './keys.js';
import { text, type Answer } from './answer.js';
import type { CapturesByKey } from './captures.js';

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

export function cdx(archive: CapturesByKey, target: URL): Answer {
  const q = parseCdxQuery(target.searchParams);
  if (typeof q === 'string') return text(400, q);
  const { type, body } = formatCdx(runCdxQuery(archive.get(q.key) ?? [], q), q);
  return { status: 200, headers: { 'content-type': type }, body: Buffer.from(body, 'utf8') };
}
