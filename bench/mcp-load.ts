// `quotecheck mcp` under an agent's parallel calls (Issue 37): the SDK's client over stdio, large distinct pages from a
// loopback server, the server's peak resident memory sampled from /proc, a small call's latency under load, and a call
// cancelled mid-work. Run by `npm run bench -- --mcp-load [--save]`; figures merged under `mcp_load` in results.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { projectRoot } from '../golden/server.js';
import { listenLoopback } from '../src/wayback/stub/loopback.js';
import { rng } from './random.js';
import { median } from './stats.js';
import { mergeKey, RESULTS_FILE, writeResults } from './results-file.js';

/** How often the server's resident memory is read. */
const SAMPLE_MS = 20;
/** The SDK client's own limit for one call: queued calls wait far longer than its 60 s default. */
const CLIENT_TIMEOUT_MS = 600_000;
const KB = 1024;
/** The soak reads the server's memory every this many calls. */
const SOAK_SAMPLE_CALLS = 100;
const MB = 1024 * KB;
/** The loopback address the load source and the stalled page listen on. */
const HOST = '127.0.0.1';

/** Words the pages are written in: a few hundred, so that text normalizes and aligns as prose does. */
const WORDS = (
  'the council budget vote members regional assembly spring figures opposition meeting report said would could ' +
  'government minister policy public health education transport housing market price rate growth year month week ' +
  'city river north south east west village county district court judge law rule plan project fund tax cost ' +
  'school teacher student hospital doctor patient nurse water power energy climate weather storm flood summer ' +
  'winter record history museum library archive paper letter article editor reader writer story page chapter ' +
  'science research study data result evidence sample survey analysis model theory method question answer'
).split(' ');

/**
 * Typography real prose has, outside Latin-1 (a page holding any of it is text of two bytes a character in V8, where
 * plain ASCII is one): a possessive's curly apostrophe, an em dash, curly quotes.
 */
const TYPOGRAPHY: readonly ((word: string) => string)[] = [
  (w) => `${w}\u2019s`,
  (w) => `${w} \u2014`,
  (w) => `\u201c${w}\u201d`,
];

/** One paragraph of 6 to 10 sentences, with a link, an emphasis and typography now and then. */
function paragraph(next: () => number): string {
  const sentences: string[] = [];
  for (let s = 0, n = 6 + Math.floor(next() * 5); s < n; s++) {
    const words: string[] = [];
    for (let w = 0, m = 8 + Math.floor(next() * 12); w < m; w++) {
      const word = WORDS[Math.floor(next() * WORDS.length)]!;
      words.push(next() < 0.03 ? TYPOGRAPHY[Math.floor(next() * TYPOGRAPHY.length)]!(word) : word);
    }
    let sentence = words.join(' ');
    if (next() < 0.2) sentence = sentence.replace(/ (\w+) (\w+)/, ' <a href="/wiki/$1">$1 $2</a>');
    else if (next() < 0.1) sentence = sentence.replace(/ (\w+)/, ' <em>$1</em>');
    sentences.push(`${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`);
  }
  return `<p>${sentences.join(' ')}</p>\n`;
}

/** The quote every verify_quote asks for: a sentence written into the middle of every page. */
export const LOAD_QUOTE = 'The harbour commission published its annual figures on a grey Thursday morning';

/**
 * An HTML page of about `bytes` (in UTF-8): an article of sections, headings and paragraphs in prose with real
 * typography, with LOAD_QUOTE halfway (last, on a page of one paragraph).
 */
