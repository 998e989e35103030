// The pipeline: claims -> sources (each URL fetched once) -> texts (live, or as of the claim's date) -> matches -> one result per claim.
import type { Dispatcher } from 'undici';
import pLimit, { type LimitFunction } from 'p-limit';
import { ClaimsFileError, parseClaims, type Claim, type ClaimEntry, type ClaimSet } from './claims.js';
import { FetchLimits, fetchSource, type FetchSettings } from './fetch/index.js';
import { guardedAgent } from './fetch/guard.js';
import { findQuote, textQuoteSelector, type Match, type TextQuoteSelector } from './match.js';
import { normalize } from './normalize.js';
import type { Label } from './answers.js';
import { diagnose, forgetSource, type Diagnosis, type Nearest } from './diagnose/index.js';
import { DEFAULT_OPTIONS } from './defaults.js';
import { readSource, type SourceRecord } from './source.js';
import type { CharsetSource } from './extract/index.js';
import { parseAsOf, type AsOfDate } from './asof/date.js';
import { driftOf, type Drift, type EvidenceMatch } from './asof/evidence.js';
import { isProven, judge, needsCapture, type AsOf, type Judgement, type LiveReading } from './asof/judge.js';
import { CaptureTexts, type CaptureOutcome } from './asof/captures.js';
import { WaybackClient, type WaybackOptions, type WaybackStats } from './wayback/client.js';
import type { HtmlViewChoice, RunSettings } from './settings.js';

export { DEFAULT_OPTIONS, VERSION } from './defaults.js';
export type { SourceRecord } from './source.js';

/** An undici interceptor under every HTTP exchange of the run: a WARC recorder watches them; the MCP server's cache also answers them. */
export interface ExchangeRecorder {
  interceptor(): Dispatcher.DispatcherComposeInterceptor;
}

/** A run's settings (settings.ts) with the optional ones and the run's hooks. */
export interface CheckOptions extends RunSettings {
  /** Judge every claim as of this ISO date or date-time instead of its own verify date. */
  asOf?: string;
  /** pdftotext executable (default: from PATH). */
  pdftotext?: string;
  /** Sits under every HTTP exchange (a WARC recorder's interceptor, or the MCP server's response cache). */
  recorder?: ExchangeRecorder;
  /**
   * Answers every request instead of the network (a WARC replay): texts are reported as `replay`. When it names the
   * Wayback base its recording asked (src/archive/replay.ts), the run's archive requests go there, whatever `waybackUrl` says.
   */
  replay?: Dispatcher & { readonly waybackBase?: string };
  /** Stops the run: claims not decided by then are answered `no_match`. */
  signal?: AbortSignal;
  /** When the run must end (epoch ms): no Wayback wait may end after it. */
  deadlineAt?: number;
  /**
   * Called as each claim is decided (in decision order); when the run stops early, once more for
   * each claim it did not decide (`undecided: true`, answered `no_match`), so every claim is seen once.
   */
  onResult?: (result: ClaimResult) => void;
  /** Called as each source is settled (fetched and extracted, or failed). The run keeps no reference to it after its claims are decided. */
  onSource?: (source: SourceRecord) => void;
  /** Called as the Wayback Machine's requests are queued, sent and answered (progress shows the pacing wait). */
  onArchive?: WaybackOptions['onActivity'];
}

export interface ClaimResult {
  id: string;
  index: number;
  label: Label;
  diagnosis: Diagnosis;
  url?: string;
  quote?: string;
  finalUrl?: string;
  httpStatus?: number;
  contentType?: string;
  sourceSha256?: string;
  charset?: string;
  /** Where the charset came from (design.md §4): the BOM, the HTTP header, a <meta>, detection from the bytes, or the default. */
  charsetSource?: CharsetSource;
  extractor?: string;
  match: Match | null;
  /** For a verbatim claim: the match as a W3C TextQuoteSelector over the page's own text. */
  selector?: TextQuoteSelector;
  /** For a no_match claim with text: the closest span of the source and its similarity. */
  nearest?: Nearest | null;
  /** The live source against the claim's evidence hash. */
  drift: Drift;
  /** Which hash of the live source equals the evidence, when one does. */
  evidenceMatch?: EvidenceMatch;
  /** Which text decided the label, and why it stands for the claim's date. */
  asOf?: AsOf;
  note?: string;
  /** Time spent on this claim's source, match and diagnosis, in milliseconds. */
  ms: number;
  /** Set when the run stopped (deadline, signal) before this claim was decided: it is answered `no_match`, and `note` says why. */
  undecided?: true;
}

