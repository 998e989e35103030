// Gold labels with their proof (docs/cli.md#quotecheck-label-gold-labels-with-their-proof): each claim judged by the
// mechanical rule on its source as read now, with the verify date and the sha256 a later user proves drift against;
// claims whose source could not be read are left out, and a file that was labelled before is compared with what its
// sources say today.
import type { CheckOptions, ClaimResult } from '../check.js';
import { streamClaims } from '../check.js';
import type { Claim, ClaimEntry, ClaimSet } from '../claims/schema.js';
import type { Diagnosis, Label } from '../contract.js';
import type { FetchErrorKind } from '../fetch/errors.js';
import { refusedByNetworkRule } from '../fetch/errors.js';
import type { SourceRecord } from '../source-record.js';
import { LABEL_FIELDS, givenLabel, type LabelRow } from './labelled.js';
import { VERSION } from '../config/defaults.js';
import { pdftotextVersion } from '../extract/pdf/pdftotext-version.js';

/**
 * What a labelled claim carries beside its label (docs/cli.md#quotecheck-label-gold-labels-with-their-proof,
 * docs/sources-change.md#drift-proof): the proof, and what a reviewer reads.
 */
export interface LabelEvidence {
  /**
   * sha256 of the source's bytes as read (after Content-Encoding is removed): what as-of judging checks drift against.
   */
  sha256?: string;
  final_url?: string;
  http_status?: number;
  content_type?: string;
  charset?: string;
  extractor?: string;
  /** What made the text: quotecheck's version, and pdftotext's when the extractor is pdftotext (`pdftotext -v`). */
  versions?: { quotecheck: string; pdftotext?: string };
  /**
   * Why the label is what it is (docs/how-it-decides.md#diagnosis-why-no_match): `verbatim`, or the kind of `no_match`.
   */
  diagnosis: Diagnosis;
  note?: string;
  /** With --record: the WARC-Record-ID of the response whose bytes hash to `sha256`. */
  warc_record_id?: string;
}

/** Why a claim got no gold label. */
type LeftOutCause = 'unreadable' | 'invalid' | 'stopped';

export interface LeftOut {
  id: string;
  index: number;
  url?: string;
  cause: LeftOutCause;
  /** What went wrong, in words: the fetch failure, the claim's problems, or why the run stopped. */
  reason: string;
  /** For an unreadable source: the kind of failure (refused, dns, connection, http_status, timeout, ...). */
  kind?: FetchErrorKind;
}

/** A label that a re-run of the rule today would not give (a labelled file given as input). */
interface LabelChange {
  id: string;
  was: Label;
  /** Today's label; null when the source can no longer be read (there is nothing to label). */
  now: Label | null;
  why: string;
}

export interface LabelRun {
  /** Claims labelled (each went to `LabelSinks.labelled` as it was decided). */
  labelled: number;
  /** Of them, labelled verbatim. */
  verbatim: number;
  /** Claims left out, in decision order (each went to `LabelSinks.leftOut` as it was decided). */
  leftOut: LeftOut[];
  /** Set when the input carried labels: every claim whose label today differs, or that can no longer be labelled. */
  changes?: LabelChange[];
  /**
   * With labelled input: the sources whose bytes changed since their claims' evidence while the labels hold (URL ->
   * the ids of those claims, in decision order).
   */
  changedSources?: Map<string, string[]>;
  /** Labelled claims per diagnosis. */
  diagnoses: Partial<Record<Diagnosis, number>>;
  sources: { read: number; unreadable: number };
  /** Warnings about the input (malformed optional fields dropped), as parseClaims gives them. */
  warnings: string[];
  stopped?: string;
}

/**
 * Where each claim goes the moment it is decided (docs/cli.md#quotecheck-label-gold-labels-with-their-proof): a
 * labelled claim, or one left out (with `left_out`), each a whole object ready to be written as a line.
 */
interface LabelSinks {
  labelled?: (row: Record<string, unknown>, result: ClaimResult) => void;
  leftOut?: (row: Record<string, unknown>, leftOut: LeftOut) => void;
}

interface LabelOptions {
  /** Label claims whose source could not be read `no_match` (the bare rule) instead of leaving them out. */
  keepUnreadable?: boolean;
  /**
   * The run's settings: transport (network or recorded), limits, the network rule. Wayback is always off: labels are
   * made now.
   */
  check?: Partial<CheckOptions>;
  /**
   * sha256 -> WARC-Record-ID of the recorded responses, per target URL (filled while a recorded run goes, read as each
   * claim is decided).
   */
  recorded?: RecordedBodies;
  sinks?: LabelSinks;
}

/** What a recorded run's responses hashed to: by target URL, each (sha256, record id) in recording order. */
export type RecordedBodies = Map<string, { sha256: string; recordId: string }[]>;

