// The benchmark workload: an SKBench-sized set of claims (1,405 over ~500 sources) built from the golden
// sources, served on loopback with seeded latency and a few transient 503s.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Route } from '../golden/server.js';
import { extractSource } from '../src/extract/index.js';
import { rng } from './random.js';

export interface BenchSource {
  /** Path on the bench server (hosts spread the sources over 127.0.0.1-10). */
  path: string;
  host: string;
  file: string;
  kind: 'html' | 'pdf';
  bytes: number;
  /** The Content-Type its document is served with (routes carry it too); by its kind when absent. */
  contentType?: string;
  /** Injected latency before the response, ms. */
  delayMs: number;
  /** Answers once with an error status (503, or 429) before the document. */
  flaky: boolean;
  /** The error status's Retry-After, when it sends one (ms). */
  retryAfterMs?: number;
  /**
   * The real web's faults (bench/faults.ts): what the source answers before its document, in order, in place of
   * `flaky`; a redirect to another host, or a cookie wall, in front of the document.
   */
  faults?: SourceFault[];
  /** The document is served at another host's URL: this source's URL answers 301 to it. */
  redirect?: { host: string; path: string; delayMs: number };
  /** Without the cookie it sets, the URL answers 302 to itself with Set-Cookie (a consent or bot wall). */
  cookieWall?: boolean;
}

/**
 * One answer a source gives before its document: an error status asking (or not) for a wait, in seconds or as an
 * HTTP-date at least that far ahead; or its document's headers and half its body, then the connection closed.
 */
export type SourceFault =
  | { kind: 'status'; status: number; retryAfter?: { seconds: number; form: 'seconds' | 'date' } }
  | { kind: 'cut' };

/**
 * What the source at `index` answers before its document: its `faults`, or (a `flaky` source) one error: 503 without
 * a header, or with Retry-After 503 and 429 in turn.
 */
export function faultsOf(s: BenchSource, index: number): SourceFault[] {
  if (s.faults) return s.faults;
  if (!s.flaky) return [];
  if (s.retryAfterMs === undefined) return [{ kind: 'status', status: 503 }];
  const retryAfter = { seconds: s.retryAfterMs / 1000, form: 'seconds' } as const;
  return [{ kind: 'status', status: index % 2 === 0 ? 503 : 429, retryAfter }];
}

/** One request of a source, as the bound and the ideal schedule it. */
export interface SourceRequest {
  host: string;
  /** Its latency: it holds a slot of its host and a global one this long. */
  costMs: number;
  /** The wait before the source's next request: what the server asked for, or (with a default) the client's own. */
  waitAfterMs: number;
}

/**
 * A source's requests in order: each error answer (with the wait it asks for, or `defaultWaitMs` when it asks none),
 * then the document's: a redirect's hop and the target, a cookie wall's 302 and the page, or the page alone.
 */
export function requestsOf(s: BenchSource, defaultWaitMs: number): SourceRequest[] {
  const out: SourceRequest[] = faultsOf(s, 0).map((f) => ({
    host: s.host,
    costMs: s.delayMs,
    waitAfterMs: f.kind === 'status' && f.retryAfter ? f.retryAfter.seconds * 1000 : defaultWaitMs,
  }));
  if (s.redirect) {
    out.push({ host: s.host, costMs: s.delayMs, waitAfterMs: 0 });
    out.push({ host: s.redirect.host, costMs: s.redirect.delayMs, waitAfterMs: 0 });
  } else {
    if (s.cookieWall) out.push({ host: s.host, costMs: s.delayMs, waitAfterMs: 0 });
    out.push({ host: s.host, costMs: s.delayMs, waitAfterMs: 0 });
  }
  return out;
}

export interface BenchClaim {
  id: string;
  quote: string;
  url: string;
}

export interface Workload {
  sources: BenchSource[];
  claims: BenchClaim[];
  routes: Route[];
  hosts: string[];
}

export const BENCH_HOSTS = Array.from({ length: 10 }, (_, i) => `127.0.0.${i + 1}`);

export interface WorkloadOptions {
  sources: number;
  claims: number;
  /** Loopback hosts the sources are spread over (at most 10). */
  hosts: number;
  /** Share of PDF sources (the shared corpus has 27 PDFs to 63 HTML pages: 30%). */
  pdfShare: number;
  minDelayMs: number;
  maxDelayMs: number;
  /** Share of sources that answer an error status once. */
  flakyShare: number;
  /** When set, the flaky sources answer 503 or 429 (half each) with this Retry-After; otherwise 503 without one. */
  flakyRetryAfterSec?: number;
  seed: number;
  /**
   * Whether HTML is served as `text/html; charset=utf-8` (the default) or as plain `text/html`, its charset left to
   * the page (a BOM, `<meta>`, or detection), as real servers often do: the real-pages profile's pages are not all
   * UTF-8.
   */
  declareCharset?: boolean;
  /** Each document serves at least one source (in a seeded order) before documents are picked at random. */
  everyDocument?: boolean;
}

