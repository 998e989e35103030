// The extract stage: a fetched body becomes one or more text views (PDF, HTML article and full page, plain text).
import { ExtractError } from './errors.js';
import type { CharsetSource } from './decode.js';
import { parseContentType, sniffKind, type SourceKind } from './kind.js';
import type { MarkupSignals } from './markup.js';
import { chosenPool, htmlPool } from './worker/pool.js';
import { pdfToText } from './pdf/pdftotext.js';

export { ExtractError, type ExtractErrorKind } from './errors.js';
export { renderText } from './render.js';
export type { CharsetSource } from './decode.js';
export { parseContentType, sniffKind, type SourceKind } from './kind.js';
export type { MarkupSignals } from './markup.js';
export type { ErrorPage } from './error-page.js';

/**
 * `article`: Readability's main content; `full`: the page's visible text; `text`: the only view of a PDF or text file.
 */
export type ViewName = 'article' | 'full' | 'text';
/** Report vocabulary (docs/how-it-decides.md#the-evidence-report) for what produced a view's text. */
export type Extractor = 'pdftotext' | 'readability' | 'fulltext' | 'text';

export interface TextView {
  name: ViewName;
  extractor: Extractor;
  text: string;
  /** normalize(text), when the extractor already computed it (off the main thread). */
  normalized?: string;
}

export interface SourceText {
  kind: Exclude<SourceKind, 'unsupported'>;
  /** Views in order of preference: the article before the full page. */
  views: TextView[];
  /** The charset the bytes were decoded with (HTML and text). */
  charset?: string;
  /**
   * Where that charset came from (HTML and text; docs/how-it-decides.md#decoding): bom, http, meta, detected or
   * default.
   */
  charsetSource?: CharsetSource;
  /** HTML: what the markup says for shell detection (diagnosis), read while the page was decoded. */
  markup?: MarkupSignals;
  note?: string;
  /**
   * Stages whose dependency threw, and what the source kept instead (a step of the decoding order,
   * the DOM build, Readability, the worker after the full view, pdftotext after printing text): the
   * report's `note` names each. Absent when none did.
   */
  fallbacks?: string[];
  ms: number;
}

export interface ExtractOptions {
  /** Time limit for extracting one source (pdftotext, or the HTML parser and Readability). */
  timeoutMs: number;
  pdftotext?: string;
  signal?: AbortSignal;
}

export interface ExtractInput {
  body: Uint8Array;
  contentType?: string;
  /** The URL the body came from (after redirects): a last hint for the kind. */
  url: string;
}

/** The `fallbacks` field when there are any (absent otherwise, so that results without one compare as before). */
function withFallbacks(fallbacks: string[] | undefined): { fallbacks?: string[] } {
  return fallbacks?.length ? { fallbacks } : {};
}

/**
 * Extracts text views from a body. Throws ExtractError when there is no text to match
 * against: `unsupported` type, `empty` text (a scan without text layer), `encrypted`,
 * `failed`, `timeout` or `tool_missing`. A stage whose dependency throws falls back to the
 * next (decoding order, streamed full view, no article view, pdftotext's printed text), and
 * `fallbacks` names it: a source is `empty` only when no stage produced text.
 */
export async function extractSource(input: ExtractInput, options: ExtractOptions): Promise<SourceText> {
  const started = performance.now();
  const contentType = parseContentType(input.contentType);
  const kind = sniffKind(input.body, contentType, input.url);
  let result: Omit<SourceText, 'ms'>;
  switch (kind) {
    case 'pdf': {
      const { text, normalized, fallback } = await pdfToText(input.body, {
        timeoutMs: options.timeoutMs,
        command: options.pdftotext,
        signal: options.signal,
      });
      result = {
        kind,
        views: [{ name: 'text', extractor: 'pdftotext', text, normalized }],
        ...withFallbacks(fallback ? [fallback] : undefined),
      };
      break;
    }
    case 'html': {
      // In a worker: pages are decoded, parsed and normalized off the main thread, one per
      // core at once, and a page that hangs or eats memory is stopped at its limit.
      const {
        views: v,
        normalized,
        charset,
        charsetSource,
        markup,
        fallbacks,
      } = await (chosenPool(input.body.length) ?? htmlPool()).extract(
        input.body,
        contentType.charset,
        options.timeoutMs,
      );
      const views: TextView[] = [];
      if (v.article !== undefined)
        views.push({ name: 'article', extractor: 'readability', text: v.article, normalized: normalized.article });
      views.push({ name: 'full', extractor: 'fulltext', text: v.full, normalized: normalized.full });
      result = { kind, views, charset, charsetSource, markup, note: v.articleNote, ...withFallbacks(fallbacks) };
      break;
    }
    case 'text': {
      // Decoding (chardet, the encodings' tables) loads with the first plain-text body: HTML is decoded in its worker.
      const { decodeText } = await import('./decode.js');
      const decoded = decodeText(input.body, contentType.charset);
      result = {
        kind,
        views: [{ name: 'text', extractor: 'text', text: decoded.text }],
        charset: decoded.charset,
        charsetSource: decoded.charsetSource,
        ...withFallbacks(decoded.fallbacks),
      };
      break;
    }
    case 'unsupported':
      throw new ExtractError('unsupported', `cannot extract text from ${contentType.essence ?? 'this binary content'}`);
  }
  if (result.views.every((v) => v.text.trim() === '')) {
    throw new ExtractError(
      'empty',
      kind === 'pdf' ? 'the PDF has no text layer (a scan?)' : 'the document has no text',
      { markup: result.markup },
    );
  }
  return { ...result, ms: Math.round(performance.now() - started) };
}
