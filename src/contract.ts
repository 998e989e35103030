// The contract users read (docs/how-it-decides.md#contracts): labels, diagnosis codes, a report line and one quote's
// verdict, as zod schemas with their types inferred from them.
//
// Everything a user reads is snake_case: the answers file, the evidence report (`run --report`), `verify --json`, the
// library's verifyQuote and the MCP tools' structured results. The library's checkClaims and streamClaims return the
// pipeline's own ClaimResult (camelCase, with the match's parts and timings, src/run/result.ts); toReportRecord turns
// one into a report line. Readers of reports other programs wrote (evaluate, compare) read them with `readReportLine`,
// which keeps each field only when it is well formed.
// A namespace import: a build keeps only the parts of zod the schemas use (`import { z }` keeps all of it, four times
// as much).
import * as z from 'zod';

/** An answer (docs/how-it-decides.md#answers). */
export const LABELS = ['verbatim', 'no_match'] as const;
export const LabelSchema = z.enum(LABELS);
export type Label = z.infer<typeof LabelSchema>;

/**
 * Why a claim got its label (docs/how-it-decides.md#diagnosis-why-no_match), in the order a reader scans them: found,
 * then the no_match kinds. New codes are added at the end, never renamed: `stopped` (a claim the run stopped before
 * deciding, answered no_match unread) came after the others.
 */
export const DIAGNOSES = [
  'verbatim',
  'extraction_artifact',
  'near_miss',
  'partial',
  'not_found',
  'drifted',
  'fetch_failed',
  'paywall',
  'empty',
  'unsupported',
  'invalid_claim',
  'stopped',
] as const;
export const DiagnosisSchema = z.enum(DIAGNOSES);
export type Diagnosis = z.infer<typeof DiagnosisSchema>;

/** The live source against the claim's evidence hash (docs/sources-change.md#drift-proof). */
export const DriftSchema = z.enum(['same', 'changed', 'unknown']);
export type Drift = z.infer<typeof DriftSchema>;

/** Which hash of the live source equals the evidence: the body's bytes, the extracted text, or the normalized text. */
export const EvidenceMatchSchema = z.enum(['bytes', 'text', 'normalized_text']);
export type EvidenceMatch = z.infer<typeof EvidenceMatchSchema>;

/** Where a page's charset came from (docs/how-it-decides.md#decoding). */
export const CharsetSourceSchema = z.enum(['bom', 'http', 'meta', 'detected', 'default']);
export type CharsetSource = z.infer<typeof CharsetSourceSchema>;

/**
 * One word-level run of the quote against the nearest span: in both, only in the quote (`missing` from the page), or
 * only in the page.
 */
export const DiffOpSchema = z.enum(['equal', 'missing', 'extra']);
export type DiffOp = z.infer<typeof DiffOpSchema>;
export const DiffRunSchema = z.object({ op: DiffOpSchema, text: z.string() });
export type DiffRun = z.infer<typeof DiffRunSchema>;

/** A W3C TextQuoteSelector over the page's own text (what annotation tools take). */
export const TextQuoteSelectorSchema = z.object({
  type: z.literal('TextQuoteSelector'),
  exact: z.string(),
  prefix: z.string(),
  suffix: z.string(),
});
export type TextQuoteSelector = z.infer<typeof TextQuoteSelectorSchema>;

const nullableString = z.string().nullable();

/**
 * Where a verbatim quote was found: the view, the offset in its normalized text, the normalized context, and the
 * selector.
 */
export const MatchEvidenceSchema = z.object({
  view: z.string(),
  offset: z.number(),
  context: z.string(),
  selector: TextQuoteSelectorSchema.optional(),
});

/**
 * The closest span of a no_match claim's source: normalized (`text`) and in the page's own wording (`raw`), with the
 * word diff of the quote against it.
 */
export const NearestEvidenceSchema = z.object({
  text: z.string(),
  raw: z.string(),
  diff: z.array(DiffRunSchema),
  similarity: z.number(),
  view: z.string(),
  offset: z.number(),
});

/** Which text decided the label (the live fetch, a Wayback capture, a recorded exchange). */
const AsOfSourceSchema = z.enum(['live', 'wayback', 'replay']);
/**
 * `sha256`: the text's source hashes to the evidence; `nearest`: chosen by date alone; null: no claim about the date.
 */
const AsOfProofSchema = z.enum(['sha256', 'nearest']).nullable();

/**
 * Which text decided the label, and why it stands for the claim's date (docs/sources-change.md#which-text-decides): the
 * report's `as_of`.
 */
export const AsOfSchema = z.object({
  source: AsOfSourceSchema,
  /** When that text was served (ISO 8601): the live fetch, the capture, or the recorded exchange. */
  timestamp: nullableString,
  /** The raw Wayback capture, when a capture decided. */
  capture_url: nullableString,
  proof: AsOfProofSchema,
  /** The date the claim is judged as of (its verify date, or --as-of), as given. */
  date: nullableString,
  /** sha256 of the deciding text's bytes. */
  sha256: nullableString,
});

/**
 * The report's `as_of` as the pipeline carries it (ClaimResult's `asOf`, camelCase): the same fields, `captureUrl` for
 * `capture_url`.
 */
export const AsOfResultSchema = z.object({
  source: AsOfSourceSchema,
  timestamp: nullableString,
  captureUrl: nullableString,
  proof: AsOfProofSchema,
  date: nullableString,
  sha256: nullableString,
});
export type AsOf = z.infer<typeof AsOfResultSchema>;

