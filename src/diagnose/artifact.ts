// What an extraction-artifact match overlooked, named for its note: glued or split words, line-end hyphens, invisible
// characters, punctuation spelled otherwise.
import { SPACE_CLASS, unify } from '../normalize.js';
import { QUOTE_MARKS } from './canon.js';

/**
 * The equivalences canon() applies, one kind each. Ligatures have none: normalize()'s NFKC already turns U+FB00 to
 * U+FB06 into their letters, so a ligature never keeps a quote from matching and never needs repairing here.
 */
type ArtifactKind =
  | 'glued'
  | 'split'
  | 'spacing'
  | 'hyphen_kept'
  | 'hyphen_dropped'
  | 'soft_hyphen'
  | 'zero_width'
  | 'dash'
  | 'quote_mark';

/** One place the quote and the source differ by one of the equivalences: the words around it, as each writes them. */
interface ArtifactDifference {
  kind: ArtifactKind;
  quote: string;
  source: string;
  /** The invisible characters found there (soft hyphens, zero-width characters), as U+XXXX. */
  chars?: string[];
}

const SOFT_HYPHEN = /\u00AD/;
const SOFT_HYPHENS = /\u00AD/g;
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/;
const ZERO_WIDTHS = /[\u200B-\u200D\u2060\uFEFF]/g;
/** Every dash normalize() makes "-" (docs/how-it-decides.md#normalization-and-the-label), and "-" itself. */
const DASH = /[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D-]/;
const SPACE = new RegExp(`[${SPACE_CLASS}]`);
const SPACES = new RegExp(`[${SPACE_CLASS}]+`, 'g');
const QUOTE_MARK = new RegExp(`[${QUOTE_MARKS}]`);

/** Whether canon() drops the character: whitespace, dashes, soft hyphens, zero-width characters. */
function ignorable(c: string): boolean {
  return SPACE.test(c) || DASH.test(c) || SOFT_HYPHEN.test(c) || ZERO_WIDTH.test(c);
}

/** canon() of an NFKC text, character by character, with where each canonical character came from. */
interface Mapped {
  text: string;
  /** For each UTF-16 unit of `text`, the offset of its character in the source string. */
  at: Int32Array;
}

/** canon() of one ASCII character, by its code: null when canon() drops it (whitespace, "-"). */
function canonAscii(code: number): string | null {
  if (code === 32 || code === 45 || (code >= 9 && code <= 13) || (code >= 0x1c && code <= 0x1f)) return null;
  if (code === 34 || code === 39 || code === 96) return '"';
  return String.fromCharCode(code >= 65 && code <= 90 ? code + 32 : code);
}

function canonMapped(s: string): Mapped {
  const parts: string[] = [];
  // Lowercasing can make two units of one (U+0130): room for that, cut to size at the end.
  let at = new Int32Array(s.length + 16);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    // Most characters are ASCII: mapped by their code, without unify()'s regular expressions (a page may be one long
    // line).
    let out = code < 128 ? canonAscii(code) : null;
    if (code >= 128) {
      // Curly quotes and dashes as normalize() makes them; lowercased one unit at a time, the same on both sides.
      const c = unify(s[i]!);
      if (!ignorable(c)) out = QUOTE_MARK.test(c) ? '"' : c.toLowerCase();
    }
    if (out === null) continue;
    parts.push(out);
    if (n + out.length > at.length) {
      const grown = new Int32Array(2 * at.length + out.length);
      grown.set(at);
      at = grown;
    }
    for (let k = 0; k < out.length; k++) at[n++] = i;
  }
  return { text: parts.join(''), at: at.subarray(0, n) };
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{M}\p{N}]/u.test(c);
const codePoints = (s: string): string[] => [
  ...new Set([...s].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)),
];

/** A gap's text with the invisible characters out, normalized and its whitespace runs one space. */
const bare = (s: string): string => unify(s.replace(SOFT_HYPHENS, '').replace(ZERO_WIDTHS, '')).replace(SPACES, ' ');

/**
 * What one gap between two canonical characters holds on each side, classified. Hyphenation is the line-end pattern
 * alone, between letters: a hyphen the source keeps before a line break or a space ("gen- erate"), or one it lacks
 * where extraction joined two lines ("mixedmode"); any other difference of dashes or hyphens is punctuation spelled
 * differently ("--" or " - " for an em dash, "e-mail" for "email").
 */
