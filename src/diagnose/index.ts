// Diagnosis (docs/how-it-decides.md#diagnosis-why-no_match): why a claim got its label, with evidence; it never changes
// the label.
import type { Diagnosis, Label } from '../contract.js';
import type { SourceRecord } from '../source-record.js';
import { rawSpan, viewCounts, widenToWords, type HtmlViewChoice, type Match, type NormalizedView } from '../match.js';
import { MAX_QUOTE, nearestSpan } from './align.js';
import { wordDiff, type DiffRun } from './diff.js';
import { canon, canonText, findInterrupted, type CanonText } from './canon.js';
import { artifactDifferences, describeDifferences } from './artifact.js';
import { detectShell, type Shell } from './shells.js';

export { DIAGNOSES, type Diagnosis } from '../contract.js';

export type { DiffOp, DiffRun } from './diff.js';

/**
 * The closest span of the source to a quote that is not in it (docs/how-it-decides.md#the-evidence-report `nearest`).
 */
export interface Nearest {
  /** The span in the view's normalized text, whole words (never cut mid-word). */
  text: string;
  /**
   * The same span in the page's own wording (case, curly quotes, dashes as the page writes them;
   * whitespace runs as one space), mapped back from the normalized text; the normalized text when
   * the two cannot be aligned.
   */
  raw: string;
  /**
   * The quote against the span, word by word: equal, missing (only in the quote) and extra (only in the source) runs.
   */
  diff: DiffRun[];
  /** 1 - edit distance / quote length: 1 is identical. */
  similarity: number;
  view: NormalizedView['name'];
  /** Offset of the span in the view's normalized text. */
  offset: number;
}

export interface DiagnosisResult {
  diagnosis: Diagnosis;
  note?: string;
  nearest?: Nearest | null;
}

export interface DiagnosisInput {
  label: Label;
  /** The normalized quote. */
  quote: string;
  /** The quote as given, for the missing words of `nearest.diff` (the normalized quote when absent). */
  rawQuote?: string;
  source: SourceRecord;
  match: Match | null;
  htmlView?: HtmlViewChoice;
}

/**
 * Thresholds, chosen on golden/diagnosis (see docs/how-it-decides.md, "Diagnosis"): a misquote (a changed
 * number, a swapped or dropped word) keeps at least NEAR_MISS_WORDS of the quote's words in
 * order and NEAR_MISS_CHARS of its characters; a fabricated sentence on the same topic keeps
 * well under half.
 */
const NEAR_MISS_WORDS = 0.7;
const NEAR_MISS_CHARS = 0.6;
/**
 * A quote whose first or last words (at least PARTIAL_MIN_WORDS, and PARTIAL_SHARE of them) are in the source, while
 * the rest is not close.
 */
const PARTIAL_MIN_WORDS = 6;
/** Words a long quote may differ by in its middle and still be a near miss. */
const LONG_QUOTE_CHANGED_WORDS = 3;
const PARTIAL_SHARE = 0.35;

/** What diagnosis computes once per source and reuses for every claim that cites it. */
interface SourceCache {
  canon: Map<NormalizedView['name'], CanonText>;
  shell?: Shell | null;
}
const caches = new WeakMap<SourceRecord, SourceCache>();

/**
 * Drops what the diagnosis computed for a source, once every claim citing it is decided. The run
 * keeps its source records to the end; their canonical texts (an object per line) would otherwise
 * stay too, and every garbage collection would walk them again (on the bench, a third of a second).
 */
export function forgetSource(source: SourceRecord): void {
  caches.delete(source);
}

function cacheFor(source: SourceRecord): SourceCache {
  let c = caches.get(source);
  if (!c) {
    c = { canon: new Map() };
    caches.set(source, c);
  }
  return c;
}

