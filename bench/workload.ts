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
  /** Injected latency before the response, ms. */
  delayMs: number;
  /** Answers once with an error status (503, or 429) before the document. */
  flaky: boolean;
  /** The error status's Retry-After, when it sends one (ms). */
  retryAfterMs?: number;
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
      { body: readFileSync(path), contentType: kind === 'pdf' ? 'application/pdf' : 'text/html', url: `http://bench/${kind}` },
      { timeoutMs: 60_000 },
    );
    const view = text.views.find((v) => v.name === 'article') ?? text.views[0]!;
    return view.text.split(/\s+/).filter(Boolean);
  } catch {
    return []; // a scan or a locked PDF: its claims are no_match whatever they say
  }
}

/** Builds the workload: documents from golden/sources reused at many URLs, some cited by many claims. */
export async function buildWorkload(goldenSources: string, port: number, opts: WorkloadOptions = DEFAULT_WORKLOAD): Promise<Workload> {
  const random = rng(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const html = readdirSync(join(goldenSources, 'html'))
    .filter((f) => f.endsWith('.html'))
    .map((f) => join(goldenSources, 'html', f));
  const pdf = readdirSync(join(goldenSources, 'pdf'))
    .filter((f) => f.endsWith('.pdf'))
    .map((f) => join(goldenSources, 'pdf', f));
  const words = new Map<string, string[]>();
  for (const f of html) words.set(f, await documentWords(f, 'html'));
  for (const f of pdf) words.set(f, await documentWords(f, 'pdf'));

  const hosts = BENCH_HOSTS.slice(0, opts.hosts);
  const sources: BenchSource[] = [];
  for (let i = 0; i < opts.sources; i++) {
    const kind = random() < opts.pdfShare ? 'pdf' : 'html';
    const file = kind === 'pdf' ? pick(pdf) : pick(html);
    sources.push({
      path: `/doc/${i}${kind === 'pdf' ? '.pdf' : '.html'}`,
      host: hosts[Math.floor(random() * hosts.length)]!,
      file,
      kind,
      bytes: readFileSync(file).length,
      delayMs: Math.round(opts.minDelayMs + random() * (opts.maxDelayMs - opts.minDelayMs)),
      flaky: random() < opts.flakyShare,
    });
  }
  if (opts.flakyRetryAfterSec !== undefined) for (const s of sources) if (s.flaky) s.retryAfterMs = opts.flakyRetryAfterSec * 1000;

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
    headers: { 'content-type': s.kind === 'pdf' ? 'application/pdf' : 'text/html; charset=utf-8' },
    delayMs: s.delayMs,
    ...(s.flaky ? { failFirst: failFirst(s, i) } : {}),
  }));
  return { sources, claims, routes, hosts };
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

/**
 * The network-bound ideal for given concurrency limits: sources in claim order, each taking only
 * the latency it cannot avoid (its delay; when it answers an error first, twice its delay plus the
 * wait it asked for in Retry-After, or the minimum backoff without one), scheduled greedily under
 * the global and per-host limits. Extraction and matching cost nothing here: the ratio to it is
 * what quotecheck's own work adds.
 */
export function idealSeconds(sources: readonly BenchSource[], concurrency: number, perHost: number, backoffMinMs: number): number {
  const globalFree: number[] = Array.from({ length: concurrency }, () => 0);
  const hostFree = new Map<string, number[]>();
  let end = 0;
  for (const s of sources) {
    const slots = hostFree.get(s.host) ?? Array.from({ length: perHost }, () => 0);
    hostFree.set(s.host, slots);
    const g = globalFree.indexOf(Math.min(...globalFree));
    const h = slots.indexOf(Math.min(...slots));
    const start = Math.max(globalFree[g]!, slots[h]!);
    const cost = s.flaky ? 2 * s.delayMs + (s.retryAfterMs ?? backoffMinMs) : s.delayMs;
    globalFree[g] = slots[h] = start + cost;
    end = Math.max(end, start + cost);
  }
  return end / 1000;
}
