// Loopback HTTP server that serves benchmark sources from a route table.
//
// Used by the golden benchmark (golden/routes.json and golden/diagnosis/routes.json), by tests and by the demo.
// Only node: built-ins, no dependencies; listening and closing are src/wayback/stub/loopback.ts's. It listens on
// loopback addresses only (127.0.0.1 by default; other 127.x.y.z addresses
// stand in for other hosts, design §7).

import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import {
  explainListenError,
  FREE_PORT_ATTEMPTS,
  isPortInUse,
  listenLoopback,
  readJsonArray,
  respond,
  type Loopback,
} from '../src/wayback/stub/loopback.js';

export interface Route {
  /** Exact request path including the query string, e.g. "/news/a.html". */
  path: string;
  /** Only for requests whose Host hostname equals this (e.g. "127.0.0.2"); default: any host. */
  host?: string;
  /** Body read from this file (relative to ServerOptions.baseDir). */
  file?: string;
  /** Inline body (when no file). */
  body?: string | Buffer;
  /** Default 200. */
  status?: number;
  /** Response headers. None are added automatically except content-length / content-encoding. */
  headers?: Record<string, string>;
  /** Gzip the body (content-encoding: gzip) when the request's accept-encoding allows gzip. */
  gzip?: boolean;
  /** The first `count` requests to this route get this response instead (counter per server instance). */
  failFirst?: { count: number; status: number; headers?: Record<string, string>; body?: string };
  /** Answer with a redirect (default 302) to location (absolute or relative; "{port}" in it is replaced by the server's port). */
  redirect?: { location: string; status?: number };
  /** Without cookie name=value: 302 to the same URL with Set-Cookie name=value; Path=/ . Otherwise serve normally. */
  cookieGate?: { name: string; value: string };
  /** Wait this long before answering. */
  delayMs?: number;
  /** Accept the request and never answer (until the server closes). */
  hang?: boolean;
  /** Custom behaviour (tests); overrides the rest. */
  handler?: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

export interface ServerOptions {
  routes: Route[];
  baseDir?: string;
  /** Default 0: a random free port. */
  port?: number;
  /** Loopback addresses to listen on; default ["127.0.0.1"]. One http.Server per host, same port. */
  hosts?: string[];
}

export interface RunningServer {
  port: number;
  /** "http://<first host>:<port>" */
  origin: string;
  originFor(host: string): string;
  /** Requests seen for that path (any host, any outcome). */
  hits(path: string): number;
  /** Stops listening and destroys open (also hung) sockets. */
  close(): Promise<void>;
}

/**
 * The port the committed golden files' URLs carry (golden/tasks/, labelled.jsonl, diagnosis/claims.json, the drift
 * task's captures): where `node dist/golden/server.js` listens by default, so that `quotecheck evaluate --tasks golden/tasks`
 * finds its sources. The demo and the tests listen on a free port instead and run a copy of the tasks whose URLs carry
 * it (golden/lib/tasks.ts goldenAtPort), so that neither collides with another run, a second checkout or a server of this one.
 */
export const GOLDEN_PORT = 41733;

/** The hosts that the golden claims use. */
export const GOLDEN_HOSTS: readonly string[] = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];

/** Where the golden Wayback stub (src/wayback/stub/stub.ts) listens, on the golden server's port: the drift task's archive. */
export const GOLDEN_WAYBACK_HOST = '127.0.0.4';
/** The Wayback stub's origin in the committed files (on GOLDEN_PORT). */
export const GOLDEN_WAYBACK_URL = `http://${GOLDEN_WAYBACK_HOST}:${GOLDEN_PORT}`;

/** The Wayback stub's origin when the golden server listens on `port`. */
export const goldenWaybackUrl = (port: number): string => `http://${GOLDEN_WAYBACK_HOST}:${port}`;

/** Every golden origin on GOLDEN_PORT (a port digit may not follow: http://127.0.0.1:417330 is another origin). */
const GOLDEN_ORIGIN = new RegExp(
  `http://(${[...GOLDEN_HOSTS, GOLDEN_WAYBACK_HOST].map((h) => h.replace(/\./g, '\\.')).join('|')}):${GOLDEN_PORT}(?![0-9])`,
  'g',
);

