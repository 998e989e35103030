// Loopback HTTP server that serves benchmark sources from a route table.
//
// Used by the golden benchmark (golden/routes.json and golden/diagnosis/routes.json), by tests and by the demo.
// Only node:http, node:zlib and node:fs: no dependencies. It listens on
// loopback addresses only (127.0.0.1 by default; other 127.x.y.z addresses
// stand in for other hosts, design §7).

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

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

/** The fixed port that the URLs in golden claims.json files use. */
export const GOLDEN_PORT = 41733;

/** The hosts that the golden claims use. */
export const GOLDEN_HOSTS: readonly string[] = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];

/** Where the golden Wayback Machine stand-in (golden/wayback.ts) listens, on GOLDEN_PORT: the drift task's archive. */
export const GOLDEN_WAYBACK_HOST = '127.0.0.4';
export const GOLDEN_WAYBACK_URL = `http://${GOLDEN_WAYBACK_HOST}:${GOLDEN_PORT}`;

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
  const text = fs.readFileSync(file, 'utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`route table ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(data)) throw new Error(`route table ${file} must be a JSON array of routes`);
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

/** Starts one http.Server per host (all on the same port) serving the route table. */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const routes = opts.routes;
  const baseDir = opts.baseDir ?? process.cwd();
  const hosts = opts.hosts && opts.hosts.length > 0 ? [...opts.hosts] : ['127.0.0.1'];
  const hitCounts = new Map<string, number>();
  const failCounts = new Map<Route, number>();
  const fileCache = new Map<string, Buffer>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closing = false;

  function findRoute(reqPath: string, hostname: string): Route | undefined {
    // A route for this exact host wins over a route for any host.
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

  function bodyOf(route: Route): Buffer {
    if (route.file !== undefined) {
      const full = path.resolve(baseDir, route.file);
      let buf = fileCache.get(full);
      if (buf === undefined) {
        buf = fs.readFileSync(full);
        fileCache.set(full, buf);
      }
      return buf;
    }
    if (route.body === undefined) return Buffer.alloc(0);
    return typeof route.body === 'string' ? Buffer.from(route.body, 'utf8') : route.body;
  }

  function send(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: number,
    headers: Record<string, string>,
    body: Buffer,
    gzip: boolean,
  ): void {
    let payload = body;
    const out: Record<string, string> = { ...headers };
    if (gzip && acceptsGzip(req.headers['accept-encoding'])) {
      payload = zlib.gzipSync(body);
      out['content-encoding'] = 'gzip';
    }
    out['content-length'] = String(payload.length);
    res.writeHead(status, out);
    if (req.method === 'HEAD') res.end();
    else res.end(payload);
  }

  function answer(route: Route, req: http.IncomingMessage, res: http.ServerResponse, reqPath: string): void {
    if (route.failFirst && route.failFirst.count > 0) {
      const seen = failCounts.get(route) ?? 0;
      if (seen < route.failFirst.count) {
        failCounts.set(route, seen + 1);
        const ff = route.failFirst;
        send(req, res, ff.status, ff.headers ?? {}, Buffer.from(ff.body ?? '', 'utf8'), false);
        return;
      }
    }
    if (route.redirect) {
      const location = route.redirect.location.replace(/\{port\}/g, String(port));
      send(req, res, route.redirect.status ?? 302, { location }, Buffer.alloc(0), false);
      return;
    }
    if (route.cookieGate) {
      const { name, value } = route.cookieGate;
      const cookies = String(req.headers.cookie ?? '')
        .split(';')
        .map((c) => c.trim());
      if (!cookies.includes(`${name}=${value}`)) {
        send(req, res, 302, { location: reqPath, 'set-cookie': `${name}=${value}; Path=/` }, Buffer.alloc(0), false);
        return;
      }
    }
    let body: Buffer;
    try {
      body = bodyOf(route);
    } catch (err) {
      send(req, res, 500, { 'content-type': 'text/plain; charset=utf-8' },
        Buffer.from(`golden server: cannot read ${route.file}: ${(err as Error).message}\n`), false);
      return;
    }
    send(req, res, route.status ?? 200, route.headers ?? {}, body, route.gzip === true);
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const reqPath = req.url ?? '/';
    hitCounts.set(reqPath, (hitCounts.get(reqPath) ?? 0) + 1);
    const route = findRoute(reqPath, hostnameOf(req.headers.host));
    if (route === undefined) {
      send(req, res, 404, { 'content-type': 'text/html; charset=utf-8' }, Buffer.from(NOT_FOUND_BODY), false);
      return;
    }
    if (route.handler) {
      route.handler(req, res);
      return;
    }
    if (route.hang) return; // never answer; close() destroys the socket
    if (route.delayMs !== undefined && route.delayMs > 0) {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!closing && !res.destroyed) answer(route, req, res, reqPath);
      }, route.delayMs);
      timers.add(t);
      return;
    }
    answer(route, req, res, reqPath);
  }

  const servers: http.Server[] = [];
  let port = opts.port ?? 0;

  const closeAll = async (): Promise<void> => {
    closing = true;
    for (const t of timers) clearTimeout(t);
    timers.clear();
    await Promise.all(
      servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (!s.listening) {
              resolve();
              return;
            }
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
    for (const sock of sockets) sock.destroy();
    sockets.clear();
  };

  for (const host of hosts) {
    const server = http.createServer((req, res) => {
      try {
        handle(req, res);
      } catch (err) {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        }
        res.end(`golden server error: ${(err as Error).message}\n`);
      }
    });
    server.on('connection', (sock: Socket) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
    servers.push(server);
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (err: NodeJS.ErrnoException): void => {
          server.off('listening', onListening);
          if (err.code === 'EADDRINUSE') {
            reject(new Error(`port ${port} on ${host} is in use: is another demo running?`));
          } else if (err.code === 'EADDRNOTAVAIL') {
            reject(new Error(`cannot listen on ${host}:${port}: address not available (loopback aliases 127.x.y.z are needed)`));
          } else {
            reject(err);
          }
        };
        const onListening = (): void => {
          server.off('error', onError);
          resolve();
        };
        server.once('error', onError);
        server.once('listening', onListening);
        server.listen(port, host);
      });
    } catch (err) {
      servers.pop();
      await closeAll();
      throw err;
    }
    if (port === 0) port = (server.address() as AddressInfo).port;
  }

  const first = hosts[0] ?? '127.0.0.1';
  const originFor = (host: string): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    port,
    origin: originFor(first),
    originFor,
    hits: (p: string) => hitCounts.get(p) ?? 0,
    close: closeAll,
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
 * golden/drift/routes.json (the drift task, under /drift/) from golden/ on GOLDEN_PORT on 127.0.0.1,
 * 127.0.0.2 and 127.0.0.3, and the drift task's Wayback captures (golden/drift/wayback.json) on
 * GOLDEN_WAYBACK_HOST. Every table names its files relative to golden/.
 */
