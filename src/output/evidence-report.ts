// The evidence report (docs/how-it-decides.md#the-evidence-report): one JSON line per claim, plus the run's one-line
// summary.
import { plural } from '../messages.js';
import type { CheckRun, ClaimResult } from '../check.js';
import type { ReportRecord, VerifyResult } from '../contract.js';
import { RunTally, type RunSummary } from '../run/tally.js';

export type { ReportRecord, VerifyResult } from '../contract.js';
export { RunTally, type LookRecord, type RunSummary } from '../run/tally.js';

export function toReportRecord(r: ClaimResult): ReportRecord {
  return {
    id: r.id,
    label: r.label,
    diagnosis: r.diagnosis,
    url: r.url ?? null,
    final_url: r.finalUrl ?? null,
    http_status: r.httpStatus ?? null,
    fetch_error: r.fetchError ?? null,
    content_type: r.contentType ?? null,
    source_sha256: r.sourceSha256 ?? null,
    charset: r.charset ?? null,
    charset_source: r.charsetSource ?? null,
    extractor: r.extractor ?? null,
    match: r.match
      ? {
          view: r.match.view,
          offset: r.match.offset,
          context: r.match.prefix + r.match.exact + r.match.suffix,
          selector: r.selector,
        }
      : null,
    nearest: r.nearest
      ? {
          text: r.nearest.text,
          raw: r.nearest.raw,
          diff: r.nearest.diff,
          similarity: r.nearest.similarity,
          view: r.nearest.view,
          offset: r.nearest.offset,
        }
      : null,
    drift: r.drift,
    evidence_match: r.evidenceMatch ?? null,
    as_of: r.asOf
      ? {
          source: r.asOf.source,
          timestamp: r.asOf.timestamp,
          capture_url: r.asOf.captureUrl,
          proof: r.asOf.proof,
          date: r.asOf.date,
          sha256: r.asOf.sha256,
        }
      : null,
    note: r.note ?? null,
    ms: r.ms,
  };
}

/**
 * A checked quote as verifyQuote returns it and `verify --json` prints it: its report line without `id`, the quote as
 * given, and `redirect` when the source is a redirect shell.
 */
export function toVerifyResult(r: ClaimResult & { redirect?: VerifyResult['redirect'] }, quote: string): VerifyResult {
  const { id: _id, ...record } = toReportRecord(r);
  return r.redirect ? { ...record, quote, redirect: r.redirect } : { ...record, quote };
}

/** The summary of a run whose results and sources are in hand (checkClaims). */
export function summarize(run: CheckRun): RunSummary {
  const tally = new RunTally();
  for (const r of run.results) tally.addResult(r);
  for (const s of run.sources) tally.addSource(s);
  return tally.summary(run);
}

export function summaryLine(s: RunSummary): string {
  const drifted = s.sourcesDrifted ? `, ${s.sourcesDrifted} drifted` : '';
  const w = s.wayback;
  const wayback =
    w && w.lookups > 0
      ? `; wayback ${plural(w.lookups, 'lookup')}, ${plural(w.requests, 'request')}, ` +
        `${plural(s.claimsFromWayback, 'claim')} judged on captures${w.abandoned ? ` (${w.abandoned})` : ''}`
      : '';
  const undecided = s.undecided ? ` (${s.undecided} not decided: the run stopped first)` : '';
  return (
    `quotecheck: ${plural(s.claims, 'claim')}, ${s.verbatim} verbatim, ${s.noMatch} no_match${undecided}; ` +
    `sources ${s.sourcesFetched} fetched, ${s.sourcesFailed} failed${drifted}${wayback}; ${s.seconds.toFixed(1)} ` +
    `s; peak memory ${s.peakRssMb} MB`
  );
}

/**
 * The line a run ends with when the network rule refused sources (undefined when it refused none): their claims were
 * answered no_match without a word read, which the counts alone do not say; the flag that reaches them is named.
 */
export function refusedLine(s: Pick<RunSummary, 'refused'>): string | undefined {
  const { sources, claims, hosts } = s.refused;
  if (sources === 0) return undefined;
  const named = hosts.slice(0, 2).join(' and ');
  const more = hosts.length > 2 ? ', ...' : '';
  return (
    `${plural(sources, 'source')} (${plural(claims, 'claim')}) refused by the network rule: ${named}${more} ` +
    `${hosts.length === 1 ? 'is not a global address' : 'are not global addresses'} (loopback or a private network), ` +
    `so ${claims === 1 ? 'that claim was' : 'those claims were'} answered no_match unread; pass --allow-private to ` +
    `reach private networks`
  );
}
