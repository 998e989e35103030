// Approximate substring alignment: the span of a text closest to a quote, found by anchoring on shared k-grams, then
// aligned locally (Myers' bit-parallel edit distance).

interface Span {
  /** Offsets of the span in the text (UTF-16 code units, end exclusive). */
  start: number;
  end: number;
  /** Edit distance (insertions, deletions, substitutions of characters) between the quote and the span. */
  distance: number;
  /** 1 - distance / quote length, in [0, 1]: 1 is an exact match. */
  similarity: number;
}

/** Anchor length: long enough that most hits are meaningful, short enough to survive a change every few words. */
const K = 8;
/** Text positions sampled: any shared run of K + STRIDE - 1 = 15 characters is seen. */
const STRIDE = 8;
/** A hash filter of 2^16 bits: with at most a few thousand quote k-grams, few text positions pass it by chance. */
const FILTER_BITS = 16;
/** Candidate regions aligned in full; the true region is almost always the best voted. */
const MAX_CANDIDATES = 4;
/** Candidates with less than this share of the best candidate's votes are not aligned. */
const MIN_VOTE_SHARE = 0.25;
/** Anchor hits counted at most (a quote of very common k-grams in a huge text would otherwise collect millions). */
const MAX_HITS = 400_000;
/** Quotes longer than this are aligned by their first MAX_QUOTE characters (the cost is quadratic in the quote). */
export const MAX_QUOTE = 1_000;
/** Texts this much longer than the quote or less are aligned whole, with no anchoring. */
const DIRECT_FACTOR = 4;

const BASE = 257;

function hashAt(s: string, i: number): number {
  let h = 0;
  for (let j = i; j < i + K; j++) h = (Math.imul(h, BASE) + s.charCodeAt(j)) | 0;
  return h;
}

/** The most significant bit of a 32-bit block. */
const TOP_BIT = 1 << 31;

/**
 * Semi-global edit distance: the whole quote against any substring of `text[from, to)`, by
 * Myers' bit-parallel algorithm (1999) in 32-bit blocks: each text character updates the
 * vertical deltas of a column of the table 32 rows at a time, O(window x quote/32). Returns the
 * first end offset with the smallest distance, and that distance.
 */
function bestEnd(quote: string, text: string, from: number, to: number): { end: number; distance: number } {
  const m = quote.length;
  const blocks = Math.ceil(m / 32);
  // For each character of the quote, the bit mask of its positions, block by block.
  const peq = new Map<number, Uint32Array>();
  for (let i = 0; i < m; i++) {
    const c = quote.charCodeAt(i);
    let masks = peq.get(c);
    if (!masks) {
      masks = new Uint32Array(blocks);
      peq.set(c, masks);
    }
    masks[i >> 5]! |= 1 << (i & 31);
  }
  const none = new Uint32Array(blocks);
  const pv = new Uint32Array(blocks).fill(0xffffffff); // vertical deltas +1 ...
  const mv = new Uint32Array(blocks); // ... and -1 (the first column is 0, 1, 2, ..., m)
  const lastTop = 1 << ((m - 1) & 31); // row m's bit in the last block
  let score = m;
  let best = m;
  let bestEnd = from;
  for (let j = from; j < to; j++) {
    const eqs = peq.get(text.charCodeAt(j)) ?? none;
    let hin = 0; // row 0 is all zeros: the span may start anywhere
    for (let b = 0; b < blocks; b++) {
      let eq = eqs[b]!;
      const p = pv[b]!;
      const n = mv[b]!;
      const xv = eq | n;
      if (hin < 0) eq |= 1;
      const xh = (((((eq & p) + p) >>> 0) ^ p) | eq) >>> 0;
      let ph = (n | ~(xh | p)) >>> 0;
      let mh = (p & xh) >>> 0;
      const top = b === blocks - 1 ? lastTop : TOP_BIT;
      const hout = ph & top ? 1 : mh & top ? -1 : 0;
      ph = (ph << 1) >>> 0;
      mh = (mh << 1) >>> 0;
      if (hin < 0) mh |= 1;
      else if (hin > 0) ph |= 1;
      pv[b] = mh | ~(xv | ph);
      mv[b] = ph & xv;
      hin = hout;
    }
    score += hin;
    if (score < best) {
      best = score;
      bestEnd = j + 1;
    }
  }
  return { end: bestEnd, distance: best };
}