function classify(q: string, s: string, before: string | undefined, after: string | undefined): ArtifactKind[] {
  const kinds: ArtifactKind[] = [];
  if (SOFT_HYPHEN.test(q) || SOFT_HYPHEN.test(s)) kinds.push('soft_hyphen');
  if (ZERO_WIDTH.test(q) || ZERO_WIDTH.test(s)) kinds.push('zero_width');
  const q2 = bare(q);
  const s2 = bare(s);
  if (q2 === s2) return kinds;
  const words = isWordChar(before) && isWordChar(after);
  if (!DASH.test(q2) && !DASH.test(s2)) kinds.push(!words ? 'spacing' : q2.length > s2.length ? 'glued' : 'split');
  else if (words && (q2 === '' || q2 === '-') && s2 === '- ') kinds.push('hyphen_kept');
  else if (words && q2 === '' && s2 === '-' && /\n/.test(s)) kinds.push('hyphen_kept');
  else if (words && q2 === '-' && s2 === '') kinds.push('hyphen_dropped');
  else kinds.push('dash');
  return kinds;
}

/** Up to this many characters of a word on each side of a difference are shown. */
const WORD_CHARS = 30;

/** The words around `s[from, to)`: back to the whitespace before it, on to the whitespace after it. */
function around(s: string, from: number, to: number): string {
  let a = from;
  while (a > 0 && from - a < WORD_CHARS && !SPACE.test(s[a - 1]!)) a--;
  let b = to;
  while (b < s.length && b - to < WORD_CHARS && !SPACE.test(s[b]!)) b++;
  return s.slice(a, b).replace(SPACES, ' ').trim();
}

/** The quote and the window, canonical and mapped, and where the quote's canonical text starts in the window's. */
interface Alignment {
  q: string;
  w: string;
  qm: Mapped;
  wm: Mapped;
  at: number;
}

/**
 * The gap before the quote's canonical character i (i = its length: after the last) on each side. At the quote's edges
 * the source side is the run of ignorable characters next to the match, cut to as much as the quote has there: a
 * quote that starts at a word says nothing of what precedes it in the source.
 */
function gaps(a: Alignment, i: number): { q: [number, number]; s: [number, number] } {
  const { q, w, qm, wm, at } = a;
  const n = qm.text.length;
  const qFrom = i === 0 ? 0 : qm.at[i - 1]! + 1;
  const qTo = i === n ? q.length : qm.at[i]!;
  let sFrom = i === 0 ? wm.at[at]! : wm.at[at + i - 1]! + 1;
  let sTo = i === n ? sFrom : wm.at[at + i]!;
  if (i === 0) while (sFrom > 0 && ignorable(w[sFrom - 1]!) && sTo - sFrom < qTo - qFrom) sFrom--;
  if (i === n) while (sTo < w.length && ignorable(w[sTo]!) && sTo - sFrom < qTo - qFrom) sTo++;
  return { q: [qFrom, qTo], s: [sFrom, sTo] };
}

/** The differences in one gap (and at the canonical character after it, a quotation mark spelled otherwise). */
function differencesAt(a: Alignment, i: number): ArtifactDifference[] {
  const { q, w, qm, wm, at } = a;
  const g = gaps(a, i);
  const qs = q.slice(...g.q);
  const ss = w.slice(...g.s);
  const edge = i === 0 || i === qm.text.length;
  const found: ArtifactDifference[] = [];
  if (!(edge && qs === '')) {
    for (const kind of classify(qs, ss, q[g.q[0] - 1], q[g.q[1]])) {
      const invisible =
        kind === 'soft_hyphen'
          ? `${qs}${ss}`.match(SOFT_HYPHENS)
          : kind === 'zero_width'
            ? `${qs}${ss}`.match(ZERO_WIDTHS)
            : null;
      // An invisible character is shown by the word it sits in; any other difference by the words on both sides of it.
      const hidden = invisible ? g.s[0] + ss.search(kind === 'soft_hyphen' ? SOFT_HYPHEN : ZERO_WIDTH) : -1;
      found.push({
        kind,
        quote: around(q, ...g.q),
        source: hidden >= g.s[0] ? around(w, hidden, hidden + 1) : around(w, ...g.s),
        ...(invisible ? { chars: codePoints(invisible.join('')) } : {}),
      });
    }
  }
  if (i < qm.text.length && qm.text[i] === '"') {
    const qc = q[qm.at[i]!]!;
    const sc = w[wm.at[at + i]!]!;
    if (unify(qc) !== unify(sc)) found.push({ kind: 'quote_mark', quote: qc, source: sc });
  }
  return found;
}