export async function startGoldenServer(opts: { port?: number } = {}): Promise<RunningServer> {
  const dir = goldenDir();
  const routes = loadRoutes(path.join(dir, 'routes.json'));
  for (const extra of [path.join(dir, 'diagnosis', 'routes.json'), path.join(dir, 'drift', 'routes.json')]) {
    if (fs.existsSync(extra)) routes.push(...loadRoutes(extra));
  }
  const port = opts.port ?? GOLDEN_PORT;
  const server = await startServer({ routes, baseDir: dir, port, hosts: [...GOLDEN_HOSTS] });
  const captures = path.join(dir, 'drift', 'wayback.json');
  if (!fs.existsSync(captures)) return server;
  // Imported here: the route server itself needs nothing of the archive stand-in.
  const { loadCaptures, startWaybackFake } = await import('./wayback.js');
  let wayback;
  try {
    wayback = await startWaybackFake({ captures: loadCaptures(captures), baseDir: dir, host: GOLDEN_WAYBACK_HOST, port: server.port });
  } catch (err) {
    await server.close();
    throw err;
  }
  return { ...server, close: async () => void (await Promise.all([server.close(), wayback.close()])) };
}

// `node dist/golden/server.js` serves the golden benchmark until interrupted.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const portArg = process.argv[2];
  startGoldenServer(portArg ? { port: Number(portArg) } : {}).then(
    (srv) => {
      console.log(`golden server on ${GOLDEN_HOSTS.map((h) => srv.originFor(h)).join(', ')} (Ctrl-C to stop)`);
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
