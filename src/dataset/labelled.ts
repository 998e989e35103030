// The labelled claims file (docs/datasets.md): JSON Lines of claims with their gold label and proof, which `label`
// writes and `export` (readLabelled: each claim with its label, task and proof) and `grade --gold` read; a claims
// file (a JSON array, or {"claims": [...]}) is read by the same code.
import { ClaimsFileError, parseClaims, type Claim, type ClaimSet } from '../claims/schema.js';
import { readTextFile } from '../messages.js';
import { ExportError } from './export-error.js';
import type { Label } from '../contract.js';
import { jsonSyntaxErrorAt, parseJsonText } from '../grader/grade.mjs';

/** Where a row's gold label may be given: `label` (what `label` writes), or a name other datasets use. */
export const LABEL_FIELDS = ['label', 'gold', 'gold_label', 'expected_label'] as const;

/** Where a row's id may be given (the aliases of docs/how-it-decides.md#claims-input, as claims.ts reads them). */
const ID_FIELDS = ['id', 'claim_id'] as const;

/** One claim object as read, and how messages name it: `file:7` (JSON Lines) or `file: claim #7` (a JSON array). */
export interface LabelRow {
  raw: Record<string, unknown>;
  where: string;
  /** The same without the file: `line 7` or `claim #7`. */
  label: string;
}

type ErrorClass = new (message: string) => Error;

const JSONL_HINT = 'labelled claims are JSON Lines (one claim object per line) or a JSON array of claim objects';

/** Reads a JSON array of claims (or `{"claims": [...]}`) as a whole; each claim is named by its position. */
function readArray(path: string, json: unknown, make: ErrorClass): LabelRow[] {
  const list = Array.isArray(json) ? json : (json as { claims?: unknown } | null)?.claims;
  if (!Array.isArray(list)) throw new make(`${path}: expected ${JSONL_HINT}`);
  return list.map((obj, i) => {
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
      throw new make(`${path}: claim #${i + 1}: expected a JSON object; ${JSONL_HINT}`);
    return { raw: obj as Record<string, unknown>, where: `${path}: claim #${i + 1}`, label: `claim #${i + 1}` };
  });
}

/** A JSON Lines line that does not parse: the line and column of the mistake. */
function lineError(path: string, lineNo: number, line: string, err: unknown, make: ErrorClass): Error {
  const at = jsonSyntaxErrorAt(line);
  const why = at
    ? `line ${lineNo}, column ${at.offset + 1}: not valid JSON: ${at.reason}`
    : `line ${lineNo}: not valid JSON: ${(err as Error).message}`;
  return new make(`${path}: ${why}`);
}

/**
 * Parses a file of claim objects: JSON Lines, or (when the file is one JSON document) a JSON array or
 * `{"claims": [...]}`. Every problem is a `make` error naming the line, or the claim's position in an array.
 */
