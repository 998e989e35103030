// A pool of worker threads for HTML extraction: two cores at work, and a page that hangs or eats memory is stopped, not fatal.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ExtractError } from './errors.js';
import type { HtmlJobReply, HtmlJobRequest, HtmlJobResult } from './html-worker.js';

/** Heap per worker: a 10 MB page (the DOM cap) fits; a page that needs more is stopped, and the run goes on. */
export const WORKER_HEAP_MB = 512;

/**
 * Workers run compiled code. From the source tree (vitest runs src/*.ts) the worker is the
 * compiled one in dist/, which `npm test` builds first.
 */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL(here.replace(/\/src\/extract\/pool\.ts$/, '/dist/src/extract/html-worker.js'));
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
  /** The job's full view, once the worker has sent it (the article may still be coming). */
  partial?: PartialResult;
}

type PartialResult = Omit<HtmlJobResult, 'views' | 'normalized'> & { full: string; normalizedFull: string };

/** A page's result with its full view only; `articleNote` says why there is no article (yet). */
function fullViewOnly(partial: PartialResult, articleNote: string | undefined): HtmlJobResult {
  return { views: { full: partial.full, articleNote }, normalized: { full: partial.normalizedFull }, charset: partial.charset, charsetSource: partial.charsetSource, markup: partial.markup };
}

export class HtmlPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;

  /** `script`: the worker's module (tests give a stand-in). */
  constructor(
    private readonly size = Math.max(1, availableParallelism()),
    private readonly script: URL = workerUrl(),
  ) {}

  /** Decodes, extracts and normalizes one page in a worker; rejects with ExtractError on timeout, memory cap or crash. */
  extract(bytes: Uint8Array, httpCharset: string | undefined, timeoutMs: number): Promise<HtmlJobResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, bytes, httpCharset, timeoutMs, resolve, reject });
      this.pump();
    });
  }

  /** Stops every worker; pending jobs fail. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new ExtractError('failed', 'extraction pool closed'));
    await Promise.all(this.slots.splice(0).map((s) => {
      if (s.timer) clearTimeout(s.timer);
      s.job?.reject(new ExtractError('failed', 'extraction pool closed'));
      return s.worker.terminate();
    }));
  }

  private spawn(): Slot {
    const worker = new Worker(this.script, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    const slot: Slot = { worker };
    worker.unref(); // idle workers never keep the process alive
    worker.on('message', (reply: HtmlJobReply) => {
      const job = slot.job;
      if (!job || reply.id !== job.id) return;
      if (!reply.ok) {
        this.finish(slot);
        job.reject(new ExtractError('failed', `HTML extraction failed: ${reply.message}`));
      } else if (reply.stage === 'full') {
        slot.partial = { full: reply.full, normalizedFull: reply.normalizedFull, charset: reply.charset, charsetSource: reply.charsetSource, markup: reply.markup };
        if (reply.final) {
          const partial = slot.partial;
          this.finish(slot);
          job.resolve(fullViewOnly(partial, reply.articleNote));
        }
      } else {
        const result = fullViewOnly(slot.partial!, reply.articleNote);
        this.finish(slot);
        if (reply.article !== undefined) {
          result.views.article = reply.article;
          result.normalized.article = reply.normalizedArticle;
        }
        job.resolve(result);
      }
    });
    worker.on('error', (err: Error & { code?: string }) => {
      const job = slot.job;
      const partial = slot.partial;
      this.retire(slot);
      if (job && partial && err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        // Parsed, but Readability hit the memory cap: the page keeps its full view.
        const note = `no article view: Readability stopped at the ${WORKER_HEAP_MB} MB memory cap (full view only)`;
        job.resolve(fullViewOnly(partial, note));
      } else if (job) {
        job.reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new ExtractError('failed', `HTML extraction stopped at its ${WORKER_HEAP_MB} MB memory cap`, { cause: err })
          : new ExtractError('failed', `HTML extraction crashed: ${err.message}`, { cause: err }));
      }
    });
    worker.on('exit', () => {
      const job = slot.job;
      this.retire(slot);
      job?.reject(new ExtractError('failed', 'HTML extraction worker exited'));
    });
    this.slots.push(slot);
    return slot;
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.worker.ref(); // busy: the process waits for it
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
      slot.worker.postMessage(request);
    }
  }

  /** The job is done: the slot takes the next one. */
  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    slot.partial = undefined;
    slot.worker.unref();
    this.pump();
  }

  /** The worker is gone (timeout, crash, exit): forget it; a new one is spawned when needed. */
  private retire(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    const i = this.slots.indexOf(slot);
    if (i !== -1) this.slots.splice(i, 1);
    slot.job = undefined;
    slot.partial = undefined;
    queueMicrotask(() => this.pump());
  }
}

let shared: HtmlPool | undefined;

/** The process-wide pool, made on first use; its idle workers do not keep the process alive. */
export function htmlPool(): HtmlPool {
  shared ??= new HtmlPool();
  return shared;
}
