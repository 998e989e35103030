// The Wayback stub's replay (GET /web/{timestamp}{flag}/{original url}, OpenWayback's ReplayRequestParser): the
// capture nearest the timestamp, raw (id_) or rewritten, with its Memento headers (RFC 7089), or a 302 to it.
import type { Indexed } from './captures.js';
import { TS14, httpDate, padTimestamp, surtKey, timestampMs } from './keys.js';
import { headerSafe, type Answer } from './answer.js';
import type { CapturesByKey } from './captures.js';

interface ReplayRequest {
  /** 1–14 digits, or '' for a dateless request (= the latest capture). */
  timestamp: string;
  /** 'id_' serves the original bytes; '' (or any other flag) the rewritten page. */
  flag: string;
  url: string;
}

/** Splits "/web/2020id_/http://x.org/a?b=1"; the query string belongs to the original URL. */
export function parseReplayPath(target: string): ReplayRequest | undefined {
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

function replayUrl(origin: string, ts: string, flag: string, url: string): string {
  return `${origin}/web/${ts}${flag}/${url}`;
}

function notArchived(): Answer {
  return { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from(NOT_ARCHIVED_BODY) };
}

export function replay(archive: CapturesByKey, origin: string, r: ReplayRequest): Answer {
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