export function loadPage(bytes: number, seed = 1): Buffer {
  const next = rng(seed);
  const parts: string[] = [
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Load page</title></head><body>',
    '<nav><a href="/">Home</a> | <a href="/news">News</a></nav><article><h1>Annual report</h1>\n',
  ];
  let size = parts.join('').length;
  let quoted = false;
  for (let section = 0; size < bytes; section++) {
    const head = `<div class="section"><h2>Section ${section}</h2>\n`;
    parts.push(head);
    size += head.length;
    for (let p = 0; p < 20 && size < bytes; p++) {
      const text: string =
        !quoted && size > bytes / 2 ? `<p>${LOAD_QUOTE}, a day later than planned.</p>\n` : paragraph(next);
      quoted ||= text.includes(LOAD_QUOTE);
      parts.push(text);
      size += text.length;
    }
    parts.push('</div>\n');
  }
  // A page too small to reach its middle before its first paragraph ends has the quote last.
  if (!quoted) parts.push(`<p>${LOAD_QUOTE}, a day later than planned.</p>\n`);
  parts.push('</article><footer>Footer</footer></body></html>\n');
  return Buffer.from(parts.join(''));
}

/** The loopback source: `/page/<kb>/<n>.html` is a page of about <kb> KB, distinct by its first line; it counts
 * requests. */
export interface LoadSource {
  url: (kb: number, n: number) => string;
  /**
   * Makes the page of `kb` now, before a load is timed: made on its first request, a 30 MB page took a second of the
   * bench's own thread, where the client that times the calls runs too.
   */
  prepare: (kb: number) => void;
  requests: () => number;
  close: () => Promise<void>;
}

export async function startLoadSource(): Promise<LoadSource> {
  const pages = new Map<number, Buffer>();
  const prepare = (kb: number): void => {
    if (!pages.has(kb)) pages.set(kb, loadPage(kb * KB));
  };
  let requests = 0;
  const loop = await listenLoopback({
    hosts: [HOST],
    name: 'load source',
    handler: (req, res) => {
      const m = /^\/page\/(\d+)\/(\d+)\.html$/.exec(req.url ?? '');
      if (!m) {
        res.writeHead(404).end();
        return;
      }
      requests++;
      const kb = Number(m[1]);
      prepare(kb);
      const head = Buffer.from(`<!-- page ${m[2]} -->\n`);
      const body = pages.get(kb)!;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': head.length + body.length });
      res.write(head);
      res.end(body);
    },
  });
  return {
    url: (kb, n) => `${loop.originFor(HOST)}/page/${kb}/${n}.html`,
    prepare,
    requests: () => requests,
    close: () => loop.close(),
  };
}

/** The resident memory of a process in MB, from /proc (0 once it is gone). */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / KB : 0;
  } catch {
    return 0;
  }
}

/** A `quotecheck mcp` process driven by the SDK's client, its memory sampled every SAMPLE_MS. */
export interface LoadServer {
  client: Client;
  pid: number;
  /** The highest resident memory seen since the last reset, in MB. */
  peakMb: () => number;
  resetPeak: () => void;
  stderr: () => string;
  close: () => Promise<void>;
}

/** The CLI driven: this checkout's, or another build's (`MCP_LOAD_CLI=/path/to/bin/quotecheck.js`, for a before/after). */
const loadCli = (): string => process.env.MCP_LOAD_CLI ?? join(projectRoot(), 'bin', 'quotecheck.js');

export async function startLoadServer(args: string[] = []): Promise<LoadServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [loadCli(), 'mcp', '--allow-private', ...args],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += String(d)));
  const client = new Client({ name: 'quotecheck-load', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid!;
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), SAMPLE_MS);
  return {
    client,
    pid,
    peakMb: () => Math.max(peak, rssMb(pid)),
    resetPeak: () => (peak = rssMb(pid)),
    stderr: () => stderr,
    close: async () => {
      clearInterval(timer);
      await client.close().catch(() => {});
    },
  };
}

export type ToolName = 'verify_quote' | 'search_source' | 'read_source';

/** The arguments of one call of `tool` on `url`. */
export function toolArgs(tool: ToolName, url: string): Record<string, unknown> {
  if (tool === 'verify_quote') return { url, quote: LOAD_QUOTE };
  if (tool === 'search_source') return { url, query: 'harbour commission annual figures on a grey morning' };
  return { url, offset: 0, length: 2_000 };
}