/**
 * `text` with every golden origin (http://127.0.0.{1,2,3,4}:GOLDEN_PORT) moved to `port`, wherever it stands: a claim's
 * URL, a capture's URL, one inside a Wayback URL (/web/<ts>id_/http://127.0.0.1:41733/...), a solve.sh's --wayback-url.
 * Nothing else changes, so a file's other bytes stay as they are when read and written as latin1.
 */
export function atGoldenPort(text: string, port: number): string {
  return port === GOLDEN_PORT ? text : text.replace(GOLDEN_ORIGIN, (_m, host: string) => `http://${host}:${port}`);
}

const NOT_FOUND_BODY =
  '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>404 Not Found</title></head>' +
  '<body><h1>Not Found</h1><p>No route for this path.</p></body></html>\n';

/** Hostname of a Host header value: "127.0.0.2:41733" -> "127.0.0.2", "[::1]:80" -> "::1". */
function hostnameOf(hostHeader: string | undefined): string {
  if (!hostHeader) return '';
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 ? h.slice(1, end) : h;
  }
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

/** Whether an Accept-Encoding header value allows gzip (RFC 9110 §12.5.3). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  let gzipQ: number | undefined;
  let starQ: number | undefined;
  for (const part of value.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = (rawName ?? '').trim().toLowerCase();
    if (!name) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m && m[1] !== undefined) q = Number(m[1]);
    }
    if (Number.isNaN(q)) q = 0;
    if (name === 'gzip' || name === 'x-gzip') gzipQ = Math.max(gzipQ ?? 0, q);
    else if (name === '*') starQ = q;
  }
  if (gzipQ !== undefined) return gzipQ > 0;
  return starQ !== undefined && starQ > 0;
}

/** Reads a JSON route table: an array of Route objects without handler. */
export function loadRoutes(file: string): Route[] {
  const data = readJsonArray(file, 'route table', 'routes');
  data.forEach((r: unknown, i: number) => {
    if (typeof r !== 'object' || r === null || typeof (r as { path?: unknown }).path !== 'string') {
      throw new Error(`route table ${file}: route #${i} has no string "path"`);
    }
    if (!(r as Route).path.startsWith('/')) {
      throw new Error(`route table ${file}: route #${i} path ${JSON.stringify((r as Route).path)} must start with "/"`);
    }
  });
  return data as Route[];
}

/** What one server instance keeps between requests. */
interface RouteTable {
  routes: Route[];
  baseDir: string;
  hitCounts: Map<string, number>;
  /** Answers already given from a route's failFirst. */
  failCounts: Map<Route, number>;
  fileCache: Map<string, Buffer>;
}

/** One request and what it needs to be answered. */
interface Exchange {
  table: RouteTable;
  route: Route;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  reqPath: string;
  loop: Loopback;
}

/** A route for this exact host wins over a route for any host. */
function findRoute(routes: Route[], reqPath: string, hostname: string): Route | undefined {
  let anyHost: Route | undefined;
  for (const r of routes) {
    if (r.path !== reqPath) continue;
    if (r.host !== undefined) {
      if (r.host.toLowerCase() === hostname) return r;
    } else if (anyHost === undefined) {
      anyHost = r;
    }
  }
  return anyHost;
}

/** The route's body: its file (read once per server) or its inline body. */
function bodyOf(table: RouteTable, route: Route): Buffer {
  if (route.file !== undefined) {
    const full = path.resolve(table.baseDir, route.file);
    let buf = table.fileCache.get(full);
    if (buf === undefined) {
      buf = fs.readFileSync(full);
      table.fileCache.set(full, buf);
    }
    return buf;
  }
  if (route.body === undefined) return Buffer.alloc(0);
  return typeof route.body === 'string' ? Buffer.from(route.body, 'utf8') : route.body;
}

/** Answers, gzipped when asked for and the request accepts it. */
function send(ex: Exchange, status: number, headers: Record<string, string>, body: Buffer, gzip = false): void {
  if (gzip && acceptsGzip(ex.req.headers['accept-encoding'])) {
    respond(ex.req, ex.res, status, { ...headers, 'content-encoding': 'gzip' }, zlib.gzipSync(body));
  } else {
    respond(ex.req, ex.res, status, headers, body);
  }
}

