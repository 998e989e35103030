// A faulty Wayback Machine for tests: a loopback proxy in front of the stub (src/wayback/stub/stub.ts) that answers 429s,
// 503s or late, as the real archive may, and logs what it answered.
import http from 'node:http';
import { listenLoopback, respond, type Loopback } from '../../src/wayback/stub/loopback.js';
import { startWaybackStub, type RunningWayback, type WaybackStubOptions } from '../../src/wayback/stub/stub.js';

interface RateLimit {
  /** More than this many requests within one sliding window get 429. */
  perMinute: number;
  /** Sent as Retry-After (seconds) on those 429s when given. */
  retryAfterSec?: number;
  /** Window length; default 60 000 (a minute). Tests shorten it. */
  windowMs?: number;
}

interface Fail429 {
  /** The first `count` requests (any path) get 429. */
  count: number;
  /** Retry-After value as given (seconds or an HTTP-date); the header is omitted when undefined. */
  retryAfter?: string;
}

/** The faults, checked in this order: down, the fail429 budget, the rate limit; delayMs delays every answer. */
export interface WaybackFaults {
  /** Every request answers 503. */
  down?: boolean;
  fail429?: Fail429;
  rateLimit?: RateLimit;
  /** Wait this long before every answer. */
  delayMs?: number;
}

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

/** What the faults count across requests. */
interface FaultState {
  faults: WaybackFaults;
  failed429: number;
  /** Arrival times inside the current rate-limit window. */
  arrivals: number[];
}

function fail429(f: FaultState): Answer | undefined {
  if (!f.faults.fail429 || f.failed429 >= f.faults.fail429.count) return undefined;
  f.failed429++;
  const ra = f.faults.fail429.retryAfter;
  return text(429, 'Too Many Requests', ra === undefined ? {} : { 'retry-after': ra });
}

function rateLimit(f: FaultState, now: number): Answer | undefined {
  const limit = f.faults.rateLimit;
  if (!limit) return undefined;
  // Every arrival counts, also the refused ones: a client that keeps hammering stays refused.
  const windowMs = limit.windowMs ?? 60_000;
  f.arrivals.push(now);
  while (f.arrivals.length > 0 && (f.arrivals[0] ?? 0) <= now - windowMs) f.arrivals.shift();
  if (f.arrivals.length <= limit.perMinute) return undefined;
  const ra = limit.retryAfterSec;
  return text(429, 'Too Many Requests', ra === undefined ? {} : { 'retry-after': String(ra) });
}

/** The fault that answers instead of the stub, if any (the rate limit counts only what gets past the others). */
function fault(f: FaultState, now: number): Answer | undefined {
  if (f.faults.down) return text(503, 'Service Unavailable');
  return fail429(f) ?? rateLimit(f, now);
}

/** Headers the proxy does not pass on: the connection's own, and the length respond() sets. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/** The stub's answer to the same request, its origin replaced by the proxy's (Location, Link, rewritten pages). */
function forward(stub: string, origin: string, req: http.IncomingMessage, target: string): Promise<Answer> {
  const swap = (v: string): string => v.split(stub).join(origin);
  return new Promise((resolve, reject) => {
    const out = http.request(`${stub}${target}`, { method: req.method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) {
          if (v !== undefined && !HOP.has(k)) headers[k] = swap(Array.isArray(v) ? v.join(', ') : v);
        }
        let body = Buffer.concat(chunks);
        if (!target.includes('id_/') && /html/.test(headers['content-type'] ?? '')) {
          body = Buffer.from(swap(body.toString('latin1')), 'latin1');
        }
        resolve({ status: res.statusCode ?? 502, headers, body });
      });
    });
    out.on('error', reject);
    out.end();
  });
}

/**
 * Starts the stub and, on the same loopback host, the faulty proxy in front of it. What it returns is the proxy: its
 * origin, the log of every request it got (status 0 while the answer is pending), and close() for both.
 */
export async function startFaultyStub(opts: WaybackStubOptions & WaybackFaults): Promise<RunningWayback> {
  const { down, fail429, rateLimit, delayMs, ...stubOpts } = opts;
  const stub = await startWaybackStub(stubOpts);
  const state: FaultState = { faults: { down, fail429, rateLimit, delayMs }, failed429: 0, arrivals: [] };
  const requests: RunningWayback['requests'] = [];
  const host = stubOpts.host ?? '127.0.0.1';
  const handler = (req: http.IncomingMessage, res: http.ServerResponse, loop: Loopback): void => {
    const target = req.url ?? '/';
    const entry = { path: target, at: Date.now(), status: 0 };
    requests.push(entry);
    const refused = fault(state, entry.at);
    const send = (): void => {
      const answer = refused ? Promise.resolve(refused) : forward(stub.origin, loop.originFor(host), req, target);
      answer.then(
        (a) => {
          if (loop.closing || res.destroyed) return;
          entry.status = a.status;
          respond(req, res, a.status, a.headers, a.body);
        },
        () => res.destroy(),
      );
    };
    if (!delayMs) send();
    else loop.later(delayMs, send);
  };
  const proxy = await listenLoopback({ hosts: [host], name: 'faulty wayback stub', handler });
  return {
    origin: proxy.originFor(host),
    port: proxy.port,
    requests,
    close: async () => {
      await Promise.all([proxy.close(), stub.close()]);
    },
  };
}
