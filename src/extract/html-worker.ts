// Worker thread entry: decoding, HTML extraction (one htmlparser2 pass, Readability over its light DOM) and normalization, off the main thread.
import { parentPort } from 'node:worker_threads';
import { markupSignals, type MarkupSignals } from '../diagnose/shells.js';
import { normalize } from '../normalize.js';
import { decodeHtml } from './decode.js';
import { htmlToViews, type HtmlViews } from './html.js';

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
  /** The markup's shell signals, read here so the main thread never decodes the page again. */
  markup: MarkupSignals;
}

export type HtmlJobReply = ({ id: number; ok: true } & HtmlJobResult) | { id: number; ok: false; message: string };

parentPort!.on('message', ({ id, bytes, httpCharset }: HtmlJobRequest) => {
  let reply: HtmlJobReply;
  try {
    const decoded = decodeHtml(bytes, httpCharset);
    const views = htmlToViews(decoded.text);
    const normalized = { full: normalize(views.full), ...(views.article !== undefined ? { article: normalize(views.article) } : {}) };
    const markup = markupSignals(decoded.text, normalized.full.length);
    reply = { id, ok: true, views, normalized, charset: decoded.charset, markup };
  } catch (err) {
    reply = { id, ok: false, message: (err as Error)?.message ?? String(err) };
  }
  parentPort!.postMessage(reply);
});