/** A fault answers instead of the route's body (true) or lets the request through (false). */
type Fault = (ex: Exchange) => boolean;

/** failFirst: the first `count` requests get its response (counted per server instance). */
function failFirst(ex: Exchange): boolean {
  const ff = ex.route.failFirst;
  if (!ff || ff.count <= 0) return false;
  const seen = ex.table.failCounts.get(ex.route) ?? 0;
  if (seen >= ff.count) return false;
  ex.table.failCounts.set(ex.route, seen + 1);
  send(ex, ff.status, ff.headers ?? {}, Buffer.from(ff.body ?? '', 'utf8'));
  return true;
}

/** redirect: "{port}" in the location becomes the server's own port. */
function redirect(ex: Exchange): boolean {
  if (!ex.route.redirect) return false;
  const location = ex.route.redirect.location.replace(/\{port\}/g, String(ex.loop.port));
  send(ex, ex.route.redirect.status ?? 302, { location }, Buffer.alloc(0));
  return true;
}

/** cookieGate: without the cookie, a 302 to the same URL that sets it. */
function cookieGate(ex: Exchange): boolean {
  if (!ex.route.cookieGate) return false;
  const { name, value } = ex.route.cookieGate;
  const cookies = String(ex.req.headers.cookie ?? '')
    .split(';')
    .map((c) => c.trim());
  if (cookies.includes(`${name}=${value}`)) return false;
  send(ex, 302, { location: ex.reqPath, 'set-cookie': `${name}=${value}; Path=/` }, Buffer.alloc(0));
  return true;
}

/** In this order: a failFirst response wins over a redirect, a redirect over the cookie gate. */
const FAULTS: readonly Fault[] = [failFirst, redirect, cookieGate];

/** The route's answer: the first fault that applies, else its body (a 500 when its file cannot be read). */
function answer(ex: Exchange): void {
  if (FAULTS.some((fault) => fault(ex))) return;
  let body: Buffer;
  try {
    body = bodyOf(ex.table, ex.route);
  } catch (err) {
    send(
      ex,
      500,
      { 'content-type': 'text/plain; charset=utf-8' },
      Buffer.from(`golden server: cannot read ${ex.route.file}: ${(err as Error).message}\n`),
    );
    return;
  }
  send(ex, ex.route.status ?? 200, ex.route.headers ?? {}, body, ex.route.gzip === true);
}

/** Counts the hit, finds the route, then answers now, later (delayMs), never (hang) or by its own handler. */
function handle(table: RouteTable, req: http.IncomingMessage, res: http.ServerResponse, loop: Loopback): void {
  const reqPath = req.url ?? '/';
  table.hitCounts.set(reqPath, (table.hitCounts.get(reqPath) ?? 0) + 1);
  const route = findRoute(table.routes, reqPath, hostnameOf(req.headers.host));
  if (route === undefined) {
    respond(req, res, 404, { 'content-type': 'text/html; charset=utf-8' }, Buffer.from(NOT_FOUND_BODY));
    return;
  }
  if (route.handler) {
    route.handler(req, res);
    return;
  }
  if (route.hang) return; // never answer; close() destroys the socket
  const ex: Exchange = { table, route, req, res, reqPath, loop };
  if (route.delayMs !== undefined && route.delayMs > 0) {
    loop.later(route.delayMs, () => {
      if (!loop.closing && !res.destroyed) answer(ex);
    });
    return;
  }
  answer(ex);
}

/** Starts one http.Server per host (all on the same port) serving the route table. */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const hosts = opts.hosts && opts.hosts.length > 0 ? [...opts.hosts] : ['127.0.0.1'];
  const table: RouteTable = {
    routes: opts.routes,
    baseDir: opts.baseDir ?? process.cwd(),
    hitCounts: new Map(),
    failCounts: new Map(),
    fileCache: new Map(),
  };
  const loop = await listenLoopback({
    hosts,
    port: opts.port,
    name: 'golden server',
    handler: (req, res, l) => handle(table, req, res, l),
    explain: explainListenError,
  });
  const originFor = (host: string): string => loop.originFor(host);
  return {
    port: loop.port,
    origin: originFor(hosts[0] ?? '127.0.0.1'),
    originFor,
    hits: (p: string) => table.hitCounts.get(p) ?? 0,
    close: () => loop.close(),
  };
}