function canonOf(source: SourceRecord, view: NormalizedView['name']): CanonText {
  const cache = cacheFor(source);
  let ct = cache.canon.get(view);
  if (!ct) {
    const raw = source.text?.views.find((v) => v.name === view)?.text ?? '';
    ct = canonText(raw);
    cache.canon.set(view, ct);
  }
  return ct;
}

/**
 * Shell detection reads what the source record holds: an extracted page's markup signals (read in the
 * extraction worker) and full view, or the signals and text of an HTML page that is not the document (an
 * error page, or a page extraction found empty), read by toSourceRecord.
 */
function shellOf(source: SourceRecord): Shell | null {
  const cache = cacheFor(source);
  if (cache.shell !== undefined) return cache.shell;
  const { fetch, text, views, errorPage } = source;
  const full = views?.find((v) => v.name === 'full')?.text ?? views?.[0]?.text;
  cache.shell = detectShell({
    status: fetch.status,
    headers: fetch.headers,
    markup: text?.markup ?? errorPage?.markup,
    text: full ?? errorPage?.text,
    url: fetch.finalUrl ?? source.url,
  });
  return cache.shell;
}

/**
 * Where a source sends its reader, when it is a redirect shell: a page with too little text to be the document
 * that names another URL in a meta refresh or a one-line script (docs/how-it-decides.md#diagnosis-why-no_match
 * `empty`). Null for any other page. `verify` checks the quote there too; the run never fetches it (the label is the
 * test on the fetched page).
 */
export function redirectShell(source: SourceRecord): { target: string; via: 'meta refresh' | 'script' } | null {
  if (!source.fetch.ok || (source.extractError && source.extractError.kind !== 'empty')) return null;
  const shell = shellOf(source);
  return shell?.kind === 'redirect' && shell.strong && shell.redirect ? shell.redirect : null;
}

/** How notes name a view. */
export const VIEW_NAMES: Record<NormalizedView['name'], string> = {
  article: 'article text',
  full: 'full page text',
  text: 'extracted text',
};

function describeShell(shell: Shell): string {
  if (shell.kind === 'redirect')
    return `the page is a redirect shell (${shell.evidence}): the document is at its target`;
  const what = {
    bot_check: 'a bot check',
    login: 'a login wall',
    subscription: 'a subscription wall',
    consent: 'a consent wall',
    js_shell: 'a JavaScript-only shell',
  }[shell.kind as Exclude<Shell['kind'], 'redirect'>];
  return `the response is ${what} (${shell.evidence})`;
}

/** Ellipsis marks that splice a quote: "...", "[...]", "(...)", ". . ." (after NFKC, "…" is "..."). */
const ELLIPSIS = /\s*(?:\[\s*\.\.\.\s*\]|\(\s*\.\.\.\s*\)|\.\s\.\s\.|\.\.\.+)\s*/;

/**
 * Word tokens for comparing a quote with a span: runs of letters, marks and digits, so that
 * punctuation and typography ("budget" in quotes, "tuesday-after") do not count as changed
 * words. Scripts written without spaces (Chinese, Japanese) count each character as a word,
 * or a whole sentence would be one "word".
 */
const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{M}\p{N}]+/gu;

function words(s: string): string[] {
  return s.match(WORD) ?? [];
}

