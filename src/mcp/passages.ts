// search_source's passages: the places of a source closest to a phrase, each given as the sentences around it, distinct
// across views, best first.
import { alignWhole, nearestSpan } from '../diagnose/align.js';
import { collectGarbage } from '../extract/collect.js';
import { widenToWords } from '../match.js';

/** A passage of one view's normalized text, and the span in it closest to the phrase. */
export interface Passage {
  /** Index of the view (in the order given: the preferred view first). */
  view: number;
  start: number;
  end: number;
  /**
   * The sentences that hold the span: what makes a passage a place of its own (the sentences beside them are context).
   */
  coreStart: number;
  coreEnd: number;
  spanStart: number;
  spanEnd: number;
  /** 1 - edit distance / phrase length, of the span. */
  similarity: number;
}

/** The most a passage reaches past its span on each side: a long sentence is cut there, at a word. */
const MAX_SIDE_CHARS = 300;
/** A passage shorter than this takes in the sentences beside it: a three-word sentence says little on its own. */
const MIN_PASSAGE_CHARS = 80;
/**
 * Stretches of text without a sentence end are scored in pieces about this long (a table, a list, a PDF's running
 * text).
 */
const PIECE_CHARS = 2 * MAX_SIDE_CHARS;
/** Context either side of a span that makes two passages of different views the same place. */
const SAME_PLACE_CHARS = 60;
/**
 * A view this long or longer has the garbage of each alignment pass collected before the next: a masked copy of a
 * 30 MB page's text is 30 to 60 MB, and V8 let ten of them pile up (Issue 46).
 */
const COLLECT_EACH_PASS_CHARS = 8 * 1024 * 1024;
/** Candidate sentences aligned in full for each passage still wanted, once alignment has found all it can. */
const CANDIDATES_PER_PASSAGE = 3;

/**
 * A sentence end in normalized text (one space between words): a stop, then any closing quotes or brackets, then a
 * space or the end.
 */
const TERMINATOR = /[.!?]["')\]]*(?= |$)/g;
/** Words a stop follows without ending a sentence (normalized text is lower case). */
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms dr prof st jr sr gen gov sen rep rev col lt capt sgt no vol fig pp ch sec jan feb mar apr jun jul aug ' +
    'sep sept oct nov dec inc co corp ltd vs etc al approx est dept univ'
  ).split(' '),
);
const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Whether the stop at `at` ends a sentence: not after an initial ("j. smith"), an abbreviation ("mr.") or a dotted one
 * ("u.s.").
 */
function endsSentence(text: string, at: number): boolean {
  if (text[at] !== '.') return true;
  let a = at;
  while (a > 0 && /[\p{L}\p{N}.]/u.test(text[a - 1]!)) a--;
  const word = text.slice(a, at);
  return !(word.includes('.') || ABBREVIATIONS.has(word) || (word.length === 1 && /\p{L}/u.test(word)));
}

/** Where the sentence holding `pos` starts, looking back at most MAX_SIDE_CHARS (then at a word start). */
function sentenceStart(text: string, pos: number): number {
  const from = Math.max(0, pos - MAX_SIDE_CHARS);
  let start = -1;
  TERMINATOR.lastIndex = from;
  for (let m = TERMINATOR.exec(text); m && m.index + m[0].length < pos; m = TERMINATOR.exec(text)) {
    if (endsSentence(text, m.index)) start = m.index + m[0].length + 1;
  }
  if (start >= 0) return Math.min(start, pos);
  if (from === 0) return 0;
  const space = text.indexOf(' ', from);
  return space === -1 || space >= pos ? from : space + 1;
}

/**
 * Where the sentence holding the character before `pos` ends, looking on at most MAX_SIDE_CHARS (then at a word end).
 */
function sentenceEnd(text: string, pos: number): number {
  const to = Math.min(text.length, pos + MAX_SIDE_CHARS);
  TERMINATOR.lastIndex = Math.max(0, pos - 4);
  for (let m = TERMINATOR.exec(text); m && m.index < to; m = TERMINATOR.exec(text)) {
    if (m.index + m[0].length >= pos && endsSentence(text, m.index)) return m.index + m[0].length;
  }
  if (to === text.length) return to;
  const space = text.lastIndexOf(' ', to);
  return space <= pos ? to : space;
}

/**
 * The passage around a span: the whole sentences that hold it (its core), at most MAX_SIDE_CHARS past it on each side,
 * and the sentences beside them while it is shorter than MIN_PASSAGE_CHARS.
 */
function passageAround(
  text: string,
  spanStart: number,
  spanEnd: number,
): { start: number; end: number; coreStart: number; coreEnd: number } {
  const coreStart = sentenceStart(text, spanStart);
  const coreEnd = sentenceEnd(text, spanEnd);
  let [start, end] = [coreStart, coreEnd];
  for (let grown = true; grown && end - start < MIN_PASSAGE_CHARS; ) {
    grown = false;
    const next = end + 1 < text.length ? sentenceEnd(text, end + 2) : end;
    if (next > end && next - spanEnd <= MAX_SIDE_CHARS) [end, grown] = [next, true];
    const before = start > 1 ? sentenceStart(text, start - 2) : start;
    if (end - start < MIN_PASSAGE_CHARS && before < start && spanStart - before <= MAX_SIDE_CHARS)
      [start, grown] = [before, true];
  }
  return { start, end, coreStart, coreEnd };
}

/** Two passages of one view whose cores overlap. */
const sameCore = (a: Passage, b: Passage): boolean => a.coreStart < b.coreEnd && b.coreStart < a.coreEnd;

/**
 * The same place: in one view, cores that overlap; in two, the text around one's span (within its core) inside the
 * other's passage (the article's passages are in the full page too, with other sentences beside them).
 */