/** What streamClaims returns: the run's own facts. Each claim's result and each source went to `onResult` and `onSource` as they came, and were not kept. */
export interface StreamedRun {
  /** Claims in the input (each was passed to `onResult` once). */
  claims: number;
  /** Problems that did not invalidate a claim (a malformed optional field, dropped), as parseClaims reports them. */
  warnings: string[];
  /** Why the run ended early, if it did: claims not decided were answered `no_match`. */
  stopped?: string;
  /** What the Wayback Machine was asked, when it was. */
  wayback?: WaybackStats;
  ms: number;
}

/** What checkClaims returns: the run, with every result and every source kept. */
export interface CheckRun extends StreamedRun {
  /** One result per claim, in input order. */
  results: ClaimResult[];
  /** Every source read, in the order they were settled (with their texts: memory grows with the run; streamClaims keeps none). */
  sources: SourceRecord[];
}

/** Notes joined with "; ", each once (a fallback may also be why there is no article view). */
function joinNotes(...notes: (string | undefined)[]): string | undefined {
  const parts = [...new Set(notes.filter((n): n is string => !!n))];
  return parts.length ? parts.join('; ') : undefined;
}

function resultFor(claim: Claim, quote: string, live: LiveReading, j: Judgement, choice: HtmlViewChoice, sourceMs: number): ClaimResult {
  const t0 = performance.now();
  const { record, match } = j;
  const { text, views } = record;
  const label: Label = match ? 'verbatim' : 'no_match';
  let selector: TextQuoteSelector | undefined;
  if (match && text && views) {
    const i = views.findIndex((v) => v.name === match.view);
    selector = textQuoteSelector(text.views[i]!, views[i]!.text, match);
  }
  let diagnosed: ReturnType<typeof diagnose>;
  try {
    diagnosed = diagnose({ label, quote, rawQuote: claim.quote, source: record, match, htmlView: choice });
  } catch (err) {
    // A fault in the diagnosis must not cost the claim its label, nor the run its other claims.
    diagnosed = { diagnosis: label === 'verbatim' ? 'verbatim' : 'not_found', note: `diagnosis failed (a quotecheck bug; the label stands): ${(err as Error).message}`, nearest: null };
  }
  const { nearest } = diagnosed;
  // A drifted source's live text says nothing about the quote as of its date: what it would have said stays in the note.
  const diagnosis: Diagnosis = j.drifted && label === 'no_match' ? 'drifted' : diagnosed.diagnosis;
  const diagnosisNote = j.drifted && diagnosed.diagnosis !== 'drifted' ? `today's text: ${diagnosed.diagnosis}${diagnosed.note ? ` (${diagnosed.note})` : ''}` : diagnosed.note;
  const liveFetch = live.record.fetch;
  return {
    id: claim.id,
    index: claim.index,
    label,
    diagnosis,
    url: claim.url,
    quote: claim.quote,
    finalUrl: liveFetch.finalUrl,
    httpStatus: liveFetch.status,
    contentType: liveFetch.contentType,
    sourceSha256: liveFetch.ok ? liveFetch.sha256 : undefined,
    charset: text?.charset,
    charsetSource: text?.charsetSource,
    extractor: match?.extractor ?? (nearest ? views?.find((v) => v.name === nearest.view)?.extractor : undefined) ?? text?.views[0]?.extractor,
    match,
    selector,
    nearest,
    drift: live.drift,
    evidenceMatch: live.evidenceMatch ?? undefined,
    asOf: j.asOf,
    // A verbatim claim has no diagnosis note; the source may still have one (no article view, and why).
    // Every fallback the source's extraction took is named, whatever the label (design.md §4).
    note: j.drifted ? joinNotes(j.note, diagnosisNote, ...(text?.fallbacks ?? [])) : joinNotes(diagnosisNote ?? text?.note, ...(text?.fallbacks ?? []), j.note),
    ms: sourceMs + Math.round(performance.now() - t0),
  };
}

function undecided(entry: ClaimEntry, why: string): ClaimResult {
  return {
    id: entry.id,
    index: entry.index,
    label: 'no_match',
    diagnosis: 'fetch_failed',
    url: entry.url,
    quote: entry.kind === 'claim' ? entry.quote : undefined,
    match: null,
    drift: 'unknown',
    note: `not decided: ${why}`,
    ms: 0,
    undecided: true,
  };
}

