// The run loop: claims grouped by source, each source fetched and read once, its claims matched, dated and decided.
import type { Claim, ClaimEntry } from '../claims/schema.js';
import { FetchSlots, fetchSource, type FetchSettings } from '../fetch/index.js';
import { DEFAULT_OPTIONS } from '../config/defaults.js';
import { prepareExtraction, toSourceRecord, type SourceRecord } from '../source-record.js';
import { parseAsOf, type AsOfDate } from '../asof/date.js';
import { CaptureTexts, type CaptureOutcome } from '../asof/captures.js';
import type { WaybackClient } from '../wayback/client.js';
import { entriesOf, type ClaimsInput } from './input.js';
import type { CheckOptions, StreamedRun } from './check-options.js';
import type { ClaimResult } from './result.js';
import type { DecideContext } from './decide.js';
import { fetchSettingsFor, httpStacks, isReplay, waybackFor, type HttpStacks } from './transport.js';
import { HELD_PER_FETCH_SLOT, HeldSources } from './held.js';

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

/**
 * The modules that decide claims (reading, matching, diagnosis, the results' schema): loaded once the first requests
 * are on the network, not before they leave, so that a run's start-up is the HTTP stack's alone (Issue 46).
 */
type DecideStage = readonly [
  typeof import('./decide.js'),
  typeof import('./result.js'),
  typeof import('../diagnose/index.js'),
];
let decideStageLoad: Promise<DecideStage> | undefined;
const decideStage = (): Promise<DecideStage> =>
  (decideStageLoad ??= Promise.all([import('./decide.js'), import('./result.js'), import('../diagnose/index.js')]));

