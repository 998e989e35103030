// The MCP tools' work, apart from the protocol: verify a quote, read a source page by page, search it, check a claims file; each input and output with its zod schema.
import { dirname, join, resolve } from 'node:path';
import { Agent } from 'undici';
import { z } from 'zod';
import { AnswerBook, AnswersFile } from '../answers.js';
import { describeFsError } from '../messages.js';
import { OutputPathError, checkOutputPath } from '../outputs.js';
import { asOfProblem } from '../asof/date.js';
import { streamClaims, type CheckOptions, type ClaimResult } from '../check.js';
import { RunTally } from '../report.js';
import { ClaimsFileError, readClaimsFile } from '../claims.js';
import { DEFAULT_OPTIONS } from '../defaults.js';
import { DIAGNOSES } from '../diagnose/index.js';
import { nearestSpan } from '../diagnose/align.js';
import { fetchSource, type FetchSettings } from '../fetch/index.js';
import { guardedLookup } from '../fetch/guard.js';
import { rawSpan, widenToWords } from '../match.js';
import { normalize } from '../normalize.js';
import { readSource, type SourceRecord } from '../source.js';
import { verifyQuote } from '../verify.js';
import type { SourceCache } from './cache.js';

/** read_source's page when none is asked for: about five pages of prose, well inside a model's context. */
export const DEFAULT_PAGE_CHARS = 20_000;
/** The largest page read_source hands out. */
export const MAX_PAGE_CHARS = 100_000;
/** search_source's results when none is asked for, and at most. */
export const DEFAULT_RESULTS = 5;
export const MAX_RESULTS = 20;
/** The longest phrase searched for (the alignment looks at this much of a quote, src/diagnose/align.ts). */
export const MAX_QUERY_CHARS = 1_000;
/** Extracted sources kept for paging and searching (the HTTP cache keeps the bytes of many more). */
const RECORDS_KEPT = 16;
/** check_claims lists at most this many claims in its result; the answers file has them all. */
const MAX_LISTED_CLAIMS = 200;

/** A bad input or an unreadable source: the tool answers isError with this one line. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

export interface ToolSettings {
  /** Refuse private-network targets (design.md §9: on unless --allow-private). */
  blockPrivate: boolean;
  timeoutMs: number;
  retries: number;
  sourceBudgetMs: number;
  extractTimeoutMs: number;
  waybackUrl: string;
  /** Requests a minute to the Wayback Machine. */
  waybackPerMinute: number;
  cache: SourceCache;
}

const views = ['article', 'full', 'text'] as const;
const htmlViews = ['article', 'full', 'any'] as const;

// ---- schemas -------------------------------------------------------------------------------

const url = z.string().min(1).describe('http(s) URL of the source');

export const verifyInput = {
  url,
  quote: z.string().min(1).describe('the passage claimed to occur in the source, as the claim gives it'),
  html_view: z.enum(htmlViews).optional().describe('which HTML text may match: Readability article, full page, or either (default any)'),
  as_of: z.string().optional().describe('judge the quote as of this ISO date or date-time: the Wayback capture nearest it when today\'s page lacks it'),
};

const diffRun = z.object({ op: z.enum(['equal', 'missing', 'extra']), text: z.string() });
const nullableString = z.string().nullable();

/** VerifyResult (src/report.ts), the record `verify --json` prints; fields added later pass through. */
export const verifyOutput = {
  label: z.enum(['verbatim', 'no_match']),
  diagnosis: z.enum(DIAGNOSES as unknown as [string, ...string[]]),
  quote: z.string(),
  url: nullableString,
  final_url: nullableString,
  http_status: z.number().nullable(),
  content_type: nullableString,
  source_sha256: nullableString,
  charset: nullableString,
  charset_source: nullableString,
  extractor: nullableString,
  match: z.looseObject({ view: z.string(), offset: z.number(), context: z.string() }).nullable(),
  nearest: z.looseObject({ text: z.string(), raw: z.string(), diff: z.array(diffRun), similarity: z.number(), view: z.string(), offset: z.number() }).nullable(),
  drift: z.enum(['same', 'changed', 'unknown']),
  evidence_match: nullableString,
  as_of: z.looseObject({ source: z.string(), timestamp: nullableString, capture_url: nullableString, proof: nullableString }).nullable(),
  note: nullableString,
  ms: z.number(),
  redirect: z.looseObject({ target: z.string(), via: z.string(), found: z.boolean(), diagnosis: z.string(), final_url: nullableString, note: nullableString }).optional()
    .describe('when the page is a redirect shell (a meta refresh or one-line script redirect and no text of its own): its target, fetched once, and whether the quote is there; the label stays the page\'s own'),
};

