// The bench's loopback server for a workload's sources with the real web's faults (bench/faults.ts), fresh fault state
// each time it starts, and a log of what it answered: when the first request came (the run's start-up) and the waits
// it asked for (an HTTP-date asks for what is left until it, counted when it is sent).
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import { listenLoopback, respond, type Loopback } from '../src/wayback/stub/loopback.js';
import { faultsOf, type BenchSource, type SourceFault, type Workload } from './workload.js';

/** What the server saw of a run. */
export interface FaultLog {
  /** performance.now() of the first request, or undefined before one. */
  firstRequestAt?: number;
  requests: number;
  /** The waits asked for, by source path, in the order asked (ms). */
  askedWaits: Map<string, number[]>;
  /** Every request: when it came and when it was answered (performance.now()), its host and path. */
  trace: { host: string; path: string; at: number; answeredAt?: number; status?: number }[];
}

export interface FaultServer {
  port: number;
  log: FaultLog;
  close(): Promise<void>;
}

/** One URL the server answers: a source's own, or the target a source redirects to. */
interface Place {
  source: BenchSource;
  index: number;
  target: boolean;
}

/** Per source, per server: requests its URL has had. */
type Attempts = Map<BenchSource, number>;

/** The cookie a cookie wall sets, and wants back. */
const WALL_COOKIE = 'consent=yes';

/** Retry-After for `fault`, and the wait it asks for from `now` (ms since the epoch). */
function retryAfter(fault: Extract<SourceFault, { kind: 'status' }>, now: number): { value: string; waitMs: number } {
  const ra = fault.retryAfter!;
  if (ra.form === 'seconds') return { value: String(ra.seconds), waitMs: ra.seconds * 1000 };
  // An HTTP-date has whole seconds: the first one at least `seconds` ahead (for none, the second now under way).
  const at = (ra.seconds === 0 ? Math.floor(now / 1000) : Math.ceil(now / 1000 + ra.seconds)) * 1000;
  return { value: new Date(at).toUTCString(), waitMs: Math.max(0, at - now) };
}

/** An error status, or the document cut after half its body with the connection closed. */
function answerFault(
  fault: SourceFault,
  place: Place,
  res: http.ServerResponse,
  req: http.IncomingMessage,
  body: () => Buffer,
  log: FaultLog,
): void {
  if (fault.kind === 'cut') {
    const bytes = body();
    res.writeHead(200, { 'content-type': contentType(place.source), 'content-length': String(bytes.length) });
    res.write(bytes.subarray(0, bytes.length >> 1), () => res.socket?.destroy());
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
  if (fault.retryAfter) {
    const { value, waitMs } = retryAfter(fault, Date.now());
    headers['retry-after'] = value;
    const waits = log.askedWaits.get(place.source.path) ?? [];
    waits.push(waitMs);
    log.askedWaits.set(place.source.path, waits);
  }
  respond(req, res, fault.status, headers, Buffer.from(`<html><body>Error ${fault.status}</body></html>`));
}

/** The Content-Type the source's document is served with (as buildWorkload chose it). */
function contentType(s: BenchSource): string {
  return s.contentType ?? (s.kind === 'pdf' ? 'application/pdf' : 'text/html; charset=utf-8');
}

/** The answer of a source's URL (or its redirect target) once its latency is over. */
function answer(
  place: Place,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  loop: Loopback,
  state: { attempts: Attempts; log: FaultLog; body: (s: BenchSource) => Buffer },
): void {
  const { source } = place;
  const body = () => state.body(source);
  if (!place.target) {
    const n = state.attempts.get(source) ?? 0;
    state.attempts.set(source, n + 1);
    const fault = faultsOf(source, place.index)[n];
    if (fault) return answerFault(fault, place, res, req, body, state.log);
    if (source.redirect) {
      const location = `${loop.originFor(source.redirect.host)}${source.redirect.path}`;
      return respond(req, res, 301, { location }, Buffer.alloc(0));
    }
    if (source.cookieWall && !String(req.headers.cookie ?? '').includes(WALL_COOKIE)) {
      const headers = { location: source.path, 'set-cookie': `${WALL_COOKIE}; Path=/` };
      return respond(req, res, 302, headers, Buffer.alloc(0));
    }
  }
  respond(req, res, 200, { 'content-type': contentType(source) }, body());
}

/**
 * Serves `w`'s sources on its hosts: each after its latency, its faults first (counted from this start), then its
 * redirect, cookie wall or document. Hosts in `closing` close every connection after its answer.
 */
export async function startFaultServer(w: Workload, closing: ReadonlySet<string> = new Set()): Promise<FaultServer> {
  const places = new Map<string, Place>();
  w.sources.forEach((source, index) => {
    places.set(`${source.host} ${source.path}`, { source, index, target: false });
    if (source.redirect) places.set(`${source.redirect.host} ${source.redirect.path}`, { source, index, target: true });
  });
  const files = new Map<string, Buffer>();
  const body = (s: BenchSource): Buffer => {
    const kept = files.get(s.file);
    if (kept) return kept;
    const read = readFileSync(s.file);
    files.set(s.file, read);
    return read;
  };
  const log: FaultLog = { requests: 0, askedWaits: new Map(), trace: [] };
  const state = { attempts: new Map() as Attempts, log, body };
  const hosts = [...new Set([...w.hosts, ...w.sources.flatMap((s) => (s.redirect ? [s.redirect.host] : []))])];
  const loop = await listenLoopback({
    hosts,
    name: 'fault server',
    handler: (req, res, l) => {
      log.firstRequestAt ??= performance.now();
      log.requests++;
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      const entry: FaultLog['trace'][number] = { host, path: req.url ?? '/', at: performance.now() };
      log.trace.push(entry);
      res.once('finish', () => Object.assign(entry, { answeredAt: performance.now(), status: res.statusCode }));
      if (closing.has(host)) res.shouldKeepAlive = false;
      const place = places.get(`${host} ${req.url ?? '/'}`);
      if (!place) return respond(req, res, 404, {}, Buffer.alloc(0));
      const delay = place.target ? place.source.redirect!.delayMs : place.source.delayMs;
      const go = (): void => {
        if (!l.closing && !res.destroyed) answer(place, req, res, l, state);
      };
      if (delay > 0) l.later(delay, go);
      else go();
    },
  });
  return { port: loop.port, log, close: () => loop.close() };
}
