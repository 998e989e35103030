// Replay: an undici Dispatcher that answers every request from a recorded WARC archive and never touches the network.
import { Dispatcher, errors as undiciErrors } from 'undici';
import { NOT_IN_ARCHIVE } from '../fetch/errors.js';
import { readArchive, recordedWaybackBases, type Archive, type ArchivedRecord } from './read.js';
import {
  ArchiveError,
  ERROR_FIELDS,
  ORIG_HEADER_PREFIX,
  dechunk,
  dispatchUrl,
  headerValue,
  normalBase,
  urlKey,
  type HeaderPair,
} from './warc.js';

/** The Wayback Machine a run asks unless told otherwise (DEFAULT_OPTIONS.waybackUrl). */
const DEFAULT_WAYBACK = 'https://web.archive.org';

interface ReplayOptions {
  /** The Wayback Machine the run asks (its --wayback-url; default https://web.archive.org). */
  waybackUrl?: string;
}

export { NOT_IN_ARCHIVE };

class NotInArchiveError extends Error {
  override readonly name = 'NotInArchiveError';
  readonly code = NOT_IN_ARCHIVE;
  constructor(
    readonly url: string,
    /** The archive being replayed, for the message the fetch layer gives. */
    readonly archivePath: string | undefined,
  ) {
    super(`${url} is not in the archive`);
  }
}

/** Bodies are delivered in pieces of this size, as a socket would, so the client's backpressure works. */
const CHUNK = 64 * 1024;
/** Pieces delivered before the event loop gets a turn. */
const CHUNKS_PER_TURN = 16;

type Sequence = ArchivedRecord[];

/**
 * Serves fetches from an archive: pass it as fetch's `dispatcher`. A URL is answered by the
 * live exchanges recorded for it (response or error metadata records whose Target-URI it is
 * and that have no Source-URI), else by the Wayback captures fetched from it (records whose
 * WARC-Source-URI it is). The records of one URL are served in recorded order, one per
 * request, so recorded retries and cookie gates replay the same way; after the last, the last
 * repeats.
 */
export class ReplayDispatcher extends Dispatcher {
  readonly archive: Archive;
  /** The Wayback Machine base(s) the recording asked (its warcinfo says, else inferred from its archive requests). */
  readonly recordedBases: readonly string[];
  /**
   * The recorded base archive requests are answered from, whatever the run's --wayback-url: the only one
   * recorded, or among several the one --wayback-url names. Undefined when the archive recorded none.
   */
  readonly waybackBase: string | undefined;
  /** The base the run asks (normalized): its requests there are answered from `waybackBase`'s records. */
  readonly askedBase: string;
  readonly #live = new Map<string, Sequence>();
  readonly #captures = new Map<string, Sequence>();
  readonly #served = new Map<Sequence, number>();
  readonly #inFlight = new Set<ReplayExchange>();
  #closed = false;
  #destroyed = false;