export const readInput = {
  url,
  view: z.enum(views).optional().describe('which text: article or full (HTML), text (PDF, plain text); default the first the source has'),
  offset: z.number().int().min(0).optional().describe('first character of the page (default 0)'),
  length: z.number().int().min(1).max(MAX_PAGE_CHARS).optional().describe(`characters in the page (default ${DEFAULT_PAGE_CHARS})`),
};

const viewInfo = z.object({ name: z.enum(views), extractor: z.string(), length: z.number() });

export const readOutput = {
  url: z.string(),
  final_url: z.string(),
  http_status: z.number(),
  content_type: nullableString,
  charset: nullableString.describe('the charset the bytes were decoded with (null for a PDF)'),
  charset_source: nullableString,
  views: z.array(viewInfo).describe('the texts this source has, with their lengths'),
  view: z.enum(views),
  offset: z.number(),
  total_length: z.number().describe('characters in the whole view'),
  next_offset: z.number().nullable().describe('offset of the next page, null at the end'),
  text: z.string().describe('the extracted text, as it is before normalization'),
  note: nullableString,
};

export const searchInput = {
  url,
  query: z.string().min(1).describe('the phrase to look for, e.g. the quote or part of it'),
  max_results: z.number().int().min(1).max(MAX_RESULTS).optional().describe(`passages returned (default ${DEFAULT_RESULTS})`),
};

const passage = z.object({
  view: z.enum(views),
  offset: z.number().describe('offset in the view\'s normalized text, as a report\'s nearest.offset'),
  length: z.number(),
  similarity: z.number().describe('1 - edit distance / query length; 1 is the exact phrase'),
  text: z.string().describe('the passage normalized'),
  raw: z.string().describe('the passage in the page\'s own wording'),
});

export const searchOutput = {
  url: z.string(),
  final_url: z.string(),
  query: z.string(),
  exact: z.boolean().describe('whether the normalized query is in a view (what would make a quote verbatim)'),
  results: z.array(passage),
};

export const checkInput = {
  claims_path: z.string().min(1).describe('a claims file: a JSON array of {id, quote, url} (or {"claims": [...]})'),
  answers_path: z.string().min(1).optional().describe('where the answers go (default answers.json beside the claims file)'),
};

export const checkOutput = {
  answers_path: z.string(),
  claims: z.number(),
  verbatim: z.number(),
  no_match: z.number(),
  diagnoses: z.record(z.string(), z.number()),
  results: z.array(z.object({ id: z.string(), label: z.enum(['verbatim', 'no_match']), diagnosis: z.string(), note: nullableString })),
  listed: z.number().describe(`claims listed in results (at most ${MAX_LISTED_CLAIMS})`),
  warnings: z.array(z.string()),
  ms: z.number(),
};

type Infer<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;

// ---- the work -------------------------------------------------------------------------------

/** The tools over one session: one HTTP stack, one cache of responses, one of extracted sources. */
export class SourceTools {
  readonly #settings: ToolSettings;
  readonly #agent: Agent;
  readonly #fetch: FetchSettings;
  readonly #records = new Map<string, Promise<SourceRecord>>();