/**
 * Each place the quote differs from the source window by an equivalence canon() applies, in the quote's order; null
 * when the quote's canonical text is not in the window's.
 */
export function artifactDifferences(rawQuote: string, rawWindow: string): ArtifactDifference[] | null {
  const q = rawQuote.normalize('NFKC').trim();
  const w = rawWindow.normalize('NFKC');
  const qm = canonMapped(q);
  const wm = canonMapped(w);
  const at = qm.text.length ? wm.text.indexOf(qm.text) : -1;
  if (at === -1) return null;
  const a: Alignment = { q, w, qm, wm, at };
  const found: ArtifactDifference[] = [];
  for (let i = 0; i <= qm.text.length; i++) found.push(...differencesAt(a, i));
  return found;
}

/** Invisible characters shown by what they are, so that a note can be read. */
const visible = (s: string): string => s.replace(SOFT_HYPHENS, '').replace(ZERO_WIDTHS, '');

/** Kinds counted by the words they are in (a word may hold several), not by place. */
const INVISIBLE: readonly ArtifactKind[] = ['soft_hyphen', 'zero_width'];

/** Each kind's name in a note, by how many places (or words) it has. */
const WHAT: Record<ArtifactKind, (n: number) => string> = {
  glued: () => 'words extraction glued',
  split: (n) => `${n > 1 ? 'words' : 'a word'} extraction split`,
  spacing: () => 'different spacing around punctuation',
  hyphen_kept: (n) => `${n > 1 ? 'hyphens' : 'a hyphen'} kept at a line end`,
  hyphen_dropped: (n) =>
    `${n > 1 ? 'hyphens' : 'a hyphen'} the source lacks, as where extraction joins a line ending in one`,
  soft_hyphen: () => 'soft hyphens, invisible on the page',
  zero_width: () => 'zero-width characters, invisible on the page',
  dash: (n) => `${n > 1 ? 'dashes or hyphens' : 'a dash or hyphen'} spelled differently: punctuation, not extraction`,
  quote_mark: () => 'other quotation marks: punctuation, not extraction',
};

/**
 * The first place of a kind, in the quote's and the source's wording (the invisible kinds: which characters, in which
 * word).
 */
function example(d: ArtifactDifference, chars: string): string {
  if (INVISIBLE.includes(d.kind)) return `${chars} in "${visible(d.source)}"`;
  if (d.kind === 'quote_mark') return `${d.quote} in the quote, ${d.source} in the source`;
  if (d.kind === 'dash' || d.kind === 'spacing') return `"${d.quote}" in the quote, "${d.source}" in the source`;
  return `"${d.source}" for the quote's "${d.quote}"`;
}

/** The note's clause for one kind of difference, from its places: the first shown, and how many there are. */
function clause(of: readonly ArtifactDifference[]): string {
  const d = of[0]!;
  const invisible = INVISIBLE.includes(d.kind);
  const n = invisible ? new Set(of.map((x) => x.source)).size : of.length;
  const chars = [...new Set(of.flatMap((x) => x.chars ?? []))].join(' ');
  const first = n > 1 ? `${n} ${invisible ? 'words' : 'places'}; the first: ` : '';
  return `${WHAT[d.kind](n)} (${first}${example(d, chars)})`;
}

/** The kinds in the order a note names them: what extraction does first, then the quote's own punctuation. */
const ORDER: readonly ArtifactKind[] = [
  'glued',
  'split',
  'spacing',
  'hyphen_kept',
  'hyphen_dropped',
  'soft_hyphen',
  'zero_width',
  'dash',
  'quote_mark',
];

/** "words extraction glued ("ofthe" for the quote's "of the"); a dash or hyphen spelled differently: ..." */
export function describeDifferences(found: readonly ArtifactDifference[]): string {
  return ORDER.flatMap((kind) => {
    const of = found.filter((d) => d.kind === kind);
    return of.length ? [clause(of)] : [];
  }).join('; ');
}
