// The evidence report (design.md §2): one JSON line per claim, plus the run's one-line summary.
import { writeFileAtomicSync } from './answers.js';
import type { CheckRun, ClaimResult } from './check.js';

/** One line of the `--report` JSON Lines file, with the field names of design.md §2. */
export interface ReportRecord {
  id: string;
  label: ClaimResult['label'];
  diagnosis: ClaimResult['diagnosis'];
  url: string | null;
  final_url: string | null;
  http_status: number | null;
  content_type: string | null;
  source_sha256: string | null;
  charset: string | null;
  extractor: string | null;
  match: { view: string; offset: number; context: string } | null;
  nearest: { text: string; similarity: number } | null;
  note: string | null;
  ms: number;
}

export function toReportRecord(r: ClaimResult): ReportRecord {
  return {
    id: r.id,
    label: r.label,
    diagnosis: r.diagnosis,
    url: r.url ?? null,
    final_url: r.finalUrl ?? null,
    http_status: r.httpStatus ?? null,
    content_type: r.contentType ?? null,
    source_sha256: r.sourceSha256 ?? null,
    charset: r.charset ?? null,
    extractor: r.extractor ?? null,
    match: r.match ? { view: r.match.view, offset: r.match.offset, context: r.match.prefix + r.match.exact + r.match.suffix } : null,
    nearest: null,
    note: r.note ?? null,
    ms: r.ms,
  };
}

export function writeReport(path: string, results: readonly ClaimResult[]): void {
  writeFileAtomicSync(path, results.map((r) => JSON.stringify(toReportRecord(r))).join('\n') + '\n');
}

export interface RunSummary {
  claims: number;
  verbatim: number;
  noMatch: number;
  sourcesFetched: number;
  sourcesFailed: number;
  seconds: number;
}

export function summarize(run: CheckRun): RunSummary {
  const verbatim = run.results.filter((r) => r.label === 'verbatim').length;
  const failed = run.sources.filter((s) => !s.fetch.ok).length;
  return {
    claims: run.results.length,
    verbatim,
    noMatch: run.results.length - verbatim,
    sourcesFetched: run.sources.length - failed,
    sourcesFailed: failed,
    seconds: run.ms / 1000,
  };
}

export function summaryLine(s: RunSummary): string {
  return `quotecheck: ${s.claims} claims, ${s.verbatim} verbatim, ${s.noMatch} no_match; sources ${s.sourcesFetched} fetched, ${s.sourcesFailed} failed; ${s.seconds.toFixed(1)} s`;
}