/** One call, its result and how long it took. */
export async function timedCall(
  client: Client,
  tool: ToolName,
  url: string,
  signal?: AbortSignal,
): Promise<{ result: CallToolResult; ms: number }> {
  const started = performance.now();
  const result = (await client.callTool({ name: tool, arguments: toolArgs(tool, url) }, undefined, {
    timeout: CLIENT_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  })) as CallToolResult;
  return { result, ms: performance.now() - started };
}

const TOOLS: ToolName[] = ['verify_quote', 'search_source', 'read_source'];

/** What one load of concurrent calls gave. */
export interface LoadFigures {
  calls: number;
  page_mb: number;
  answered: number;
  errors: number;
  seconds: number;
  peak_rss_mb: number;
  /** The small verify_quote calls made while the load ran: each one's seconds, and the longest. */
  small_seconds?: number[];
  small_max_seconds?: number;
}

/**
 * `calls` concurrent calls on distinct pages of `pageKb` (a third each of verify_quote, search_source and read_source)
 * on a fresh server; with `smallEvery`, a verify_quote on a small page of its own every that many ms while they run.
 */
export async function concurrentLoad(
  source: LoadSource,
  calls: number,
  pageKb: number,
  smallEvery?: number,
  args: string[] = [],
  first = 0,
): Promise<LoadFigures> {
  source.prepare(pageKb);
  if (smallEvery !== undefined) source.prepare(1);
  const server = await startLoadServer(args);
  try {
    const started = performance.now();
    const work = Array.from({ length: calls }, (_, i) =>
      timedCall(server.client, TOOLS[i % TOOLS.length]!, source.url(pageKb, first + i)),
    );
    let done = false;
    const all = Promise.all(work).finally(() => (done = true));
    const small: number[] = [];
    if (smallEvery !== undefined) {
      for (let n = 0; !done; n++) {
        await sleep(smallEvery);
        if (done) break;
        const r = await timedCall(server.client, 'verify_quote', source.url(1, first + 100_000 + n));
        if (!done) small.push(Number((r.ms / 1000).toFixed(3)));
      }
    }
    const results = await all;
    const errors = results.filter((r) => r.result.isError).length;
    return {
      calls,
      page_mb: Number((pageKb / KB).toFixed(1)),
      answered: results.length,
      errors,
      seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      peak_rss_mb: Math.round(server.peakMb()),
      ...(smallEvery !== undefined ? { small_seconds: small, small_max_seconds: Math.max(0, ...small) } : {}),
    };
  } finally {
    await server.close();
  }
}

/** The sequential soak: `calls` calls one after another over `pages` distinct pages of `pageKb`. */
export async function soak(
  source: LoadSource,
  calls: number,
  pages: number,
  pageKb: number,
): Promise<{ calls: number; seconds: number; errors: number; rss_mb: number[] }> {
  const server = await startLoadServer();
  try {
    const started = performance.now();
    const rss: number[] = [];
    let errors = 0;
    for (let i = 0; i < calls; i++) {
      const r = await timedCall(server.client, TOOLS[i % TOOLS.length]!, source.url(pageKb, 200_000 + (i % pages)));
      if (r.result.isError) errors++;
      // RSS every 100 calls: memory that settles stops growing from one to the next.
      if ((i + 1) % SOAK_SAMPLE_CALLS === 0) rss.push(Math.round(rssMb(server.pid)));
    }
    return { calls, seconds: Number(((performance.now() - started) / 1000).toFixed(1)), errors, rss_mb: rss };
  } finally {
    await server.close();
  }
}

/** A loopback page that declares `bytes`, sends `sent` of them and holds the connection until the client closes it. */
export interface StalledPage {
  url: string;
  /** Requests whose whole `sent` bytes were written. */
  written: () => number;
  /** Connections the client closed. */
  closed: () => number;
  requests: () => number;
  close: () => Promise<void>;
}

export async function startStalledPage(bytes: number, sent: number): Promise<StalledPage> {
  let [closed, requests, written] = [0, 0, 0];
  const body = loadPage(sent);
  const loop = await listenLoopback({
    hosts: [HOST],
    name: 'stalled page',
    handler: (_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': bytes });
      res.write(body, () => written++);
      res.on('close', () => closed++);
    },
  });
  return {
    url: `${loop.originFor(HOST)}/stalled.html`,
    written: () => written,
    closed: () => closed,
    requests: () => requests,
    close: () => loop.close(),
  };
}

