// PDF to text with poppler's pdftotext, exactly as the gold labels were made: `pdftotext -enc UTF-8 FILE -`, started
// from a small shell.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalize } from '../../normalize.js';
import { ExtractError } from '../errors.js';
import { EXIT_FILE_TOO_LARGE, EXIT_NOT_FOUND, ShellPool } from './command-shells.js';

interface PdfOptions {
  /** pdftotext is killed after this long. */
  timeoutMs: number;
  /** The pdftotext executable (default: `pdftotext` on PATH). */
  command?: string;
  /** Kills pdftotext when the run stops. */
  signal?: AbortSignal;
  /** Largest text pdftotext may write (default 256 MB): past it, it is stopped. */
  maxOutputBytes?: number;
}

interface PdfText {
  text: string;
  /** normalize(text), computed here so callers need not. */
  normalized: string;
  /** Set when pdftotext failed or crashed after printing text, and that text was kept: what happened. */
  fallback?: string;
}

const UTF8_FATAL = new TextDecoder('utf-8', { fatal: true });

/**
 * What pdftotext printed before it failed, when that is text: valid UTF-8 (it writes `-enc UTF-8`),
 * not blank, without NUL bytes. Otherwise null (nothing, or garbage: the failure stands).
 */
function printedText(bytes: Uint8Array | undefined): string | null {
  if (!bytes || bytes.length === 0 || bytes.includes(0)) return null;
  try {
    const text = UTF8_FATAL.decode(bytes);
    return text.trim() === '' ? null : text;
  } catch {
    return null;
  }
}

/**
 * pdftotext's text of a 352-page book is ~1 MB; this leaves room for huge documents without letting one exhaust memory
 * or disk.
 */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

let shells: ShellPool | undefined;

/**
 * Runs pdftotext in its default reading-order mode (no -layout: other modes give other
 * whitespace than the gold labels) on the bytes, written to a temporary file; its output goes
 * to a file too. Throws ExtractError: `tool_missing`, `timeout`, `encrypted` or `failed`. When
 * pdftotext exits non-zero or crashes after printing text (a damaged page further on), that text
 * is kept and `fallback` says so; when it printed nothing, its failure stands as before.
 */
export async function pdfToText(bytes: Uint8Array, options: PdfOptions): Promise<PdfText> {
  const command = options.command ?? 'pdftotext';
  const maxOutput = options.maxOutputBytes ?? MAX_OUTPUT_BYTES;
  const dir = await mkdtemp(join(tmpdir(), 'quotecheck-pdf-'));
  try {
    const pdf = join(dir, 'source.pdf');
    const out = join(dir, 'text.txt');
    const err = join(dir, 'stderr.txt');
    await writeFile(pdf, bytes);
    shells ??= new ShellPool();
    const exit = await shells.run({
      argv: [command, '-enc', 'UTF-8', pdf, '-'],
      stdout: out,
      stderr: err,
      maxFileBytes: maxOutput,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
    if (exit.stopped === 'aborted') throw new ExtractError('timeout', 'pdftotext stopped: the run was stopped');
    if (exit.stopped === 'timeout')
      throw new ExtractError('timeout', `pdftotext stopped after ${options.timeoutMs / 1000} s`);
    if (exit.status === 0) {
      const text = new TextDecoder('utf-8').decode(await readFile(out));
      return { text, normalized: normalize(text) };
    }
    const said = (await readFile(err, 'utf8').catch(() => '')).trim().split('\n').slice(-3).join(' | ');
    if (exit.status === EXIT_NOT_FOUND)
      throw new ExtractError(
        'tool_missing',
        `${command} not found: install poppler-utils (e.g. apt-get install -y poppler-utils)`,
      );
    if (exit.status === EXIT_FILE_TOO_LARGE)
      throw new ExtractError('failed', `pdftotext output exceeds ${maxOutput / 1024 / 1024} MB`);
    const printed = printedText(await readFile(out).catch(() => undefined));
    if (printed !== null) {
      const how = exit.status > 128 ? `was killed by signal ${exit.status - 128}` : `exited ${exit.status}`;
      return {
        text: printed,
        normalized: normalize(printed),
        fallback: `pdftotext ${how}${said ? ` (${said})` : ''} after printing text: the text it printed was kept`,
      };
    }
    if (/password/i.test(said)) throw new ExtractError('encrypted', `PDF needs a password: ${said}`);
    throw new ExtractError('failed', `pdftotext failed (exit ${exit.status}): ${said || 'no message'}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