  constructor(settings: ToolSettings) {
    this.#settings = settings;
    this.#agent = new Agent({ keepAliveTimeout: 4_000, ...(settings.blockPrivate ? { connect: { lookup: guardedLookup } } : {}) });
    this.#fetch = {
      timeoutMs: settings.timeoutMs,
      maxBytes: DEFAULT_OPTIONS.maxBytes,
      maxRedirects: DEFAULT_OPTIONS.maxRedirects,
      userAgent: DEFAULT_OPTIONS.userAgent,
      retries: settings.retries,
      backoffMinMs: DEFAULT_OPTIONS.backoffMinMs,
      backoffMaxMs: DEFAULT_OPTIONS.backoffMaxMs,
      retryAfterCapMs: DEFAULT_OPTIONS.retryAfterCapMs,
      budgetMs: settings.sourceBudgetMs,
      blockPrivate: settings.blockPrivate,
      dispatcher: this.#agent.compose(settings.cache.interceptor()),
    };
  }

  /** What the pipeline needs to fetch through this session's cache with this session's limits. */
  #pipeline(): Partial<CheckOptions> {
    return {
      timeoutMs: this.#settings.timeoutMs,
      retries: this.#settings.retries,
      sourceBudgetMs: this.#settings.sourceBudgetMs,
      extractTimeoutMs: this.#settings.extractTimeoutMs,
      blockPrivate: this.#settings.blockPrivate,
      waybackUrl: this.#settings.waybackUrl,
      waybackPerMinute: this.#settings.waybackPerMinute,
      recorder: this.#settings.cache,
    };
  }

  async close(): Promise<void> {
    await this.#agent.destroy().catch(() => {});
  }

  async verify(input: Infer<typeof verifyInput>): Promise<Infer<typeof verifyOutput>> {
    const asOf = input.as_of === undefined ? undefined : asOfProblem(input.as_of);
    if (asOf) throw new ToolInputError(`as_of: ${asOf}`);
    const result = await verifyQuote(input.url, input.quote, {
      ...this.#pipeline(),
      htmlView: input.html_view ?? DEFAULT_OPTIONS.htmlView,
      // A date asked for is a date to judge by: look for a capture whenever today's text lacks the quote.
      ...(input.as_of !== undefined ? { asOf: input.as_of, wayback: 'always' as const } : {}),
    });
    if (result.diagnosis === 'invalid_claim') throw new ToolInputError(result.note ?? 'invalid quote or URL');
    return result as Infer<typeof verifyOutput>;
  }

  /** The source fetched and extracted once (kept for paging); an unreadable source is a ToolInputError naming why. */
  async #source(rawUrl: string): Promise<SourceRecord & Required<Pick<SourceRecord, 'text' | 'views'>>> {
    let parsed: URL;
    try {
      parsed = new URL(rawUrl);
    } catch {
      throw new ToolInputError(`url: not a URL: ${JSON.stringify(rawUrl.slice(0, 200))}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ToolInputError(`url: only http and https URLs are read, not ${parsed.protocol}`);
    parsed.hash = '';
    const key = parsed.href;
    let pending = this.#records.get(key);
    if (pending) {
      this.#records.delete(key);
      this.#records.set(key, pending);
    } else {
      pending = fetchSource(key, this.#fetch).then((fetched) => readSource(key, fetched, { extractTimeoutMs: this.#settings.extractTimeoutMs }));
      this.#records.set(key, pending);
      while (this.#records.size > RECORDS_KEPT) this.#records.delete(this.#records.keys().next().value!);
    }
    const record = await pending;
    if (!record.fetch.ok) {
      // A failure is not kept: the next call tries again (a non-retryable answer comes from the HTTP cache).
      if (this.#records.get(key) === pending) this.#records.delete(key);
      throw new ToolInputError(`cannot read ${key}: ${record.fetch.message}`);
    }
    if (record.extractError || !record.text || !record.views) {
      if (this.#records.get(key) === pending) this.#records.delete(key);
      throw new ToolInputError(`no text in ${key}: ${record.extractError?.message ?? 'nothing extracted'}`);
    }
    return record as SourceRecord & Required<Pick<SourceRecord, 'text' | 'views'>>;
  }

  async read(input: Infer<typeof readInput>): Promise<Infer<typeof readOutput>> {
    const record = await this.#source(input.url);
    const fetched = record.fetch as Extract<SourceRecord['fetch'], { ok: true }>;
    const { text } = record;
    const view = input.view ? text.views.find((v) => v.name === input.view) : text.views[0];
    if (!view) throw new ToolInputError(`view: ${input.view} is not a view of this source; it has ${text.views.map((v) => v.name).join(', ')}`);
    const total = view.text.length;
    const offset = input.offset ?? 0;
    if (offset > total) throw new ToolInputError(`offset: ${offset} is past the end of the ${view.name} view (${total} characters)`);
    const end = Math.min(total, offset + (input.length ?? DEFAULT_PAGE_CHARS));
    return {
      url: record.url,
      final_url: fetched.finalUrl,
      http_status: fetched.status,
      content_type: fetched.contentType ?? null,
      charset: text.charset ?? null,
      charset_source: text.charsetSource ?? null,
      views: text.views.map((v) => ({ name: v.name, extractor: v.extractor, length: v.text.length })),
      view: view.name,
      offset,
      total_length: total,
      next_offset: end < total ? end : null,
      text: view.text.slice(offset, end),
      note: text.note ?? null,
    };
  }

  async search(input: Infer<typeof searchInput>): Promise<Infer<typeof searchOutput>> {
    const query = normalize(input.query);
    if (query === '') throw new ToolInputError('query: nothing left after normalization (only whitespace)');
    if (query.length > MAX_QUERY_CHARS) throw new ToolInputError(`query: ${query.length} characters, over the ${MAX_QUERY_CHARS} searched; search for a part of it`);
    const record = await this.#source(input.url);
    const max = input.max_results ?? DEFAULT_RESULTS;
    const found: Infer<typeof searchOutput>['results'] = [];
    for (const [i, view] of record.views.entries()) {
      // The best span, then the best with it blanked out, and so on: the alignment finds one span a pass.
      let masked = view.text;
      for (let n = 0; n < max; n++) {
        const span = nearestSpan(query, masked);
        if (!span || span.end <= span.start || span.similarity <= 0) break;
        const { start, end } = widenToWords(view.text, span.start, span.end);
        const passageText = view.text.slice(start, end);
        masked = masked.slice(0, start) + '\u0000'.repeat(end - start) + masked.slice(end);
        // The article's passages are in the full page too: each passage is listed once, from the preferred view.
        if (found.some((f) => f.text === passageText)) continue;
        found.push({
          view: view.name,
          offset: start,
          length: end - start,
          similarity: Number(span.similarity.toFixed(3)),
          text: passageText,
          raw: rawSpan(record.text.views[i]!, view.text, start, end) ?? passageText,
        });
      }
    }
    found.sort((a, b) => b.similarity - a.similarity || a.offset - b.offset);
    return {
      url: record.url,
      final_url: record.fetch.finalUrl ?? record.url,
      query: input.query,
      exact: record.views.some((v) => v.text.includes(query)),
      results: found.slice(0, max),
    };
  }

  async check(input: Infer<typeof checkInput>): Promise<Infer<typeof checkOutput>> {
    const claimsPath = resolve(input.claims_path);
    const answersPath = resolve(input.answers_path ?? join(dirname(claimsPath), 'answers.json'));
    if (answersPath === claimsPath) throw new ToolInputError('answers_path: names the claims file; give another file');
    try {
      checkOutputPath(answersPath, 'answers_path');
    } catch (err) {
      if (err instanceof OutputPathError) throw new ToolInputError(err.message);
      throw err;
    }
    let set;
    try {
      set = await readClaimsFile(claimsPath);
    } catch (err) {
      if (err instanceof ClaimsFileError) throw new ToolInputError(`claims_path: ${err.message}`);
      throw err;
    }
    const book = new AnswerBook(set.entries.map((e) => e.id));
    const file = new AnswersFile(answersPath, 'map', book);
    const write = (): void => {
      try {
        file.write();
      } catch (err) {
        throw new ToolInputError(`answers_path ${answersPath}: cannot be written: ${describeFsError(err)}`);
      }
    };
    // Written at once (every claim no_match) and as claims are decided, as `run` does: a stopped call leaves answers.
    write();
    // Streamed, as `run` does: a call of any size holds its sources in flight only, and a tally.
    const tally = new RunTally();
    const listed: ClaimResult[] = [];
    const run = await streamClaims(set, {
      ...this.#pipeline(),
      onResult: (r) => {
        book.set(r.id, r.label);
        file.schedule();
        tally.addResult(r);
        if (r.index < MAX_LISTED_CLAIMS) listed.push(r);
      },
    });
    write();
    listed.sort((a, b) => a.index - b.index);
    return {
      answers_path: answersPath,
      claims: tally.claims,
      verbatim: tally.verbatim,
      no_match: tally.claims - tally.verbatim,
      diagnoses: Object.fromEntries(tally.diagnosisCounts()),
      results: listed.map((r) => ({ id: r.id, label: r.label, diagnosis: r.diagnosis, note: r.note ?? null })),
      listed: listed.length,
      warnings: run.warnings,
      ms: run.ms,
    };
  }
}
