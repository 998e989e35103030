// The "canonical" text for spotting extraction artifacts: normalized, then without the characters extraction adds or drops.
import { normalize } from '../normalize.js';

/**
 * What extraction changes without changing what a reader sees: whitespace (pdftotext glues
 * words whose gap is under a tenth of the font size, and splits small caps), hyphens (a
 * line-end hyphen is dropped inside a text flow and kept, with a space, at a column end),
 * soft hyphens and zero-width characters. After normalize(), every dash is already "-".
 */
const IGNORABLE = /[\s\u001C-\u001F\u0085\u00AD\u200B-\u200D\u2060\uFEFF-]/g;

export function canon(normalized: string): string {
  return normalized.replace(IGNORABLE, '');
}

/** A line of the extracted text, as pdftotext (or the HTML renderer) laid it out. */
interface Line {
  /** Offset of the line's first canonical character in CanonText.text. */
  start: number;
  /** Offset just past its last canonical character. */
  end: number;
  /** The raw line, for notes. */
  raw: string;
  /** No visible characters: a blank line separates blocks in pdftotext output. */
  blank: boolean;
  /** The line follows a form feed: the first line of a new page. */
  pageStart: boolean;
  /** Only digits (line numbers, page numbers). */
  numeric: boolean;
}

/** Canonical text of a view, with its line structure, so that a gap in a match can be judged by what lies in it. */
export interface CanonText {
  text: string;
  lines: Line[];
}

export function canonText(raw: string): CanonText {
  const lines: Line[] = [];
  const parts: string[] = [];
  let offset = 0;
  let pageStart = false;
  // Keep the separators: a form feed marks a page break.
  for (const piece of raw.split(/(\f|\r\n|\n|\r)/)) {
    if (piece === '\f') {
      pageStart = true;
      continue;
    }
    if (piece === '\n' || piece === '\r' || piece === '\r\n') continue;
    const c = canon(normalize(piece));
    lines.push({ start: offset, end: offset + c.length, raw: piece, blank: c.length === 0, pageStart, numeric: /^\d+$/.test(c) });
    parts.push(c);
    offset += c.length;
    pageStart = false;
  }
  return { text: parts.join(''), lines };
}

/** Index of the first line that starts at or after `offset` (binary search). */
function lineStartingAt(ct: CanonText, offset: number): number {
  let lo = 0;
  let hi = ct.lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ct.lines[mid]!.start < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Longest prefix of `needle` (at least `min` long) found in `hay` at or after `from`, with its position; -1 if none. */
function longestPrefixAt(needle: string, hay: string, min: number): { length: number; at: number } {
  if (needle.length < min || hay.indexOf(needle.slice(0, min)) === -1) return { length: 0, at: -1 };
  let lo = min;
  let hi = needle.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (hay.includes(needle.slice(0, mid))) lo = mid;
    else hi = mid - 1;
  }
  return { length: lo, at: hay.indexOf(needle.slice(0, lo)) };
}

/** Characters of the quote a piece must have to count (shorter pieces match anywhere by chance). */
const MIN_PIECE = 12;
/** The most text a page break, footnote or caption block may insert into a quote. */
const MAX_GAP = 1_500;
/** A line that ends a sentence (closing quotes and brackets may follow the stop). */
const SENTENCE_END = /[.!?]["'\u201D\u2019)\]]*\s*$/;
/** Interruptions allowed in one quote (one per line for line numbers). */
const MAX_GAPS = 40;

export interface Interruption {
  /** The raw lines that interrupt the quote in the extracted text. */
  gaps: string[];
}

/**
 * Whether the quote is in the text except for whole lines of page furniture inserted into it:
 * a running header or footer at a page break, line numbers, or a block (footnote, copyright
 * box, caption) that extraction placed inside the passage. Each interruption must consist of
 * whole lines and be a page break, a block set off by blank lines, or numbers only; a gap in
 * the middle of running text (a word the quote left out) does not count.
 */
export function findInterrupted(canonQuote: string, ct: CanonText): Interruption | null {
  const first = longestPrefixAt(canonQuote, ct.text, MIN_PIECE);
  if (first.at === -1 || first.length === canonQuote.length) return null;
  // Try every occurrence of the first piece (a short piece can occur more than once).
  for (let at = first.at, tries = 0; at !== -1 && tries < 20; at = ct.text.indexOf(canonQuote.slice(0, first.length), at + 1), tries++) {
    const gaps = followGaps(canonQuote, first.length, at + first.length, ct);
    if (gaps) return { gaps };
  }
  return null;
}

function followGaps(quote: string, matched: number, pos: number, ct: CanonText): string[] | null {
  const gaps: string[] = [];
  while (matched < quote.length) {
    if (gaps.length >= MAX_GAPS) return null;
    // The quote must break at a line end...
    const line = lineStartingAt(ct, pos);
    if (line >= ct.lines.length || ct.lines[line]!.start !== pos) return null;
    // ...and continue at the start of a later line, within MAX_GAP characters.
    const rest = quote.slice(matched);
    const probe = rest.slice(0, Math.min(rest.length, MIN_PIECE));
    let resume = -1;
    for (let l = line + 1; l < ct.lines.length && ct.lines[l]!.start - pos <= MAX_GAP; l++) {
      if (!ct.lines[l]!.blank && ct.text.startsWith(probe, ct.lines[l]!.start)) {
        resume = l;
        break;
      }
    }
    if (resume === -1) return null;
    const skipped = ct.lines.slice(line, resume);
    const pageBreak = skipped.some((l) => l.pageStart) || ct.lines[resume]!.pageStart;
    const numbersOnly = skipped.every((l) => l.blank || l.numeric);
    // A block set off by blank lines inside a sentence (a footnote or box the sentence flows
    // around); after a sentence end it is the next paragraph, and skipping it is a splice.
    const lastLine = ct.lines.slice(0, line).findLast((l) => !l.blank);
    const block = skipped.some((l) => l.blank) && !SENTENCE_END.test(lastLine?.raw ?? '');
    if (!pageBreak && !numbersOnly && !block) return null;
    gaps.push(skipped.filter((l) => !l.blank).map((l) => l.raw.trim()).join(' / '));
    // Extend the piece from the resumed line as far as it matches.
    pos = ct.lines[resume]!.start;
    let n = 0;
    while (matched + n < quote.length && pos + n < ct.text.length && quote.charCodeAt(matched + n) === ct.text.charCodeAt(pos + n)) n++;
    matched += n;
    pos += n;
  }
  return gaps;
}
