// The files `label` writes as it goes (docs/cli.md#quotecheck-label-gold-labels-with-their-proof): each labelled or
// left-out claim appended as one whole line the moment it is decided, and what a resumed run finds in them.
import { existsSync, readFileSync, truncateSync } from 'node:fs';
import { rowId } from '../../dataset/labelled.js';
import { writeFileAtomicSync } from '../../output/output-files.js';
import { reorderReport } from '../../output/report-file.js';

/**
 * A JSON Lines file's whole lines, each with its object (undefined when it does not parse as one), and the bytes they
 * span: a last line without its newline (a killed writer's) is not among them.
 */
function wholeLines(path: string): {
  lines: { text: string; row?: Record<string, unknown> }[];
  whole: number;
  size: number;
} {
  const bytes = readFileSync(path);
  const whole = bytes.lastIndexOf(10) + 1;
  const texts = bytes.subarray(0, whole).toString('utf8').split('\n').slice(0, -1);
  const lines = texts.map((text) => {
    try {
      const row: unknown = JSON.parse(text);
      return row && typeof row === 'object' && !Array.isArray(row)
        ? { text, row: row as Record<string, unknown> }
        : { text };
    } catch {
      return { text };
    }
  });
  return { lines, whole, size: bytes.length };
}

/** What a resumed run finds: the claims labelled already, those left out for good, and what was cut from the files. */
export interface ResumeState {
  /** Ids in --out. */
  labelled: Set<string>;
  /** Ids in --left-out for a reason other than a stop (unreadable, invalid): decided, not tried again. */
  leftOut: Set<string>;
  /** Lines taken out because they are tried again: the stopped ones of --left-out and --report. */
  retried: number;
  /** Files whose cut last line (a killed run's) was cut off. */
  cut: string[];
}

/**
 * Keeps the lines of `path` that `keep` accepts (a line that does not parse stays: it is not this run's to remove), and
 * cuts a last line without its newline: truncated in place when only that goes, else rewritten by temp file and rename
 * (a kill meanwhile leaves the file as it was). Returns how many whole lines went.
 */
function keepLines(path: string, keep: (row: Record<string, unknown>) => boolean, state: ResumeState): number {
  if (!existsSync(path)) return 0;
  const { lines, whole, size } = wholeLines(path);
  if (whole < size) state.cut.push(path);
  const kept = lines.filter((l) => l.row === undefined || keep(l.row));
  const dropped = lines.length - kept.length;
  if (dropped > 0) writeFileAtomicSync(path, kept.map((l) => `${l.text}\n`).join(''));
  else if (whole < size) truncateSync(path, whole);
  return dropped;
}

/** The cause a --left-out line gives, or undefined. */
const causeOf = (row: Record<string, unknown>): unknown => (row.left_out as { cause?: unknown } | undefined)?.cause;

/**
 * Reads what an earlier run of the same claims wrote, and makes its files ready for appending: --out and --left-out
 * keep every decided claim (a cut last line goes), --left-out loses its `stopped` lines and --report every line of a
 * claim that is to be labelled now (its stopped line, or a decision whose label was lost to a kill), so that each claim
 * has one line in each file when the run is done.
 */
export function prepareResume(paths: { out: string; leftOut?: string; report?: string }): ResumeState {
  const state: ResumeState = { labelled: new Set(), leftOut: new Set(), retried: 0, cut: [] };
  keepLines(
    paths.out,
    (row) => {
      const id = rowId(row);
      if (id !== undefined) state.labelled.add(id);
      return true;
    },
    state,
  );
  if (paths.leftOut !== undefined)
    state.retried += keepLines(
      paths.leftOut,
      (row) => {
        const id = rowId(row);
        const decided = causeOf(row) !== 'stopped' && id !== undefined && !state.labelled.has(id);
        if (decided) state.leftOut.add(id);
        return decided;
      },
      state,
    );
  if (paths.report !== undefined)
    keepLines(
      paths.report,
      (row) => typeof row.id === 'string' && (state.labelled.has(row.id) || state.leftOut.has(row.id)),
      state,
    );
  return state;
}

/** A JSON line's claim id, as its claims file names it (label's files keep the claim's own id field). */
function lineId(line: Buffer): string | undefined {
  try {
    const row: unknown = JSON.parse(line.toString('utf8'));
    return row && typeof row === 'object' ? rowId(row as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Puts a finished file's lines in the claims file's order (temp file and rename; a kill meanwhile keeps it as it was).
 */
export function inInputOrder(path: string, ids: readonly string[]): void {
  if (existsSync(path)) reorderReport(path, ids, lineId);
}