/** Reversed by UTF-16 code unit, the unit both passes align: offsets then map back exactly. */
function reversed(s: string): string {
  return s.split('').reverse().join('');
}

/** Aligns the quote within `text[from, to)`: the end from a forward pass, the start from a backward pass. */
function alignWindow(quote: string, text: string, from: number, to: number): Span {
  const { end, distance } = bestEnd(quote, text, from, to);
  // The start: the same alignment run backwards from `end`.
  const revQuote = reversed(quote);
  const revWindow = reversed(text.slice(from, end));
  const back = bestEnd(revQuote, revWindow, 0, revWindow.length);
  const start = end - back.end;
  return { start, end, distance, similarity: Math.max(0, 1 - distance / quote.length) };
}

/**
 * Where the quote probably sits: every text position whose k-gram also occurs in the quote
 * votes for the diagonal (text offset - quote offset) it implies; diagonals are binned and the
 * bins with most votes are returned as candidate start offsets, best first.
 */
function candidates(quote: string, text: string): number[] {
  const m = quote.length;
  const grams = new Map<number, number[]>();
  const filter = new Uint8Array(1 << (FILTER_BITS - 3));
  const mask = (1 << FILTER_BITS) - 1;
  for (let i = 0; i + K <= m; i++) {
    const h = hashAt(quote, i);
    const list = grams.get(h);
    if (list) list.push(i);
    else grams.set(h, [i]);
    const f = h & mask;
    filter[f >>> 3]! |= 1 << (f & 7);
  }
  const bin = Math.max(16, m >> 1);
  const votes = new Map<number, number>();
  let hits = 0;
  // Every quote k-gram is in the table, so sampling the text every STRIDE positions still
  // finds any common run of K + STRIDE - 1 characters or more, at 1/STRIDE of the cost.
  for (let pos = 0; pos + K <= text.length; pos += STRIDE) {
    const h = hashAt(text, pos);
    const f = h & mask;
    if ((filter[f >>> 3]! & (1 << (f & 7))) === 0) continue;
    const qs = grams.get(h);
    if (!qs) continue;
    for (const q of qs) {
      const b = Math.floor((pos - q) / bin);
      votes.set(b, (votes.get(b) ?? 0) + 1);
    }
    if (++hits > MAX_HITS) break;
  }
  // A region straddling two bins splits its votes: score each bin with its right neighbour.
  const scored = [...votes].map(([b, v]) => [b, v + (votes.get(b + 1) ?? 0)] as const);
  scored.sort((a, b) => b[1] - a[1]);
  // Regions with a fraction of the best region's votes are chance hits of common k-grams.
  const floor = (scored[0]?.[1] ?? 0) * MIN_VOTE_SHARE;
  return scored
    .slice(0, MAX_CANDIDATES)
    .filter(([, v]) => v >= floor)
    .map(([b]) => b * bin);
}

/**
 * The span of `text` with the smallest edit distance to `quote` (both normalized), or null when
 * either is empty. Exact for texts up to a few times the quote's length; for longer texts the
 * search is limited to the best-voted regions, which is where a misquote, a paraphrase or a
 * damaged copy of the quote sits. A long text costs one sampled pass plus a few small alignments
 * (bench/results.json align: a 300-character quote against 5 MB of text).
 */
export function nearestSpan(quote: string, text: string): Span | null {
  const q = quote.length > MAX_QUOTE ? quote.slice(0, MAX_QUOTE) : quote;
  const m = q.length;
  if (m === 0 || text.length === 0) return null;
  if (text.length <= DIRECT_FACTOR * m + 64 || m < K) {
    return alignWindow(q, text, 0, text.length);
  }
  let best: Span | null = null;
  for (const start of candidates(q, text)) {
    const from = Math.max(0, start - (m >> 1));
    const to = Math.min(text.length, start + Math.max(16, m >> 1) + m + (m >> 1));
    const span = alignWindow(q, text, from, to);
    if (!best || span.distance < best.distance) best = span;
  }
  return best;
}

/**
 * The span of `text` closest to `quote`, aligned over the whole text with no anchoring: for short texts (a sentence)
 * that may share no k-gram with the quote, where nearestSpan would find no candidate. Costs text length x quote length
 * / 32.
 */
export function alignWhole(quote: string, text: string): Span | null {
  const q = quote.length > MAX_QUOTE ? quote.slice(0, MAX_QUOTE) : quote;
  if (q.length === 0 || text.length === 0) return null;
  return alignWindow(q, text, 0, text.length);
}