function samePlace(a: Passage, b: Passage, texts: readonly string[]): boolean {
  if (a.view === b.view) return sameCore(a, b);
  const near = (p: Passage) =>
    texts[p.view]!.slice(
      Math.max(p.coreStart, p.spanStart - SAME_PLACE_CHARS),
      Math.min(p.coreEnd, p.spanEnd + SAME_PLACE_CHARS),
    );
  const whole = (p: Passage) => texts[p.view]!.slice(p.start, p.end);
  return whole(b).includes(near(a)) || whole(a).includes(near(b));
}

/** A passage for a span of view `view`, widened to whole words. */
function passageOf(view: number, text: string, span: { start: number; end: number; similarity: number }): Passage {
  const w = widenToWords(text, span.start, span.end);
  const p = passageAround(text, w.start, w.end);
  return { view, ...p, spanStart: w.start, spanEnd: w.end, similarity: Number(span.similarity.toFixed(3)) };
}

/**
 * The closest spans of one view by the alignment the diagnosis uses, each passage blanked out before the next is
 * sought.
 */
function alignedPassages(query: string, view: number, text: string, max: number, signal?: AbortSignal): Passage[] {
  const found: Passage[] = [];
  let masked = text;
  for (let pass = 0; pass < 2 * max && found.length < max && !signal?.aborted; pass++) {
    const span = nearestSpan(query, masked);
    if (!span || span.end <= span.start || span.similarity <= 0) break;
    const p = passageOf(view, text, span);
    // The core is blanked out, not its context: the sentence beside it may be the next place.
    const from = Math.min(p.coreStart, span.start);
    const to = Math.max(p.coreEnd, span.end);
    masked = masked.slice(0, from) + '\u0000'.repeat(to - from) + masked.slice(to);
    // Each pass leaves a copy of the text behind: on a large page, the copies go before the next one is made.
    if (text.length >= COLLECT_EACH_PASS_CHARS) collectGarbage();
    if (!found.some((f) => sameCore(f, p))) found.push(p);
  }
  return found;
}

/**
 * The view cut into sentences, and stretches without a sentence end into pieces of about PIECE_CHARS, as [start, end)
 * pairs.
 */
function pieces(text: string): [number, number][] {
  const out: [number, number][] = [];
  const add = (start: number, end: number) => {
    for (let a = start; a < end; ) {
      let b = Math.min(end, a + PIECE_CHARS);
      if (b < end) b = Math.max(a + 1, text.lastIndexOf(' ', b) > a ? text.lastIndexOf(' ', b) : b);
      out.push([a, b]);
      a = b + (text[b] === ' ' ? 1 : 0);
    }
  };
  let start = 0;
  TERMINATOR.lastIndex = 0;
  for (let m = TERMINATOR.exec(text); m; m = TERMINATOR.exec(text)) {
    if (!endsSentence(text, m.index)) continue;
    add(start, m.index + m[0].length);
    start = m.index + m[0].length + 1;
  }
  add(start, text.length);
  return out;
}

/**
 * When alignment finds fewer places than asked for (it needs runs of characters the phrase shares), the sentences that
 * share the phrase's words, rarer words counting more (log(1 + sentences / sentences with the word)), each aligned
 * with the phrase whole: up to CANDIDATES_PER_PASSAGE for each passage still wanted.
 */
function wordPassages(query: string, view: number, text: string, want: number, signal?: AbortSignal): Passage[] {
  const all = [...new Set(query.match(WORD) ?? [])];
  const words = new Set(all.some((w) => w.length >= 3) ? all.filter((w) => w.length >= 3 || /\d/.test(w)) : all);
  if (words.size === 0 || want <= 0) return [];
  const cut = pieces(text);
  const has: Set<string>[] = cut.map(() => new Set());
  let at = 0;
  for (const m of text.matchAll(WORD)) {
    if (!words.has(m[0])) continue;
    while (at < cut.length - 1 && cut[at]![1] <= m.index) at++;
    has[at]!.add(m[0]);
  }
  if (signal?.aborted) return [];
  const df = new Map<string, number>();
  for (const set of has) for (const w of set) df.set(w, (df.get(w) ?? 0) + 1);
  const score = (set: Set<string>) => [...set].reduce((n, w) => n + Math.log(1 + cut.length / df.get(w)!), 0);
  const ranked = has
    .map((set, i) => ({ i, score: score(set) }))
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, CANDIDATES_PER_PASSAGE * want);
  return ranked.flatMap(({ i }) => {
    const [start, end] = cut[i]!;
    const span = alignWhole(query, text.slice(start, end));
    return span && span.similarity > 0
      ? [passageOf(view, text, { start: start + span.start, end: start + span.end, similarity: span.similarity })]
      : [];
  });
}

/**
 * Up to `max` distinct passages of the views (normalized texts, the preferred first) closest to the normalized phrase,
 * best first: the places alignment finds, then, while fewer than `max`, the sentences sharing the phrase's words.
 * A place found in several views is given once, from the first.
 */
export function searchPassages(query: string, texts: readonly string[], max: number, signal?: AbortSignal): Passage[] {
  const found: Passage[] = [];
  const add = (p: Passage) => {
    if (!found.some((f) => samePlace(f, p, texts))) found.push(p);
  };
  texts.forEach((text, view) => {
    for (const p of alignedPassages(query, view, text, max, signal)) add(p);
  });
  if (found.length < max) {
    texts.forEach((text, view) => {
      const candidates = wordPassages(query, view, text, max - found.length, signal).sort(
        (a, b) => b.similarity - a.similarity || a.start - b.start,
      );
      for (const p of candidates) add(p);
    });
  }
  return found.sort((a, b) => b.similarity - a.similarity || a.view - b.view || a.start - b.start).slice(0, max);
}
