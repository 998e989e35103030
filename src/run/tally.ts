// The run's tally: what the end of a run reports (counts, the refused sources, the claims worth a look), gathered as
// claims are decided.
import { hostOf } from '../messages.js';
import type { SourceRecord } from '../source-record.js';
import type { FetchErrorKind } from '../fetch/errors.js';
import { DIAGNOSES, type Diagnosis } from '../contract.js';
import type { CheckRun, StreamedRun } from './check-options.js';
import type { ClaimResult } from './result.js';

export interface RunSummary {
  claims: number;
  verbatim: number;
  noMatch: number;
  /** Claims the run stopped before deciding (--deadline, a signal): answered no_match, diagnosed stopped. */
  undecided: number;
  sourcesFetched: number;
  /** Sources whose fetch failed; sources never fetched because the run stopped are not among them. */
  sourcesFailed: number;
  /**
   * Sources read whose bytes no longer hash to a claim's evidence (a source that could not be read is failed, not
   * drifted).
   */
  sourcesDrifted: number;
  /** Sources the network rule refused (not global addresses, no --allow-private), with their claims and first hosts. */
  refused: RefusedSources;
  /** Claims whose label a Wayback capture decided. */
  claimsFromWayback: number;
  wayback?: CheckRun['wayback'];
  seconds: number;
  /** Peak resident memory of this process (worker threads included), in MB. */
  peakRssMb: number;
}

/**
 * The no_match claims most worth a human look, most telling first: extraction artifacts (the
 * passage is there, only mangled: the mechanical label says no_match for a true quote), then
 * near misses by similarity (misquotes, or a page that changed), then partial quotes, then
 * drifted sources (the text as of the date could not be had), then paywalls (nobody could check).
 */
const LOOK_ORDER: Partial<Record<Diagnosis, number>> = {
  extraction_artifact: 0,
  near_miss: 1,
  partial: 2,
  drifted: 3,
  paywall: 4,
};

/** Sources the network rule refused in a run: how many, the claims citing them, and the first few hosts. */
interface RefusedSources {
  sources: number;
  claims: number;
  /** Distinct hosts (host:port), in the order met, at most REFUSED_HOSTS_KEPT. */
  hosts: string[];
}

/** Hosts a refusal keeps to name (the line names two, and says how many more there are). */
const REFUSED_HOSTS_KEPT = 3;

/**
 * The network rule's refusal, by the failure's kind (src/fetch/errors.ts refusedKind says the same): compared here, as
 * a type import only, so that run --baseline, which loads this module, loads no part of the HTTP stack.
 */
const REFUSED: FetchErrorKind = 'refused';

/** Claims listed under "worth a human look" at the end of a run. */
const LOOK_LISTED = 5;

/** Longest note shown for a claim worth a look (the rest is cut with "..."). */
const LOOK_NOTE_CHARS = 140;

/** A claim worth a human look, as the end of a run lists it: what the line shows, not the claim's whole result. */
export interface LookRecord {
  id: string;
  /** The claim's place in the input: ties are listed in input order, whatever order the claims were decided in. */
  index: number;
  diagnosis: Diagnosis;
  similarity?: number;
  note?: string;
}

function lookRank(a: LookRecord, b: LookRecord): number {
  return (
    LOOK_ORDER[a.diagnosis]! - LOOK_ORDER[b.diagnosis]! ||
    (b.similarity ?? 0) - (a.similarity ?? 0) ||
    a.index - b.index
  );
}

/**
 * What the end of a run reports, gathered as claims are decided and sources settled: counts and a
 * few small records, never the results or the sources themselves, so it stays the same size
 * however many claims pass through it.
 */
export class RunTally {
  claims = 0;
  verbatim = 0;
  /** Claims the run stopped before deciding (answered no_match). */
  undecided = 0;
  claimsFromWayback = 0;
  sourcesFetched = 0;
  sourcesFailed = 0;
  /** Why PDF sources could not be read, when pdftotext is missing (the first such source's message). */
  toolMissing: string | undefined;
  readonly #driftedUrls = new Set<string>();
  readonly #refused: RefusedSources = { sources: 0, claims: 0, hosts: [] };
  readonly #diagnoses = new Map<Diagnosis, number>();
  readonly #look: LookRecord[] = [];

