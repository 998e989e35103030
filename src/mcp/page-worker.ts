// The MCP server's page worker: a thread where the claims of a large page are decided and its passages searched, so
// that the main thread stays free for the calls that come meanwhile (Issue 46); let go when it has nothing left to do.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { collectGarbage } from '../extract/collect.js';
import type { TextView } from '../extract/index.js';
import { rawSpan } from '../match.js';
import { decideHere, type OffThread, type OffThreadRequest } from '../run/decide.js';
import type { ClaimResult } from '../run/result.js';
import { searchPassages, type Passage } from './passages.js';
import { SMALL_PAGE_BYTES } from './work.js';
import { withoutTexts, withTexts } from './texts.js';
import { textOf, unitsOf, type TextUnits } from '../extract/worker/units.js';

/** Marks the thread this module runs as the page worker (it is also the module the main thread imports). */
const ROLE = 'quotecheck-page-worker';
/**
 * Heap of the page worker: a page at the 50 MB body cap has some 100 M characters of texts (raw and normalized), in
 * one byte a character when they are Latin-1, two otherwise, and the diagnosis's alignment beside them.
 */
const HEAP_MB = 1024;

/** A passage found, with its text and its raw wording: what search_source gives. */
interface FoundPassage extends Passage {
  text: string;
  raw: string;
}

/** What a search needs of a source: its normalized views (the preferred first) and its views as extracted. */
export interface SearchRequest {
  query: string;
  normalized: string[];
  raw: TextView[];
  max: number;
}

export interface SearchResult {
  passages: FoundPassage[];
  /** Whether the normalized query is in a view as it is. */
  exact: boolean;
}

type Job =
  | { id: number; kind: 'decide'; request: OffThreadRequest }
  | { id: number; kind: 'search'; request: SearchRequest };
/**
 * One long text of job `job`, sent ahead of it on its own (texts.ts) as its code units in a buffer handed over;
 * answered once it has arrived.
 */
type Part = { id: number; kind: 'part'; job: number; index: number; text: TextUnits };
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

/** The passages of a source closest to a phrase, each with its raw wording (passages.ts, match.ts rawSpan). */
export function searchHere({ query, normalized, raw, max }: SearchRequest, signal?: AbortSignal): SearchResult {
  const passages = searchPassages(query, normalized, max, signal).map((p) => {
    const text = normalized[p.view]!.slice(p.start, p.end);
    return { ...p, text, raw: rawSpan(raw[p.view]!, normalized[p.view]!, p.start, p.end) ?? text };
  });
  return { passages, exact: normalized.some((t) => t.includes(query)) };
}

if (!isMainThread && workerData?.role === ROLE) {
  /** The long texts of the jobs announced, by job: each job takes its own when it arrives. */
  const parts = new Map<number, string[]>();
  parentPort!.on('message', (message: Job | Part) => {
    if (message.kind === 'part') {
      const texts = parts.get(message.job) ?? [];
      // Off this thread's heap (an external string): the heap's own limit then follows the work, not the page's texts.
      texts[message.index] = textOf(message.text);
      parts.set(message.job, texts);
      parentPort!.postMessage({ id: message.id, ok: true, value: null } satisfies Reply);
      return;
    }
    const texts = parts.get(message.id);
    const job = withTexts(message, texts ?? []);
    parts.delete(message.id);
    // The buffers the texts came in go before the work starts (a job whose texts all crossed with it brought none).
    if (texts) collectGarbage();
    let reply: Reply;
    try {
      const value = job.kind === 'decide' ? decideHere(job.request) : searchHere(job.request);
      reply = { id: job.id, ok: true, value };
    } catch (err) {
      reply = { id: job.id, ok: false, message: (err as Error)?.message ?? String(err) };
    }
    parentPort!.postMessage(reply);
  });
}

/**
 * This module compiled, to run as the worker: from the source tree (vitest runs src/*.ts) the compiled one in dist/,
 * which the suite builds; in the shipped build, the file this module was bundled into (a chunk).
 */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts'))
    return new URL(here.replace(/\/src\/mcp\/page-worker\.ts$/, '/dist/src/mcp/page-worker.js'));
  return new URL(here);
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/**
 * The page worker as the main thread sees it: jobs posted in turn, answered in turn; the thread started with the first
 * and stopped once none is left, so that its heap (the texts of the last page) is not held beside the next work. A
 * thread that dies fails its jobs; the next job starts another.
 */
export class PageWorker implements OffThread {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;

  /** Pages past the small pages' lane (src/mcp/work.ts): a view longer than a small page's body. */
  takes(chars: number): boolean {
    return chars > SMALL_PAGE_BYTES;
  }

  decide(request: OffThreadRequest): Promise<(ClaimResult | null)[]> {
    return this.#run({ kind: 'decide', request }) as Promise<(ClaimResult | null)[]>;
  }

  search(request: SearchRequest): Promise<SearchResult> {
    return this.#run({ kind: 'search', request }) as Promise<SearchResult>;
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#fail(new Error('the page worker was closed'));
    await worker?.terminate();
  }

  #run(job: Omit<Job, 'id'> & { kind: Job['kind'] }): Promise<unknown> {
    const id = this.#nextId++;
    // What the page's extraction left on this thread goes before its texts are copied to the worker beside it.
    collectGarbage();
    const texts: string[] = [];
    const lifted = withoutTexts(job, texts);
    const done = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    void this.#send(this.#thread(), id, lifted, texts);
    return done;
  }

  /**
   * Sends a job's long texts one at a time, each once the last has arrived, then the job: a text is copied to cross
   * (into a buffer handed over, units.ts), and a page's texts copied at once, in one message, held all their copies
   * beside the originals and the worker's (some 80 MB more for a 30 MB page, bench/mcp-load.ts). A worker that fails
   * meanwhile has failed the job.
   */
  async #send(worker: Worker, id: number, job: object, texts: string[]): Promise<void> {
    try {
      for (const [index, text] of texts.entries()) {
        const part = this.#nextId++;
        const arrived = new Promise((resolve, reject) => this.#pending.set(part, { resolve, reject }));
        const units = unitsOf(text);
        worker.postMessage({ id: part, kind: 'part', job: id, index, text: units } satisfies Part, [units.units]);
        await arrived;
      }
      worker.postMessage({ ...job, id });
    } catch {
      // The worker died or was closed: every job it had, this one with them, was failed (#fail).
    }
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(workerUrl(), {
      workerData: { role: ROLE },
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    });
    worker.on('message', (reply: Reply) => {
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      this.#pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.value);
      else pending.reject(new Error(`the page worker failed: ${reply.message}`));
      if (this.#pending.size === 0 && this.#worker === worker) {
        this.#worker = undefined;
        void worker.terminate();
      }
    });
    worker.on('error', (err) => {
      if (this.#worker === worker) this.#worker = undefined;
      this.#fail(new Error(`the page worker died: ${err.message}`));
    });
    worker.on('exit', () => {
      if (this.#worker === worker) {
        this.#worker = undefined;
        this.#fail(new Error('the page worker exited'));
      }
    });
    this.#worker = worker;
    return worker;
  }

  #fail(err: Error): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}
