// The MCP tools' work, apart from the protocol: verify a quote, read a source page by page, search it, check a claims
// file; each input and output with its zod schema.
import { posix } from 'node:path';
import { thousands } from '../messages.js';
import { asOfProblem } from '../asof/date.js';
import type { CheckOptions, ClaimResult } from '../check.js';
import { AnswersSession } from '../run/session.js';
import { sourceFetcher, type ExchangeInterceptor, type ReplayArchive, type SourceFetcher } from '../run/transport.js';
import { ClaimsFileError, describeClaim, evidenceHash, fetchUrlOf, type ClaimSet } from '../claims/schema.js';
import { DEFAULT_MAX_CLAIMS_BYTES, parseClaimsBytes } from '../claims/claims-file.js';
import type { RunSettings } from '../config/settings.js';
import { DEFAULT_OPTIONS } from '../config/defaults.js';
import { runSettingsOf, type CommandSettings } from '../config/fetch-options.js';
import { refusedByNetworkRule } from '../fetch/errors.js';
import { normalize } from '../normalize.js';
import { toSourceRecord, type SourceRecord } from '../source-record.js';
import { verifyQuote } from '../verify.js';
import type { SourceCache } from './cache.js';
import { searchHere, type PageWorker, type SearchRequest, type SearchResult } from './page-worker.js';
import {
  MAX_CLAIMS_PER_CALL,
  MAX_QUERY_CHARS,
  MAX_QUOTE_CHARS,
  MAX_URL_CHARS,
  PART_BYTES,
  echo,
  jsonBytes,
  sliceEnd,
} from './bounds.js';
import { PathError, shownPath, type RootFolder } from './files.js';
import { UserError } from '../errors.js';
import { describeFsError } from '../grader/grade.mjs';
import {
  type checkInput,
  type checkOutput,
  DEFAULT_PAGE_CHARS,
  DEFAULT_RESULTS,
  type Infer,
  MAX_EVIDENCE_CHARS,
  MAX_LISTED_CLAIMS,
  MAX_LISTED_WARNINGS,
  MAX_PASSAGE_CHARS,
  type readInput,
  type readOutput,
  type searchInput,
  type searchOutput,
  type verifyInput,
  type verifyOutput,
} from './tool-schemas.js';

/** A bad input or an unreadable source: the tool answers isError with this one line. */
export class ToolInputError extends UserError {
  override readonly name = 'ToolInputError';
}

/**
 * The session's settings: the pipeline settings `mcp`'s options of the table become (src/config/fetch-options.ts: its
 * limits, the network rule of docs/real-web.md#the-network-rule-global-addresses-only, the Wayback Machine), and the
 * session's own.
 */
export type ToolSettings = Omit<CommandSettings<'mcp'>, 'cacheBytes' | 'workBytes'> & {
  cache: SourceCache;
  /** The work budget's gate over the cache (src/mcp/work.ts): every fetch goes through it. */
  gate?: ExchangeInterceptor;
  /** The folder check_claims reads and writes in (docs/agent-tools.md#mcp-server). */
  root: RootFolder;
  /** A WARC archive every fetch is answered from, Wayback requests included, with no network (`--replay`). */
  replay?: ReplayArchive;
  /** Where a large page's claims are decided and its passages searched, off the main thread (page-worker.ts). */
  pages?: PageWorker;
};

// ---- the work -------------------------------------------------------------------------------

/** A caller's evidence hash as claims give it (64 hex digits, `sha256:` allowed), or a ToolInputError naming it. */
function evidenceOf(value: string): string {
  const hash = evidenceHash(value);
  if (hash === undefined)
    throw new ToolInputError(
      `evidence: ${JSON.stringify(echo(value, 80))} is not a sha256 (64 hex digits, optionally prefixed sha256:)`,
    );
  return hash;
}

/** A kept record's body: its texts are what the tools read. */
const NO_BODY = Buffer.alloc(0);

/** A source being fetched and extracted for its callers. */
interface SharedLoad {
  pending: Promise<SourceRecord>;
  stop: AbortController;
  callers: number;
}

/**
 * The tools over one session: one cache of responses (under every fetch, the pipeline's and read_source's), one of
 * extracted sources.
 */
export class SourceTools {
  readonly #settings: ToolSettings;
  readonly #fetcher: SourceFetcher;
  readonly #records = new Map<string, Promise<SourceRecord>>();
  /** The loads under way, with their callers: a load stops when all of them have. */
  readonly #loads = new Map<string, SharedLoad>();

