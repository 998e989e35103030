// Normalization (docs/how-it-decides.md#normalization-and-the-label): the one function applied to quotes and source
// texts alike.

/** U+2018 U+2019 U+201A U+201B U+2032 U+2035: single curly quotes and primes become `'`. */
const SINGLE_QUOTES = '\u2018\u2019\u201A\u201B\u2032\u2035';
/** U+201C U+201D U+201E U+201F U+2033 U+2036: double curly quotes and primes become `"`. */
const DOUBLE_QUOTES = '\u201C\u201D\u201E\u201F\u2033\u2036';
/** U+2010..U+2015, U+2212 (minus), U+FE58, U+FE63, U+FF0D: dashes become `-`. */
const DASHES = '\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uFE58\uFE63\uFF0D';
/** What each of them becomes. */
const ASCII_FOR = new Map<string, string>([
  ...[...SINGLE_QUOTES].map((c) => [c, "'"] as const),
  ...[...DOUBLE_QUOTES].map((c) => [c, '"'] as const),
  ...[...DASHES].map((c) => [c, '-'] as const),
]);
/** Any of them: one pass over the text instead of three. */
const QUOTE_OR_DASH = new RegExp(`[${SINGLE_QUOTES}${DOUBLE_QUOTES}${DASHES}]`, 'g');
/**
 * The whitespace of docs/how-it-decides.md#normalization-and-the-label, as the body of a regular-expression class:
 * JavaScript `\s` plus the information separators U+001C..U+001F and NEL (U+0085). Every module that splits or matches
 * on whitespace builds its pattern from this one spelling (`new RegExp(`[${SPACE_CLASS}]`)`, or `[^${SPACE_CLASS}]` for
 * a word).
 */
export const SPACE_CLASS = '\\s\\u001C-\\u001F\\u0085';

/**
 * A run of whitespace becomes one space. Whitespace is JavaScript `\s` plus the information
 * separators U+001C..U+001F and NEL (U+0085), which `\s` leaves out but which Python's
 * `str.split()` (used by many labellers) treats as whitespace. Only the runs that change are
 * matched: all but a lone plain space, which most whitespace in a text is (three to four times
 * faster than replacing every run). The first class is `\s` less U+0020, spelled out: a positive
 * class scans faster than `[^\S ]`; a test checks it against `\s` code point by code point.
 */
const WHITESPACE_RUN = new RegExp(
  `[\\t\\n\\v\\f\\r\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF\\u001C-\\u001F\\u0085]` +
    `[${SPACE_CLASS}]*| [${SPACE_CLASS}]+`,
  'g',
);

/** Only ASCII: steps 1-3 change nothing (NFKC maps ASCII to itself; the quotes and dashes are not ASCII). */
const ASCII_ONLY = /^[\x00-\x7F]*$/;

/**
 * Normalizes text for matching: NFKC, curly quotes and dashes to ASCII, whitespace runs
 * to one space, trimmed, lowercased. Nothing else: soft hyphens, zero-width characters
 * and ellipses are left as NFKC leaves them, so the label stays the mechanical test.
 */
export function normalize(text: string): string {
  if (text.length >= 2 * PIECE_CHARS) return inPieces(text);
  return compact(text, steps(text));
}

/** normalize()'s steps, without compact. */
function steps(text: string): string {
  return unify(text).replace(WHITESPACE_RUN, ' ').trim().toLowerCase();
}

/** A long text is normalized this many characters at a time, give or take (inPieces). */
const PIECE_CHARS = 1024 * 1024;
/** Where a long text may be cut: between two ASCII letters or digits (inPieces says why). */
const CUT = /[A-Za-z0-9](?=[A-Za-z0-9])/g;

/**
 * normalize() of a long text a piece at a time, each cut between two ASCII letters or digits, with the same result:
 * NFKC composes and reorders nothing across such a pair (no composition has an ASCII second, and ASCII is a starter),
 * no whitespace run spans it, trim touches only the text's two ends, and lowercasing's one rule that reads around a
 * character (a final sigma, docs/how-it-decides.md#normalization-and-the-label) stops at a letter or digit. Each step
 * of the whole text copied it, the copies piling up until a collection: 240 MB of heap for the 56 MB text of a 30 MB
 * page, where pieces leave a few MB of garbage at a time (Issue 46). A text with no such pair is one piece.
 */
function inPieces(text: string): string {
  // A text of Latin-1 alone gives pieces in one byte already, as compact has it: no piece is checked or copied.
  const wide = PAST_LATIN1.test(text);
  const pieces: string[] = [];
  for (let from = 0; from < text.length; ) {
    CUT.lastIndex = from + PIECE_CHARS - 1;
    const found = text.length - from > PIECE_CHARS ? CUT.exec(text) : null;
    const to = found ? found.index + 1 : text.length;
    const piece = steps(text.slice(from, to));
    pieces.push(wide ? oneByte(piece) : piece);
    from = to;
  }
  // Joined, the pieces are in one byte a character when each of them is (compact, for the whole).
  return pieces.join('');
}

/** Texts this long or longer are checked for being Latin-1 once normalized (compact). */
const COMPACT_CHARS = 64 * 1024;
/** A character past Latin-1. */
const PAST_LATIN1 = /[^\x00-\xFF]/;

/**
 * `normalized`, in one byte a character when `text` had characters past Latin-1 and it has none. V8 keeps a string
 * made from a string of two bytes a character in two, whatever it holds: a page whose curly quotes and dashes made its
 * text two bytes a character had a normalized text of ASCII held in two, 60 MB for a 30 MB page, copied to each thread
 * that works on it (Issue 46). A text of Latin-1 alone is in one byte already.
 */
function compact(text: string, normalized: string): string {
  if (normalized.length < COMPACT_CHARS || !PAST_LATIN1.test(text)) return normalized;
  return oneByte(normalized);
}

/** `s` in one byte a character when it holds nothing past Latin-1; else `s`. */
function oneByte(s: string): string {
  return PAST_LATIN1.test(s) ? s : Buffer.from(s, 'latin1').toString('latin1');
}

/**
 * normalize()'s character steps alone: NFKC, then curly quotes and dashes to ASCII. Whitespace
 * is left as it is, line breaks included (no NFKC mapping makes or removes one).
 */
export function unify(text: string): string {
  // The common case (English lines and words, called per line and per token by the
  // diagnosis) skips the steps that cannot apply: half the time.
  return ASCII_ONLY.test(text) ? text : text.normalize('NFKC').replace(QUOTE_OR_DASH, (c) => ASCII_FOR.get(c)!);
}
