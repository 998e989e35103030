// Extraction failures, by kind: the diagnosis maps them to `empty`, `unsupported` or a note.
import type { MarkupSignals } from './markup.js';

export type ExtractErrorKind =
  | 'empty' // extracted, but there is no text (scanned PDF without a text layer, JS-only shell)
  | 'unsupported' // a content type quotecheck cannot extract
  | 'encrypted' // a PDF that needs a password
  | 'failed' // the extractor failed on this document (corrupt PDF, parser error)
  | 'timeout' // the extractor ran past its time limit and was stopped
  | 'tool_missing'; // pdftotext is not installed

export class ExtractError extends Error {
  override readonly name = 'ExtractError';
  /**
   * For an HTML page with no text (`empty`): what its markup showed (a meta refresh, a script redirect), read once in
   * the worker, for diagnosis.
   */
  readonly markup?: MarkupSignals;
  constructor(
    readonly kind: ExtractErrorKind,
    message: string,
    options?: { cause?: unknown; markup?: MarkupSignals },
  ) {
    super(message, options);
    if (options?.markup) this.markup = options.markup;
  }
}

/** What threw, in a few words. */
export function describeError(err: unknown): string {
  const e = err as { name?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return typeof e?.name === 'string' && e.name !== 'Error' ? `${e.name}: ${message}` : message;
}
