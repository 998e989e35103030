// A pool of worker threads for HTML extraction: one per core the main thread leaves free, and a page that hangs or eats
// memory is stopped, not fatal.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { describeError, ExtractError } from '../errors.js';
import type { HtmlJobReply, HtmlJobRequest, HtmlJobResult } from '../html.js';
import { textOf } from './units.js';

/**
 * Heap per worker: a page at the DOM cap (DOM_LIMITS.maxBytes, src/extract/html.ts) fits; a page that needs more is
 * stopped, and the run goes on.
 */
const WORKER_HEAP_MB = 512;

/**
 * Workers by default: a core each, less the one the main thread needs. The main thread is busy a
 * fifth to a quarter of a run (HTTP, pdftotext's output, matching, diagnosis) and pdftotext runs
 * beside it; every worker compiles and collects garbage for itself (on the bench, a second worker
 * on a 2-core machine added a core-second of that and made the run about a second slower).
 */
export function defaultPoolSize(cores = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

/**
 * A job running longer than this is a slow page, not a busy pool: the pool starts another worker
 * beside it (up to one per slow job), so that one page at its limit (60 s by default) does not
 * hold up every other page. A page under the DOM caps (DOM_LIMITS) takes a warm worker well under
 * that (docs/performance.md has the measured rates).
 */
const SLOW_JOB_MS = 2_000;

/**
 * Workers run compiled code. From the source tree (vitest runs src/*.ts) the worker is the
 * compiled one in dist/, which `npm test` builds first (and the suite's global setup whenever a source is newer). In
 * the self-contained build a task ships (scripts/bundle.ts), this module is in a file of the shipped folder
 * (quotecheck.mjs or one of its chunks, all side by side) and the worker is html-worker.mjs beside it.
 */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts'))
    return new URL(here.replace(/\/src\/extract\/worker\/pool\.ts$/, '/dist/src/extract/worker/html-worker.js'));
  if (here.endsWith('.mjs')) return new URL('./html-worker.mjs', here);
  return new URL('./html-worker.js', here);
}

interface Job {
  id: number;
  bytes: Uint8Array;
  httpCharset?: string;
  timeoutMs: number;
  resolve: (result: HtmlJobResult) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** Fires when the job has run SLOW_JOB_MS: the slot stops counting against the pool's size. */
  slowTimer?: NodeJS.Timeout;
  slow?: boolean;
  /** The job's full view, once the worker has sent it (the article may still be coming). */
  partial?: PartialResult;
  /** The worker's uncaught error, kept until its 'exit' (see spawn). */
  error?: Error & { code?: string };
}

type PartialResult = Omit<HtmlJobResult, 'views' | 'normalized'> & { full: string; normalizedFull: string };

/**
 * A page's result with its full view only; `articleNote` says why there is no article (yet); `fallbacks` adds to those
 * the full view came with.
 */
function fullViewOnly(
  partial: PartialResult,
  articleNote: string | undefined,
  fallbacks: string[] = [],
): HtmlJobResult {
  const all = [...(partial.fallbacks ?? []), ...fallbacks];
  return {
    views: { full: partial.full, articleNote },
    normalized: { full: partial.normalizedFull },
    charset: partial.charset,
    charsetSource: partial.charsetSource,
    markup: partial.markup,
    ...(all.length ? { fallbacks: all } : {}),
  };
}

/** The worker failed after sending the full view: the page keeps it, and says so. */
function afterFullView(partial: PartialResult, what: string): HtmlJobResult {
  const fallback = `${what} after the full view: the full view stands, no article view`;
  return fullViewOnly(partial, fallback, [fallback]);
}

/** Whether a view is the whole of its buffer (so the buffer can be handed to a worker, and leave with the view). */
function ownedBuffer(bytes: Uint8Array): ArrayBuffer | undefined {
  const { buffer } = bytes;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength
    ? buffer
    : undefined;
}

