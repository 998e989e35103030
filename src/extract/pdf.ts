// PDF to text with poppler's pdftotext, exactly as the gold labels were made: `pdftotext -enc UTF-8 FILE -` (run inside the PDF runner process).
import { execFile } from 'node:child_process';
import { ExtractError } from './errors.js';

export interface PdfOptions {
  /** pdftotext is killed after this long. */
  timeoutMs: number;
  /** The pdftotext executable (default: `pdftotext` on PATH). */
  command?: string;
  /** Kills pdftotext when the run stops. */
  signal?: AbortSignal;
}

/** pdftotext's text of a 352-page book is ~1 MB; this leaves room for huge documents without letting one exhaust memory. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** Runs pdftotext on a PDF file in its default reading-order mode (no -layout): other modes give other whitespace than the gold labels. */
export function runPdftotext(file: string, options: PdfOptions): Promise<string> {
  const command = options.command ?? 'pdftotext';
  return new Promise<string>((resolve, reject) => {
    execFile(
      command,
      ['-enc', 'UTF-8', file, '-'],
      { timeout: options.timeoutMs, killSignal: 'SIGKILL', maxBuffer: MAX_OUTPUT_BYTES, encoding: 'buffer', signal: options.signal },
      (err, stdout, stderr) => {
        if (!err) return resolve(new TextDecoder('utf-8').decode(stdout));
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null; code?: number | string };
        const said = stderr.toString('utf8').trim().split('\n').slice(-3).join(' | ');
        if (e.code === 'ENOENT') {
          reject(new ExtractError('tool_missing', `${command} not found: install poppler-utils (e.g. apt-get install -y poppler-utils)`, { cause: err }));
        } else if (options.signal?.aborted) {
          reject(new ExtractError('timeout', 'pdftotext stopped: the run was stopped', { cause: err }));
        } else if (e.killed || e.signal === 'SIGKILL') {
          reject(new ExtractError('timeout', `pdftotext stopped after ${options.timeoutMs / 1000} s`, { cause: err }));
        } else if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          reject(new ExtractError('failed', `pdftotext output exceeds ${MAX_OUTPUT_BYTES / 1024 / 1024} MB`, { cause: err }));
        } else if (/password/i.test(said)) {
          reject(new ExtractError('encrypted', `PDF needs a password: ${said}`, { cause: err }));
        } else {
          reject(new ExtractError('failed', `pdftotext failed (exit ${String(e.code)}): ${said || e.message}`, { cause: err }));
        }
      },
    );
  });
}
