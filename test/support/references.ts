// Reference implementations the tests compare quotecheck against, written plainly from the design rather than for speed:
// the normalization of docs/how-it-decides.md#normalization-and-the-label, step by step, and the textbook edit distances the aligner (src/diagnose/align.ts) must reach.

/**
 * docs/how-it-decides.md#normalization-and-the-label as plainly as it can be written, each step a pass of its own: the golden builder's (golden/lib/builder.ts),
 * written from the design and not from src/normalize.ts. `beforeWhitespaceAndCase`: steps 1-3 only; `designNormalize`: all five.
 */
export { fold as beforeWhitespaceAndCase, normalize as designNormalize } from '../../golden/lib/builder.js';

// The edit distances: the textbook dynamic programme over UTF-16 code units, as the aligner counts, without its
// shortcuts (anchors, windows, Myers' bit vectors).

/**
 * One table, two uses: row j holds the distances between the prefixes of `quote` and a piece of `text` ending at j.
 * `free`: the piece may start anywhere (semi-global: a span of the text), else it starts at 0 (the whole text).
 * Returns the distance for the whole quote after each character of the text (index 0: before any).
 */
function lastRow(quote: string, text: string, free: boolean): number[] {
  let col = Array.from({ length: quote.length + 1 }, (_, i) => i);
  const out = [quote.length];
  for (let j = 1; j <= text.length; j++) {
    const next = [free ? 0 : j];
    for (let i = 1; i <= quote.length; i++) {
      next[i] = Math.min(
        col[i]! + 1,
        next[i - 1]! + 1,
        col[i - 1]! + (quote.charCodeAt(i - 1) === text.charCodeAt(j - 1) ? 0 : 1),
      );
    }
    col = next;
    out.push(col[quote.length]!);
  }
  return out;
}

/** Levenshtein distance between a and b, in UTF-16 code units. */
export function editDistance(a: string, b: string): number {
  return lastRow(a, b, false)[b.length]!;
}

/** The optimum nearestSpan must reach: the smallest edit distance between the quote and any span of the text (the empty span counts: the quote's length). */
export function nearestDistance(quote: string, text: string): number {
  return lastRow(quote, text, true).reduce((a, b) => Math.min(a, b));
}
