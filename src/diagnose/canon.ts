// The "canonical" text for spotting extraction artifacts: normalized, then without the characters extraction adds or
// drops.
import { normalize, SPACE_CLASS, unify } from '../normalize.js';

/**
 * What extraction changes without changing what a reader sees: whitespace (pdftotext glues
 * words whose gap is under a tenth of the font size, and splits small caps), hyphens (a
 * line-end hyphen is dropped inside a text flow and kept, with a space, at a column end),
 * soft hyphens and zero-width characters. After normalize(), every dash is already "-".
 * Dropping every dash also lets a dash spelled "--" or " - " match an em dash: punctuation,
 * not extraction, which the note says (artifact.ts).
 */
const IGNORABLE = new RegExp(`[${SPACE_CLASS}\\u00AD\\u200B-\\u200D\\u2060\\uFEFF-]`, 'g');

/**
 * Quotation marks normalize() leaves apart (after it, curly quotes are already ' and "): straight, guillemets, single
 * guillemets, CJK corner brackets, double prime quotation marks, the backtick and the modifier letter apostrophe some
 * editors type. canon() makes them one mark, so that a quote whose quotation marks were changed in the usual editorial
 * way (double to single inside a quote, guillemets to straight quotes) is still seen as the passage.
 */
export const QUOTE_MARKS = '"\'`\u00AB\u00BB\u2039\u203A\u300C-\u300F\u301D-\u301F\u02BC';
const QUOTE_MARK = new RegExp(`[${QUOTE_MARKS}]`, 'g');

/** The canonical form of a normalized text: without what IGNORABLE names, every quotation mark one ("). */
export function canon(normalized: string): string {
  return normalized.replace(IGNORABLE, '').replace(QUOTE_MARK, '"');
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

/** The line breaks canonText keeps (a form feed also marks a page break), captured so that split() keeps them. */
const LINE_BREAKS = /(\f|\r\n|\n|\r)/;
/**
 * normalize()'s whitespace less the line breaks (\n, \r, \f) and the plain space, made a space before
 * lowercasing as normalize() does. `\s` is spelled out: a positive class scans several times faster
 * than `[^\S\n\r\f]` (a test checks canonText against the line-by-line definition on every code point).
 */
const SPACE_IN_LINE = /[\t\v\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF\u001C-\u001F\u0085]/g;
/** IGNORABLE less the line breaks: what canon() removes from inside a line. */
const IGNORABLE_IN_LINE =
  /[\t\v \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF\u001C-\u001F\u0085\u00AD\u200B-\u200D\u2060-]/g;

/**
 * canon(normalize(line)) for every line of `raw`, computed on the whole text at once: NFKC, the
 * quote and dash mappings and lowercasing never make, remove or cross a line break (casing looks
 * at a letter's neighbours, but not past a break), and canon() removes all whitespace, so the
 * per-line normalization comes out the same for a fraction of the
 * cost (the diagnosis reads every source with a no_match claim this way). Where removing
 * characters joins a "\r" and a "\n" into one break, the lines no longer pair up: then line by line.
 */
export function canonText(raw: string): CanonText {
  const rawPieces = raw.split(LINE_BREAKS);
  // Whitespace becomes a space before lowercasing: U+FEFF is whitespace to normalize() but
  // case-ignorable to toLowerCase(), so "a\uFEFF\u03A3" would otherwise end in a final sigma.
  const whole = unify(raw)
    .replace(SPACE_IN_LINE, ' ')
    .toLowerCase()
    .replace(IGNORABLE_IN_LINE, '')
    .replace(QUOTE_MARK, '"')
    .split(LINE_BREAKS);
  // split() with a capturing group alternates text and break: the same count means the same lines.
  const canonPieces =
    whole.length === rawPieces.length ? whole : rawPieces.map((p, i) => (i % 2 === 1 ? p : canon(normalize(p))));
  const lines: Line[] = [];
  const parts: string[] = [];
  let offset = 0;
  let pageStart = false;
  for (let i = 0; i < rawPieces.length; i++) {
    if (i % 2 === 1) {
      if (rawPieces[i] === '\f') pageStart = true;
      continue;
    }
    const c = canonPieces[i]!;
    lines.push({
      start: offset,
      end: offset + c.length,
      raw: rawPieces[i]!,
      blank: c.length === 0,
      pageStart,
      numeric: isNumeric(c),
    });
    parts.push(c);
    offset += c.length;
    pageStart = false;
  }
  return { text: parts.join(''), lines };
}

/** Only ASCII digits (most lines start with a letter: the regular expression is rarely needed). */
function isNumeric(c: string): boolean {
  const first = c.charCodeAt(0);
  return first >= 48 && first <= 57 && /^\d+$/.test(c);
}

/** Index of the last non-blank line that starts before `offset`: the line holding the character before it. */
function lineEndingAt(ct: CanonText, offset: number): number {
  let lo = 0;
  let hi = ct.lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ct.lines[mid]!.start < offset) lo = mid;
    else hi = mid - 1;
  }
  while (lo > 0 && ct.lines[lo]!.blank) lo--;
  return lo;
}

