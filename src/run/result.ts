// Result assembly: one claim's ClaimResult from its live reading and judgement, or for a claim undecided or invalid.
import type { Claim, ClaimEntry } from '../claims/schema.js';
import * as z from 'zod';
import {
  AsOfResultSchema,
  CharsetSourceSchema,
  DiagnosisSchema,
  DriftSchema,
  EvidenceMatchSchema,
  LabelSchema,
  TextQuoteSelectorSchema,
  type Label,
} from '../contract.js';
import { diagnoseAsOf, type Nearest } from '../diagnose/index.js';
import { textQuoteSelector, type Match, type TextQuoteSelector } from '../match.js';
import type { Judgement, LiveReading } from '../asof/judge.js';
import type { HtmlViewChoice } from '../config/settings.js';
import type { FetchErrorKind } from '../fetch/errors.js';

/**
 * One claim's result as the pipeline makes it (camelCase, with the match's parts and timings): what checkClaims and
 * streamClaims return. What users read is its report line (contract.ts ReportRecord, report.ts toReportRecord). The
 * contract's schemas give the shared vocabularies; the match and the nearest span are the pipeline's own types.
 */
const ClaimResultSchema = z.object({
  id: z.string(),
  index: z.number(),
  label: LabelSchema,
  diagnosis: DiagnosisSchema,
  url: z.string().optional(),
  quote: z.string().optional(),
  finalUrl: z.string().optional(),
  httpStatus: z.number().optional(),
  /**
   * Why today's fetch failed, when it did (the report's `fetch_error`): a failure's kind, never its message, says what
   * to do.
   */
  fetchError: z.custom<FetchErrorKind>((v) => typeof v === 'string').optional(),
  contentType: z.string().optional(),
  sourceSha256: z.string().optional(),
  charset: z.string().optional(),
  /**
   * Where the charset came from (docs/how-it-decides.md#decoding): the BOM, the HTTP header, a <meta>, detection from
   * the bytes, or the default.
   */
  charsetSource: CharsetSourceSchema.optional(),
  extractor: z.string().optional(),
  match: z.custom<Match>((v) => typeof v === 'object' && v !== null).nullable(),
  /** For a verbatim claim: the match as a W3C TextQuoteSelector over the page's own text. */
  selector: TextQuoteSelectorSchema.optional(),
  /** For a no_match claim with text: the closest span of the source and its similarity. */
  nearest: z
    .custom<Nearest>((v) => typeof v === 'object' && v !== null)
    .nullable()
    .optional(),
  /** The live source against the claim's evidence hash. */
  drift: DriftSchema,
  /** Which hash of the live source equals the evidence, when one does. */
  evidenceMatch: EvidenceMatchSchema.optional(),
  /** Which text decided the label, and why it stands for the claim's date. */
  asOf: AsOfResultSchema.optional(),
  note: z.string().optional(),
  /** Time spent on this claim's source, match and diagnosis, in milliseconds. */
  ms: z.number(),
  /**
   * Set when the run stopped (deadline, signal) before this claim was decided: it is answered `no_match`, and `note`
   * says why.
   */
  undecided: z.literal(true).optional(),
});
export type ClaimResult = z.infer<typeof ClaimResultSchema>;

/** Notes joined with "; ", each once (a fallback may also be why there is no article view). */
export function joinNotes(...notes: (string | undefined)[]): string | undefined {
  const parts = [...new Set(notes.filter((n): n is string => !!n))];
  return parts.length ? parts.join('; ') : undefined;
}

export function resultFor(
  claim: Claim,
  quote: string,
  live: LiveReading,
  j: Judgement,
  choice: HtmlViewChoice,
  sourceMs: number,
): ClaimResult {
  const t0 = performance.now();
  const { record, match } = j;
  const { text, views } = record;
  const label: Label = match ? 'verbatim' : 'no_match';
  let selector: TextQuoteSelector | undefined;
  if (match && text && views) {
    const i = views.findIndex((v) => v.name === match.view);
    selector = textQuoteSelector(text.views[i]!, views[i]!.text, match);
  }
  // The diagnosis as of the claim's date (a drifted source's no_match is `drifted`): diagnose/ decides it.
  const {
    diagnosis,
    note: diagnosisNote,
    nearest,
  } = diagnoseAsOf({ label, quote, rawQuote: claim.quote, source: record, match, htmlView: choice }, j.drifted);
  const liveFetch = live.record.fetch;
  return {
    id: claim.id,
    index: claim.index,
    label,
    diagnosis,
    url: claim.url,
    quote: claim.quote,
    finalUrl: liveFetch.finalUrl,
    httpStatus: liveFetch.status,
    fetchError: liveFetch.ok ? undefined : liveFetch.error,
    contentType: liveFetch.contentType,
    sourceSha256: liveFetch.ok ? liveFetch.sha256 : undefined,
    charset: text?.charset,
    charsetSource: text?.charsetSource,
    extractor:
      match?.extractor ??
      (nearest ? views?.find((v) => v.name === nearest.view)?.extractor : undefined) ??
      text?.views[0]?.extractor,
    match,
    selector,
    nearest,
    drift: live.drift,
    evidenceMatch: live.evidenceMatch ?? undefined,
    asOf: j.asOf,
    // A verbatim claim has no diagnosis note; the source may still have one (no article view, and why).
    // Every fallback the source's extraction took is named, whatever the label
    // (docs/real-web.md#limits-deadlines-and-fallbacks).
    note: j.drifted
      ? joinNotes(j.note, diagnosisNote, ...(text?.fallbacks ?? []))
      : joinNotes(diagnosisNote ?? text?.note, ...(text?.fallbacks ?? []), j.note),
    ms: sourceMs + Math.round(performance.now() - t0),
  };
}

/** A claim the run stopped before deciding: answered no_match, diagnosed `stopped` (its source was never judged). */
export function undecided(entry: ClaimEntry, why: string): ClaimResult {
  return {
    id: entry.id,
    index: entry.index,
    label: 'no_match',
    diagnosis: 'stopped',
    url: entry.url,
    quote: entry.kind === 'claim' ? entry.quote : undefined,
    match: null,
    drift: 'unknown',
    note: `not decided: ${why}`,
    ms: 0,
    undecided: true,
  };
}

export function invalid(entry: Extract<ClaimEntry, { kind: 'invalid' }>): ClaimResult {
  return {
    id: entry.id,
    index: entry.index,
    label: 'no_match',
    diagnosis: 'invalid_claim',
    url: entry.url,
    match: null,
    drift: 'unknown',
    note: entry.problems.join('; '),
    ms: 0,
  };
}