function invalid(entry: Extract<ClaimEntry, { kind: 'invalid' }>): ClaimResult {
  return { id: entry.id, index: entry.index, label: 'no_match', diagnosis: 'invalid_claim', url: entry.url, match: null, drift: 'unknown', note: entry.problems.join('; '), ms: 0 };
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : 'stopped';
}

/** A valid claim and its place in the list given to checkClaims (where its result goes). */
interface Slotted {
  claim: Claim;
  slot: number;
}

/** Claims grouped by the URL fetched for them (fragments dropped): each source is fetched once. */
function bySource(entries: readonly ClaimEntry[], decideInvalid: (r: ClaimResult, slot: number) => void): Map<string, Slotted[]> {
  const groups = new Map<string, Slotted[]>();
  entries.forEach((entry, slot) => {
    if (entry.kind === 'invalid') {
      decideInvalid(invalid(entry), slot);
      return;
    }
    const group = groups.get(entry.fetchUrl);
    if (group) group.push({ claim: entry, slot });
    else groups.set(entry.fetchUrl, [{ claim: entry, slot }]);
  });
  return groups;
}

/**
 * A claim as a library user writes it: one entry of a claims file (design.md §1). At run time the
 * aliases of the claims file are accepted too (`claim_id`, `quoted_text`, `source_url`, ...), and
 * unknown fields are ignored.
 */
export interface ClaimInput {
  id: string | number;
  quote: string;
  url: string;
  claim?: string;
  verify_date?: string;
  evidence?: { sha256?: string };
}

/** What checkClaims takes: plain claims, the entries parseClaims returns, or its whole result. */
export type ClaimsInput = readonly ClaimInput[] | readonly ClaimEntry[] | ClaimSet;

/** Where checkClaims's errors say they come from. */
const CALLER = 'checkClaims';

/** Whether `x` is an entry made by parseClaims (or readClaimsFile), rather than a plain claim. */
function isEntry(x: unknown): x is ClaimEntry {
  if (typeof x !== 'object' || x === null) return false;
  const e = x as Partial<Claim> & { kind?: unknown; problems?: unknown };
  if (typeof e.index !== 'number' || typeof e.id !== 'string') return false;
  if (e.kind === 'claim') return typeof e.fetchUrl === 'string' && typeof e.quote === 'string' && typeof e.url === 'string';
  return e.kind === 'invalid' && Array.isArray(e.problems);
}

function describeValue(x: unknown): string {
  return x === null ? 'null' : Array.isArray(x) ? 'an array' : typeof x;
}

/**
 * The entries to check: parsed entries as they are; plain claims validated by the claims file's
 * own rules (parseClaims). Throws ClaimsFileError naming what is wrong when nothing can be checked.
 */
function entriesOf(input: ClaimsInput): { entries: readonly ClaimEntry[]; warnings: string[] } {
  if (!Array.isArray(input)) {
    const set = input as Partial<ClaimSet> | null;
    if (typeof set === 'object' && set !== null && Array.isArray(set.entries) && set.entries.every(isEntry)) {
      return { entries: set.entries, warnings: Array.isArray(set.warnings) ? [...set.warnings] : [] };
    }
    throw new ClaimsFileError(`${CALLER}: expected an array of claims ({id, quote, url} objects) or what parseClaims returns, got ${describeValue(input)}`);
  }
  const list: readonly unknown[] = input;
  const firstEntry = list.findIndex(isEntry);
  if (firstEntry === -1) {
    if (list.length === 0) return { entries: [], warnings: [] };
    const set = parseClaims(list, CALLER);
    return { entries: set.entries, warnings: set.warnings };
  }
  const firstPlain = list.findIndex((x) => !isEntry(x));
  if (firstPlain !== -1) {
    throw new ClaimsFileError(
      `${CALLER}: item ${firstEntry + 1} of the list is an entry from parseClaims but item ${firstPlain + 1} is not (${describeValue(list[firstPlain])}); ` +
        'pass either plain {id, quote, url} objects or the entries of parseClaims, not both',
    );
  }
  return { entries: list as readonly ClaimEntry[], warnings: [] };
}

/** A run's two HTTP stacks: one for sources, one for the Wayback Machine (whose configured origin it may reach whatever its address). */
interface RunStacks {
  sources: Dispatcher;
  archive: Dispatcher;
  close: () => void;
}