export class HtmlPool {
  /**
   * Whether a page's bytes are handed to the worker rather than copied: the caller's view is left empty. For callers
   * that hold the bytes for extraction alone (the MCP server's large pages: a 30 MB page is then held once, not twice).
   */
  protected readonly transferBodies: boolean = false;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;

  /** `size`: workers busy at once, slow jobs apart; `script`: the worker's module (tests give a stand-in). */
  constructor(
    private readonly size = defaultPoolSize(),
    private readonly script: URL = workerUrl(),
    private readonly slowJobMs = SLOW_JOB_MS,
  ) {}

  /** Workers alive now (busy, idle, and those beside slow jobs). */
  get workers(): number {
    return this.slots.length;
  }

  /** Workers the pool may have: its size, plus one for each job that has run past slowJobMs. */
  private capacity(): number {
    return this.size + this.slots.filter((s) => s.slow).length;
  }

  /**
   * Decodes, extracts and normalizes one page in a worker; rejects with ExtractError on timeout, memory cap or crash.
   */
  extract(bytes: Uint8Array, httpCharset: string | undefined, timeoutMs: number): Promise<HtmlJobResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, bytes, httpCharset, timeoutMs, resolve, reject });
      this.pump();
    });
  }

  /**
   * Starts one worker ahead of the first page, when none is alive: its thread loads the parser and Readability while
   * the run's first requests are on the network, instead of after the first body arrives. Idle, it keeps nothing alive.
   */
  warm(): void {
    if (this.slots.length === 0) this.spawn();
  }

  /** Stops every worker; pending jobs fail. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new ExtractError('failed', 'extraction pool closed'));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        this.clearTimers(s);
        s.job?.reject(new ExtractError('failed', 'extraction pool closed'));
        return s.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(this.script, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    const slot: Slot = { worker };
    worker.unref(); // idle workers never keep the process alive
    worker.on('message', (reply: HtmlJobReply) => {
      const job = slot.job;
      if (!job || reply.id !== job.id) return;
      if (!reply.ok) {
        const partial = slot.partial;
        this.finish(slot);
        if (partial) job.resolve(afterFullView(partial, `HTML extraction failed (${reply.message})`));
        else job.reject(new ExtractError('failed', `HTML extraction failed: ${reply.message}`));
      } else if (reply.stage === 'full') {
        slot.partial = {
          full: reply.units ? textOf(reply.units.full) : reply.full,
          normalizedFull: reply.units ? textOf(reply.units.normalizedFull) : reply.normalizedFull,
          charset: reply.charset,
          charsetSource: reply.charsetSource,
          markup: reply.markup,
          fallbacks: reply.fallbacks,
        };
        if (reply.final) {
          const partial = slot.partial;
          this.finish(slot);
          job.resolve(fullViewOnly(partial, reply.articleNote));
        }
      } else {
        const result = fullViewOnly(slot.partial!, reply.articleNote, reply.fallbacks);
        this.finish(slot);
        if (reply.article !== undefined) {
          result.views.article = reply.article;
          result.normalized.article = reply.normalizedArticle;
        }
        job.resolve(result);
      }
    });
    // A worker that fails is judged at its 'exit', not at its 'error': Node delivers the error on another port than
    // the messages the worker posted before it, and drains those messages only before 'exit'. Judged at 'error', a full
    // view sent just before the crash could still be on its way, and the page would lose it on a busy machine.
    worker.on('error', (err: Error & { code?: string }) => {
      slot.error = err;
    });
    worker.on('exit', (code) => {
      const { job, partial, error } = slot;
      this.retire(slot);
      if (!job) return;
      if (error) this.settleCrash(job, partial, error);
      else if (partial) job.resolve(afterFullView(partial, `the HTML worker exited (code ${code})`));
      else job.reject(new ExtractError('failed', 'HTML extraction worker exited'));
    });
    this.slots.push(slot);
    return slot;
  }

  /** A job whose worker died of an uncaught error: its full view when it has one, else the error. */
  private settleCrash(job: Job, partial: PartialResult | undefined, err: Error & { code?: string }): void {
    const outOfMemory = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
    if (partial && outOfMemory) {
      // Parsed, but Readability hit the memory cap: the page keeps its full view.
      job.resolve(
        fullViewOnly(
          partial,
          `no article view: Readability stopped at the ${WORKER_HEAP_MB} MB memory cap (full view only)`,
        ),
      );
    } else if (partial) {
      job.resolve(afterFullView(partial, `the HTML worker crashed (${describeError(err)})`));
    } else {
      job.reject(
        outOfMemory
          ? new ExtractError('failed', `HTML extraction stopped at its ${WORKER_HEAP_MB} MB memory cap`, { cause: err })
          : new ExtractError('failed', `HTML extraction crashed: ${err.message}`, { cause: err }),
      );
    }
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.capacity()) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.worker.ref(); // busy: the process waits for it
      slot.slowTimer = setTimeout(() => {
        slot!.slow = true;
        this.pump();
      }, this.slowJobMs);
      slot.slowTimer.unref();
      slot.timer = setTimeout(() => {
        const partial = slot!.partial;
        this.retire(slot!);
        void slot!.worker.terminate();
        if (partial) {
          // Parsed in time, but Readability overran: the page keeps its full view.
          const note = `no article view: Readability stopped at the ${job.timeoutMs / 1000} s limit (full view only)`;
          job.resolve(fullViewOnly(partial, note));
        } else {
          job.reject(new ExtractError('timeout', `HTML extraction stopped after ${job.timeoutMs / 1000} s`));
        }
      }, job.timeoutMs);
      const request: HtmlJobRequest = { id: job.id, bytes: job.bytes, httpCharset: job.httpCharset };
      const owned = this.transferBodies ? ownedBuffer(job.bytes) : undefined;
      slot.worker.postMessage(request, owned ? [owned] : []);
    }
  }

  /** The job is done: the slot takes the next one, or leaves if it was only there beside a slow job. */
  private finish(slot: Slot): void {
    this.clearTimers(slot);
    slot.job = undefined;
    slot.partial = undefined;
    slot.worker.unref();
    if (this.slots.length > this.capacity()) {
      this.retire(slot);
      void slot.worker.terminate();
      return;
    }
    this.pump();
  }

  private clearTimers(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.slowTimer) clearTimeout(slot.slowTimer);
    slot.timer = slot.slowTimer = undefined;
    slot.slow = false;
  }

  /** The worker is gone (timeout, crash, exit): forget it; a new one is spawned when needed. */
  private retire(slot: Slot): void {
    this.clearTimers(slot);
    const i = this.slots.indexOf(slot);
    if (i !== -1) this.slots.splice(i, 1);
    slot.job = undefined;
    slot.partial = undefined;
    slot.error = undefined;
    queueMicrotask(() => this.pump());
  }
}

let shared: HtmlPool | undefined;

/** The process-wide pool, made on first use; its idle workers do not keep the process alive. */
export function htmlPool(): HtmlPool {
  shared ??= new HtmlPool();
  return shared;
}

let choosePool: ((bytes: number) => HtmlPool | undefined) | undefined;

/**
 * Lets a server choose the pool a page of `bytes` is extracted in (the MCP server's lanes, src/mcp/lanes.ts: small
 * pages on a worker of their own, large ones on a worker that is let go after them). Unset, or choosing none:
 * htmlPool() (chosenPool).
 */
export function choosePagePool(choose: (bytes: number) => HtmlPool | undefined): void {
  choosePool = choose;
}

/** The pool chosen for a page of `bytes` (choosePagePool), if any: the caller takes htmlPool() without one. */
export function chosenPool(bytes: number): HtmlPool | undefined {
  return choosePool?.(bytes);
}
