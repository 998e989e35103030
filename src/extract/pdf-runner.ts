// Child process entry: runs pdftotext for the main process. Forking a small process is cheap; forking the
// main process (hundreds of MB, worker threads) costs tens of milliseconds per PDF on the main thread.
import { normalize } from '../normalize.js';
import { ExtractError } from './errors.js';
import { runPdftotext } from './pdf.js';

export type PdfRunnerRequest = { id: number; bytes: Uint8Array; timeoutMs: number; command?: string } | { cancel: number };
export type PdfRunnerReply = { id: number; ok: true; text: string; normalized: string } | { id: number; ok: false; kind: ExtractError['kind']; message: string };

const running = new Map<number, AbortController>();

process.on('message', (msg: PdfRunnerRequest) => {
  if ('cancel' in msg) {
    running.get(msg.cancel)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(msg.id, controller);
  runPdftotext(msg.bytes, { timeoutMs: msg.timeoutMs, command: msg.command, signal: controller.signal })
    .then((text): PdfRunnerReply => ({ id: msg.id, ok: true, text, normalized: normalize(text) }))
    .catch((err: unknown): PdfRunnerReply => ({
      id: msg.id,
      ok: false,
      kind: err instanceof ExtractError ? err.kind : 'failed',
      message: (err as Error)?.message ?? String(err),
    }))
    .then((reply) => {
      running.delete(msg.id);
      process.send!(reply);
    });
});

// The parent gone means nothing left to do.
process.on('disconnect', () => process.exit(0));
