// Reading an HTML error page (a response that is not the document, so never extracted into views): its markup signals
// and normalized text, for diagnosis.
import { normalize } from '../normalize.js';
import { decodeHtml } from './decode.js';
import { parseContentType } from './kind.js';
import { MarkupReader, type MarkupSignals } from './markup.js';
import { streamedText } from './streamed-text.js';

/** An error page as diagnosis reads it: what a bot check, login or subscription wall would show. */
export interface ErrorPage {
  markup: MarkupSignals;
  /**
   * The page's visible text, normalized (docs/how-it-decides.md#normalization-and-the-label), as an extracted page's
   * full view would be.
   */
  text: string;
}

/** Content types read as HTML error pages: what says HTML in the header (error pages are not sniffed). */
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * Reads an error page's body when its Content-Type says HTML; undefined otherwise. Decoded as a page is
 * (decode.ts), its text from the streaming pass (streamed-text.ts): linear, and error bodies are capped (1 MB) by
 * the fetch, so it runs on the main thread without a worker.
 */
export function readErrorPage(body: Uint8Array, contentType: string | undefined): ErrorPage | undefined {
  const type = parseContentType(contentType);
  if (!type.essence || !HTML_TYPES.has(type.essence)) return undefined;
  return readPage(body, type.charset);
}

function readPage(body: Uint8Array, charset: string | undefined): ErrorPage {
  const html = decodeHtml(body, charset).text;
  const reader = new MarkupReader();
  const text = normalize(streamedText(html, reader));
  return { markup: reader.signals(text.length), text };
}
