// Word-level diff of a quote against the nearest span (docs/how-it-decides.md#the-evidence-report `nearest.diff`): runs
// of equal, missing and extra words.
import { normalize, SPACE_CLASS } from '../normalize.js';

import type { DiffOp, DiffRun } from '../contract.js';

/**
 * A run (contract.ts DiffRun) is consecutive words with the same op, joined as their own text joins them (a space, or
 * nothing after a dash or between CJK characters). `missing`: in the quote, not in the source; `extra`: in the source,
 * not in the quote.
 */
export type { DiffOp, DiffRun };

/**
 * Words are runs of non-whitespace (the whitespace of docs/how-it-decides.md#normalization-and-the-label), except that
 * scripts written without spaces (Chinese, Japanese) count each character as a word, as the diagnosis does: otherwise a
 * whole sentence would be one word and any change would replace all of it.
 */
const WORD = new RegExp(
  `[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}]|` +
    `[^${SPACE_CLASS}\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}]+`,
  'gu',
);

/**
 * Most table cells the LCS may fill (4 bytes each): a pair of 2,000-word texts. Quotes are short;
 * a longer pair has its unmatched middle reported as one missing and one extra run.
 */
export const MAX_DIFF_CELLS = 4_000_000;

/** A dash between two words ("Tuesday—after"): the words are compared apart; the dash stays with the first. */
const AFTER_DASH = /(?<=[\u2010-\u2015\u2212-])(?=[\p{L}\p{N}])/u;
/** What is not part of a word's comparison: punctuation and symbols around or inside it (quotes, commas, dashes). */
const NOT_WORD_CHARS = /[^\p{L}\p{N}]/gu;

interface Word {
  /** As written (the quote's or the page's own wording). */
  text: string;
  /**
   * What is compared: normalize(text) without punctuation (“budget”, budget and budget, are one word), or
   * normalize(text) when that is all punctuation.
   */
  key: string;
  /** What follows it in its own text before the next word: "" when they touch (a dash, CJK), else one space. */
  glue: string;
}

function wordsOf(s: string): Word[] {
  const pieces: { text: string; start: number }[] = [];
  for (const m of s.matchAll(WORD)) {
    let at = m.index;
    for (const part of m[0].split(AFTER_DASH)) {
      pieces.push({ text: part, start: at });
      at += part.length;
    }
  }
  return pieces.map(({ text, start }, i) => {
    const normalized = normalize(text);
    const bare = normalized.replace(NOT_WORD_CHARS, '');
    const next = pieces[i + 1];
    return { text, key: bare || normalized, glue: next && next.start === start + text.length ? '' : ' ' };
  });
}

/** The runs being built: a word joins the last run when the op is the same, after the glue of the word before it. */
class Runs {
  readonly list: DiffRun[] = [];
  private glue = ' ';

  push(op: DiffOp, word: Word): void {
    const last = this.list[this.list.length - 1];
    if (last && last.op === op) last.text += `${this.glue}${word.text}`;
    else this.list.push({ op, text: word.text });
    this.glue = word.glue;
  }
}

/**
 * The longest common subsequence of two word lists by the textbook table (lengths of the LCS of
 * every pair of suffixes), walked from the start: where both a missing and an extra word are
 * possible, the missing one comes first, so a changed word reads "[-old-]{+new+}".
 */
function lcsOps(a: readonly Word[], b: readonly Word[], runs: Runs): void {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        a[i]!.key === b[j]!.key
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i]!.key === b[j]!.key) {
      runs.push('equal', b[j]!);
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) {
      runs.push('missing', a[i++]!);
    } else {
      runs.push('extra', b[j++]!);
    }
  }
  while (i < n) runs.push('missing', a[i++]!);
  while (j < m) runs.push('extra', b[j++]!);
}

/**
 * Diffs `quote` against `span` word by word. Words are compared after normalize() and without their
 * punctuation (case, quotes around a word, a comma after it, dashes and NFKC do not count as
 * differences; words joined by a dash are two words); equal and extra words are shown as the
 * span writes them (the page's own wording), missing words as the quote writes them.
 */
export function wordDiff(quote: string, span: string): DiffRun[] {
  const a = wordsOf(quote);
  const b = wordsOf(span);
  const runs = new Runs();
  // The common head and tail cost nothing to find and keep the table to the part that differs.
  let head = 0;
  while (head < a.length && head < b.length && a[head]!.key === b[head]!.key) runs.push('equal', b[head++]!);
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail]!.key === b[b.length - 1 - tail]!.key
  )
    tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  if ((midA.length + 1) * (midB.length + 1) <= MAX_DIFF_CELLS) {
    lcsOps(midA, midB, runs);
  } else {
    for (const w of midA) runs.push('missing', w);
    for (const w of midB) runs.push('extra', w);
  }
  for (const w of b.slice(b.length - tail)) runs.push('equal', w);
  return runs.list;
}
