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

import type http from 'node:http';
import { isLoopback, listenLoopback, respond, type Loopback } from './loopback.js';
import { buildIndex, groupByKey, type Capture } from './captures.js';
import { text, type Answer } from './answer.js';
import { cdx } from './cdx-server.js';
import { parseReplayPath, replay } from './replay-server.js';
import type { CapturesByKey } from './captures.js';

export interface WaybackStubOptions {
  captures: Capture[];
  /** Folder that Capture.file is relative to; default process.cwd(). */
  baseDir?: string;
  /** Loopback address to listen on; default 127.0.0.1. */
  host?: string;
  /** Default 0: a random free port. */
  port?: number;
}

interface RequestLogEntry {
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

/** GET and HEAD only: the CDX API, replay, else 404. */
function route(archive: CapturesByKey, origin: string, req: http.IncomingMessage, targetRaw: string): Answer {
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(405, 'Method Not Allowed', { allow: 'GET, HEAD' });
  const target = new URL(targetRaw, origin);
  if (target.pathname === '/cdx/search/cdx') return cdx(archive, target);
  const r = parseReplayPath(targetRaw);
  if (r) return replay(archive, origin, r);
  return text(404, 'Not Found');
}

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
  archive: CapturesByKey;
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