/** The whole benchmark: SKBench's 1,405 claims over ~500 sources. */
export const DEFAULT_WORKLOAD: WorkloadOptions = {
  sources: 500,
  claims: 1405,
  hosts: 10,
  pdfShare: 0.3,
  minDelayMs: 50,
  maxDelayMs: 400,
  flakyShare: 0.04,
  seed: 1405,
};

/**
 * One benchmark task's worth: about 560 claims over 130 sources on 8 hosts, a tenth of them
 * answering 503 or 429 with Retry-After before the document (the waits a task's run cannot avoid).
 */
export const TASK_WORKLOAD: WorkloadOptions = {
  sources: 130,
  claims: 560,
  hosts: 8,
  pdfShare: 0.3,
  minDelayMs: 50,
  maxDelayMs: 400,
  flakyShare: 0.1,
  flakyRetryAfterSec: 1,
  seed: 560,
};

/**
 * The flaky-host profile (Issue 27): sources crowded onto two hosts, so that the per-host limit is what paces the run,
 * and a fifth of them answering 503 or 429 with Retry-After: 1 before the document. A source that held its host's slot
 * through its wait would keep one of the host's two slots idle for a second each time; the ideal under that rule
 * (idealSeconds, 'wait-holds-slots') is reported beside the one under quotecheck's rule.
 */
export const FLAKY_HOST_WORKLOAD: WorkloadOptions = {
  sources: 64,
  claims: 240,
  hosts: 2,
  pdfShare: 0.3,
  minDelayMs: 50,
  maxDelayMs: 400,
  flakyShare: 0.2,
  flakyRetryAfterSec: 1,
  seed: 27,
};

/** A one-line description of a workload, for the bench's output. */
export function describeWorkload(w: Workload, opts: WorkloadOptions): string {
  const flaky = w.sources.filter((s) => s.flaky).length;
  const faults =
    opts.flakyRetryAfterSec === undefined
      ? `${flaky} sources answer 503 once`
      : `${flaky} sources answer 503 or 429 with Retry-After: ${opts.flakyRetryAfterSec} once`;
  return `${w.claims.length} claims over ${w.sources.length} sources (${w.sources.filter((s) => s.kind === 'pdf').length} PDF), ${w.hosts.length} hosts, latency ${opts.minDelayMs}-${opts.maxDelayMs} ms, ${faults}`;
}

/** Words of a document's text, for cutting quotes. */
async function documentWords(path: string, kind: 'html' | 'pdf'): Promise<string[]> {
  try {
    const text = await extractSource(
      {
        body: readFileSync(path),
        contentType: kind === 'pdf' ? 'application/pdf' : 'text/html',
        url: `http://bench/${kind}`,
      },
      { timeoutMs: 60_000 },
    );
    const view = text.views.find((v) => v.name === 'article') ?? text.views[0]!;
    return view.text.split(/\s+/).filter(Boolean);
  } catch {
    return []; // a scan or a locked PDF: its claims are no_match whatever they say
  }
}

/** The documents of a folder's `kind` subfolder (`html/*.html` or `pdf/*.pdf`), in name order (libuv's). */
function documentsIn(folder: string, kind: 'html' | 'pdf'): string[] {
  return readdirSync(join(folder, kind))
    .filter((f) => f.endsWith(`.${kind}`))
    .map((f) => join(folder, kind, f));
}

/**
 * The documents every source is first given when `everyDocument` is set: each one once, in a seeded order (a
 * Fisher-Yates shuffle); none otherwise (and no random numbers drawn, so other workloads stay as they were).
 */
function firstDocuments(
  html: readonly string[],
  pdf: readonly string[],
  opts: WorkloadOptions,
  random: () => number,
): { kind: 'html' | 'pdf'; file: string }[] {
  if (!opts.everyDocument) return [];
  const docs = [
    ...html.map((file) => ({ kind: 'html' as const, file })),
    ...pdf.map((file) => ({ kind: 'pdf' as const, file })),
  ];
  for (let i = docs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [docs[i], docs[j]] = [docs[j]!, docs[i]!];
  }
  return docs;
}

