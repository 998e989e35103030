// Loopback listening for the golden server, the Wayback stub, bench and tests: one http.Server per host on one port
// (a port free on every host when none is given), closed with its sockets and pending answers.
//
// Only node: built-ins. It owns the plumbing the two servers share (listen, 500 on a throwing handler,
// content-length and HEAD, delayed answers that close() cancels, close that never waits on a client,
// reading their JSON tables).

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the servers' handlers get besides the exchange: the port, delayed answers and whether close() began. */
export interface Loopback {
  /** The port every host listens on (known once the first host listens). */
  readonly port: number;
  /** True from the moment close() is called. */
  readonly closing: boolean;
  /** "http://<host>:<port>", IPv6 hosts in brackets. */
  originFor(host: string): string;
  /** Runs `fn` after `ms` unless close() comes first. */
  later(ms: number, fn: () => void): void;
  /** Stops listening and destroys every open socket (keep-alive, in flight, hung) and pending `later` call. */
  close(): Promise<void>;
}

type LoopbackHandler = (req: http.IncomingMessage, res: http.ServerResponse, loop: Loopback) => void;

interface LoopbackOptions {
  /** Loopback addresses, all on the same port. */
  hosts: readonly string[];
  /** Default 0: a free port, chosen when the first host listens and reused by the others. */
  port?: number;
  /** Names the server in the 500 answer when the handler throws ("<name> error: ..."). */
  name: string;
  handler: LoopbackHandler;
  /** The error a failed listen rejects with; default: the error as Node gives it. */
  explain?: (err: NodeJS.ErrnoException, host: string, port: number) => Error;
}

/** "http://127.0.0.2:41733", "http://[::1]:80". */
function originOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** localhost, ::1 and 127.0.0.0/8: the only addresses the Wayback stub and the golden server listen on. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Writes a whole answer: content-length from the body, no body for HEAD. */
export function respond(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): void {
  res.writeHead(status, { ...headers, 'content-length': String(body.length) });
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/**
 * The golden server's listen errors, worded for the demo (golden/scoreboard.ts matches " is in use"). The error keeps
 * Node's `code`, so a caller that asked for a free port can tell a port taken meanwhile and try another.
 */
export function explainListenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  if (err.code === 'EADDRINUSE') {
    return Object.assign(
      new Error(
        `port ${port} on ${host} is in use: is another golden server running? (give another port, or 0 for a free one)`,
      ),
      {
        code: err.code,
      },
    );
  }
  if (err.code === 'EADDRNOTAVAIL') {
    return Object.assign(
      new Error(`cannot listen on ${host}:${port}: address not available (loopback aliases 127.x.y.z are needed)`),
      { code: err.code },
    );
  }
  return err;
}

/** Whether a listen failed because the port was taken (Node's error, or one explainListenError worded). */
export function isPortInUse(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';
}

/**
 * How many ports a free-port listen tries before it gives up: the port the first host gets may be taken on another
 * host (127.0.0.2 is not 127.0.0.1 to the kernel), so another run or a demo may hold it there.
 */
export const FREE_PORT_ATTEMPTS = 50;

/** A JSON file that must hold an array: `table` and `items` word the errors ("route table", "routes"). */
export function readJsonArray(file: string, table: string, items: string): unknown[] {
  const text = fs.readFileSync(file, 'utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`${table} ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(data)) throw new Error(`${table} ${file} must be a JSON array of ${items}`);
  return data;
}

class LoopbackServers implements Loopback {
  port: number;
  closing = false;
  private readonly servers: http.Server[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly opts: LoopbackOptions) {
    this.port = opts.port ?? 0;
  }

  originFor(host: string): string {
    return originOf(host, this.port);
  }

  later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  /** Listens on every host in turn; on a failure closes the ones already listening. */
  async listenAll(): Promise<void> {
    for (const host of this.opts.hosts) {
      try {
        await this.listenOn(host);
      } catch (err) {
        await this.close();
        throw err;
      }
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const closed = this.servers
      .filter((s) => s.listening)
      .map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
    for (const s of this.servers) s.closeAllConnections();
    // Also the sockets http.Server no longer counts as its own: close() would wait on them.
    for (const sock of this.sockets) sock.destroy();
    this.sockets.clear();
    await Promise.all(closed);
  }

  private createServer(): http.Server {
    const server = http.createServer((req, res) => {
      try {
        this.opts.handler(req, res, this);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`${this.opts.name} error: ${(err as Error).message}\n`);
      }
    });
    server.on('connection', (sock: Socket) => {
      this.sockets.add(sock);
      sock.on('close', () => this.sockets.delete(sock));
    });
    return server;
  }

  private async listenOn(host: string): Promise<void> {
    const server = this.createServer();
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        server.off('listening', onListening);
        reject(this.opts.explain ? this.opts.explain(err, host, this.port) : err);
      };
      const onListening = (): void => {
        server.off('error', onError);
        resolve();
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(this.port, host);
    });
    this.servers.push(server);
    if (this.port === 0) this.port = (server.address() as AddressInfo).port;
  }
}

/**
 * Listens on every host (one http.Server each, same port); rejects, with nothing left listening, when one cannot.
 * Without a port (or port 0), a port free on every host: the first host's free port, and when a later host has it
 * taken, another one (FREE_PORT_ATTEMPTS in all).
 */
export async function listenLoopback(opts: LoopbackOptions): Promise<Loopback> {
  const free = !opts.port;
  for (let attempt = 1; ; attempt++) {
    const loop = new LoopbackServers(opts);
    try {
      await loop.listenAll();
      return loop;
    } catch (err) {
      if (!free || !isPortInUse(err) || attempt >= FREE_PORT_ATTEMPTS) throw err;
    }
  }
}