/** How far `needle` from `from` agrees with `hay` from `at`. */
function agree(needle: string, from: number, hay: string, at: number): number {
  let n = 0;
  while (from + n < needle.length && at + n < hay.length && needle.charCodeAt(from + n) === hay.charCodeAt(at + n)) n++;
  return n;
}

/** Characters of the quote a piece must have to count (shorter pieces match anywhere by chance). */
const MIN_PIECE = 12;
/** The most text a page break, footnote or caption block may insert into a quote. */
const MAX_GAP = 1_500;
/** A line that ends a sentence (closing quotes and brackets may follow the stop). */
const SENTENCE_END = /[.!?]["'\u201D\u2019)\]]*\s*$/;
/** Places the quote's first characters are tried. */
const MAX_STARTS = 50;
/** Interruptions allowed in one quote (one per line for line numbers). */
const MAX_GAPS = 40;

interface Interruption {
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
  if (canonQuote.length < MIN_PIECE) return null;
  const probe = canonQuote.slice(0, MIN_PIECE);
  // Try each place the quote's start occurs: the longest first piece is not always the right one.
  for (
    let at = ct.text.indexOf(probe), tries = 0;
    at !== -1 && tries < MAX_STARTS;
    at = ct.text.indexOf(probe, at + 1), tries++
  ) {
    const n = agree(canonQuote, 0, ct.text, at);
    if (n === canonQuote.length) continue;
    const gaps = followGaps(canonQuote, n, at + n, ct);
    if (gaps) return { gaps };
  }
  return null;
}

function followGaps(quote: string, matched: number, pos: number, ct: CanonText): string[] | null {
  const gaps: string[] = [];
  while (matched < quote.length) {
    if (gaps.length >= MAX_GAPS) return null;
    const lastIndex = lineEndingAt(ct, pos);
    const last = ct.lines[lastIndex]!;
    // The piece may stop short of its line's end only before a number pdftotext glued on (a page number).
    const tail = ct.text.slice(pos, last.end);
    if (tail !== '' && !/^\d+$/.test(tail)) return null;
    // The quote continues at the start of a later line, within MAX_GAP characters.
    const probe = quote.slice(matched, matched + MIN_PIECE);
    let resume = -1;
    for (let l = lastIndex + 1; l < ct.lines.length && ct.lines[l]!.start - pos <= MAX_GAP; l++) {
      if (!ct.lines[l]!.blank && ct.text.startsWith(probe, ct.lines[l]!.start)) {
        resume = l;
        break;
      }
    }
    if (resume === -1) return null;
    const skipped = ct.lines.slice(lastIndex + 1, resume);
    const pageBreak = skipped.some((l) => l.pageStart) || ct.lines[resume]!.pageStart;
    const numbersOnly = skipped.every((l) => l.blank || l.numeric);
    // A block set off by blank lines inside a sentence (a footnote or box the sentence flows
    // around); after a sentence end it is the next paragraph, and skipping it is a splice.
    const block = skipped.some((l) => l.blank) && !SENTENCE_END.test(last.raw);
    if (!pageBreak && !numbersOnly && !block) return null;
    gaps.push([tail, ...skipped.filter((l) => !l.blank).map((l) => l.raw.trim())].filter(Boolean).join(' / '));
    pos = ct.lines[resume]!.start;
    const n = agree(quote, matched, ct.text, pos);
    matched += n;
    pos += n;
  }
  return gaps;
}