  /**
   * The replay's archive, under the work budget's gate when there is one: replayed pages are worked on all the same.
   */
  readonly #archive: ReplayArchive | undefined;

  constructor(settings: ToolSettings) {
    this.#settings = settings;
    const { replay, gate } = settings;
    this.#archive =
      replay && gate ? Object.assign(replay.compose(gate.interceptor()), { waybackBase: replay.waybackBase }) : replay;
    this.#fetcher = sourceFetcher({ ...DEFAULT_OPTIONS, ...this.#pipeline() });
  }

  /**
   * The run core's settings for this session: its limits, its network rule, its archive, and its cache (or the replay)
   * as the transport.
   */
  #pipeline(): Partial<CheckOptions> & Pick<RunSettings, 'timeoutMs' | 'retries' | 'sourceBudgetMs' | 'allowPrivate'> {
    return {
      ...runSettingsOf('mcp', this.#settings),
      ...(this.#settings.pages ? { offThread: this.#settings.pages } : {}),
      transport: this.#archive
        ? { kind: 'replay', archive: this.#archive }
        : { kind: 'cached', cache: this.#settings.gate ?? this.#settings.cache },
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.#fetcher.close(), this.#settings.pages?.close()]);
  }

  /** One quote against its source; `signal` (the call's time limit) stops the pipeline. */
  async verify(input: Infer<typeof verifyInput>, signal?: AbortSignal): Promise<Infer<typeof verifyOutput>> {
    const asOf = input.as_of === undefined ? undefined : asOfProblem(input.as_of);
    if (asOf) throw new ToolInputError(`as_of: ${asOf}`);
    const result = await verifyQuote(input.url, input.quote, {
      ...this.#pipeline(),
      signal,
      htmlView: input.html_view ?? DEFAULT_OPTIONS.htmlView,
      // The date, evidence and mode `run` takes, with run's defaults: the same claim gets the same answer.
      ...(input.as_of !== undefined ? { asOf: input.as_of } : {}),
      ...(input.evidence !== undefined ? { evidence: evidenceOf(input.evidence) } : {}),
      wayback: input.wayback ?? DEFAULT_OPTIONS.wayback,
    });
    if (result.diagnosis === 'invalid_claim') throw new ToolInputError(result.note ?? 'invalid quote or URL');
    // A source quotecheck would not fetch (the network rule) is about the call, not the quote:
    // an error, so that a model never reads the refusal's no_match as an answer.
    if (result.diagnosis === 'fetch_failed' && refusedByNetworkRule(result.note))
      throw new ToolInputError(echo(result.note, 2_000));
    // The caller's own inputs come back shortened when long; so does evidence a hostile page can make huge.
    return {
      ...result,
      quote: echo(result.quote),
      url: result.url === null ? null : echo(result.url),
      // A long quote's words come back in the diff's runs: a run is shortened as an echo is.
      ...(result.nearest
        ? {
            nearest: {
              ...result.nearest,
              raw: echo(result.nearest.raw, MAX_EVIDENCE_CHARS),
              diff: result.nearest.diff.map((run) => ({ ...run, text: echo(run.text) })),
            },
          }
        : {}),
      ...(result.redirect
        ? { redirect: { ...result.redirect, target: echo(result.redirect.target, MAX_URL_CHARS) } }
        : {}),
    } as Infer<typeof verifyOutput>;
  }

  /** Counts a kept record again, with its token maps once a search built them. */
  #recount(record: SourceRecord, searched: boolean): void {
    // A record's url is its key: the URL without its fragment, as #source made it.
    const key = record.url;
    const pending = this.#records.get(key);
    if (!pending) return;
    const bytes = recordBytes(record) + (searched ? tokenMapBytes(record) : 0);
    if (!this.#settings.cache.budget.keep(`record\n${key}`, bytes, () => this.#drop(key, pending)))
      this.#drop(key, pending);
  }

  /** Forgets the record of `key` if `pending` is still it. */
  #drop(key: string, pending: Promise<SourceRecord>): void {
    if (this.#records.get(key) === pending) this.#records.delete(key);
  }

  /**
   * Fetches and extracts a source for paging and searching. A usable record is kept under the session's byte
   * budget (shared with the HTTP cache: least recently used dropped first); a failure, or a record larger than
   * the whole budget, is not kept (the next call tries again; a non-retryable answer comes from the HTTP cache).
   * Callers asking for the same source share its work, bounded by the source budget and the extraction time limit;
   * it stops (fetch and extraction) when every caller has stopped (a cancelled call frees what it held).
   */
  #load(key: string): SharedLoad {
    const { budget } = this.#settings.cache;
    const stop = new AbortController();
    const signal = stop.signal;
    // Settled, the load takes no more callers: the next caller is served the kept record, or starts a load again.
    const settled = (): void => {
      if (this.#loads.get(key) === load) this.#loads.delete(key);
    };
    const pending: Promise<SourceRecord> = this.#fetcher
      .fetch(key, signal)
      .then((fetched) => toSourceRecord(key, fetched, { extractTimeoutMs: this.#settings.extractTimeoutMs, signal }))
      // Paging and searching read the texts only: the body (also in the HTTP cache) is not held a second time.
      .then((record) => (record.fetch.ok ? { ...record, fetch: { ...record.fetch, body: NO_BODY } } : record))
      .then(
        (record) => {
          settled();
          const usable = record.fetch.ok && record.text && record.views && !record.extractError;
          if (!usable || !budget.keep(`record\n${key}`, recordBytes(record), () => this.#drop(key, pending)))
            this.#drop(key, pending);
          return record;
        },
        (err: unknown) => {
          settled();
          this.#drop(key, pending);
          throw err;
        },
      );
    // A load whose callers have all stopped is awaited by no one: its failure is not an unhandled rejection.
    pending.catch(() => {});
    const load: SharedLoad = { pending, stop, callers: 0 };
    this.#records.set(key, pending);
    this.#loads.set(key, load);
    return load;
  }

  /** The record of `key` for one caller: the load shared with other callers, stopped when the last of them stops. */
  async #shared(key: string, signal?: AbortSignal): Promise<SourceRecord> {
    const kept = this.#records.get(key);
    if (kept) this.#settings.cache.budget.touch(`record\n${key}`);
    if (kept && this.#loads.get(key)?.pending !== kept) return untilAborted(kept, signal);
    const load = this.#loads.get(key) ?? this.#load(key);
    load.callers++;
    try {
      return await untilAborted(load.pending, signal);
    } finally {
      // The last caller stopped while the load was under way: it stops too, and is not kept.
      if (--load.callers === 0 && signal?.aborted && this.#loads.get(key) === load) {
        load.stop.abort(signal.reason);
        this.#drop(key, load.pending);
        this.#loads.delete(key);
      }
    }
  }

  /** The source fetched and extracted once (kept for paging); an unreadable source is a ToolInputError naming why. */
  async #source(
    rawUrl: string,
    signal?: AbortSignal,
  ): Promise<SourceRecord & Required<Pick<SourceRecord, 'text' | 'views'>>> {
    // The URL by the claims' own rule (claims.ts fetchUrlOf), in the tool's words.
    const url = fetchUrlOf(rawUrl);
    if (!url.ok) {
      throw new ToolInputError(
        url.problem === 'not-a-url'
          ? `url: not a URL: ${JSON.stringify(rawUrl.slice(0, 200))}`
          : `url: only http and https URLs are read, not ${url.protocol}`,
      );
    }
    const key = url.href;
    let record = await this.#shared(key, signal);
    // A load another caller stopped (cancelled, or deferred by the work budget) is started again for this one.
    if (!record.fetch.ok && record.fetch.error === 'aborted' && !signal?.aborted)
      record = await this.#shared(key, signal);
    const shown = echo(key);
    if (!record.fetch.ok) throw new ToolInputError(`cannot read ${shown}: ${record.fetch.message}`);
    if (record.extractError || !record.text || !record.views) {
      throw new ToolInputError(`no text in ${shown}: ${record.extractError?.message ?? 'nothing extracted'}`);
    }
    return record as SourceRecord & Required<Pick<SourceRecord, 'text' | 'views'>>;
  }

  /** A page of a source's text: at most `length` characters, and fewer when their JSON would pass PART_BYTES. */
  async read(input: Infer<typeof readInput>, signal?: AbortSignal): Promise<Infer<typeof readOutput>> {
    const record = await this.#source(input.url, signal);
    const fetched = record.fetch as Extract<SourceRecord['fetch'], { ok: true }>;
    const { text } = record;
    const view = input.view ? text.views.find((v) => v.name === input.view) : text.views[0];
    if (!view)
      throw new ToolInputError(
        `view: ${input.view} is not a view of this source; it has ${text.views.map((v) => v.name).join(', ')}`,
      );
    const total = view.text.length;
    const offset = input.offset ?? 0;
    if (offset > total)
      throw new ToolInputError(`offset: ${offset} is past the end of the ${view.name} view (${total} characters)`);
    const end = sliceEnd(view.text, offset, input.length ?? DEFAULT_PAGE_CHARS, PART_BYTES);
    return {
      url: echo(record.url),
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
      // A copy, not a slice: V8 keeps the whole view alive for a slice of it, as long as the answer lives.
      text: copied(view.text.slice(offset, end)),
      note: text.note ?? null,
    };
  }

  /**
   * A search on a large page on the page worker (the main thread stays free for the calls meanwhile); on a small page,
   * or when the worker fails, here. A call stopped meanwhile stops waiting for it.
   */
  async #searched(request: SearchRequest, signal?: AbortSignal): Promise<SearchResult> {
    const { pages } = this.#settings;
    const longest = Math.max(0, ...request.raw.map((v) => v.text.length));
    if (pages?.takes(longest)) {
      const result = await untilAborted(pages.search(request), signal).catch((err: unknown) => {
        if (signal?.aborted) throw err;
        return undefined;
      });
      if (result) return result;
    }
    return searchHere(request, signal);
  }

  /**
   * The passages closest to a phrase: at most `max_results` distinct ones (passages.ts: the sentences around each place
   * alignment finds, then sentences sharing the phrase's words), and fewer when their JSON would pass PART_BYTES.
   */
  async search(input: Infer<typeof searchInput>, signal?: AbortSignal): Promise<Infer<typeof searchOutput>> {
    const query = normalize(input.query);
    if (query === '') throw new ToolInputError('query: nothing left after normalization (only whitespace)');
    if (query.length > MAX_QUERY_CHARS)
      throw new ToolInputError(
        `query: ${thousands(query.length)} characters once normalized, over the ` +
          `${thousands(MAX_QUERY_CHARS)}-character cap; search for a part of it`,
      );
    const record = await this.#source(input.url, signal);
    const max = input.max_results ?? DEFAULT_RESULTS;
    const views = record.views;
    // Each raw view without its normalized text: the normalized views hold it (a copy would cross to the worker twice).
    const raw = record.text.views.map(({ name, extractor, text }) => ({ name, extractor, text }));
    const request = { query, normalized: views.map((v) => v.text), raw, max };
    const { passages, exact } = await this.#searched(request, signal);
    const found = passages.map((p) => ({
      view: views[p.view]!.name,
      offset: p.start,
      length: p.end - p.start,
      span_offset: p.spanStart,
      span_length: p.spanEnd - p.spanStart,
      similarity: p.similarity,
      text: p.text,
      raw: p.raw,
    }));
    // rawSpan built each view's token map (src/match.ts), which lives as long as the record: it counts too.
    this.#recount(record, true);
    const results: Infer<typeof searchOutput>['results'] = [];
    let bytes = 0;
    for (const f of found) {
      const shown = { ...f, text: echo(f.text, MAX_PASSAGE_CHARS), raw: echo(f.raw, MAX_PASSAGE_CHARS) };
      bytes += jsonBytes(shown);
      if (bytes > PART_BYTES && results.length > 0) break;
      results.push(shown);
    }
    const left = found.length - results.length;
    const few =
      found.length < max
        ? `${found.length === 0 ? 'no' : `only ${found.length}`} passage(s) of this source come close to the query ` +
          `or share a word with it`
        : null;
    return {
      url: echo(record.url),
      final_url: record.fetch.finalUrl ?? record.url,
      query: echo(input.query),
      exact,
      results,
      note:
        left > 0
          ? `${left} more passage(s) left out to keep the answer under ${thousands(PART_BYTES)} bytes of text; ` +
            `search for a longer phrase`
          : few,
    };
  }

  /**
   * The pipeline on a claims file under the root, the answers written beside it (or where answers_path says,
   * under the root). Every check comes before any work: the paths, the file's size, its claims (count, quote
   * and URL lengths). `signal` (the call's time limit) stops the run: undecided claims are answered no_match.
   */
  async check(input: Infer<typeof checkInput>, signal?: AbortSignal): Promise<Infer<typeof checkOutput>> {
    const { root } = this.#settings;
    const shownClaims = `claims_path ${shownPath(input.claims_path)}`;
    const answersInput = input.answers_path ?? posix.join(posix.dirname(input.claims_path), 'answers.json');
    let target;
    let set: ClaimSet;
    try {
      const claimsFile = root.read(input.claims_path, 'claims_path', DEFAULT_MAX_CLAIMS_BYTES);
      set = parseClaimsBytes(claimsFile.bytes, shownClaims);
      target = root.answersTarget(answersInput, 'answers_path', claimsFile.identity);
    } catch (err) {
      if (err instanceof PathError || err instanceof ClaimsFileError) throw new ToolInputError(err.message);
      throw err;
    }
    refuseOverCaps(set, shownClaims);
    // The run core's answers session, as `run` has it: the file written at once (every claim no_match), as claims are
    // decided and at the end, so a stopped call leaves answers; streamed, so a call holds its sources in flight only.
    const session = new AnswersSession(set, target);
    const writing = (step: () => void): void => {
      try {
        step();
      } catch (err) {
        throw new ToolInputError(`answers_path ${shownPath(answersInput)}: cannot be written: ${describeFsError(err)}`);
      }
    };
    writing(() => session.start());
    const listed: ClaimResult[] = [];
    const run = await session.run({
      ...this.#pipeline(),
      signal,
      onResult: (r) => {
        if (r.index < MAX_LISTED_CLAIMS) listed.push(r);
      },
    });
    writing(() => session.finish());
    const { tally } = session;
    listed.sort((a, b) => a.index - b.index);
    const results: Infer<typeof checkOutput>['results'] = [];
    let bytes = 0;
    for (const r of listed) {
      const item = {
        id: echo(r.id, 200),
        label: r.label,
        diagnosis: r.diagnosis,
        note: r.note === undefined ? null : echo(r.note),
      };
      bytes += jsonBytes(item);
      if (bytes > PART_BYTES) break;
      results.push(item);
    }
    const warnings = run.warnings.slice(0, MAX_LISTED_WARNINGS).map((w) => echo(w, 500));
    if (run.warnings.length > MAX_LISTED_WARNINGS)
      warnings.push(`... and ${thousands(run.warnings.length - MAX_LISTED_WARNINGS)} more warnings`);
    return {
      answers_path: target.path,
      claims: tally.claims,
      verbatim: tally.verbatim,
      no_match: tally.claims - tally.verbatim,
      diagnoses: Object.fromEntries(tally.diagnosisCounts()),
      results,
      listed: results.length,
      warnings,
      ms: run.ms,
    };
  }
}

/** Refuses a claims file over check_claims' caps (claims per call, a quote's and a URL's length), naming the first. */
function refuseOverCaps(set: ClaimSet, shownClaims: string): void {
  if (set.entries.length > MAX_CLAIMS_PER_CALL) {
    throw new ToolInputError(
      `${shownClaims}: ${thousands(set.entries.length)} claims, over the ${thousands(MAX_CLAIMS_PER_CALL)}-claim ` +
        `cap for one check_claims call; split the file, or label it with \`quotecheck run\``,
    );
  }
  for (const e of set.entries) {
    if (e.kind !== 'claim') continue;
    for (const [field, value, cap] of [
      ['quote', e.quote, MAX_QUOTE_CHARS],
      ['url', e.url, MAX_URL_CHARS],
    ] as const) {
      if (value.length > cap) {
        throw new ToolInputError(
          `${shownClaims}: ${describeClaim(e.index, echo(e.id, 100))}: ${field}: ${thousands(value.length)} ` +
            `characters, over the ${thousands(cap)}-character cap`,
        );
      }
    }
  }
}

/**
 * What an extracted source costs kept: its body's bytes, and two bytes a UTF-16 unit of each text it holds (raw views,
 * normalized views).
 */
function recordBytes(record: SourceRecord): number {
  let units = 0;
  const views = record.text?.views ?? [];
  for (const [i, v] of views.entries()) {
    units += v.text.length;
    // normalizeViews hands the extractor's normalized text on as the view's own: one string, counted once.
    if (v.normalized !== undefined && v.normalized !== record.views?.[i]?.text) units += v.normalized.length;
  }
  for (const v of record.views ?? []) units += v.text.length;
  return (record.fetch.ok ? record.fetch.body.byteLength : 0) + 2 * units;
}

/**
 * At most what the token maps of a record's views take (src/match.ts: four Int32Arrays, 16 bytes a token): a token
 * is at least one character and a separator, so half a token a character.
 */
function tokenMapBytes(record: SourceRecord): number {
  let bytes = 0;
  for (const v of record.text?.views ?? []) bytes += 16 * Math.ceil(v.text.length / 2);
  return bytes;
}

/** A string of its own: a slice of a long text (V8's sliced string) keeps the long text alive. */
function copied(s: string): string {
  return Buffer.from(s, 'utf16le').toString('utf16le');
}

/** `work`, or a rejection as soon as `signal` aborts (the work itself goes on, shared with other callers). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', stop, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', stop);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(err as Error);
      },
    );
  });
}