/** Polls `test` every 50 ms for at most `ms`; whether it came true. */
export async function until(test: () => boolean, ms = 15_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (test()) return true;
  return test();
}

/** Times the cancellation is repeated on one server: memory not given back would add up from one to the next. */
const CANCELS = 3;

/** One search_source on the stalled page, cancelled once the body sent is in the server: its peak, and whether its
 * fetch was stopped (the loopback server saw the connection closed). */
async function cancelOnce(server: LoadServer, stalled: StalledPage): Promise<{ peak: number; stopped: boolean }> {
  server.resetPeak();
  const [written, closed] = [stalled.written(), stalled.closed()];
  const stop = new AbortController();
  const call = timedCall(server.client, 'search_source', stalled.url, stop.signal).catch(() => null);
  await until(() => stalled.written() > written);
  // The server reads what was written: its memory holds the body so far.
  await sleep(1_000);
  stop.abort();
  await call;
  const stopped = await until(() => stalled.closed() > closed);
  return { peak: Math.round(server.peakMb()), stopped };
}

/**
 * search_source calls cancelled by the client while their page streams in (40 MB declared, 24 MB sent, the rest held
 * back), CANCELS times on one server: its memory before, at each one's peak and after a few small calls; whether
 * every fetch was stopped. Memory given back to the process is used again: the peaks do not add up.
 */
export async function cancelled(source: LoadSource): Promise<{
  before_mb: number;
  peaks_mb: number[];
  after_mb: number;
  fetch_stopped: boolean;
  answered_after: boolean;
}> {
  const stalled = await startStalledPage(40 * MB, 24 * MB);
  const server = await startLoadServer();
  try {
    await timedCall(server.client, 'verify_quote', source.url(1, 300_000));
    const before = rssMb(server.pid);
    const runs = [];
    for (let i = 0; i < CANCELS; i++) runs.push(await cancelOnce(server, stalled));
    let answered = true;
    for (let i = 0; i < 5; i++) {
      await sleep(400);
      answered &&= !(await timedCall(server.client, 'verify_quote', source.url(1, 300_010 + i))).result.isError;
    }
    return {
      before_mb: Math.round(before),
      peaks_mb: runs.map((r) => r.peak),
      after_mb: Math.round(rssMb(server.pid)),
      fetch_stopped: runs.every((r) => r.stopped),
      answered_after: answered,
    };
  } finally {
    await server.close();
    await stalled.close();
  }
}

/** Every figure of the MCP load bench. */
export interface McpLoadFigures {
  runs: number;
  concurrent_8mb_48: LoadFigures[];
  concurrent_30mb_12: LoadFigures[];
  small_during_30mb_max_seconds: number;
  soak: Awaited<ReturnType<typeof soak>>;
  cancel: Awaited<ReturnType<typeof cancelled>>;
  peak_rss_mb_median_8mb: number;
  peak_rss_mb_median_30mb: number;
  /** Issue 46's targets for the 30 MB load: every run's peak under this, and every small call within that. */
  target_peak_rss_mb_30mb: number;
  target_small_seconds: number;
  /** The highest peak of the 30 MB runs, and whether both targets were met in every run. */
  peak_rss_mb_max_30mb: number;
  targets_met_30mb: boolean;
}

/** The 30 MB load's targets (Issue 46). */
const TARGET_PEAK_RSS_MB_30MB = 600;
const TARGET_SMALL_SECONDS = 1;