/** Claims grouped by the URL fetched for them (fragments dropped), each source fetched once; and the invalid ones. */
function bySource(entries: readonly ClaimEntry[]): {
  groups: Map<string, Slotted[]>;
  invalid: { entry: Extract<ClaimEntry, { kind: 'invalid' }>; slot: number }[];
} {
  const groups = new Map<string, Slotted[]>();
  const invalid: { entry: Extract<ClaimEntry, { kind: 'invalid' }>; slot: number }[] = [];
  entries.forEach((entry, slot) => {
    if (entry.kind === 'invalid') {
      invalid.push({ entry, slot });
      return;
    }
    const group = groups.get(entry.fetchUrl);
    if (group) group.push({ claim: entry, slot });
    else groups.set(entry.fetchUrl, [{ claim: entry, slot }]);
  });
  return { groups, invalid };
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
 * The longest run of claim decisions before the loop lets waiting I/O through. Deciding a claim (its diagnosis, an
 * alignment over a long page) can take tens of milliseconds, and a source's claims were decided in one go: a source
 * cited by 29 claims kept the event loop for over 100 ms, while answers that had arrived waited to be read and their
 * hosts' next requests to be sent, so those hosts' slots sat idle (Issue 27, the flaky-host profile). Between
 * decisions, past this much, the loop yields (setImmediate runs after the I/O that is ready).
 */
export const DECIDE_SLICE_MS = 5;

/**
 * Lets the I/O that is ready run first when the slice that began at `since` is used up; the start of the next slice.
 */
async function nextSlice(since: number): Promise<number> {
  if (performance.now() - since < DECIDE_SLICE_MS) return since;
  await new Promise<void>((resolve) => setImmediate(resolve));
  return performance.now();
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
  readonly #readSettings: Parameters<typeof toSourceRecord>[2];
  readonly #slots: FetchSlots;
  /**
   * Sources fetched and not yet decided (held.ts): bounded in count and bytes, so a fast network cannot pile up bodies
   * waiting for extraction.
   */
  readonly #held: HeldSources;
  readonly #captures: CaptureTexts | undefined;
  readonly #asOfOverride: AsOfDate | undefined;
  readonly #decide: (r: ClaimResult, slot: number) => void;

  constructor(
    options: CheckOptions,
    stacks: HttpStacks,
    asOfOverride: AsOfDate | undefined,
    decide: (r: ClaimResult, slot: number) => void,
  ) {
    this.#options = options;
    this.#decide = decide;
    this.#asOfOverride = asOfOverride;
    this.#settings = fetchSettingsFor(options, stacks.sources);
    this.#readSettings = {
      extractTimeoutMs: options.extractTimeoutMs,
      pdftotext: options.pdftotext,
      signal: options.signal,
    };
    this.#slots = new FetchSlots(options.concurrency, options.perHost);
    this.#held = new HeldSources(options.concurrency * HELD_PER_FETCH_SLOT);
    this.wayback = waybackFor(options, this.#settings, stacks.archive);
    this.#captures = this.wayback
      ? new CaptureTexts(this.wayback, (url, fetched) => toSourceRecord(url, fetched, this.#readSettings))
      : undefined;
  }

  /** Every source at once (their requests take FetchSlots), until all are done or the run is stopped. */
  async processAll(groups: Map<string, Slotted[]>): Promise<void> {
    const all = Promise.all([...groups].map(([url, group]) => this.#processSource(url, group)));
    // The first requests are on their way: an HTML worker gets ready meanwhile, and this thread loads what decides.
    if (groups.size > 0) {
      prepareExtraction();
      setImmediate(() => void decideStage().catch(() => {}));
    }
    all.catch(() => {}); // after a stop nobody awaits it; a late failure must not surface as unhandled
    await untilDoneOrStopped(all, this.#options.signal);
  }

  async #processSource(url: string, group: Slotted[]): Promise<void> {
    const { signal } = this.#options;
    const t0 = performance.now();
    let release: (() => void) | undefined;
    try {
      // Each request takes its host's slot and a global one, and gives them back while the source waits for a retry
      // (FetchSlots.take). The answer's hop keeps its slot until the source has a held slot: when extraction falls
      // behind, fetching waits. A source that failed holds no body worth bounding, and takes its held slot after.
      const fetched = await fetchSource(
        url,
        {
          ...this.#settings,
          slots: this.#slots,
          beforeSlotRelease: async (bytes) => {
            release = await this.#held.acquire(bytes);
          },
        },
        signal,
      );
      release ??= await this.#held.acquire(0);
      const record = await toSourceRecord(url, fetched, this.#readSettings);
      if (signal?.aborted) return; // the stop path answers these claims
      this.#options.onSource?.(record);
      const ms = Math.round(performance.now() - t0);
      const stage = await decideStage();
      try {
        await this.#decideGroup(group, record, ms, stage);
      } finally {
        // No other claim cites this URL (claims are grouped by it): what was read for it goes now.
        stage[2].forgetSource(record);
        this.#captures?.forget(url);
      }
    } finally {
      release?.();
    }
  }

  /** What deciding a claim needs of the run (decide.ts). */
  #context(today: () => AsOfDate): DecideContext {
    return {
      htmlView: this.#options.htmlView,
      wayback: this.#options.wayback,
      captures: this.#captures !== undefined,
      replaying: isReplay(this.#options.transport),
      asOfOverride: this.#asOfOverride,
      now: today(),
    };
  }

  /**
   * Decides the claims of one source. The captures they need are looked up once per date and evidence
   * hash; a capture the evidence proves decides every claim of that date and evidence, whichever claim it
   * was fetched for (docs/sources-change.md#which-text-decides), so a claim found in today's changed text waits for a
   * lookup its siblings started. Claims no lookup concerns are decided at once, in slices (DECIDE_SLICE_MS) with the
   * I/O ready in between, or, for a source with a large text, on the thread the run was given for it (OffThread); a
   * run stopped meanwhile leaves the rest to the stop path.
   */
  async #decideGroup(
    group: readonly Slotted[],
    record: SourceRecord,
    sourceMs: number,
    [stage]: DecideStage,
  ): Promise<void> {
    const { signal, offThread } = this.#options;
    const ctx = this.#context(stage.today);
    let rest = group;
    if (
      offThread &&
      record.text &&
      record.views &&
      !record.extractError &&
      offThread.takes(stage.longestView(record))
    ) {
      const claims = group.map((g) => g.claim);
      // A thread that fails (it died, it ran out of memory) leaves the claims to this one.
      const decided = await offThread
        .decide({ record: stage.portableRecord(record), claims, ctx, sourceMs })
        .catch(() => claims.map(() => null));
      if (signal?.aborted) return; // the stop path answers them
      decided.forEach((result, i) => {
        if (result) this.#decide(result, group[i]!.slot);
      });
      rest = group.filter((_, i) => !decided[i]);
    }
    const readings = rest.map(({ claim, slot }) => ({ ...stage.readClaim(claim, record, ctx), slot }));
    const lookups = new Map<string, Promise<CaptureOutcome>>();
    for (const r of readings) {
      if (r.needs && !lookups.has(r.key))
        lookups.set(r.key, this.#captures!.find(r.claim.fetchUrl, r.date ?? ctx.now, r.claim.evidenceSha256));
    }
    const decideAll = async (rs: readonly (typeof readings)[number][], found: CaptureOutcome | undefined) => {
      let slice = performance.now();
      for (const r of rs) {
        slice = await nextSlice(slice);
        if (signal?.aborted) return; // the stop path answers them
        this.#decide(stage.decideReading(r, found, ctx, sourceMs), r.slot);
      }
    };
    await decideAll(
      readings.filter((r) => !lookups.has(r.key)),
      undefined,
    );
    await Promise.all(
      [...lookups].map(async ([key, lookup]) => {
        const found = await lookup;
        await decideAll(
          readings.filter((r) => r.key === key),
          found,
        );
      }),
    );
  }
}

/** Where a run's results go: `decide` is called once per claim, with its place in the input. */
type Decide = (result: ClaimResult, slot: number) => void;

/**
 * The run itself, shared by checkClaims and streamClaims: every claim goes to `decide` once,
 * decided or (when the run stopped first) answered `no_match` as undecided. Keeps only a flag per claim.
 */
export async function runClaims(
  claims: ClaimsInput,
  opts: Partial<CheckOptions>,
  decide: Decide,
): Promise<StreamedRun> {
  const { entries, warnings } = entriesOf(claims);
  const options: CheckOptions = { ...DEFAULT_OPTIONS, ...opts };
  const started = performance.now();
  const decided = new Uint8Array(entries.length);
  const decideOnce: Decide = (r, slot) => {
    decided[slot] = 1;
    decide(r, slot);
  };
  const { groups, invalid } = bySource(entries);
  const asOfOverride = options.asOf === undefined ? undefined : parseAsOf(options.asOf);
  const stacks = httpStacks(options);
  const run = new Run(options, stacks, asOfOverride, decideOnce);
  // Invalid claims are answered as soon as the stage that answers them has loaded, while the sources are fetched.
  const answerInvalid =
    invalid.length === 0
      ? undefined
      : new Promise<void>((loaded) => setImmediate(loaded)).then(decideStage).then(([, result]) => {
          for (const { entry, slot } of invalid) decideOnce(result.invalid(entry), slot);
        });
  try {
    await Promise.all([run.processAll(groups), answerInvalid]);
  } finally {
    stacks.close();
  }
  const [, result] = await decideStage();
  const stopped = options.signal?.aborted ? abortReason(options.signal) : undefined;
  entries.forEach((entry, slot) => {
    if (!decided[slot]) decide(result.undecided(entry, stopped ?? 'run ended'), slot);
  });
  return {
    claims: entries.length,
    warnings,
    stopped,
    wayback: run.wayback?.stats,
    ms: Math.round(performance.now() - started),
  };
}