export function readClaimRows(path: string, text: string, make: ErrorClass): LabelRow[] {
  const body = text.replace(/^\uFEFF/, '');
  // A file that opens with "[" is one JSON array, pretty-printed or not: read it whole.
  if (body.trimStart().startsWith('['))
    return readArray(path, parseJsonText(body, make, `${path}: is not valid JSON (${JSONL_HINT})`), make);
  const rows: LabelRow[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (err) {
      // The first line does not parse alone: perhaps the file is one pretty-printed {"claims": [...]}.
      if (rows.length === 0) {
        let whole: unknown;
        try {
          whole = JSON.parse(body);
        } catch {
          throw lineError(path, i + 1, line, err, make);
        }
        if (whole && typeof whole === 'object' && Array.isArray((whole as { claims?: unknown }).claims))
          return readArray(path, whole, make);
      }
      throw lineError(path, i + 1, line, err, make);
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
      throw new make(`${path}: line ${i + 1}: expected a JSON object; ${JSONL_HINT}`);
    rows.push({ raw: obj as Record<string, unknown>, where: `${path}:${i + 1}`, label: `line ${i + 1}` });
  }
  return rows;
}

/**
 * The rows as claims (claims.ts's rules: aliases, a malformed claim kept as invalid, duplicate ids refused), each
 * problem naming the claim as the file does (`line 7`, or `claim #7` in a JSON array) in a `make` error.
 */
export function parseClaimRows(rows: readonly LabelRow[], path: string, make: ErrorClass): ClaimSet {
  try {
    return parseClaims(
      rows.map((r) => r.raw),
      path,
    );
  } catch (err) {
    if (!(err instanceof ClaimsFileError)) throw err;
    // parseClaims names claims by position ("claim #3", from 1); name them as the file does.
    throw new make(err.message.replace(/claim #(\d+)/g, (m, n: string) => rows[Number(n) - 1]?.label ?? m));
  }
}

/**
 * A row's id as claims.ts reads it (`id` or `claim_id`; a whole number as its decimal string; trimmed), or undefined
 * when it has none.
 */
export function rowId(raw: Record<string, unknown>): string | undefined {
  const idField = ID_FIELDS.find((f) => raw[f] !== undefined && raw[f] !== null);
  const id = idField === undefined ? undefined : raw[idField];
  if (typeof id === 'string' && id.trim() !== '') return id.trim();
  return Number.isInteger(id) ? String(id) : undefined;
}

/** A row's gold label as given (any value), and the field it was in; undefined when the row has none. */
export function givenLabel(
  raw: Record<string, unknown>,
): { field: (typeof LABEL_FIELDS)[number]; value: unknown } | undefined {
  const field = LABEL_FIELDS.find((f) => raw[f] !== undefined);
  return field === undefined ? undefined : { field, value: raw[field] };
}

/** Whether any row carries a gold label: the file is a labelled file, not a plain claims file. */
export const hasLabels = (rows: readonly LabelRow[]): boolean => rows.some((r) => givenLabel(r.raw) !== undefined);

/** The message for a row whose label is missing or not a label. */
function labelProblem(value: unknown): string {
  const others = LABEL_FIELDS.filter((f) => f !== 'label')
    .map((f) => `"${f}"`)
    .join(', ');
  return value === undefined
    ? `field "label" is missing: a labelled claim needs "label": "verbatim" or "no_match" (also read as ${others})`
    : `field "label" must be "verbatim" or "no_match", got ${JSON.stringify(value)}`;
}

/**
 * The gold labels of a labelled file as `grade` takes them: id -> label, in file order. Each row needs an id (`id` or
 * `claim_id`; a whole number is taken as its decimal string, as claims.ts does) and a label; duplicate ids are an
 * error.
 */
export function goldOfRows(rows: readonly LabelRow[], make: ErrorClass): Map<string, Label> {
  const gold = new Map<string, Label>();
  for (const row of rows) {
    const key = rowId(row.raw);
    if (key === undefined) throw new make(`${row.where}: field "id" is missing or not a string`);
    const value = givenLabel(row.raw)?.value;
    if (value !== 'verbatim' && value !== 'no_match')
      throw new make(`${row.where} (id ${JSON.stringify(key)}): ${labelProblem(value)}`);
    if (gold.has(key)) throw new make(`${row.where}: id ${JSON.stringify(key)} appears twice`);
    gold.set(key, value);
  }
  return gold;
}

export interface LabelledClaim {
  claim: Claim;
  label: Label;
  /** The WARC record its label was made on (evidence.warc_record_id, as `label --record` writes it), when named. */
  recordId?: string;
  /** The claim as it goes into the task's claims.json: canonical fields, no label. */
  public: Record<string, unknown>;
  /** The task the labelled file puts the claim in (`readLabelled`'s `taskField`), when it names one. */
  task?: string;
  /**
   * What the labelled file says of how the label was made (label.ts LabelEvidence: the extractor and its version, the
   * content type, the diagnosis of a no_match), and the claim's language when it gives one: what the dataset's card
   * counts.
   */
  made?: { evidence?: Record<string, unknown>; language?: string };
}

interface ReadLabelledOptions {
  /** A field of every claim that names its task (e.g. `task`): claims are grouped by it instead of by size. */
  taskField?: string;
}

/**
 * Reads labelled claims (JSON Lines: a claim per line, with its gold label; a JSON array of such
 * claims is accepted too). Every problem names the line (or the claim's position in an array);
 * a claim that quotecheck could not check (bad URL, empty quote) is an error here, because a
 * benchmark should not ship it.
 */
export function readLabelled(path: string, opts: ReadLabelledOptions = {}): LabelledClaim[] {
  const text = readTextFile(path, (reason) => new ExportError(`cannot read --labelled ${path}: ${reason}`));
  const rows = readClaimRows(path, text, ExportError);
  if (rows.length === 0) throw new ExportError(`${path}: no claims`);
  const { entries } = parseClaimRows(rows, path, ExportError);
  return entries.map((entry, i) => {
    const where = `${rows[i]!.where} (id ${JSON.stringify(entry.id)})`;
    if (entry.kind === 'invalid') throw new ExportError(`${where}: ${entry.problems.join('; ')}`);
    const raw = rows[i]!.raw;
    const label = givenLabel(raw)?.value;
    if (label !== 'verbatim' && label !== 'no_match') throw new ExportError(`${where}: ${labelProblem(label)}`);
    const pub: Record<string, unknown> = { id: entry.id };
    if (entry.claim !== undefined) pub.claim = entry.claim;
    pub.quote = entry.quote;
    pub.url = entry.url;
    if (entry.verifyDate !== undefined) pub.verify_date = entry.verifyDate;
    if (entry.evidenceSha256 !== undefined) pub.evidence = { sha256: entry.evidenceSha256 };
    const recordId = (raw.evidence as { warc_record_id?: unknown } | undefined)?.warc_record_id;
    return {
      claim: entry,
      label,
      ...(typeof recordId === 'string' && recordId !== '' ? { recordId } : {}),
      public: pub,
      ...(opts.taskField !== undefined ? { task: taskName(raw, opts.taskField, where) } : {}),
      made: madeOf(raw),
    };
  });
}

/** What a labelled row says of how its label was made, and the claim's language (`language`, or `lang`). */
function madeOf(raw: Record<string, unknown>): NonNullable<LabelledClaim['made']> {
  const evidence = raw.evidence;
  const language = [raw.language, raw.lang].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return {
    ...(typeof evidence === 'object' && evidence !== null && !Array.isArray(evidence)
      ? { evidence: evidence as Record<string, unknown> }
      : {}),
    ...(language !== undefined ? { language: language.trim() } : {}),
  };
}

/**
 * A task name: it names a folder inside the dataset and, in task.md, the task (`quotecheck/<name>`), so it is letters,
 * digits, '.', '_' or '-', starting with a letter or digit: no '/', no '..', nothing a harness could read as a path.
 */
const TASK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const TASK_NAME_RULE = "letters, digits, '.', '_' or '-', starting with a letter or digit";

/** Whether `name` is safe as a task's folder name (TASK_NAME). */
export const isTaskName = (name: string): boolean => TASK_NAME.test(name) && name.length <= 128;

/** The task a claim names in `field`: a non-empty string that is safe as a folder name. */
function taskName(raw: Record<string, unknown>, field: string, where: string): string {
  const value = raw[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ExportError(
      `${where}: field ${JSON.stringify(field)} ${value === undefined ? 'is missing: it must' : 'must'} name the ` +
        `claim's task (a non-empty string)${value === undefined ? '' : `, got ${JSON.stringify(value)}`}`,
    );
  }
  if (!isTaskName(value))
    throw new ExportError(
      `${where}: task name ${JSON.stringify(value)} (field ${JSON.stringify(field)}) must be ${TASK_NAME_RULE}: it ` +
        `names a folder`,
    );
  return value;
}