/** A fetch outcome as `label` keeps it: the small facts, never the body. */
interface SourceFacts {
  ok: boolean;
  kind?: FetchErrorKind;
  message?: string;
}

/** The record that holds the bytes a source was judged on: the same URL and hash, else any record with that hash. */
function recordIdFor(
  recorded: RecordedBodies | undefined,
  finalUrl: string | undefined,
  hash: string,
): string | undefined {
  if (!recorded) return undefined;
  const same = (list: { sha256: string; recordId: string }[] | undefined) =>
    list?.findLast((r) => r.sha256 === hash)?.recordId;
  const byUrl = finalUrl === undefined ? undefined : same(recorded.get(finalUrl));
  if (byUrl) return byUrl;
  for (const list of recorded.values()) {
    const any = same(list);
    if (any) return any;
  }
  return undefined;
}

/** What an earlier attempt left on a claim: its label and proof, or why it was left out. Made anew each time. */
const OLD_PROOF = new Set<string>([...LABEL_FIELDS, 'verify_date', 'verified_at', 'evidence', 'left_out']);

/**
 * What a labelled claim keeps of the input: every field but an old label, verify date, evidence and `left_out` (a
 * claim labelled again from a left-out file, or resumed, carries nothing of an earlier attempt).
 */
function withoutOldProof(raw: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(raw).filter(([k]) => !OLD_PROOF.has(k)));
}

/** A left-out claim as --left-out has it: the claim as given (an earlier `left_out` replaced) and why it is out. */
function leftOutRow(raw: Record<string, unknown>, l: LeftOut): Record<string, unknown> {
  const { left_out: _earlier, ...claim } = raw;
  return { ...claim, left_out: { cause: l.cause, ...(l.kind ? { kind: l.kind } : {}), reason: l.reason } };
}

/**
 * The evidence of one decided claim: the proof first, then what a reviewer reads (fields the claim does not have are
 * left out).
 */
function evidenceOf(r: ClaimResult, recorded: RecordedBodies | undefined): LabelEvidence {
  const id = r.sourceSha256 ? recordIdFor(recorded, r.finalUrl, r.sourceSha256) : undefined;
  const e: LabelEvidence = {
    sha256: r.sourceSha256,
    final_url: r.finalUrl,
    http_status: r.httpStatus,
    content_type: r.contentType,
    charset: r.charset,
    extractor: r.extractor,
    versions: { quotecheck: VERSION, ...(r.extractor === 'pdftotext' ? { pdftotext: pdftotextVersion() } : {}) },
    diagnosis: r.diagnosis,
    note: r.label === 'no_match' ? r.note : undefined,
    warc_record_id: id,
  };
  return Object.fromEntries(
    Object.entries(e).filter(([, v]) => v !== undefined && v !== ''),
  ) as unknown as LabelEvidence;
}

/** A failed fetch in words, as a builder acts on it: a refusal names --allow-private once. */
function unreadableReason(r: ClaimResult, facts: SourceFacts | undefined): string {
  const message = facts?.message ?? r.note ?? 'the source could not be read';
  if (refusedByNetworkRule(message) && !message.includes('--allow-private'))
    return `${message} (pass --allow-private for sources on a private network)`;
  return message;
}

/** Claims as the run checks them: without their old date and evidence, so that only today's text decides. */
function asOfNow(entries: readonly ClaimEntry[]): ClaimEntry[] {
  return entries.map((e) => {
    if (e.kind !== 'claim') return e;
    const { verifyDate: _date, evidenceSha256: _evidence, ...claim } = e;
    return claim;
  });
}

/** Why a label changed (a labelled input): drift against the claim's own evidence, or a rule that differs. */
function changeReason(claim: Claim, was: Label, r: ClaimResult): string {
  const since = claim.verifyDate ? ` since ${claim.verifyDate}` : '';
  if (claim.evidenceSha256 === undefined)
    return (
      `labelled ${was}, ${r.label} today (${r.diagnosis}); the claim has no evidence.sha256 to tell whether ` +
      `its source changed`
    );
  if (claim.evidenceSha256 === r.sourceSha256)
    return (
      `labelled ${was}, ${r.label} today (${r.diagnosis}) on the same bytes (sha256 equals the evidence): the ` +
      `label was not made by this rule`
    );
  return (
    `the source changed${since} (its sha256 differs from the evidence): labelled ${was}, ${r.label} today ` +
    `(${r.diagnosis})`
  );
}

/**
 * Why a claim gets no gold label, or undefined when it gets one: malformed, not decided, or its source could not be
 * read.
 */