  constructor(readonly listed = LOOK_LISTED) {}

  addResult(r: ClaimResult): void {
    this.claims++;
    if (r.label === 'verbatim') this.verbatim++;
    if (r.undecided) this.undecided++;
    if (r.asOf?.captureUrl) this.claimsFromWayback++;
    // Drift needs bytes that hash otherwise than the evidence: a source that could not be read is failed, not drifted.
    if (r.drift === 'changed' && r.url !== undefined && r.fetchError === undefined) this.#driftedUrls.add(r.url);
    if (r.fetchError === REFUSED) this.#refused.claims++;
    this.#diagnoses.set(r.diagnosis, (this.#diagnoses.get(r.diagnosis) ?? 0) + 1);
    if (LOOK_ORDER[r.diagnosis] !== undefined) this.#consider(r);
  }

  addSource(s: SourceRecord): void {
    if (s.fetch.ok) this.sourcesFetched++;
    else this.sourcesFailed++;
    if (!s.fetch.ok && s.fetch.error === REFUSED) this.#addRefused(s.url);
    if (s.extractError?.kind === 'tool_missing') this.toolMissing ??= s.extractError.message;
  }

  #addRefused(url: string): void {
    this.#refused.sources++;
    const host = hostOf(url);
    if (this.#refused.hosts.length < REFUSED_HOSTS_KEPT && !this.#refused.hosts.includes(host))
      this.#refused.hosts.push(host);
  }

  /** Keeps `r` if it is among the `listed` most worth a look so far. */
  #consider(r: ClaimResult): void {
    const note = r.note && r.note.length > LOOK_NOTE_CHARS ? `${r.note.slice(0, LOOK_NOTE_CHARS - 3)}...` : r.note;
    const rec: LookRecord = {
      id: r.id,
      index: r.index,
      diagnosis: r.diagnosis,
      similarity: r.nearest?.similarity,
      note,
    };
    if (this.#look.length === this.listed && lookRank(rec, this.#look[this.listed - 1]!) >= 0) return;
    this.#look.push(rec);
    this.#look.sort(lookRank);
    if (this.#look.length > this.listed) this.#look.pop();
  }

  /**
   * Claims per diagnosis code, in the order of docs/how-it-decides.md#diagnosis-why-no_match (codes with no claims left
   * out).
   */
  diagnosisCounts(): [Diagnosis, number][] {
    return DIAGNOSES.filter((d) => this.#diagnoses.has(d)).map((d) => [d, this.#diagnoses.get(d)!]);
  }

  /** The no_match claims most worth a human look (LOOK_ORDER), most telling first. */
  worthALook(): readonly LookRecord[] {
    return this.#look;
  }

  /** The end-of-run diagnosis summary: counts, then the claims worth a look, one line each. */
  diagnosisSummary(): string {
    // Claims the run stopped before deciding are `stopped`: the count says they were never judged.
    const stopped = (d: Diagnosis): string => (d === 'stopped' ? ' (not decided: the run stopped first)' : '');
    const lines = [
      `diagnoses: ${this.diagnosisCounts()
        .map(([d, c]) => `${d} ${c}${stopped(d)}`)
        .join(', ')}`,
    ];
    if (this.#look.length > 0) {
      lines.push('worth a human look:');
      for (const r of this.#look) {
        const sim = r.similarity !== undefined ? ` (similarity ${r.similarity.toFixed(2)})` : '';
        lines.push(`  ${r.id}  ${r.diagnosis}${sim}${r.note ? `: ${r.note}` : ''}`);
      }
    }
    return lines.join('\n');
  }

  /** The summary line's figures, with the run's clock and Wayback counts. */
  summary(run: Pick<StreamedRun, 'ms' | 'wayback'>): RunSummary {
    return {
      claims: this.claims,
      verbatim: this.verbatim,
      noMatch: this.claims - this.verbatim,
      undecided: this.undecided,
      sourcesFetched: this.sourcesFetched,
      sourcesFailed: this.sourcesFailed,
      sourcesDrifted: this.#driftedUrls.size,
      refused: { ...this.#refused, hosts: [...this.#refused.hosts] },
      claimsFromWayback: this.claimsFromWayback,
      wayback: run.wayback,
      seconds: run.ms / 1000,
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  }
}