/** The fields a report line and a verdict share: the label, its diagnosis and the evidence. */
const verdictShape = {
  label: LabelSchema,
  diagnosis: DiagnosisSchema,
  url: nullableString,
  final_url: nullableString,
  http_status: z.number().nullable(),
  /**
   * Why today's fetch failed, when it did (null when it answered): `refused` (the network rule: not a global address),
   * `connection`, `dns`, `timeout`, `tls`, `http_status`, `too_large`, `redirects`, `aborted`, `not_archived` (a
   * replay), `other`. A capture may still have decided the label.
   */
  fetch_error: nullableString,
  content_type: nullableString,
  source_sha256: nullableString,
  charset: nullableString,
  charset_source: CharsetSourceSchema.nullable(),
  extractor: nullableString,
  match: MatchEvidenceSchema.nullable(),
  nearest: NearestEvidenceSchema.nullable(),
  drift: DriftSchema,
  evidence_match: EvidenceMatchSchema.nullable(),
  as_of: AsOfSchema.nullable(),
  note: nullableString,
  /** Time spent on the claim's source, match and diagnosis, in milliseconds. */
  ms: z.number(),
};

/** One line of the `--report` JSON Lines file (docs/how-it-decides.md#the-evidence-report). */
export const ReportRecordSchema = z.object({ id: z.string(), ...verdictShape });
export type ReportRecord = z.infer<typeof ReportRecordSchema>;

/**
 * Where a redirect shell sends the reader, and whether the quote is there: the source was a page with no document
 * text that names another URL in a meta refresh or a one-line script (diagnosis `empty`), and `verify` fetched that
 * URL once, with the same settings. The label stays the test on the page itself.
 */
export const RedirectCheckSchema = z.object({
  /** The URL the page sends the reader to, resolved against the page's URL. */
  target: z.string(),
  /** How the page sends the reader there. */
  via: z.enum(['meta refresh', 'script']),
  /** Whether the quote is at the target: its label there is verbatim. */
  found: z.boolean(),
  /** The quote's diagnosis at the target. */
  diagnosis: DiagnosisSchema,
  /** The final URL the target answered from, when it answered. */
  final_url: nullableString,
  /** The diagnosis note at the target. */
  note: nullableString,
});
export type RedirectCheck = z.infer<typeof RedirectCheckSchema>;

/**
 * One quote's verdict: what verifyQuote returns, `quotecheck verify --json` prints and the MCP verify_quote tool
 * answers. A report line's fields without `id` (a single quote has none), `quote` as given, and `redirect` when
 * the source is a redirect shell and the quote is not on it.
 */
export const VerifyResultSchema = z.object({
  ...verdictShape,
  quote: z.string(),
  redirect: RedirectCheckSchema.optional(),
});
export type VerifyResult = z.infer<typeof VerifyResultSchema>;

// ---- reading reports other programs wrote -------------------------------------------------------

/**
 * A field kept when it has the schema's shape, else dropped: a report is another program's output, possibly another
 * version's.
 */
export const kept = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/** A TextQuoteSelector as a reader takes it: `exact` must be there; prefix and suffix default to empty. */
export const SelectorRead = z.object({
  exact: z.string().min(1),
  prefix: z.string().catch(''),
  suffix: z.string().catch(''),
});

/**
 * A nearest span as a reader takes it: text and similarity must be there; `raw` and `diff` only when well formed (older
 * reports have neither).
 */
export const NearestRead = z.object({
  text: z.string(),
  similarity: z.number(),
  raw: kept(z.string().min(1)),
  diff: kept(z.array(DiffRunSchema).min(1)),
});

/** An `as_of` as a reader takes it: each field when there, and any other (a newer version's). */
export const AsOfRead = AsOfSchema.partial().passthrough();

/**
 * What a reader (evaluate's report, compare) takes from a report line: every field optional, each kept only when well
 * formed.
 */
const ReportLineRead = z.object({
  diagnosis: kept(z.string()),
  note: kept(z.string()),
  http_status: kept(z.number()),
  fetch_error: kept(z.string()),
  drift: kept(z.string()),
  match: kept(z.object({ context: kept(z.string()), selector: kept(SelectorRead) }).nullable()),
  nearest: kept(NearestRead.nullable()),
  as_of: kept(AsOfRead.nullable()),
});
export type ReportLine = z.infer<typeof ReportLineRead>;

/**
 * A report line as another program wrote it: each known field kept when well formed, the rest dropped; an object that
 * is not one gives `{}`.
 */
export function readReportLine(value: unknown): ReportLine {
  const parsed = ReportLineRead.safeParse(value);
  return parsed.success ? parsed.data : {};
}

/**
 * A comparison's report.json (`evaluate --agent A --agent B`, `compare --out`; compare.ts comparisonJson) as compare
 * reads it back: the agents' run folders and the oracle's, relative to it. The rest is the comparison itself, which no
 * reader takes.
 */
export const ComparisonFolderSchema = z.object({
  kind: z.literal('comparison'),
  /** The oracle's run folder, when the comparison names one. */
  oracle: kept(z.string()),
  agents: z.array(z.object({ dir: z.string() })),
});
export type ComparisonFolder = z.infer<typeof ComparisonFolderSchema>;