/** The project root: the nearest folder above this module that contains package.json. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** The golden data folder (<project>/golden), from source or from dist/golden/. */
export function goldenDir(): string {
  return path.join(projectRoot(), 'golden');
}

/**
 * Serves golden/routes.json, golden/diagnosis/routes.json (the diagnosis set, all under /diag/) and
 * golden/drift/routes.json (the drift task, under /drift/) from golden/ on 127.0.0.1, 127.0.0.2 and 127.0.0.3, and the
 * drift task's Wayback captures (golden/drift/wayback.json, their URLs moved to the port) on GOLDEN_WAYBACK_HOST, all on
 * one port: `port`, or by default a port free on all four hosts. Every table names its files relative to golden/.
 */
export async function startGoldenServer(opts: { port?: number } = {}): Promise<RunningServer> {
  const dir = goldenDir();
  const routes = loadRoutes(path.join(dir, 'routes.json'));
  for (const extra of [path.join(dir, 'diagnosis', 'routes.json'), path.join(dir, 'drift', 'routes.json')]) {
    if (fs.existsSync(extra)) routes.push(...loadRoutes(extra));
  }
  const captures = path.join(dir, 'drift', 'wayback.json');
  const free = !opts.port;
  // A free port is free on 127.0.0.1-3 (listenLoopback sees to that), not yet on the Wayback host: when that one has
  // it taken, another port for all four.
  for (let attempt = 1; ; attempt++) {
    const server = await startServer({ routes, baseDir: dir, port: opts.port ?? 0, hosts: [...GOLDEN_HOSTS] });
    if (!fs.existsSync(captures)) return server;
    // Imported here: the route server itself needs nothing of the Wayback stub.
    const { startWaybackStub } = await import('../src/wayback/stub/stub.js');
    const { loadCaptures } = await import('../src/wayback/stub/captures-file.js');
    const moved = loadCaptures(captures).map((c) => ({
      ...c,
      url: atGoldenPort(c.url, server.port),
      ...(c.location !== undefined ? { location: atGoldenPort(c.location, server.port) } : {}),
      ...(c.headers
        ? { headers: Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k, atGoldenPort(v, server.port)])) }
        : {}),
    }));
    let wayback;
    try {
      wayback = await startWaybackStub({ captures: moved, baseDir: dir, host: GOLDEN_WAYBACK_HOST, port: server.port });
    } catch (err) {
      await server.close();
      if (free && isPortInUse(err) && attempt < FREE_PORT_ATTEMPTS) continue;
      throw isPortInUse(err) ? explainListenError(err as NodeJS.ErrnoException, GOLDEN_WAYBACK_HOST, server.port) : err;
    }
    const both = wayback;
    return { ...server, close: async () => void (await Promise.all([server.close(), both.close()])) };
  }
}

// `node dist/golden/server.js [PORT]` serves the golden benchmark until interrupted: on GOLDEN_PORT by default, the port
// the committed tasks' URLs carry (what `quotecheck evaluate --tasks golden/tasks` needs); 0 for a free port.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const portArg = process.argv[2];
  const port = portArg === undefined ? GOLDEN_PORT : Number(portArg);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`golden server: port ${JSON.stringify(portArg)}: give a port from 0 (a free one) to 65535`);
    process.exit(2);
  }
  startGoldenServer({ port }).then(
    (srv) => {
      console.log(
        `golden server on ${GOLDEN_HOSTS.map((h) => srv.originFor(h)).join(', ')}, ` +
          `its Wayback stub on ${goldenWaybackUrl(srv.port)} (Ctrl-C to stop)`,
      );
      if (srv.port !== GOLDEN_PORT)
        console.log(
          `the committed golden tasks' URLs carry port ${GOLDEN_PORT}, not ${srv.port}: run a copy of them made for this port (golden/lib/tasks.ts goldenAtPort; the demo makes one)`,
        );
      const stop = (): void => {
        void srv.close().then(() => process.exit(0));
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
