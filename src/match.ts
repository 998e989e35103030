// Matching: the label is exactly "the normalized quote is a substring of a normalized view" (design.md §3).
import type { Extractor, TextView, ViewName } from './extract/index.js';
import { normalize } from './normalize.js';

/** Which HTML views may make a quote verbatim (`--html-view`). PDFs and text files have one view, always used. */
export type HtmlViewChoice = 'article' | 'full' | 'any';

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
export const CONTEXT_CHARS = 80;

/** Normalizes every view once per source; each claim citing the source reuses them. */
export function normalizeViews(views: readonly TextView[]): NormalizedView[] {
  return views.map((v) => ({ name: v.name, extractor: v.extractor, text: normalize(v.text) }));
}

export function viewCounts(view: ViewName, choice: HtmlViewChoice): boolean {
  return view === 'text' || choice === 'any' || view === choice;
}

/**
 * Finds the normalized quote in the first view that contains it (article before full page).
 * Returns null when no eligible view contains it: the claim is `no_match`.
 */
export function findQuote(normalizedQuote: string, views: readonly NormalizedView[], choice: HtmlViewChoice = 'any'): Match | null {
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