  /** Throws an ArchiveError when the archive recorded several Wayback bases and `waybackUrl` names none of them. */
  constructor(archive: Archive, options: ReplayOptions = {}) {
    super();
    this.archive = archive;
    this.askedBase = normalBase(options.waybackUrl ?? DEFAULT_WAYBACK);
    this.recordedBases = recordedWaybackBases(archive);
    this.waybackBase = chooseBase(archive.path, this.recordedBases, this.askedBase);
    for (const record of archive.records) {
      if (!isServable(record) || !record.targetUri) continue;
      const [index, key] = record.sourceUri
        ? [this.#captures, urlKey(record.sourceUri)]
        : [this.#live, urlKey(record.targetUri)];
      const sequence = index.get(key);
      if (sequence) sequence.push(record);
      else index.set(key, [record]);
    }
  }

  get path(): string {
    return this.archive.path;
  }

  /**
   * Which recorded Wayback base answers the run's archive requests, in words (for the run's one line about it);
   * undefined when the archive recorded none.
   */
  describeWaybackBase(): string | undefined {
    const base = this.waybackBase;
    if (base === undefined) return undefined;
    const several = this.recordedBases.length > 1 ? ` (it holds answers from ${this.recordedBases.join(', ')})` : '';
    const asked = base === this.askedBase ? '' : `, not ${this.askedBase}`;
    return `Wayback requests are answered from its recording of ${base}${asked}${several}`;
  }

  /** A request to the asked base when the recording asked another: the same path and query at the recorded base. */
  #recordedUrl(url: string): string | undefined {
    const base = this.waybackBase;
    if (base === undefined || base === this.askedBase) return undefined;
    const prefix = `${this.askedBase}/`;
    if (!url.toLowerCase().startsWith(prefix.toLowerCase())) return undefined;
    return urlKey(`${base}/${url.slice(prefix.length)}`);
  }

  /** The next record for a URL: live exchanges first, else captures fetched from it. */
  #take(url: string): ArchivedRecord | undefined {
    const sequence = this.#live.get(url) ?? this.#captures.get(url);
    if (!sequence) return undefined;
    const i = this.#served.get(sequence) ?? 0;
    this.#served.set(sequence, i + 1);
    return sequence[Math.min(i, sequence.length - 1)];
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    // fetch() hands the legacy callback API; interceptors composed on top hand the new one.
    const h = typeof handler.onRequestStart === 'function' ? handler : new LegacyHandler(handler);
    const url = urlKey(dispatchUrl(opts.origin, opts.path));
    let outcome: Outcome;
    if (this.#destroyed) outcome = { error: new undiciErrors.ClientDestroyedError() };
    else if (this.#closed) outcome = { error: new undiciErrors.ClientClosedError() };
    else {
      // A URL recorded as asked is served as it is (a source may live on an archive's host); else an archive
      // request is answered from the recorded base, its redirects pointing back at the asked one.
      let record = this.#take(url);
      const recorded = record ? undefined : this.#recordedUrl(url);
      if (recorded !== undefined) record = this.#take(recorded);
      outcome = outcomeOf(record, url, this.archive.path, opts.method === 'HEAD');
      if (recorded !== undefined && record && 'headers' in outcome)
        outcome.headers = rebased(outcome.headers, this.waybackBase!, this.askedBase);
    }
    const exchange = new ReplayExchange(h, outcome, () => this.#inFlight.delete(exchange));
    this.#inFlight.add(exchange);
    exchange.start();
    return true;
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    // Nothing to wind down: no sockets. Requests already dispatched are still answered.
    this.#closed = true;
    if (callback) {
      queueMicrotask(callback);
      return;
    }
    return Promise.resolve();
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(errOrCallback?: Error | null | (() => void), maybeCallback?: () => void): Promise<void> | void {
    const callback = typeof errOrCallback === 'function' ? errOrCallback : maybeCallback;
    const err = (typeof errOrCallback === 'function' ? null : errOrCallback) ?? new undiciErrors.ClientDestroyedError();
    this.#closed = true;
    this.#destroyed = true;
    for (const exchange of [...this.#inFlight]) exchange.fail(err);
    if (callback) {
      queueMicrotask(callback);
      return;
    }
    return Promise.resolve();
  }
}

/**
 * Reads the archive and returns a dispatcher serving it. Its Wayback answers are served whatever `waybackUrl`
 * says (the base they were recorded from is in the archive); an ArchiveError when the archive recorded several
 * bases and `waybackUrl` names none of them.
 */
export async function openReplay(path: string, options: ReplayOptions = {}): Promise<ReplayDispatcher> {
  return new ReplayDispatcher(await readArchive(path), options);
}

/**
 * The recorded base to answer from: the one recorded, or among several the asked one; refused when that is ambiguous.
 */
function chooseBase(path: string, recorded: readonly string[], asked: string): string | undefined {
  if (recorded.length <= 1) return recorded[0];
  if (recorded.includes(asked)) return asked;
  throw new ArchiveError(
    `${path} holds Wayback answers recorded from several archives (${recorded.join(', ')}); give --wayback-url ` +
      `with the one to replay`,
  );
}

/**
 * A recorded response's Location at the recorded base, moved to the asked base (the client follows it there, and replay
 * answers it).
 */
function rebased(headers: HeaderPair[], from: string, to: string): HeaderPair[] {
  return headers.map(([name, value]): HeaderPair => {
    if (name.toLowerCase() !== 'location' || !value.toLowerCase().startsWith(`${from}/`.toLowerCase()))
      return [name, value];
    return [name, `${to}/${value.slice(from.length + 1)}`];
  });
}

function isServable(record: ArchivedRecord): boolean {
  if (record.type === 'response') return record.http !== undefined;
  // Only the metadata the recorder writes for an exchange without a response stands for one.
  if (record.type === 'metadata')
    return record.fields !== undefined && (ERROR_FIELDS.code in record.fields || ERROR_FIELDS.message in record.fields);
  return false;
}

/** What one request gets: a response (maybe ending in an error), or an error instead of a response. */
type Outcome =
  | { error: Error }
  | { status: number; statusText: string; headers: HeaderPair[]; body: Buffer; endError?: Error };

function outcomeOf(record: ArchivedRecord | undefined, url: string, archivePath: string, head: boolean): Outcome {
  if (!record) return { error: new NotInArchiveError(url, archivePath) };
  if (record.type === 'metadata') return { error: recordedError(record.fields ?? {}) };
  const http = record.http!;
  const headers = servedHeaders(http.headers);
  let body = record.payload;
  // Only records from other tools keep chunked framing; below fetch, bodies arrive de-chunked.
  if (/chunked/i.test(headerValue(http.headers, 'transfer-encoding') ?? '')) body = dechunk(body) ?? body;
  // When the text was recorded, for the pipeline (as_of): a capture carries its own.
  if (headerValue(headers, 'memento-datetime') === undefined) {
    const when = new Date(record.date);
    if (!Number.isNaN(when.getTime())) headers.push(['Memento-Datetime', when.toUTCString()]);
  }
  return {
    status: http.status,
    statusText: http.statusText,
    headers,
    body: head ? Buffer.alloc(0) : body,
    endError: record.truncated && !head ? truncationError(record.truncated) : undefined,
  };
}

/**
 * The headers the live client saw: the recorder replaced the framing headers (a de-chunked
 * body has a Content-Length) and kept the originals as X-Archive-Orig-*; they are put back.
 */
function servedHeaders(recorded: readonly HeaderPair[]): HeaderPair[] {
  const origLength = headerValue(recorded, `${ORIG_HEADER_PREFIX}Content-Length`);
  const origEncoding = headerValue(recorded, `${ORIG_HEADER_PREFIX}Transfer-Encoding`);
  const framing = new Set(
    [`${ORIG_HEADER_PREFIX}content-length`, `${ORIG_HEADER_PREFIX}transfer-encoding`].map((h) => h.toLowerCase()),
  );
  const out: HeaderPair[] = [];
  for (const [name, value] of recorded) {
    const lower = name.toLowerCase();
    if (framing.has(lower)) continue;
    if (lower === 'content-length' && (origLength !== undefined || origEncoding !== undefined)) {
      if (origLength !== undefined) out.push([name, origLength]);
      if (origEncoding !== undefined) out.push(['Transfer-Encoding', origEncoding]);
      continue;
    }
    out.push([name, value]);
  }
  return out;
}

/**
 * The error an exchange recorded without a response replays as: its code and message. A
 * client-side timeout (an abort, with no code of its own) replays as undici's headers
 * timeout, so the fetch layer classifies it as the timeout it was.
 */
function recordedError(fields: Record<string, string>): Error {
  const message = fields[ERROR_FIELDS.message] ?? 'recorded network error';
  let code = fields[ERROR_FIELDS.code];
  if (code === 'TimeoutError') code = 'UND_ERR_HEADERS_TIMEOUT';
  return Object.assign(new Error(message), code ? { code } : {});
}

/** How a body cut off live ends in the replay: a timeout stays a timeout, anything else is a closed connection. */
function truncationError(truncated: string): Error {
  if (truncated === 'time') return Object.assign(new Error('Body Timeout Error'), { code: 'UND_ERR_BODY_TIMEOUT' });
  return Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
}

/** The controller a replayed request's handler gets: pause/resume drive delivery, abort ends it at once. */
class ReplayController implements Dispatcher.DispatchController {
  #aborted = false;
  #paused = false;
  #reason: Error | null = null;
  rawHeaders: Buffer[] | null = null;
  rawTrailers: Buffer[] | null = null;

  constructor(
    private readonly onAbort: (reason: Error) => void,
    private readonly onResume: () => void,
  ) {}

  get aborted(): boolean {
    return this.#aborted;
  }
  get paused(): boolean {
    return this.#paused;
  }
  get reason(): Error | null {
    return this.#reason;
  }
  abort(reason?: Error): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason ?? new undiciErrors.RequestAbortedError();
    this.onAbort(this.#reason);
  }
  pause(): void {
    this.#paused = true;
  }
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.onResume();
  }
}

/** One replayed request: the handler's events in the order a socket would produce them. */
class ReplayExchange {
  readonly #handler: Dispatcher.DispatchHandler;
  readonly #outcome: Outcome;
  readonly #onDone: () => void;
  readonly #controller: ReplayController;
  #done = false;
  #started = false;
  #offset = 0;
  #pumpQueued = false;

  constructor(handler: Dispatcher.DispatchHandler, outcome: Outcome, onDone: () => void) {
    this.#handler = handler;
    this.#outcome = outcome;
    this.#onDone = onDone;
    // An abort is honoured at once (on the next microtask: the client may be mid-callback).
    this.#controller = new ReplayController(
      (reason) => queueMicrotask(() => this.fail(reason)),
      () => this.#queuePump(),
    );
  }

  start(): void {
    this.#call(() => this.#handler.onRequestStart?.(this.#controller, {}));
    // Answers come asynchronously, as from a socket: dispatch() returns first.
    setImmediate(() => this.#respond());
  }

  fail(err: Error): void {
    if (this.#done) return;
    this.#done = true;
    this.#onDone();
    try {
      this.#handler.onResponseError?.(this.#controller, err);
    } catch {
      // The handler's own failure has nowhere further to go.
    }
  }

  /** Runs a handler callback; a throw ends the exchange with that error, as undici does. */
  #call(step: () => void): void {
    if (this.#done) return;
    try {
      step();
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #respond(): void {
    if (this.#done || this.#controller.aborted) return;
    const outcome = this.#outcome;
    if ('error' in outcome) {
      this.fail(outcome.error);
      return;
    }
    const raw: Buffer[] = [];
    // No prototype: a header named "__proto__" is just a header.
    const object = Object.create(null) as Record<string, string | string[]>;
    for (const [name, value] of outcome.headers) {
      raw.push(Buffer.from(name, 'latin1'), Buffer.from(value, 'latin1'));
      const key = name.toLowerCase();
      const prev = object[key];
      object[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
    this.#controller.rawHeaders = raw;
    this.#started = true;
    this.#call(() => this.#handler.onResponseStart?.(this.#controller, outcome.status, object, outcome.statusText));
    // The body, and then its end, each come on a later turn, as from a socket: fetch() sets up
    // its body stream after the headers, and an error delivered in the same turn would be lost.
    this.#queuePump();
  }

  #queuePump(): void {
    if (this.#pumpQueued || !this.#started) return;
    this.#pumpQueued = true;
    setImmediate(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  #pump(): void {
    const outcome = this.#outcome;
    if ('error' in outcome || this.#done) return;
    const body = outcome.body;
    if (this.#offset >= body.length) {
      if (!this.#controller.paused) this.#finish(outcome.endError);
      return;
    }
    for (let n = 0; n < CHUNKS_PER_TURN && !this.#done && !this.#controller.paused && this.#offset < body.length; n++) {
      const chunk = body.subarray(this.#offset, this.#offset + CHUNK);
      this.#offset += chunk.length;
      this.#call(() => this.#handler.onResponseData?.(this.#controller, chunk));
    }
    // Paused: resume() queues the next turn. Otherwise the rest (or the end) comes on the next turn.
    if (!this.#done && !this.#controller.paused) this.#queuePump();
  }

  #finish(endError: Error | undefined): void {
    if (endError) {
      this.fail(endError);
      return;
    }
    this.#call(() => {
      this.#done = true;
      this.#onDone();
      this.#handler.onResponseEnd?.(this.#controller, {});
    });
  }
}

/** Adapts fetch()'s legacy handler (onConnect, onHeaders, onData, onComplete, onError) to the controller API. */
class LegacyHandler implements Dispatcher.DispatchHandler {
  constructor(private readonly legacy: Dispatcher.DispatchHandler) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.legacy.onConnect?.((reason?: Error) => controller.abort(reason ?? new undiciErrors.RequestAbortedError()));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    _headers: unknown,
    statusMessage?: string,
  ): void {
    this.legacy.onResponseStarted?.();
    const raw = (controller.rawHeaders ?? []) as Buffer[];
    if (this.legacy.onHeaders?.(statusCode, raw, () => controller.resume(), statusMessage ?? '') === false)
      controller.pause();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.legacy.onData?.(chunk) === false) controller.pause();
  }

  onResponseEnd(): void {
    this.legacy.onComplete?.([]);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.legacy.onError?.(err);
  }
}
