// Child process entry: runs pdftotext for the main process. Forking costs time in proportion to the forking
// process's memory: tens of milliseconds per PDF from the main process (hundreds of MB), a few from this one.
import { normalize } from '../normalize.js';
import { ExtractError } from './errors.js';
import { runPdftotext } from './pdf.js';

/** The PDF is a file the main process wrote: the runner never holds PDF bytes, so it stays small and forks fast. */
export type PdfRunnerRequest = { id: number; file: string; timeoutMs: number; command?: string } | { cancel: number };
export type PdfRunnerReply = { id: number; ok: true; text: string; normalized: string } | { id: number; ok: false; kind: ExtractError['kind']; message: string };

const running = new Map<number, AbortController>();

process.on('message', (msg: PdfRunnerRequest) => {
  if ('cancel' in msg) {
    running.get(msg.cancel)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(msg.id, controller);
  runPdftotext(msg.file, { timeoutMs: msg.timeoutMs, command: msg.command, signal: controller.signal })
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
