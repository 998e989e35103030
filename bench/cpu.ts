// CPU cost of quotecheck's stages, measured in one thread: HTML and PDF extraction per MB, and matching plus diagnosis per claim.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceRecord } from '../src/source-record.js';
import { decodeHtml } from '../src/extract/decode.js';
import { htmlToViews } from '../src/extract/html.js';
import { extractSource } from '../src/extract/index.js';
import { diagnose } from '../src/diagnose/index.js';
import { findQuote, normalizeViews } from '../src/match.js';
import { normalize } from '../src/normalize.js';
import type { Workload } from './workload.js';

export interface CpuResult {
  html_mb: number;
  /** Warm: the median of three passes after the first. */
  html_mb_per_s: number;
  /** The first pass, cold code (a worker's first pages). */
  html_cold_mb_per_s: number;
  pdf_mb: number;
  pdf_mb_per_s: number;
  match_ms_p50: number;
  match_ms_p90: number;
  claims_timed: number;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

export async function cpuBenchmark(goldenSources: string, workload: Workload): Promise<CpuResult> {
  // HTML: decode, one htmlparser2 pass for the light DOM and the full view, Readability for the
  // article view. Workers are long-lived, so they run warm: one pass to warm up, then the median
  // of three timed passes.
  const htmlFiles = readdirSync(join(goldenSources, 'html')).map((f) => readFileSync(join(goldenSources, 'html', f)));
  const htmlBytes = htmlFiles.reduce((n, b) => n + b.length, 0);
  const passMs: number[] = [];
  for (let pass = 0; pass < 4; pass++) {
    const t = performance.now();
    for (const bytes of htmlFiles) htmlToViews(decodeHtml(bytes).text);
    passMs.push(performance.now() - t);
  }
  const coldMs = passMs[0]!;
  const htmlMs = quantile(passMs.slice(1), 0.5);
  // PDF: pdftotext (a child process, so wall time of sequential runs is its CPU time).
  const pdfFiles = readdirSync(join(goldenSources, 'pdf')).map((f) => join(goldenSources, 'pdf', f));
  let pdfBytes = 0;
  const t0 = performance.now();
  for (const f of pdfFiles) {
    try {
      execFileSync('pdftotext', ['-enc', 'UTF-8', f, '-'], { stdio: ['ignore', 'ignore', 'ignore'] });
    } catch {
      // locked or broken: it still cost the time
    }
    pdfBytes += readFileSync(f).length;
  }
  const pdfMs = performance.now() - t0;

  // Matching and diagnosis per claim, on the workload's own claims and documents.
  const records = new Map<string, SourceRecord>();
  const byPath = new Map(workload.sources.map((s) => [s.path, s]));
  const times: number[] = [];
  for (const claim of workload.claims) {
    const source = byPath.get(new URL(claim.url).pathname)!;
    let record = records.get(source.file);
    if (!record) {
      const body = readFileSync(source.file);
      const contentType = source.kind === 'pdf' ? 'application/pdf' : 'text/html';
      record = {
        url: claim.url,
        fetch: {
          ok: true,
          url: claim.url,
          finalUrl: claim.url,
          status: 200,
          contentType,
          headers: { 'content-type': contentType },
          body,
          sha256: '',
          redirects: [],
          attempts: 1,
          ms: 0,
          fetchedAt: new Date(0).toISOString(),
        },
      };
      try {
        record.text = await extractSource({ body, contentType, url: claim.url }, { timeoutMs: 60_000 });
        record.views = normalizeViews(record.text.views);
      } catch {
        // no text: diagnosis says so
      }
      records.set(source.file, record);
    }
    const t = performance.now();
    const quote = normalize(claim.quote);
    const match = record.views ? findQuote(quote, record.views) : null;
    diagnose({ label: match ? 'verbatim' : 'no_match', quote, source: record, match });
    times.push(performance.now() - t);
  }
  return {
    html_mb: Number((htmlBytes / 1e6).toFixed(1)),
    html_cold_mb_per_s: Number((htmlBytes / 1e6 / (coldMs / 1000)).toFixed(2)),
    html_mb_per_s: Number((htmlBytes / 1e6 / (htmlMs / 1000)).toFixed(2)),
    pdf_mb: Number((pdfBytes / 1e6).toFixed(1)),
    pdf_mb_per_s: Number((pdfBytes / 1e6 / (pdfMs / 1000)).toFixed(2)),
    match_ms_p50: Number(quantile(times, 0.5).toFixed(2)),
    match_ms_p90: Number(quantile(times, 0.9).toFixed(2)),
    claims_timed: times.length,
  };
}
