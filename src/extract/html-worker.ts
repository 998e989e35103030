// Worker thread entry: decoding, HTML extraction (one htmlparser2 pass, Readability over its light DOM) and normalization, off the main thread.
import { parentPort } from 'node:worker_threads';
import { normalize } from '../normalize.js';
import { decodeHtml, type CharsetSource } from './decode.js';
import { articleView, parseHtml, type HtmlViews } from './html.js';
import { markupSignals, type MarkupSignals } from './markup.js';

export interface HtmlJobRequest {
  id: number;
  bytes: Uint8Array;
  /** The charset of the HTTP Content-Type, if any. */
  httpCharset?: string;
}

export interface HtmlJobResult {
  views: HtmlViews;
  /** The views normalized (design.md §3), so the main thread need not. */
  normalized: { full: string; article?: string };
  charset: string;
  /** Where the charset came from (design.md §2: bom, http, meta, detected, default). */
  charsetSource: CharsetSource;
  /** The markup's shell signals, read here so the main thread never decodes the page again. */
  markup: MarkupSignals;
}

/**
 * A job answers in two messages: the full view as soon as the page is parsed (`final` when
 * there is no article to look for), then the article view. If Readability overruns the time
 * limit, the page keeps its full view.
 */
export type HtmlJobReply =
  | { id: number; ok: true; stage: 'full'; final: boolean; full: string; normalizedFull: string; articleNote?: string; charset: string; charsetSource: CharsetSource; markup: MarkupSignals }
  | { id: number; ok: true; stage: 'article'; article?: string; normalizedArticle?: string; articleNote?: string }
  | { id: number; ok: false; message: string };

function send(reply: HtmlJobReply): void {
  parentPort!.postMessage(reply);
}

parentPort!.on('message', ({ id, bytes, httpCharset }: HtmlJobRequest) => {
  try {
    const decoded = decodeHtml(bytes, httpCharset);
    const page = parseHtml(decoded.text);
    const normalizedFull = normalize(page.full);
    const markup = markupSignals(decoded.text, normalizedFull.length);
    send({ id, ok: true, stage: 'full', final: !page.doc, full: page.full, normalizedFull, articleNote: page.note, charset: decoded.charset, charsetSource: decoded.charsetSource, markup });
    if (!page.doc) return;
    const { article, articleNote } = articleView(page.doc);
    send({ id, ok: true, stage: 'article', article, normalizedArticle: article !== undefined ? normalize(article) : undefined, articleNote });
  } catch (err) {
    send({ id, ok: false, message: (err as Error)?.message ?? String(err) });
  }
});
