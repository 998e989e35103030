// `quotecheck wayback-stub`: the loopback Wayback stub (src/wayback/stub/stub.ts) served from a captures file or
// folder, until SIGINT/SIGTERM.
import { plural } from '../../messages.js';
import { isLoopback } from '../../wayback/stub/loopback.js';
import { startWaybackStub, type RunningWayback } from '../../wayback/stub/stub.js';
import { errorLine, messageLine, outputLine, refuseInput } from '../progress.js';
import { readCapturesInput } from '../../wayback/stub/captures-file.js';

interface WaybackStubCommandOptions {
  /** A JSON (or JSON Lines) file of captures, or a folder holding captures.json. */
  captures: string;
  /** A loopback address (127.x.y.z, ::1, localhost). */
  host: string;
  /** 0: a free port, printed. */
  port: number;
}

/** Why the server could not listen, in one line. */
function listenProblem(err: NodeJS.ErrnoException, host: string, port: number): string {
  if (err.code === 'EADDRINUSE')
    return `cannot listen on ${host}:${port}: the port is in use (give another --port, or 0 for a free one)`;
  if (err.code === 'EADDRNOTAVAIL')
    return (
      `cannot listen on ${host}: address not available on this machine (loopback aliases 127.x.y.z may need ` +
      `adding)`
    );
  if (err.code === 'EACCES')
    return `cannot listen on ${host}:${port}: permission denied (ports below 1024 need privileges)`;
  return `cannot listen on ${host}:${port}: ${err.message}`;
}

/** Serves until SIGINT or SIGTERM; its origin is the one stdout line. Exit 0 when stopped, 2 on bad input. */
export async function waybackStubCommand(o: WaybackStubCommandOptions): Promise<number> {
  if (!isLoopback(o.host)) {
    errorLine(
      `--host ${o.host}: not a loopback address (127.x.y.z, ::1 or localhost): the stub serves this machine only`,
    );
    return 2;
  }
  if (o.port > 65535) {
    errorLine(`--port ${o.port}: must be at most 65535`);
    return 2;
  }
  let input;
  try {
    input = readCapturesInput(o.captures);
  } catch (err) {
    return refuseInput(err);
  }
  let running: RunningWayback;
  try {
    running = await startWaybackStub({ captures: input.captures, baseDir: input.baseDir, host: o.host, port: o.port });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    errorLine(e.code ? listenProblem(e, o.host, o.port) : `--captures ${input.file}: ${e.message}`);
    return 2;
  }
  const urls = new Set(input.captures.map((c) => c.url)).size;
  outputLine(running.origin);
  messageLine(
    `wayback-stub: serving ${plural(input.captures.length, 'capture')} of ${plural(urls, 'URL')} from ` +
      `${input.file} at ${running.origin} (CDX at /cdx/search/cdx, captures at /web/{timestamp}id_/{url}); try: ` +
      `quotecheck run --allow-private --wayback-url ${running.origin} --claims claims.json; stop with Ctrl-C`,
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  messageLine(`wayback-stub: stopped (${signal}) after ${plural(running.requests.length, 'request')}`);
  return 0;
}
