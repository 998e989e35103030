// Word-level diff of a quote against the nearest span (design.md §2 `nearest.diff`): runs of equal, missing and extra words.
import { normalize } from '../normalize.js';

/** `missing`: in the quote, not in the source; `extra`: in the source, not in the quote. */
export type DiffOp = 'equal' | 'missing' | 'extra';

/** One run of consecutive words with the same op, the words joined by single spaces. */
export interface DiffRun {
  op: DiffOp;
  text: string;
}

/**
 * Words are runs of non-whitespace (the whitespace of design.md §3), except that scripts written
 * without spaces (Chinese, Japanese) count each character as a word, as the diagnosis does:
 * otherwise a whole sentence would be one word and any change would replace all of it.
 */
const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\s\u001C-\u001F\u0085\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

/**
 * Most table cells the LCS may fill (4 bytes each): a pair of 2,000-word texts. Quotes are short;
 * a longer pair has its unmatched middle reported as one missing and one extra run.
 */
export const MAX_DIFF_CELLS = 4_000_000;

interface Word {
  /** As written (the quote's or the page's own wording). */
  text: string;
  /** What is compared: normalize(text). */
  key: string;
}

function wordsOf(s: string): Word[] {
  return (s.match(WORD) ?? []).map((text) => ({ text, key: normalize(text) }));
}

/** Appends a word to the runs, joining it to the last run when the op is the same. */
function push(runs: DiffRun[], op: DiffOp, text: string): void {
  const last = runs[runs.length - 1];
  if (last && last.op === op) last.text += ` ${text}`;
  else runs.push({ op, text });
}

/**
 * The longest common subsequence of two word lists by the textbook table (lengths of the LCS of
 * every pair of suffixes), walked from the start: where both a missing and an extra word are
 * possible, the missing one comes first, so a changed word reads "[-old-]{+new+}".
 */
function lcsOps(a: readonly Word[], b: readonly Word[], runs: DiffRun[]): void {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = a[i]!.key === b[j]!.key
        ? table[(i + 1) * width + j + 1]! + 1
        : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i]!.key === b[j]!.key) {
      push(runs, 'equal', b[j]!.text);
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) {
      push(runs, 'missing', a[i++]!.text);
    } else {
      push(runs, 'extra', b[j++]!.text);
    }
  }
  while (i < n) push(runs, 'missing', a[i++]!.text);
  while (j < m) push(runs, 'extra', b[j++]!.text);
}

/**
 * Diffs `quote` against `span` word by word. Words are compared after normalize() (case, curly
 * quotes, dashes and NFKC do not count as differences); equal and extra words are shown as the
 * span writes them (the page's own wording), missing words as the quote writes them.
 */
export function wordDiff(quote: string, span: string): DiffRun[] {
  const a = wordsOf(quote);
  const b = wordsOf(span);
  const runs: DiffRun[] = [];
  // The common head and tail cost nothing to find and keep the table to the part that differs.
  let head = 0;
  while (head < a.length && head < b.length && a[head]!.key === b[head]!.key) push(runs, 'equal', b[head++]!.text);
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail]!.key === b[b.length - 1 - tail]!.key) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  if ((midA.length + 1) * (midB.length + 1) <= MAX_DIFF_CELLS) {
    lcsOps(midA, midB, runs);
  } else {
    for (const w of midA) push(runs, 'missing', w.text);
    for (const w of midB) push(runs, 'extra', w.text);
  }
  for (const w of b.slice(b.length - tail)) push(runs, 'equal', w.text);
  return runs;
}