/** The whole bench: each load `runs` times on a fresh server, the soak and the cancellation once. */
export async function measureMcpLoad(runs = 2, log: (line: string) => void = () => {}): Promise<McpLoadFigures> {
  const source = await startLoadSource();
  try {
    const eight: LoadFigures[] = [];
    const thirty: LoadFigures[] = [];
    for (let r = 0; r < runs; r++) {
      eight.push(await concurrentLoad(source, 48, 8 * KB, undefined, [], r * 1000));
      log(`48 x 8 MB: ${JSON.stringify(eight.at(-1))}\n`);
      thirty.push(await concurrentLoad(source, 12, 30 * KB, 1_000, [], 500 + r * 1000));
      log(`12 x 30 MB: ${JSON.stringify(thirty.at(-1))}\n`);
    }
    // The 400 calls over 200 pages, twice over: the session cache fills during the first 400.
    const soaked = await soak(source, 800, 200, 300);
    log(`soak: ${JSON.stringify(soaked)}\n`);
    const cancel = await cancelled(source);
    log(`cancel: ${JSON.stringify(cancel)}\n`);
    return {
      runs,
      concurrent_8mb_48: eight,
      concurrent_30mb_12: thirty,
      small_during_30mb_max_seconds: Math.max(...thirty.map((t) => t.small_max_seconds ?? 0)),
      soak: soaked,
      cancel,
      peak_rss_mb_median_8mb: Math.round(median(eight.map((e) => e.peak_rss_mb))),
      peak_rss_mb_median_30mb: Math.round(median(thirty.map((e) => e.peak_rss_mb))),
      target_peak_rss_mb_30mb: TARGET_PEAK_RSS_MB_30MB,
      target_small_seconds: TARGET_SMALL_SECONDS,
      peak_rss_mb_max_30mb: Math.max(...thirty.map((t) => t.peak_rss_mb)),
      targets_met_30mb: thirty.every(
        (t) =>
          t.peak_rss_mb < TARGET_PEAK_RSS_MB_30MB &&
          t.errors === 0 &&
          (t.small_max_seconds ?? Infinity) <= TARGET_SMALL_SECONDS,
      ),
    };
  } finally {
    await source.close();
  }
}

/** `--mcp-load`: the loads, the soak and the cancellation; printed, merged into bench/results.json with --save. */
export async function mainMcpLoad(runs: number, save: boolean): Promise<void> {
  const figures = await measureMcpLoad(runs, (line) => process.stdout.write(line));
  for (const r of mcpLoadRows(figures)) process.stdout.write(`${r.join('  ')}\n`);
  process.stdout.write(
    `12 calls on 30 MB pages: peak ${figures.peak_rss_mb_max_30mb} MB (target < ${figures.target_peak_rss_mb_30mb}), ` +
      `small calls within ${figures.small_during_30mb_max_seconds.toFixed(2)} s (target ${figures.target_small_seconds} s): ` +
      `${figures.targets_met_30mb ? 'ok' : 'MISSED'}\n`,
  );
  if (!save) return;
  writeResults(mergeKey('mcp_load', figures));
  process.stdout.write(`wrote the MCP load figures into ${RESULTS_FILE}\n`);
}

/** The rows of docs/performance.md's table: load, pages, answered, wall time, peak RSS (runs' range). */
export function mcpLoadRows(f: McpLoadFigures): string[][] {
  const range = (xs: number[], unit: string): string => {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    return lo === hi ? `${lo} ${unit}` : `${lo}-${hi} ${unit}`;
  };
  const load = (name: string, runs: LoadFigures[]): string[] => [
    name,
    `${runs.reduce((n, r) => n + r.answered - r.errors, 0)} of ${runs.reduce((n, r) => n + r.calls, 0)}`,
    range(
      runs.map((r) => r.seconds),
      's',
    ),
    range(
      runs.map((r) => r.peak_rss_mb),
      'MB',
    ),
  ];
  return [load('48 calls, 8 MB pages', f.concurrent_8mb_48), load('12 calls, 30 MB pages', f.concurrent_30mb_12)];
}

// Run directly (node dist/bench/mcp-load.js [runs]) for a quick look without the bench's build step.
if (process.argv[1]?.endsWith('mcp-load.js') && process.argv[2] !== undefined) {
  const figures = await measureMcpLoad(Number(process.argv[2]), (line) => process.stdout.write(line));
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}
