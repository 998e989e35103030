// Worker thread entry: decoding, HTML extraction (one htmlparser2 pass, Readability over its light DOM) and
// normalization, off the main thread (the job itself: runHtmlJob in html.ts).
import { parentPort } from 'node:worker_threads';
import { runHtmlJob, type HtmlJobRequest } from '../html.js';

export type { HtmlJobReply, HtmlJobRequest, HtmlJobResult } from '../html.js';

parentPort!.on('message', (request: HtmlJobRequest) => {
  runHtmlJob(request, (reply, transfer) => parentPort!.postMessage(reply, transfer));
});