/**
 * Builds the workload: documents from the folders (golden/sources, and the real-pages profile's own data) reused at
 * many URLs, some cited by many claims.
 */
export async function buildWorkload(
  folders: string | readonly string[],
  port: number,
  opts: WorkloadOptions = DEFAULT_WORKLOAD,
): Promise<Workload> {
  const random = rng(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const dirs = typeof folders === 'string' ? [folders] : folders;
  const html = dirs.flatMap((d) => documentsIn(d, 'html'));
  const pdf = dirs.flatMap((d) => documentsIn(d, 'pdf'));
  const words = new Map<string, string[]>();
  for (const f of html) words.set(f, await documentWords(f, 'html'));
  for (const f of pdf) words.set(f, await documentWords(f, 'pdf'));

  const hosts = BENCH_HOSTS.slice(0, opts.hosts);
  const sources: BenchSource[] = [];
  const first = firstDocuments(html, pdf, opts, random);
  for (let i = 0; i < opts.sources; i++) {
    const kind = first[i]?.kind ?? (random() < opts.pdfShare ? 'pdf' : 'html');
    const file = first[i]?.file ?? (kind === 'pdf' ? pick(pdf) : pick(html));
    sources.push({
      path: `/doc/${i}${kind === 'pdf' ? '.pdf' : '.html'}`,
      host: hosts[Math.floor(random() * hosts.length)]!,
      file,
      kind,
      bytes: readFileSync(file).length,
      contentType: contentType(kind, opts.declareCharset ?? true),
      delayMs: Math.round(opts.minDelayMs + random() * (opts.maxDelayMs - opts.minDelayMs)),
      flaky: random() < opts.flakyShare,
    });
  }
  if (opts.flakyRetryAfterSec !== undefined)
    for (const s of sources) if (s.flaky) s.retryAfterMs = opts.flakyRetryAfterSec * 1000;

  // Every source gets a claim; the rest go mostly to a few popular sources (Zipf-like weights).
  const counts = sources.map(() => 1);
  const weights = sources.map((_, i) => 1 / (1 + i) ** 1.1);
  const total = weights.reduce((a, b) => a + b, 0);
  for (let k = opts.sources; k < opts.claims; k++) {
    let r = random() * total;
    let i = 0;
    while (r > weights[i]! && i < weights.length - 1) r -= weights[i++]!;
    counts[i]!++;
  }

  const claims: BenchClaim[] = [];
  sources.forEach((s, i) => {
    const ws = words.get(s.file)!;
    const url = `http://${s.host}:${port}${s.path}`;
    for (let c = 0; c < counts[i]!; c++) {
      const id = `b${i}-${c}`;
      const roll = random();
      if (ws.length < 30 || roll < 0.1) {
        // A fabricated sentence.
        claims.push({
          id,
          quote: `The ${pick(['committee', 'agency', 'author', 'study'])} reported that ${pick(['prices', 'results', 'numbers', 'votes'])} rose by ${Math.floor(random() * 90) + 10} percent in ${1990 + Math.floor(random() * 30)}.`,
          url,
        });
        continue;
      }
      const len = 8 + Math.floor(random() * 18);
      const start = Math.floor(random() * (ws.length - len));
      const span = ws.slice(start, start + len);
      if (roll < 0.55) {
        claims.push({ id, quote: span.join(' '), url }); // verbatim
      } else {
        span[Math.floor(len / 2)] = pick(['purple', 'seventeen', 'reluctantly', 'Tuesday', 'Ottawa']); // a misquote
        claims.push({ id, quote: span.join(' '), url });
      }
    }
  });

  const routes: Route[] = sources.map((s, i) => ({
    path: s.path,
    host: s.host,
    file: s.file,
    headers: { 'content-type': s.contentType! },
    delayMs: s.delayMs,
    ...(s.flaky ? { failFirst: failFirst(s, i) } : {}),
  }));
  return { sources, claims, routes, hosts };
}

/** The Content-Type a source is served with: a PDF's, or HTML's with or without `charset=utf-8`. */
function contentType(kind: 'html' | 'pdf', declareCharset: boolean): string {
  if (kind === 'pdf') return 'application/pdf';
  return declareCharset ? 'text/html; charset=utf-8' : 'text/html';
}

/** The error a flaky source answers first: 503 without a header, or (with Retry-After) 503 and 429 in turn. */
function failFirst(s: BenchSource, index: number): NonNullable<Route['failFirst']> {
  if (s.retryAfterMs === undefined) return { count: 1, status: 503 };
  return { count: 1, status: index % 2 === 0 ? 503 : 429, headers: { 'retry-after': String(s.retryAfterMs / 1000) } };
}

/** A workload's claims (or any claims with a `url`) pointed at a server's port: a workload is built before its server has one. */
export function claimsOnPort<T extends { url: string }>(claims: readonly T[], port: number): T[] {
  return claims.map((c) => {
    const u = new URL(c.url);
    u.port = String(port);
    return { ...c, url: u.href };
  });
}

/** Which rule the ideal schedules a source that answers an error first by (see idealSeconds). */
export type WaitRule = 'wait-holds-nothing' | 'wait-holds-slots';

/** One request of the ideal's schedule: when it may start, whose it is (claim order breaks ties), how long it takes. */
interface IdealRequest {
  ready: number;
  order: number;
  host: string;
  costMs: number;
  /** The source's requests after this one, and the wait before the next. */
  rest: SourceRequest[];
  waitAfterMs: number;
}

/**
 * The network-bound ideal for given concurrency limits: every request holds a slot of its host and a global one for
 * its latency (its delay) and for nothing else, each request queued in the order it is ready (first requests in claim
 * order, all ready at once; a source's next request once the wait before it is over, behind every request ready
 * before it) and started on the earliest free host and global slots, greedily. A source's requests are requestsOf's:
 * under quotecheck's rule ('wait-holds-nothing', src/fetch/slots.ts) an error answer is a request of its delay, then a
 * wait of what it asked for in Retry-After (the minimum backoff without one) holding no slot; a redirect's hop and a
 * cookie wall's 302 are requests of their own. Under the rule before Issue 27 ('wait-holds-slots') a source is one
 * request on its first host of all its delays and waits, its slots held throughout: what a run that holds its slots
 * through a wait could at best do. Extraction and matching cost nothing here: the ratio to the ideal is what
 * quotecheck's own work adds. Not a lower bound (bench/bound.ts has one): a request that waits for its host's slot
 * keeps the global slot it was given idle, where quotecheck gives it to a request of another host.
 */
export function idealSeconds(
  sources: readonly BenchSource[],
  concurrency: number,
  perHost: number,
  backoffMinMs: number,
  rule: WaitRule = 'wait-holds-nothing',
): number {
  const globalFree: number[] = Array.from({ length: concurrency }, () => 0);
  const hostFree = new Map<string, number[]>();
  // First requests, all ready at the start, in claim order; the later ones, each ready once its wait is over, apart.
  const firsts: IdealRequest[] = sources.map((source, order) => {
    const [first, ...rest] = requestsOf(source, backoffMinMs) as [SourceRequest, ...SourceRequest[]];
    if (rule === 'wait-holds-slots') {
      const all = [first, ...rest];
      const costMs = all.reduce((t, r, i) => t + r.costMs + (i < all.length - 1 ? r.waitAfterMs : 0), 0);
      return { ready: 0, order, host: first.host, costMs, rest: [], waitAfterMs: 0 };
    }
    return { ready: 0, order, ...first, rest };
  });
  const later: IdealRequest[] = [];
  let end = 0;
  for (let i = 0; ; ) {
    const r = readyFirst(later);
    let next: IdealRequest;
    if (i < firsts.length && (r < 0 || before(firsts[i]!, later[r]!))) next = firsts[i++]!;
    else if (r >= 0) next = later.splice(r, 1)[0]!;
    else break;
    const slots = hostFree.get(next.host) ?? Array.from({ length: perHost }, () => 0);
    hostFree.set(next.host, slots);
    const g = globalFree.indexOf(Math.min(...globalFree));
    const h = slots.indexOf(Math.min(...slots));
    const start = Math.max(next.ready, globalFree[g]!, slots[h]!);
    const done = start + next.costMs;
    globalFree[g] = slots[h] = done;
    end = Math.max(end, done);
    const [following, ...rest] = next.rest;
    if (following) later.push({ ready: done + next.waitAfterMs, order: next.order, ...following, rest });
  }
  return end / 1000;
}

/** Whether request `a` queues before `b`: ready first, or as ready and earlier in claim order. */
const before = (a: IdealRequest, b: IdealRequest): boolean =>
  a.ready < b.ready || (a.ready === b.ready && a.order < b.order);

/** The index of the request that queues first among `requests`, or -1 when there is none. */
function readyFirst(requests: readonly IdealRequest[]): number {
  let best = -1;
  for (let i = 0; i < requests.length; i++) if (best < 0 || before(requests[i]!, requests[best]!)) best = i;
  return best;
}