function leftOutOf(
  entry: ClaimEntry,
  r: ClaimResult,
  f: SourceFacts | undefined,
  keepUnreadable: boolean,
): LeftOut | undefined {
  const base = { id: entry.id, index: entry.index, ...(entry.url !== undefined ? { url: entry.url } : {}) };
  if (entry.kind === 'invalid') return { ...base, cause: 'invalid', reason: entry.problems.join('; ') };
  if (r.undecided) return { ...base, cause: 'stopped', reason: r.note ?? 'not decided' };
  if (r.sourceSha256 !== undefined || keepUnreadable) return undefined;
  return { ...base, cause: 'unreadable', reason: unreadableReason(r, f), ...(f?.kind ? { kind: f.kind } : {}) };
}

/** A labelled input: records whether today's label for `claim` differs from the one given, and why. */
function compareWithGiven(out: LabelRun, claim: Claim, was: unknown, r: ClaimResult, f: SourceFacts | undefined): void {
  if (was !== 'verbatim' && was !== 'no_match') return;
  if (r.sourceSha256 === undefined)
    out.changes!.push({
      id: claim.id,
      was,
      now: null,
      why: `the source can no longer be read: ${unreadableReason(r, f)}`,
    });
  else if (r.label !== was) out.changes!.push({ id: claim.id, was, now: r.label, why: changeReason(claim, was, r) });
  else if (claim.evidenceSha256 !== undefined && claim.evidenceSha256 !== r.sourceSha256) {
    const ids = out.changedSources!.get(claim.url) ?? [];
    ids.push(claim.id);
    out.changedSources!.set(claim.url, ids);
  }
}

/** One decided claim (or, after a stop, one not decided) into the run's counts and the sinks. */
function take(
  out: LabelRun,
  row: Record<string, unknown>,
  entry: ClaimEntry,
  r: ClaimResult,
  f: SourceFacts | undefined,
  opts: LabelOptions,
): void {
  if (out.changes && entry.kind === 'claim' && !r.undecided) compareWithGiven(out, entry, givenLabel(row)?.value, r, f);
  const leftOut = leftOutOf(entry, r, f, opts.keepUnreadable === true);
  if (leftOut) {
    out.leftOut.push(leftOut);
    opts.sinks?.leftOut?.(leftOutRow(row, leftOut), leftOut);
    return;
  }
  out.labelled++;
  if (r.label === 'verbatim') out.verbatim++;
  out.diagnoses[r.diagnosis] = (out.diagnoses[r.diagnosis] ?? 0) + 1;
  const labelled = {
    ...withoutOldProof(row),
    label: r.label,
    verify_date: r.asOf?.timestamp ?? new Date().toISOString(),
    evidence: evidenceOf(r, opts.recorded),
  };
  opts.sinks?.labelled?.(labelled, r);
}

/**
 * Labels every claim of `set` by the mechanical rule on its source as read now: `verbatim` when the normalized quote
 * is in the normalized text, else `no_match`; each with the date its source was read and the sha256 of its bytes.
 * A claim whose source could not be read (no answer, refused, an HTTP error status after the retries) is left out
 * unless `keepUnreadable`; so is a malformed claim, and one not decided when the run was stopped. Each claim goes to
 * `opts.sinks` the moment it is decided, so a stop at any time loses nothing decided. `set` holds entries of `rows`
 * (labelled.ts parseClaimRows), each found there by its index: a resumed run passes only the claims still to label.
 */
export async function labelClaims(
  rows: readonly LabelRow[],
  set: ClaimSet,
  opts: LabelOptions = {},
): Promise<LabelRun> {
  const { entries, warnings } = set;
  const out: LabelRun = {
    labelled: 0,
    verbatim: 0,
    leftOut: [],
    diagnoses: {},
    sources: { read: 0, unreadable: 0 },
    warnings,
  };
  if (entries.some((e) => givenLabel(rows[e.index]!.raw) !== undefined)) {
    out.changes = [];
    out.changedSources = new Map();
  }
  const facts = new Map<string, SourceFacts>();
  const onSource = (s: SourceRecord): void => {
    facts.set(s.url, s.fetch.ok ? { ok: true } : { ok: false, kind: s.fetch.error, message: s.fetch.message });
    out.sources[s.fetch.ok ? 'read' : 'unreadable']++;
    opts.check?.onSource?.(s);
  };
  const byIndex = new Map(entries.map((e) => [e.index, e]));
  // Streamed: nothing of a source is kept once its claims are decided (a builder's file may hold thousands of PDFs).
  const onResult = (r: ClaimResult): void => {
    const entry = byIndex.get(r.index)!;
    opts.check?.onResult?.(r);
    take(out, rows[r.index]!.raw, entry, r, entry.kind === 'claim' ? facts.get(entry.fetchUrl) : undefined, opts);
  };
  const run = await streamClaims(asOfNow(entries), {
    ...opts.check,
    wayback: 'off',
    asOf: undefined,
    onSource,
    onResult,
  });
  out.stopped = run.stopped;
  return out;
}
