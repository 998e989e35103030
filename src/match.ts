// Matching: the label is exactly "the normalized quote is a substring of a normalized view"
// (docs/how-it-decides.md#normalization-and-the-label).
import type { Extractor, TextView, ViewName } from './extract/index.js';
import { normalize, SPACE_CLASS } from './normalize.js';
import type { TextQuoteSelector } from './contract.js';
import type { HtmlViewChoice } from './config/settings.js';

export type { HtmlViewChoice } from './config/settings.js';

export interface NormalizedView {
  name: ViewName;
  extractor: Extractor;
  /** The view's text after normalize(). Offsets in reports index this string. */
  text: string;
}

export interface Match {
  view: ViewName;
  extractor: Extractor;
  /** Offset of the quote in the view's normalized text (UTF-16 code units). */
  offset: number;
  /** The normalized quote as found. */
  exact: string;
  /** Up to CONTEXT_CHARS of normalized text before and after the match. */
  prefix: string;
  suffix: string;
}

/** How much surrounding text a match carries as evidence, each side. */
const CONTEXT_CHARS = 80;

/** Normalizes every view once per source; each claim citing the source reuses them. */
export function normalizeViews(views: readonly TextView[]): NormalizedView[] {
  return views.map((v) => ({ name: v.name, extractor: v.extractor, text: v.normalized ?? normalize(v.text) }));
}

export function viewCounts(view: ViewName, choice: HtmlViewChoice): boolean {
  return view === 'text' || choice === 'any' || view === choice;
}

/**
 * Finds the normalized quote in the first view that contains it (article before full page).
 * Returns null when no eligible view contains it: the claim is `no_match`.
 */
export function findQuote(
  normalizedQuote: string,
  views: readonly NormalizedView[],
  choice: HtmlViewChoice = 'any',
): Match | null {
  if (normalizedQuote === '') return null;
  for (const view of views) {
    if (!viewCounts(view.name, choice)) continue;
    const offset = view.text.indexOf(normalizedQuote);
    if (offset === -1) continue;
    const end = offset + normalizedQuote.length;
    return {
      view: view.name,
      extractor: view.extractor,
      offset,
      exact: normalizedQuote,
      prefix: view.text.slice(Math.max(0, offset - CONTEXT_CHARS), offset),
      suffix: view.text.slice(end, end + CONTEXT_CHARS),
    };
  }
  return null;
}

/** A W3C Web Annotation TextQuoteSelector: lets annotation tools anchor the quote in the page. */
export type { TextQuoteSelector };

/** Context annotation tools use to disambiguate a selector (Hypothesis uses 32 characters). */
const SELECTOR_CONTEXT = 32;

/** Runs of non-whitespace, by the whitespace definition of docs/how-it-decides.md#normalization-and-the-label. */
const TOKEN = new RegExp(`[^${SPACE_CLASS}]+`, 'g');

/** Where each raw token's normalized form sits in the normalized text. */
interface TokenMap {
  rawStart: Int32Array;
  rawEnd: Int32Array;
  normStart: Int32Array;
  normEnd: Int32Array;
}

const tokenMaps = new WeakMap<TextView, TokenMap | null>();

/** A list of whole numbers in an Int32Array that doubles as it fills: a token map of a long page in 4 bytes a token. */
class IntList {
  #items = new Int32Array(1024);
  length = 0;

