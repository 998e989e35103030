// Worker thread entry: HTML extraction (jsdom + Readability) off the main thread, where it can be stopped.
import { parentPort } from 'node:worker_threads';
import { htmlToViews } from './html.js';

export interface HtmlJobRequest {
  id: number;
  html: string;
}

export type HtmlJobReply = { id: number; ok: true; views: ReturnType<typeof htmlToViews> } | { id: number; ok: false; message: string };

parentPort!.on('message', ({ id, html }: HtmlJobRequest) => {
  let reply: HtmlJobReply;
  try {
    reply = { id, ok: true, views: htmlToViews(html) };
  } catch (err) {
    reply = { id, ok: false, message: (err as Error)?.message ?? String(err) };
  }
  parentPort!.postMessage(reply);
});
