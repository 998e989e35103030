// The evidence report (design.md §2): one JSON line per claim, plus the run's one-line summary.
import { writeFileAtomicSync } from './answers.js';
import { plural } from './messages.js';
import type { CheckRun, ClaimResult } from './check.js';
import { DIAGNOSES, type Diagnosis, type DiffRun } from './diagnose/index.js';

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
  charset_source: ClaimResult['charsetSource'] | null;
  extractor: string | null;
  match: { view: string; offset: number; context: string; selector?: ClaimResult['selector'] } | null;
  /** The closest span of a no_match claim's source: normalized (`text`) and in the page's own wording (`raw`), with the word diff of the quote against it. */
  nearest: { text: string; raw: string; diff: DiffRun[]; similarity: number; view: string; offset: number } | null;
  /** The live source against the claim's evidence hash (design.md §8). */
  drift: ClaimResult['drift'];
  /** Which hash of the live source equals the evidence: the body's bytes, the extracted text, or the normalized text. */
  evidence_match: ClaimResult['evidenceMatch'] | null;
  /** Which text decided the label, and why it stands for the claim's date. */
  as_of: { source: string; timestamp: string | null; capture_url: string | null; proof: string | null; date: string | null; sha256: string | null } | null;
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
    charset_source: r.charsetSource ?? null,
    extractor: r.extractor ?? null,
    match: r.match ? { view: r.match.view, offset: r.match.offset, context: r.match.prefix + r.match.exact + r.match.suffix, selector: r.selector } : null,
    nearest: r.nearest ? { text: r.nearest.text, raw: r.nearest.raw, diff: r.nearest.diff, similarity: r.nearest.similarity, view: r.nearest.view, offset: r.nearest.offset } : null,
    drift: r.drift,
    evidence_match: r.evidenceMatch ?? null,
    as_of: r.asOf ? { source: r.asOf.source, timestamp: r.asOf.timestamp, capture_url: r.asOf.captureUrl, proof: r.asOf.proof, date: r.asOf.date, sha256: r.asOf.sha256 } : null,
    note: r.note ?? null,
    ms: r.ms,
  };
}

/**
 * One quote's verdict: what verifyQuote returns and `quotecheck verify --json` prints. The fields
 * and names of a report line (design.md §2) without `id` (a single quote has none), and `quote`,
 * the quote as given.
 */
export type VerifyResult = Omit<ReportRecord, 'id'> & { quote: string };

export function toVerifyResult(r: ClaimResult, quote: string): VerifyResult {
  const { id: _id, ...record } = toReportRecord(r);
  return { ...record, quote };
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
  /** Sources that changed since a claim's evidence hash was recorded (or are gone). */
  sourcesDrifted: number;
  /** Claims whose label a Wayback capture decided. */
  claimsFromWayback: number;
  wayback?: CheckRun['wayback'];
  seconds: number;
  /** Peak resident memory of this process (worker threads included), in MB. */
  peakRssMb: number;
}

export function summarize(run: CheckRun): RunSummary {
  const verbatim = run.results.filter((r) => r.label === 'verbatim').length;
  const failed = run.sources.filter((s) => !s.fetch.ok).length;
  const drifted = new Set(run.results.filter((r) => r.drift === 'changed').map((r) => r.url));
  return {
    claims: run.results.length,
    verbatim,
    noMatch: run.results.length - verbatim,
    sourcesFetched: run.sources.length - failed,
    sourcesFailed: failed,
    sourcesDrifted: drifted.size,
    claimsFromWayback: run.results.filter((r) => r.asOf?.captureUrl).length,
    wayback: run.wayback,
    seconds: run.ms / 1000,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

export function summaryLine(s: RunSummary): string {
  const drifted = s.sourcesDrifted ? `, ${s.sourcesDrifted} drifted` : '';
  const w = s.wayback;
  const wayback = w && w.lookups > 0
    ? `; wayback ${plural(w.lookups, 'lookup')}, ${plural(w.requests, 'request')}, ${plural(s.claimsFromWayback, 'claim')} judged on captures${w.abandoned ? ` (${w.abandoned})` : ''}`
    : '';
  return `quotecheck: ${plural(s.claims, 'claim')}, ${s.verbatim} verbatim, ${s.noMatch} no_match; sources ${s.sourcesFetched} fetched, ${s.sourcesFailed} failed${drifted}${wayback}; ${s.seconds.toFixed(1)} s; peak memory ${s.peakRssMb} MB`;
}

/** Claims per diagnosis code, in the order of design.md §5 (codes with no claims left out). */
export function diagnosisCounts(results: readonly ClaimResult[]): [Diagnosis, number][] {
  const counts = new Map<Diagnosis, number>();
  for (const r of results) counts.set(r.diagnosis, (counts.get(r.diagnosis) ?? 0) + 1);
  return DIAGNOSES.filter((d) => counts.has(d)).map((d) => [d, counts.get(d)!]);
}

/**
 * The no_match claims most worth a human look, most telling first: extraction artifacts (the
 * passage is there, only mangled: the mechanical label says no_match for a true quote), then
 * near misses by similarity (misquotes, or a page that changed), then partial quotes, then
 * drifted sources (the text as of the date could not be had), then paywalls (nobody could check).
 */
const LOOK_ORDER: Partial<Record<Diagnosis, number>> = { extraction_artifact: 0, near_miss: 1, partial: 2, drifted: 3, paywall: 4 };

export function worthALook(results: readonly ClaimResult[], n = 5): ClaimResult[] {
  return results
    .filter((r) => LOOK_ORDER[r.diagnosis] !== undefined)
    .sort((a, b) => LOOK_ORDER[a.diagnosis]! - LOOK_ORDER[b.diagnosis]! || (b.nearest?.similarity ?? 0) - (a.nearest?.similarity ?? 0))
    .slice(0, n);
}

/** The end-of-run diagnosis summary: counts, then the claims worth a look, one line each. */
export function diagnosisSummary(results: readonly ClaimResult[], n = 5): string {
  const lines = [`diagnoses: ${diagnosisCounts(results).map(([d, c]) => `${d} ${c}`).join(', ')}`];
  const look = worthALook(results, n);
  if (look.length > 0) {
    lines.push('worth a human look:');
    for (const r of look) {
      const sim = r.nearest ? ` (similarity ${r.nearest.similarity.toFixed(2)})` : '';
      const note = r.note ? `: ${r.note.length > 140 ? `${r.note.slice(0, 137)}...` : r.note}` : '';
      lines.push(`  ${r.id}  ${r.diagnosis}${sim}${note}`);
    }
  }
  return lines.join('\n');
}
