// A source as the pipeline holds it: the fetch outcome, its extracted text and normalized views (live page or archived
// capture alike).
import type { ErrorPage, SourceText } from './extract/index.js';
import { ExtractError } from './extract/errors.js';
import { chosenPool, htmlPool } from './extract/worker/pool.js';
import type { SourceOutcome } from './fetch/index.js';
import { normalizeViews, type NormalizedView } from './match.js';

export type { ErrorPage, MarkupSignals } from './extract/index.js';

/** What happened to one source, shared by every claim that cites it. */
export interface SourceRecord {
  url: string;
  fetch: SourceOutcome;
  text?: SourceText;
  views?: NormalizedView[];
  extractError?: ExtractError;
  /**
   * A failed fetch's HTML error page, read for diagnosis (a bot check, login or subscription wall answering 403,
   * 401...); or an HTML page extraction found empty (a redirect shell).
   */
  errorPage?: ErrorPage;
}

interface ReadSettings {
  /** Time limit for extracting one source (pdftotext, or the HTML parser and Readability in a worker). */
  extractTimeoutMs: number;
  pdftotext?: string;
  signal?: AbortSignal;
}

/**
 * The extract stage, loaded when the first body arrives: it is not needed to start a run, and a run's first requests go
 * out while it loads. It is small on this thread (the kind of a body, the HTML workers, pdftotext): decoding, chardet
 * and the encodings' tables load with the first plain-text body or error page, the HTML tokenizer and the light DOM
 * with the first error page (errorPageOf): HTML is decoded and parsed in its worker, and a first answer's load held
 * back every answer behind it (Issue 46).
 */
const extractStage = (): Promise<typeof import('./extract/index.js')> => import('./extract/index.js');

/**
 * Starts an HTML worker (the thread that parses pages) as a run's first requests go out: it loads the parser and
 * Readability on its own thread while they are on the network. This thread loads the rest of the stage itself when
 * the first body arrives: loading it now would hold back the requests.
 */
export function prepareExtraction(): void {
  // After the event loop's next poll: the first requests are written before the thread is made. The pool is the one
  // a page goes to (htmlPool(), unless a server chose its own: the MCP server's lanes start their own workers).
  setImmediate(() => (chosenPool(0) ?? htmlPool()).warm());
}

/**
 * An error page read for diagnosis; a fault reading it costs only the diagnosis its evidence (the fetch failed either
 * way).
 */
async function errorPageOf(body: Uint8Array, contentType: string | undefined): Promise<ErrorPage | undefined> {
  const { readErrorPage } = await import('./extract/error-page.js');
  try {
    return readErrorPage(body, contentType);
  } catch {
    return undefined;
  }
}

/** Extracts and normalizes a fetched body; a failure to extract is kept on the record, never thrown. */
export async function toSourceRecord(
  url: string,
  fetched: SourceOutcome,
  settings: ReadSettings,
): Promise<SourceRecord> {
  const record: SourceRecord = { url, fetch: fetched };
  if (!fetched.ok) {
    // Only the error page's text and markup: it is not the document, so it gets no views to match.
    if (fetched.body) record.errorPage = await errorPageOf(fetched.body, fetched.contentType);
    return record;
  }
  if (settings.signal?.aborted) return record;
  try {
    // Extraction bounds its own CPU work: HTML workers and pdftotext processes, one of each per core.
    const { extractSource } = await extractStage();
    record.text = await extractSource(
      { body: fetched.body, contentType: fetched.contentType, url: fetched.finalUrl },
      { timeoutMs: settings.extractTimeoutMs, pdftotext: settings.pdftotext, signal: settings.signal },
    );
    record.views = normalizeViews(record.text.views);
  } catch (err) {
    record.extractError =
      err instanceof ExtractError
        ? err
        : new ExtractError('failed', `extraction failed: ${(err as Error).message}`, { cause: err });
    // A page with no text keeps what its markup showed (a redirect shell): the worker read it, no second pass here.
    if (record.extractError.markup) record.errorPage = { markup: record.extractError.markup, text: '' };
  }
  return record;
}
