// HTML to text: the page's full visible text (streamed) and Readability's article view (over a linkedom DOM), both rendered block-aware.
import { Readability } from '@mozilla/readability';
import { DOMParser } from 'linkedom';
import { renderText } from './render.js';
import { streamText } from './stream.js';

export interface HtmlViews {
  /** The whole body's visible text. */
  full: string;
  /** Readability's article content, rendered the same way; undefined when there is none. */
  article?: string;
  /** Why there is no article view, when there is none. */
  articleNote?: string;
}

/**
 * Limits past which a page is not parsed into a DOM (a DOM's cost grows with size, and with
 * element count times depth): such a page gets its full view from the streaming parser and no
 * article view. Real pages are far below them (the corpus: at most ~2,000 elements, depth 51).
 */
export const DOM_LIMITS = { maxBytes: 10 * 1024 * 1024, maxElements: 150_000, maxDepth: 400 };

/**
 * The full view comes from one streaming pass (htmlparser2); the article view from Readability
 * over a linkedom DOM. The reference is jsdom (a spec-compliant parser) and Readability over
 * it: on every real page of the corpus both views give the same normalized text as the
 * reference (test/html-identity.test.ts), at about a fifth of the cost. linkedom runs no
 * scripts, loads nothing and parses no style sheets (jsdom's CSS parser throws on some real
 * pages' style sheets; text needs no CSS).
 */
export function htmlToViews(html: string, limits = DOM_LIMITS): HtmlViews {
  const streamed = streamText(html);
  const full = streamed.text;
  const over = html.length > limits.maxBytes
    ? `${(html.length / 1024 / 1024).toFixed(1)} MB of HTML > the ${limits.maxBytes / 1024 / 1024} MB DOM cap`
    : streamed.elements > limits.maxElements
      ? `${streamed.elements} elements > the ${limits.maxElements} DOM cap`
      : streamed.maxDepth > limits.maxDepth
        ? `elements nested ${streamed.maxDepth} deep > the ${limits.maxDepth} DOM cap`
        : undefined;
  if (over) return { full, articleNote: `no article view: ${over} (full text from a streaming parser)` };
  const doc = new DOMParser().parseFromString(html, 'text/html') as unknown as Document;
  try {
    const result = new Readability<Element>(doc, { serializer: (el) => el as Element }).parse();
    if (result?.content) return { full, article: renderText(result.content) };
    return { full, articleNote: 'Readability found no article' };
  } catch (err) {
    return { full, articleNote: `Readability failed: ${(err as Error).message}` };
  }
}