/** Start and end offsets of each word token of `s`. */
function wordBounds(s: string): { start: number; end: number }[] {
  return [...s.matchAll(WORD)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/** Length of the longest common subsequence of two word lists (the words a span keeps, in order). */
function commonWords(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Uint16Array(b.length + 1);
  let cur = new Uint16Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/**
 * How many of the quote's first (or last) words occur together in the text (binary search: the property is monotone).
 */
function coveredWords(quote: string, texts: readonly string[], fromEnd: boolean): number {
  const bounds = wordBounds(quote);
  const found = (n: number) => {
    const piece = fromEnd ? quote.slice(bounds[bounds.length - n]!.start) : quote.slice(0, bounds[n - 1]!.end);
    return texts.some((t) => t.includes(piece));
  };
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (found(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function clip(s: string, n = 160): string {
  return s.length > n ? `${s.slice(0, n - 3)}...` : s;
}

/**
 * The raw lines of a canonical text that hold its characters [from, to), with a line either side (what precedes and
 * follows the quote).
 */
function rawWindow(ct: CanonText, from: number, to: number): string {
  let lo = 0;
  let hi = ct.lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ct.lines[mid]!.end > from) hi = mid;
    else lo = mid + 1;
  }
  let last = lo;
  while (last + 1 < ct.lines.length && ct.lines[last + 1]!.start < to) last++;
  return ct.lines
    .slice(Math.max(0, lo - 1), last + 2)
    .map((l) => l.raw)
    .join('\n');
}

/**
 * The note of a quote found once canon() overlooks what extraction changes: which of its equivalences made the match,
 * each with its first place in the quote's and the source's own wording. A quote that differs only by its punctuation
 * ("--" or " - " for an em dash, guillemets for quotation marks) is still an extraction_artifact:
 * docs/how-it-decides.md#diagnosis-why-no_match keeps near_miss for words changed, added or dropped (a misquote), and
 * this quote's words are all the passage's, in order; what sets it apart is typography, as with the artifacts, so the
 * code says "the passage is there" and the note says that the difference is the quote's punctuation, not extraction.
 */
function artifactNote(view: NormalizedView['name'], rawQuote: string, ct: CanonText, canonQuote: string): string {
  const at = ct.text.indexOf(canonQuote);
  const found = artifactDifferences(rawQuote, rawWindow(ct, at, at + canonQuote.length));
  if (found && found.length > 0) return `in the ${VIEW_NAMES[view]}, except for ${describeDifferences(found)}`;
  // The window's text did not pair up with the line-by-line canonical text (a rare normalization at a line break).
  return (
    `in the ${VIEW_NAMES[view]} once whitespace, dashes, hyphens, soft hyphens, zero-width characters and ` +
    `quotation marks are overlooked`
  );
}

/** Diagnoses a claim that has text to compare against but did not match. */
function diagnoseText(quote: string, rawQuote: string, source: SourceRecord, views: NormalizedView[]): DiagnosisResult {
  const shell = shellOf(source);
  if (shell?.strong) {
    // No document text: a script-built shell, or a redirect shell (the document is at its target).
    return {
      diagnosis: shell.kind === 'js_shell' || shell.kind === 'redirect' ? 'empty' : 'paywall',
      note: describeShell(shell),
      nearest: null,
    };
  }

  const early = artifactDiagnosis(quote, rawQuote, source, views) ?? ellipsisDiagnosis(quote, rawQuote, source, views);
  if (early) return early;

  const texts = views.map((v) => v.text);
  const nearest = nearestIn(quote, rawQuote, source, views);
  const ws = words(quote);
  const kept = nearest ? commonWords(ws, words(nearest.text)) / ws.length : 0;
  const head = coveredWords(quote, texts, false);
  const tail = coveredWords(quote, texts, true);
  const ends = Math.max(head, tail);
  const similarity = nearest?.similarity ?? 0;

  // A quote too long to align whole (the alignment sees its first MAX_QUOTE characters): when
  // its first and last words cover all but a few, what differs is a small change in the middle.
  if (quote.length > MAX_QUOTE && head + tail >= ws.length - LONG_QUOTE_CHANGED_WORDS && head > 0 && tail > 0) {
    return {
      diagnosis: 'near_miss',
      note:
        `a long quote: its first ${head} and last ${tail} of ${ws.length} words are in the source; the words ` +
        `between differ`,
      nearest,
    };
  }
  if (nearest && kept >= NEAR_MISS_WORDS && similarity >= NEAR_MISS_CHARS) {
    return {
      diagnosis: 'near_miss',
      note: `a close span keeps ${Math.round(kept * 100)}% of the quote's words: words changed, added or dropped`,
      nearest,
    };
  }
  if (ends >= PARTIAL_MIN_WORDS && ends >= PARTIAL_SHARE * ws.length) {
    const where = head >= tail ? `its first ${head}` : `its last ${tail}`;
    return {
      diagnosis: 'partial',
      note: `only part of the quote is in the source: ${where} of ${ws.length} words`,
      nearest,
    };
  }
  if (shell) {
    return {
      diagnosis: 'paywall',
      note: `${describeShell(shell)}; the quote may be in the part it withholds`,
      nearest,
    };
  }
  return {
    diagnosis: 'not_found',
    note: nearest
      ? `nothing close: the nearest span keeps ${Math.round(kept * 100)}% of the quote's words`
      : 'nothing close in the source',
    nearest,
  };
}

/** What interrupted a quote in the page's text: one line of page furniture, or several. */
function furniture(lines: number): string {
  return lines === 1 ? 'a page header, footer, footnote or line numbers' : `${lines} lines of page furniture`;
}

/** The quote is in the source's text once extraction's artifacts are undone (canonical text, page furniture). */
function artifactDiagnosis(
  quote: string,
  rawQuote: string,
  source: SourceRecord,
  views: NormalizedView[],
): DiagnosisResult | null {
  const canonQuote = canon(quote);
  for (const view of views) {
    const ct = canonOf(source, view.name);
    if (canonQuote.length > 0 && ct.text.includes(canonQuote)) {
      return {
        diagnosis: 'extraction_artifact',
        note: artifactNote(view.name, rawQuote, ct, canonQuote),
        nearest: nearestIn(quote, rawQuote, source, views),
      };
    }
  }
  for (const view of views) {
    const found = findInterrupted(canonQuote, canonOf(source, view.name));
    if (found) {
      return {
        diagnosis: 'extraction_artifact',
        note:
          `in the ${VIEW_NAMES[view.name]}, interrupted by ${furniture(found.gaps.length)}: ` +
          clip(found.gaps.join(' | ')),
        nearest: nearestIn(quote, rawQuote, source, views),
      };
    }
  }
  return null;
}

/** A quote with an ellipsis whose pieces are in the source, but not as one passage. */
function ellipsisDiagnosis(
  quote: string,
  rawQuote: string,
  source: SourceRecord,
  views: NormalizedView[],
): DiagnosisResult | null {
  const texts = views.map((v) => v.text);
  const canonTexts = views.map((v) => canonOf(source, v.name).text);
  const pieces = quote
    .split(ELLIPSIS)
    .map((p) => p.trim())
    .filter((p) => words(p).length > 0);
  if (ELLIPSIS.test(quote) && pieces.length > 0) {
    const found = pieces.filter(
      (p) => texts.some((t) => t.includes(p)) || canonTexts.some((t) => t.includes(canon(p))),
    );
    if (found.length > 0) {
      const note =
        found.length === pieces.length
          ? `each of the ${pieces.length} piece(s) around the ellipsis is in the source, but not as one passage`
          : `${found.length} of ${pieces.length} pieces around the ellipsis are in the source`;
      return { diagnosis: 'partial', note, nearest: nearestIn(quote, rawQuote, source, views) };
    }
  }
  return null;
}

/**
 * The closest span over all eligible views, widened to whole words, with the page's own wording
 * and the word diff of the quote against it.
 */
function nearestIn(
  quote: string,
  rawQuote: string,
  source: SourceRecord,
  views: readonly NormalizedView[],
): Nearest | null {
  let best: { view: NormalizedView; start: number; end: number; similarity: number } | null = null;
  for (const view of views) {
    const span = nearestSpan(quote, view.text);
    if (span && (!best || span.similarity > best.similarity))
      best = { view, start: span.start, end: span.end, similarity: span.similarity };
  }
  if (!best) return null;
  const { view } = best;
  const { start, end } = widenToWords(view.text, best.start, best.end);
  const text = view.text.slice(start, end);
  const rawView = source.text?.views.find((v) => v.name === view.name);
  const raw = (rawView && rawSpan(rawView, view.text, start, end)) ?? text;
  return {
    text,
    raw,
    diff: wordDiff(rawQuote, raw),
    similarity: Number(best.similarity.toFixed(3)),
    view: view.name,
    offset: start,
  };
}

/**
 * The note of a page with no text to match that is a shell: a redirect shell (where its document is) or one built by
 * scripts (what the markup shows), rather than "the document has no text".
 */
function shellNote(source: SourceRecord): string | undefined {
  if (redirectShell(source)) return describeShell(shellOf(source)!);
  if (!source.fetch.ok || (source.extractError && source.extractError.kind !== 'empty')) return undefined;
  const shell = shellOf(source);
  return shell?.kind === 'js_shell' && shell.strong ? describeShell(shell) : undefined;
}

export function diagnose({ label, quote, rawQuote, source, match, htmlView = 'any' }: DiagnosisInput): DiagnosisResult {
  if (label === 'verbatim' && match) return { diagnosis: 'verbatim', nearest: null };
  const { fetch, extractError } = source;
  if (!fetch.ok) {
    const shell = fetch.body || fetch.headers ? shellOf(source) : null;
    if (
      shell &&
      shell.kind !== 'js_shell' &&
      shell.kind !== 'redirect' &&
      (shell.strong || fetch.status === 401 || fetch.status === 403)
    ) {
      return { diagnosis: 'paywall', note: `${fetch.message}: ${describeShell(shell)}`, nearest: null };
    }
    return { diagnosis: 'fetch_failed', note: fetch.message, nearest: null };
  }
  if (extractError) {
    if (extractError.kind === 'unsupported')
      return { diagnosis: 'unsupported', note: extractError.message, nearest: null };
    return { diagnosis: 'empty', note: shellNote(source) ?? extractError.message, nearest: null };
  }
  const views = (source.views ?? []).filter((v) => viewCounts(v.name, htmlView));
  if (views.length === 0)
    return { diagnosis: 'empty', note: shellNote(source) ?? `no ${htmlView} text in this source`, nearest: null };
  const result = diagnoseText(quote, rawQuote ?? quote, source, views);
  // The label counts only the views --html-view allows; a quote in another view is worth saying, not counting.
  const elsewhere = (source.views ?? []).find((v) => !viewCounts(v.name, htmlView) && v.text.includes(quote));
  if (!elsewhere) return result;
  const why = `the quote is in the ${VIEW_NAMES[elsewhere.name]}, which --html-view ${htmlView} leaves out`;
  return { ...result, note: result.note ? `${why}; in the ${htmlView} view: ${result.note}` : why };
}

/**
 * A claim's diagnosis as of its date (docs/sources-change.md#which-text-decides): diagnose() on the text that decided
 * the label, and when the source drifted and no text as of the date could be had, `drifted` for a no_match, because
 * today's text says nothing about the quote as of its date; what today's text would have said stays in the note. A
 * fault in the diagnosis never costs the claim its label: it is diagnosed by the label alone, and the note says why.
 */
export function diagnoseAsOf(input: DiagnosisInput, drifted: boolean): DiagnosisResult {
  let diagnosed: DiagnosisResult;
  try {
    diagnosed = diagnose(input);
  } catch (err) {
    diagnosed = {
      diagnosis: input.label === 'verbatim' ? 'verbatim' : 'not_found',
      note: `diagnosis failed (a quotecheck bug; the label stands): ${(err as Error).message}`,
      nearest: null,
    };
  }
  if (!drifted) return diagnosed;
  const note =
    diagnosed.diagnosis !== 'drifted'
      ? `today's text: ${diagnosed.diagnosis}${diagnosed.note ? ` (${diagnosed.note})` : ''}`
      : diagnosed.note;
  return { diagnosis: input.label === 'no_match' ? 'drifted' : diagnosed.diagnosis, note, nearest: diagnosed.nearest };
}
