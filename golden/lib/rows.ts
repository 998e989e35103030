// The rows the golden scripts write and read back: claims, labelled claims and diagnosis cases.
//
// Neutral ground: the builders (build.ts, diagnosis/build.ts, drift/build.ts) write these rows and the
// checkers (check.ts, diagnosis/check.ts) read them, so both sides may import this module. It holds
// only the shapes of the files and how a JSON-lines file is read: no labelling logic, nothing a checker
// must re-derive on its own. It imports nothing from the builders, the checkers or src/.

import fs from 'node:fs';

export type Label = 'verbatim' | 'no_match';

/** A claim as quotecheck reads it (claims.json). */
export interface ClaimRow {
  id: string;
  claim: string;
  quote: string;
  url: string;
}

/** One claim of a golden task as labelled.jsonl holds it: the claim, its gold label and the rule the label follows from. */
export interface LabelledRow extends ClaimRow {
  task: string;
  /** As of when the label holds (the drift task). */
  verify_date?: string;
  /** sha256 of the source bytes the label was made on (the drift task). */
  evidence?: { sha256: string };
  label: Label;
  rule: string;
}

/** One line of golden/diagnosis/cases.jsonl: a no_match quote and the diagnosis code it should get. */
export interface CaseRow<Code extends string = string> {
  id: string;
  quote: string;
  url: string;
  expected: Code;
  rule: string;
}

/** The rows of a JSON-lines file (blank lines skipped). */
export function readJsonl<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}