/**
 * The HTTP stacks of a run: pooled agents under the network rule (src/fetch/guard.ts), recorded, or
 * both replaced by a replay (which never reaches the network, so there is nothing to guard). The
 * archive's agent trusts the archive's own origin only: a capture that redirects elsewhere is judged
 * like a source.
 */
function stacksFor(options: CheckOptions): RunStacks {
  if (options.replay) return { sources: options.replay, archive: options.replay, close: () => {} };
  const pool = { connections: options.perHost * 2, keepAliveTimeout: 4_000 };
  const agents = [guardedAgent({ allowPrivate: options.allowPrivate }, pool)];
  if (options.wayback !== 'off') agents.push(guardedAgent({ allowPrivate: options.allowPrivate, trustedOrigin: options.waybackUrl }, pool));
  const [sources, archive = sources] = agents.map((agent) => (options.recorder ? agent.compose(options.recorder.interceptor()) : agent)) as [Dispatcher, Dispatcher?];
  // Do not wait for in-flight work when stopping: close sockets in the background.
  return { sources, archive, close: () => agents.forEach((agent) => void agent.destroy().catch(() => {})) };
}

/** Each claim's "as of" date: --as-of, else its verify date; a date the archive cannot use counts as none. */
function asOfFor(claim: Claim, override: AsOfDate | undefined): AsOfDate | undefined {
  if (override) return override;
  if (!claim.verifyDate) return undefined;
  try {
    return parseAsOf(claim.verifyDate);
  } catch {
    return undefined;
  }
}

/** Today, for claims without a date: the archive's latest captures. */
function today(): AsOfDate {
  return parseAsOf(new Date().toISOString().slice(0, 19) + 'Z');
}

/** A run's fetch settings, from its options and its HTTP stack. */
function fetchSettingsFor(options: CheckOptions, dispatcher: Dispatcher): FetchSettings {
  const replaying = options.replay !== undefined;
  return {
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    maxRedirects: options.maxRedirects,
    userAgent: options.userAgent,
    retries: options.retries,
    // A replay has no server to be polite to: retries are immediate.
    backoffMinMs: replaying ? 0 : options.backoffMinMs,
    backoffMaxMs: replaying ? 0 : options.backoffMaxMs,
    retryAfterCapMs: replaying ? 0 : options.retryAfterCapMs,
    budgetMs: options.sourceBudgetMs,
    dispatcher,
  };
}

/** A run's Wayback client, over the run's HTTP stack (so a replay answers it too); none with `wayback: 'off'`. */
function waybackFor(options: CheckOptions, settings: FetchSettings, archive: Dispatcher): WaybackClient | undefined {
  if (options.wayback === 'off') return undefined;
  return new WaybackClient({
    // A replay asks the archive the recording asked: its lookups and capture URLs are the recorded ones.
    base: options.replay?.waybackBase ?? options.waybackUrl,
    perMinute: options.replay !== undefined ? Infinity : options.waybackPerMinute,
    request: { ...settings, dispatcher: archive },
    maxWaitMs: options.waybackMaxWaitMs,
    signal: options.signal,
    deadlineAt: options.deadlineAt,
    onActivity: options.onArchive,
  });
}

/** Waits for `work`, or until `signal` aborts, whichever comes first: a stopped run returns at once. */
async function untilDoneOrStopped(work: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) {
    await work;
    return;
  }
  await Promise.race([
    work,
    new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    }),
  ]);
}

/**
 * Sources a run holds once fetched (waiting to be read, being read or decided), per fetch slot. Past
 * it, fetching waits for extraction to catch up, so the bodies in memory are at most
 * `concurrency` x (1 + this) whatever the run's size: memory follows --concurrency and the largest
 * sources. Without the bound a fast network piles bodies up (a test saw 265 of 300 waiting); at 2,
 * 4 and 8 per slot, and without it, the bench's 1x workload took the same time within its noise.
 */
export const HELD_PER_FETCH_SLOT = 4;

/** Takes a slot of `limit` and holds it until the returned function is called. */
function acquire(limit: LimitFunction): Promise<() => void> {
  return new Promise((granted) => {
    void limit(() => new Promise<void>((release) => granted(release)));
  });
}

/**
 * The work of one checkClaims call: each source fetched and read once, then each of its claims
 * matched, dated (a Wayback capture when the live text cannot stand for the claim's date) and
 * decided. Results go to `decide` and sources to `onSource` as they come; nothing of a source is
 * kept once its claims are decided, so memory follows the sources in flight, not the run's size.
 */
