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

/** One token of a view: where it is in the raw text, and where its normalized form is in the normalized text. */
interface Token {
  rawStart: number;
  rawEnd: number;
  normStart: number;
  normEnd: number;
}

/**
 * Every CHECKPOINT_TOKENS-th token of a view, where it starts in the raw and the normalized text: enough to find any
 * token again by reading at most that many tokens from the checkpoint before it. Kept in 8 bytes a checkpoint, where
 * a map of every token took 16 bytes a token: some 80 MB for a 30 MB page (Issue 46).
 */
interface TokenMap {
  raw: Int32Array;
  norm: Int32Array;
  /** Tokens in the view. */
  tokens: number;
}

const CHECKPOINT_TOKENS = 64;

const tokenMaps = new WeakMap<TextView, TokenMap | null>();

/** A list of whole numbers in an Int32Array that doubles as it fills. */
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
 * The tokens of `raw` from offset `from`, whose first one's normalized form starts at `pos` of `normalized`: each with
 * its place in both texts, a token whose normalized form is empty skipped, one space between the others. Stops at the
 * first token whose normalized form is not where it should be in `normalized` (then `same` is false).
 */
function* tokensFrom(raw: string, normalized: string, from: number, pos: number, state: { same: boolean }) {
  const re = new RegExp(TOKEN.source, 'g');
  re.lastIndex = from;
  let first = true;
  for (let m = re.exec(raw); m; m = re.exec(raw)) {
    const n = normalize(m[0]);
    if (n === '') continue;
    if (!first) {
      // The single space between tokens.
      state.same = normalized.charCodeAt(pos) === 0x20;
      pos += 1;
    }
    first = false;
    state.same &&= normalized.startsWith(n, pos);
    if (!state.same) return;
    const token: Token = { rawStart: m.index, rawEnd: m.index + m[0].length, normStart: pos, normEnd: pos + n.length };
    pos = token.normEnd;
    yield token;
  }
}

/**
 * Maps a view's raw text to its normalized text token by token; null if normalizing token by token does not give the
 * view's normalized text (then offsets cannot be mapped back). Each token's normalized form is compared in place with
 * the normalized text, not joined into a copy of it.
 */
function tokenMap(view: TextView, normalized: string): TokenMap | null {
  if (tokenMaps.has(view)) return tokenMaps.get(view)!;
  const [raw, norm] = [new IntList(), new IntList()];
  const state = { same: true };
  let tokens = 0;
  let end = 0;
  for (const t of tokensFrom(view.text, normalized, 0, 0, state)) {
    if (tokens % CHECKPOINT_TOKENS === 0) {
      raw.push(t.rawStart);
      norm.push(t.normStart);
    }
    tokens++;
    end = t.normEnd;
  }
  const map = state.same && end === normalized.length ? { raw: raw.done(), norm: norm.done(), tokens } : null;
  tokenMaps.set(view, map);
  return map;
}

/**
 * The last token whose normalized form starts at or before `at` (the first token when none does): from the last
 * checkpoint at or before it, the tokens read on until the next one starts past it.
 */
function tokenAt(map: TokenMap, view: TextView, normalized: string, at: number): Token {
  let lo = 0;
  let hi = map.norm.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (map.norm[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  let found: Token | undefined;
  for (const t of tokensFrom(view.text, normalized, map.raw[lo]!, map.norm[lo]!, { same: true })) {
    if (found && t.normStart > at) break;
    found = t;
  }
  return found!;
}

/** Raw offset of a normalized offset: exact at token edges, proportional inside a token whose length changed. */
function rawOffset(map: TokenMap, view: TextView, normalized: string, offset: number, isEnd: boolean): number {
  const {
    normStart: ns,
    normEnd: ne,
    rawStart: rs,
    rawEnd: re,
  } = tokenAt(map, view, normalized, offset - (isEnd ? 1 : 0));
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
  if (!map || map.tokens === 0) {
    return {
      type: 'TextQuoteSelector',
      exact: match.exact,
      prefix: match.prefix.slice(-SELECTOR_CONTEXT),
      suffix: match.suffix.slice(0, SELECTOR_CONTEXT),
    };
  }
  const start = rawOffset(map, view, normalized, match.offset, false);
  const end = rawOffset(map, view, normalized, match.offset + match.exact.length, true);
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
  if (!map || map.tokens === 0 || end <= start) return null;
  const raw = widenToWords(
    view.text,
    rawOffset(map, view, normalized, start, false),
    rawOffset(map, view, normalized, end, true),
  );
  return view.text.slice(raw.start, raw.end).replace(SPACE_RUN, ' ').trim();
}