  push(n: number): void {
    if (this.length === this.#items.length) {
      const grown = new Int32Array(2 * this.#items.length);
      grown.set(this.#items);
      this.#items = grown;
    }
    this.#items[this.length++] = n;
  }

  /** The numbers pushed, in an array of their own length. */
  done(): Int32Array {
    return this.#items.slice(0, this.length);
  }
}

/**
 * Maps a view's raw text to its normalized text token by token; null if normalizing token
 * by token does not give the view's normalized text (then offsets cannot be mapped back).
 * Each token's normalized form is compared in place with the normalized text, not joined into a copy of it: on a page
 * of 30 MB the joined tokens and plain arrays held some 350 MB at once (Issue 37), typed arrays hold a quarter of it.
 */
function tokenMap(view: TextView, normalized: string): TokenMap | null {
  if (tokenMaps.has(view)) return tokenMaps.get(view)!;
  const [rawStart, rawEnd, normStart, normEnd] = [new IntList(), new IntList(), new IntList(), new IntList()];
  let pos = 0;
  let same = true;
  for (const m of view.text.matchAll(TOKEN)) {
    const n = normalize(m[0]);
    if (n === '') continue;
    if (normStart.length > 0) {
      // The single space between tokens.
      same = normalized.charCodeAt(pos) === 0x20;
      pos += 1;
    }
    same &&= normalized.startsWith(n, pos);
    if (!same) break;
    rawStart.push(m.index);
    rawEnd.push(m.index + m[0].length);
    normStart.push(pos);
    pos += n.length;
    normEnd.push(pos);
  }
  const map =
    same && pos === normalized.length
      ? { rawStart: rawStart.done(), rawEnd: rawEnd.done(), normStart: normStart.done(), normEnd: normEnd.done() }
      : null;
  tokenMaps.set(view, map);
  return map;
}

/** Raw offset of a normalized offset: exact at token edges, proportional inside a token whose length changed. */
function rawOffset(map: TokenMap, offset: number, isEnd: boolean): number {
  let lo = 0;
  let hi = map.normStart.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (map.normStart[mid]! <= offset - (isEnd ? 1 : 0)) lo = mid;
    else hi = mid - 1;
  }
  const ns = map.normStart[lo]!;
  const ne = map.normEnd[lo]!;
  const rs = map.rawStart[lo]!;
  const re = map.rawEnd[lo]!;
  if (offset >= ne) return re;
  if (offset <= ns) return rs;
  const rawLength = re - rs;
  const normLength = ne - ns;
  return rs + (rawLength === normLength ? offset - ns : Math.round(((offset - ns) * rawLength) / normLength));
}

/**
 * The match as a TextQuoteSelector over the view's raw text (the text as the page shows it),
 * falling back to the normalized text when the two cannot be aligned.
 */
export function textQuoteSelector(view: TextView, normalized: string, match: Match): TextQuoteSelector {
  const map = tokenMap(view, normalized);
  if (!map || map.normStart.length === 0) {
    return {
      type: 'TextQuoteSelector',
      exact: match.exact,
      prefix: match.prefix.slice(-SELECTOR_CONTEXT),
      suffix: match.suffix.slice(0, SELECTOR_CONTEXT),
    };
  }
  const start = rawOffset(map, match.offset, false);
  const end = rawOffset(map, match.offset + match.exact.length, true);
  const raw = view.text;
  return {
    type: 'TextQuoteSelector',
    exact: raw.slice(start, end),
    prefix: raw.slice(Math.max(0, start - SELECTOR_CONTEXT), start),
    suffix: raw.slice(end, end + SELECTOR_CONTEXT),
  };
}

/** Whitespace by docs/how-it-decides.md#normalization-and-the-label: where words end. */
const SPACE = new RegExp(`[${SPACE_CLASS}]`);
/** Scripts written without spaces: each character is a word, so a boundary next to one never cuts a word. */
const NO_SPACE_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
/** A run of whitespace, collapsed to one space in a span shown to people. */
const SPACE_RUN = new RegExp(`[${SPACE_CLASS}]+`, 'g');
/**
 * How far an edge of a span moves to reach the edge of the word it cuts. A longer run without
 * spaces (words pdftotext glued together, a URL) is cut where the span ends: widening to its edges
 * would show a paragraph for a sentence.
 */
export const MAX_WIDEN = 40;

/** Whether offset `i` of `text` falls inside a word (or between the halves of a surrogate pair). */
function cutsWord(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const after = text.charCodeAt(i);
  if (after >= 0xdc00 && after <= 0xdfff && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff)
    return true;
  const before = String.fromCodePoint(text.codePointAt(i - 1 - (isLowSurrogate(text, i - 1) ? 1 : 0))!);
  const next = String.fromCodePoint(text.codePointAt(i)!);
  return !SPACE.test(before) && !SPACE.test(next) && !NO_SPACE_SCRIPT.test(before) && !NO_SPACE_SCRIPT.test(next);
}

function isLowSurrogate(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return i > 0 && c >= 0xdc00 && c <= 0xdfff && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff;
}

/**
 * `[start, end)` of `text` without whitespace at its ends and widened to whole words: an
 * alignment works on characters and may start or end inside a word, which a reader should never
 * see. Each edge moves at most MAX_WIDEN characters.
 */
export function widenToWords(text: string, start: number, end: number): { start: number; end: number } {
  let s = Math.max(0, start);
  let e = Math.min(text.length, end);
  while (s < e && SPACE.test(text[s]!)) s++;
  while (e > s && SPACE.test(text[e - 1]!)) e--;
  let ws = s;
  while (cutsWord(text, ws) && s - ws < MAX_WIDEN) ws--;
  let we = e;
  while (cutsWord(text, we) && we - e < MAX_WIDEN) we++;
  return { start: cutsWord(text, ws) ? s : ws, end: cutsWord(text, we) ? e : we };
}

/**
 * A span of a view's normalized text in the page's own wording: mapped back to the view's raw
 * text token by token (as textQuoteSelector maps a match), widened to whole words, whitespace runs
 * collapsed to one space. Null when the raw and normalized texts cannot be aligned token by token.
 */
export function rawSpan(view: TextView, normalized: string, start: number, end: number): string | null {
  const map = tokenMap(view, normalized);
  if (!map || map.normStart.length === 0 || end <= start) return null;
  const raw = widenToWords(view.text, rawOffset(map, start, false), rawOffset(map, end, true));
  return view.text.slice(raw.start, raw.end).replace(SPACE_RUN, ' ').trim();
}