class Run {
  readonly wayback: WaybackClient | undefined;
  readonly #options: CheckOptions;
  readonly #settings: FetchSettings;
  readonly #readSettings: Parameters<typeof readSource>[2];
  readonly #limits: FetchLimits;
  /** Sources fetched and not yet decided (HELD_PER_FETCH_SLOT): bounded, so a fast network cannot pile up bodies waiting for extraction. */
  readonly #held: LimitFunction;
  readonly #captures: CaptureTexts | undefined;
  readonly #asOfOverride: AsOfDate | undefined;
  readonly #decide: (r: ClaimResult, slot: number) => void;

  constructor(options: CheckOptions, stacks: RunStacks, asOfOverride: AsOfDate | undefined, decide: (r: ClaimResult, slot: number) => void) {
    this.#options = options;
    this.#decide = decide;
    this.#asOfOverride = asOfOverride;
    this.#settings = fetchSettingsFor(options, stacks.sources);
    this.#readSettings = { extractTimeoutMs: options.extractTimeoutMs, pdftotext: options.pdftotext, signal: options.signal };
    this.#limits = new FetchLimits(options.concurrency, options.perHost);
    this.#held = pLimit(options.concurrency * HELD_PER_FETCH_SLOT);
    this.wayback = waybackFor(options, this.#settings, stacks.archive);
    this.#captures = this.wayback ? new CaptureTexts(this.wayback, (url, fetched) => readSource(url, fetched, this.#readSettings)) : undefined;
  }

  /** Every source at once (FetchLimits paces them), until all are done or the run is stopped. */
  async processAll(groups: Map<string, Slotted[]>): Promise<void> {
    const all = Promise.all([...groups].map(([url, group]) => this.#processSource(url, group)));
    all.catch(() => {}); // after a stop nobody awaits it; a late failure must not surface as unhandled
    await untilDoneOrStopped(all, this.#options.signal);
  }

  async #processSource(url: string, group: Slotted[]): Promise<void> {
    const { signal } = this.#options;
    const t0 = performance.now();
    let release: (() => void) | undefined;
    try {
      // A fetched source keeps its fetch slot until it has a held slot: when extraction falls behind, fetching waits.
      const fetched = await this.#limits.run(url, async () => {
        const outcome = await fetchSource(url, this.#settings, signal);
        release = await acquire(this.#held);
        return outcome;
      });
      const record = await readSource(url, fetched, this.#readSettings);
      if (signal?.aborted) return; // the stop path answers these claims
      this.#options.onSource?.(record);
      const ms = Math.round(performance.now() - t0);
      try {
        await this.#decideGroup(group, record, ms);
      } finally {
        // No other claim cites this URL (claims are grouped by it): what was read for it goes now.
        forgetSource(record);
        this.#captures?.forget(url);
      }
    } finally {
      release?.();
    }
  }

  /**
   * Decides the claims of one source. The captures they need are looked up once per date and evidence
   * hash; a capture the evidence proves decides every claim of that date and evidence, whichever claim it
   * was fetched for (design.md §8, rule 1), so a claim found in today's changed text waits for a lookup
   * its siblings started. Claims no lookup concerns are decided at once.
   */
  async #decideGroup(group: readonly Slotted[], record: SourceRecord, sourceMs: number): Promise<void> {
    const { htmlView, wayback, signal } = this.#options;
    const now = today();
    const readings = group.map(({ claim, slot }) => {
      const quote = normalize(claim.quote);
      const { drift, match: evidenceMatch } = driftOf(claim.evidenceSha256, record);
      const live: LiveReading = { record, match: record.views ? findQuote(quote, record.views, htmlView) : null, drift, evidenceMatch };
      const date = asOfFor(claim, this.#asOfOverride);
      const needs = this.#captures !== undefined && needsCapture(wayback, claim.evidenceSha256, live);
      return { claim, slot, quote, live, date, needs, key: `${(date ?? now).end14} ${claim.evidenceSha256 ?? ''}` };
    });
    const lookups = new Map<string, Promise<CaptureOutcome>>();
    for (const r of readings) {
      if (r.needs && !lookups.has(r.key)) lookups.set(r.key, this.#captures!.find(r.claim.fetchUrl, r.date ?? now, r.claim.evidenceSha256));
    }
    const replaying = this.#options.replay !== undefined;
    const decide = (r: (typeof readings)[number], found: CaptureOutcome | undefined): void => {
      // A claim that did not ask for the archive is judged on a sibling's capture only when the evidence proves it.
      const capture = r.needs ? found : isProven(found) ? found : undefined;
      const judgement = judge(r.quote, htmlView, r.live, capture, r.date, replaying);
      if (this.#asOfOverride && wayback === 'auto' && !r.live.match && capture === undefined && r.claim.evidenceSha256 === undefined) {
        // A date asked for, and nothing looked up for it: say so, and how to have it looked up.
        judgement.note = joinNotes(judgement.note, `judged on today's text: without an evidence hash, wayback mode auto looks up no capture; mode always (--wayback always) judges on the capture nearest ${this.#asOfOverride.input}`);
      }
      this.#decide(resultFor(r.claim, r.quote, r.live, judgement, htmlView, sourceMs), r.slot);
    };
    for (const r of readings) if (!lookups.has(r.key)) decide(r, undefined);
    await Promise.all([...lookups].map(async ([key, lookup]) => {
      const found = await lookup;
      if (signal?.aborted) return; // the stop path answers them
      for (const r of readings) if (r.key === key) decide(r, found);
    }));
  }
}

/** Where a run's results go: `decide` is called once per claim, with its place in the input. */
type Decide = (result: ClaimResult, slot: number) => void;

/**
 * The run itself, shared by checkClaims and streamClaims: every claim goes to `decide` once,
 * decided or (when the run stopped first) answered `no_match` as undecided. Keeps only a flag per claim.
 */
async function runClaims(claims: ClaimsInput, opts: Partial<CheckOptions>, decide: Decide): Promise<StreamedRun> {
  const { entries, warnings } = entriesOf(claims);
  const options: CheckOptions = { ...DEFAULT_OPTIONS, ...opts };
  const started = performance.now();
  const decided = new Uint8Array(entries.length);
  const decideOnce: Decide = (r, slot) => {
    decided[slot] = 1;
    decide(r, slot);
  };
  const groups = bySource(entries, decideOnce);
  const asOfOverride = options.asOf === undefined ? undefined : parseAsOf(options.asOf);
  const stacks = stacksFor(options);
  const run = new Run(options, stacks, asOfOverride, decideOnce);
  try {
    await run.processAll(groups);
  } finally {
    stacks.close();
  }
  const stopped = options.signal?.aborted ? abortReason(options.signal) : undefined;
  entries.forEach((entry, slot) => {
    if (!decided[slot]) decide(undecided(entry, stopped ?? 'run ended'), slot);
  });
  return { claims: entries.length, warnings, stopped, wayback: run.wayback?.stats, ms: Math.round(performance.now() - started) };
}

/**
 * Checks every claim: plain `{id, quote, url}` objects (validated as a claims file is: a claim
 * without an id or a duplicate id throws ClaimsFileError; an empty quote or a non-http URL gives
 * that claim the diagnosis `invalid_claim`), or the entries of parseClaims. Never throws for a bad
 * source: each claim gets a result, in the order given. When `options.signal` aborts, the run
 * returns at once with the claims not yet decided answered `no_match`. Every result and source is
 * kept for the returned CheckRun; for a run whose size is not known, streamClaims keeps none.
 */
export async function checkClaims(claims: ClaimsInput, opts: Partial<CheckOptions> = {}): Promise<CheckRun> {
  const results: ClaimResult[] = [];
  const sources: SourceRecord[] = [];
  const onSource = (s: SourceRecord): void => {
    sources.push(s);
    opts.onSource?.(s);
  };
  const run = await runClaims(claims, { ...opts, onSource }, (r, slot) => {
    results[slot] = r;
    opts.onResult?.(r);
  });
  return { ...run, results, sources };
}

/**
 * checkClaims for runs of any size: each claim's result goes to `onResult` as it is decided (and,
 * after a stop, each undecided claim's), each source to `onSource` as it is settled, and neither is
 * kept. Memory follows the work in flight (`concurrency` sources and their claims), not the number
 * of claims or sources: a service can check claims all day. Throws as checkClaims does.
 */
export async function streamClaims(claims: ClaimsInput, opts: Partial<CheckOptions> = {}): Promise<StreamedRun> {
  return runClaims(claims, opts, (r) => opts.onResult?.(r));
}
