// Recording: an undici interceptor that appends every HTTP exchange (each redirect hop, each retry) to a WARC 1.1 file
// as it happens.
import { writeSync } from 'node:fs';
import { open, stat, truncate, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { WARCRecord } from 'warcio';
import { errorCode } from '../fetch/errors.js';
import { readArchive } from './read.js';
import { errorFields, errorName, receivedHeaders, reframed, requestBody, requestHeaders } from './exchange-headers.js';
import {
  ArchiveError,
  ERROR_FIELDS,
  WARC_VERSION,
  dispatchUrl,
  fsReason,
  headerValue,
  isoSeconds,
  newRecordId,
  oneLine,
  parseWaybackUrl,
  serializeRecord,
  warcinfoRecord,
  wireToText,
  type HeaderPair,
} from './warc.js';

interface RecorderOptions {
  /**
   * Wayback base, e.g. "https://web.archive.org": a response to `${base}/web/<14 digits>id_/<url>` carrying a
   * Memento-Datetime header is an archived capture. Written in the warcinfo record, so a replay answers archive
   * requests from it whatever its own --wayback-url.
   */
  waybackBase?: string;
  /** For the warcinfo record, e.g. "quotecheck/0.1.0". */
  software?: string;
  /**
   * Called with every whole response as its record is queued (not cut-off ones): its record id, where it is filed and
   * its body as it came (still content-encoded), so a caller can say which record holds the bytes it judged.
   */
  onResponse?: (response: RecordedResponse) => void;
  /**
   * Append to an existing file instead of replacing it (a resumed run): its records are kept, a record a killed run cut
   * short at the end is cut off first (so the new members follow whole ones), and a new warcinfo record opens what this
   * run adds. A missing file is created.
   */
  append?: boolean;
}

/** A whole response as the recorder files it (RecorderOptions.onResponse). */
interface RecordedResponse {
  recordId: string;
  /** WARC-Target-URI: the URL requested (for a Wayback capture, the archived URL). */
  targetUri: string;
  status: number;
  headers: readonly HeaderPair[];
  /** The body as received (de-chunked, still content-encoded), in the chunks it came in. */
  body: readonly Buffer[];
}

/** WARC-Truncated values (WARC 1.1 §5.13) the recorder writes. */
type Truncation = 'length' | 'time' | 'disconnect';

/** Where an exchange is filed: its own URL, or for a Wayback capture the archived URL and date (pywb's convention). */
interface Target {
  uri: string;
  date: string;
  sourceUri?: string;
  creationDate?: string;
}

// Module-private entry points: the exchange objects below append records, callers of the class cannot.
const APPEND = Symbol('append');
const WAYBACK = Symbol('waybackBase');
const ON_RESPONSE = Symbol('onResponse');

/**
 * Writes a WARC 1.1 file, one gzip member per record, appended as the run goes: records of
 * concurrent exchanges never interleave and a killed process leaves every record before the
 * last one whole. Use `interceptor()` with `Agent#compose` and pass the result to fetch as
 * its dispatcher.
 */
export class WarcRecorder {
  readonly path: string;
  readonly #file: FileHandle;
  readonly #waybackBase: string | undefined;
  readonly #onResponse: RecorderOptions['onResponse'];
  /**
   * Records queued and not yet written, in append order: each is serialized at once, concurrently with the others,
   * and written the moment it and every record before it are serialized (drain).
   */
  readonly #queue: Queued[] = [];
  /** Records queued so far, and records taken off the queue (written, or dropped after a failure). */
  #queued = 0;
  #done = 0;
  /** Callers waiting for the records queued before they asked (flushed). */
  #waiting: { upTo: number; resolve: () => void }[] = [];
  #written = 0;
  #closed = false;
  #closing: Promise<void> | undefined;
  #failure: unknown;

  /** Use `WarcRecorder.open`: it creates the file and writes the warcinfo record first. */
  constructor(path: string, file: FileHandle, options: RecorderOptions) {
    this.path = path;
    this.#file = file;
    this.#waybackBase = options.waybackBase;
    this.#onResponse = options.onResponse;
  }

  /** Creates (or truncates, or with `append` opens for appending) the file and writes its warcinfo record. */
  static async open(path: string, options: RecorderOptions = {}): Promise<WarcRecorder> {
    let file: FileHandle;
    try {
      if (options.append) await cutTornTail(path);
      file = await open(path, options.append ? 'a' : 'w');
    } catch (err) {
      if (err instanceof ArchiveError) throw err;
      throw new ArchiveError(`cannot write the archive ${path}: ${fsReason(err)}`);
    }
    const recorder = new WarcRecorder(path, file, options);
    recorder[APPEND]([
      warcinfoRecord(basename(path), options.software, options.waybackBase ? [options.waybackBase] : []),
    ]);
    if (!(await recorder.flushed())) {
      await file.close().catch(() => {});
      throw recorder.#failureError();
    }
    return recorder;
  }

  /** An undici interceptor (for `Dispatcher#compose`) that records every exchange dispatched through it. */
  interceptor(): Dispatcher.DispatcherComposeInterceptor {
    return (dispatch) => (opts, handler) => {
      // After close() there is nowhere to write: exchanges go through unrecorded rather than fail.
      if (this.#closed) return dispatch(opts, handler);
      return dispatch(opts, new RecordingHandler(handler, new Exchange(this, opts)));
    };
  }

  /** Records written to the file so far (the warcinfo record included). */
  records(): number {
    return this.#written;
  }

  /**
   * Resolves once every record queued so far is in the file (handed to the OS: a killed process loses none of them):
   * true, or false when a write failed (the records from it on are not in the file). A caller that names a record
   * (a label's warc_record_id) writes the name after this, so the name never points at a record that is not there.
   */
  async flushed(): Promise<boolean> {
    const upTo = this.#queued;
    if (this.#done < upTo) await new Promise<void>((resolve) => this.#waiting.push({ upTo, resolve }));
    return this.#failure === undefined;
  }

  /**
   * Waits for the records queued so far, then closes the file; idempotent. Exchanges still in
   * flight are not recorded past this point. Rejects with an ArchiveError when a write failed
   * (the run's fetches are never failed by the recorder; the loss is reported here).
   */
  close(): Promise<void> {
    this.#closing ??= this.#finish();
    return this.#closing;
  }

  async #finish(): Promise<void> {
    this.#closed = true;
    await this.flushed();
    await this.#file.close().catch((err: unknown) => {
      this.#failure ??= err;
    });
    if (this.#failure !== undefined) throw this.#failureError();
  }

  #failureError(): ArchiveError {
    return new ArchiveError(`cannot write the archive ${this.path}: ${fsReason(this.#failure)}`);
  }

  get [WAYBACK](): string | undefined {
    return this.#waybackBase;
  }

  get [ON_RESPONSE](): RecorderOptions['onResponse'] {
    return this.#onResponse;
  }

  /**
   * Queues records for writing, in this order. Each record is serialized (digests, gzip) at
   * once and concurrently with others, but written strictly in queue order, each with one
   * write, so a request always lands before its response and members never interleave.
   */
  [APPEND](records: WARCRecord[]): void {
    if (this.#closed) return;
    for (const record of records) {
      const entry: Queued = { settled: false };
      this.#queue.push(entry);
      this.#queued++;
      serializeRecord(record)
        .then(
          (bytes) => {
            entry.bytes = bytes;
          },
          (err: unknown) => {
            entry.error = err;
          },
        )
        .finally(() => {
          entry.settled = true;
          this.#drain();
        });
    }
  }

  /**
   * Writes every record at the head of the queue that is serialized, in order, each with one synchronous write: no
   * record waits for a turn of the event loop once those before it are written (a label naming it is written after),
   * and a write to the page cache takes microseconds. After a failure the rest are dropped, and the failure reported.
   */
  #drain(): void {
    while (this.#queue.length > 0 && this.#queue[0]!.settled) {
      const entry = this.#queue.shift()!;
      this.#done++;
      if (this.#failure !== undefined) continue;
      try {
        if (entry.error !== undefined) throw entry.error;
        writeFully(this.#file.fd, entry.bytes!);
        this.#written++;
      } catch (err) {
        this.#failure = err;
      }
    }
    const ready = this.#waiting.filter((w) => w.upTo <= this.#done);
    if (ready.length === 0) return;
    this.#waiting = this.#waiting.filter((w) => w.upTo > this.#done);
    for (const w of ready) w.resolve();
  }
}

/** A record on its way to the file: serialized (or failed to be), not yet written. */
interface Queued {
  settled: boolean;
  bytes?: Buffer;
  error?: unknown;
}

/**
 * Before appending to an archive: a last record a killed run left cut short is cut off, so the records appended follow
 * whole ones (a reader stops at a cut record, and would never reach them). A missing or empty file has nothing to
 * cut; a file that is not a WARC, or is damaged before its end, is an ArchiveError (appending would bury the new
 * records).
 */
async function cutTornTail(path: string): Promise<void> {
  const size = await stat(path).then(
    (info) => info.size,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return 0;
      throw err;
    },
  );
  if (size === 0) return;
  const { cut } = await readArchive(path);
  if (!cut) return;
  // Only a tail cut short is a killed writer's; damage further in is not quotecheck's to cut away.
  if (!/ends inside a record/.test(cut.reason))
    throw new ArchiveError(
      `cannot append to the archive ${path}: ${cut.reason} at byte ${cut.offset}; it is damaged, not cut short`,
    );
  await truncate(path, cut.offset);
}

function writeFully(fd: number, bytes: Buffer): void {
  // One write call per record; the loop only matters if the OS writes part of it (disk full).
  for (let off = 0; off < bytes.length; ) {
    const written = writeSync(fd, bytes, off, bytes.length - off);
    if (written <= 0) throw new Error('the file system accepted no bytes');
    off += written;
  }
}

/**
 * A large body is handed to warcio a megabyte at a time with a turn of the event loop in
 * between: serializing it never stalls the run's sockets.
 */
async function* paced(chunks: readonly Buffer[]): AsyncGenerator<Uint8Array> {
  let since = 0;
  for (const chunk of chunks) {
    yield chunk;
    since += chunk.length;
    if (since >= 1 << 20) {
      since = 0;
      await nextTurn();
    }
  }
}

/** One HTTP exchange as it happens: the request when the response starts (or fails), the response when it ends. */
class Exchange {
  readonly #recorder: WarcRecorder;
  readonly #opts: Dispatcher.DispatchOptions;
  /** WARC-Date of a live exchange: when it was dispatched. */
  readonly #started = new Date();
  readonly #requestId = newRecordId();
  #target: Target | undefined;
  #response: { id: string; status: number; statusText: string; headers: HeaderPair[] } | undefined;
  #chunks: Buffer[] = [];
  #settled = false;
  #clientAbort: { reason: unknown } | undefined;

  constructor(recorder: WarcRecorder, opts: Dispatcher.DispatchOptions) {
    this.#recorder = recorder;
    this.#opts = opts;
  }

  /** The client gave up on the exchange (cancelled body, timeout, stop signal). */
  clientAborted(reason: unknown): void {
    this.#clientAbort ??= { reason };
  }

  responseStart(status: number, statusText: string, headers: HeaderPair[]): void {
    // 1xx interim responses are not the exchange's response.
    if (this.#settled || this.#response || status < 200) return;
    this.#response = { id: newRecordId(), status, statusText, headers };
    this.#target = this.#targetFor(headers);
    // The request is written now: its place (a capture or not) depends on the response headers.
    this.#recorder[APPEND]([this.#requestRecord(this.#response.id)]);
  }

  data(chunk: Buffer): void {
    if (this.#response && !this.#settled) this.#chunks.push(chunk);
  }

  end(): void {
    if (this.#settled || !this.#response) return;
    this.#settled = true;
    const r = this.#response;
    const body = this.#chunks;
    this.#recorder[APPEND]([this.#responseRecord(undefined)]);
    this.#recorder[ON_RESPONSE]?.({
      recordId: r.id,
      targetUri: this.#target!.uri,
      status: r.status,
      headers: r.headers,
      body,
    });
  }

  error(err: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.#response) {
      this.#recorder[APPEND]([this.#responseRecord(this.#truncation(err))]);
      return;
    }
    // No response at all: the request, and what went wrong in a metadata record.
    this.#target = this.#targetFor(undefined);
    const metadataId = newRecordId();
    this.#recorder[APPEND]([this.#requestRecord(metadataId), this.#metadataRecord(metadataId, err)]);
  }

  #truncation(err: unknown): Truncation {
    const code = errorCode(err);
    if (code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return 'time';
    if (this.#clientAbort) return errorName(this.#clientAbort.reason) === 'TimeoutError' ? 'time' : 'length';
    return 'disconnect';
  }

  #targetFor(headers: HeaderPair[] | undefined): Target {
    const url = dispatchUrl(this.#opts.origin, this.#opts.path);
    const date = this.#started.toISOString();
    const base = this.#recorder[WAYBACK];
    const memento = headers && headerValue(headers, 'memento-datetime');
    if (base && memento) {
      const ref = parseWaybackUrl(url, base);
      const when = new Date(memento);
      if (ref && ref.modifier === 'id_' && ref.timestamp.length === 14 && !Number.isNaN(when.getTime())) {
        // A capture is filed under the URL and date it was archived at (pywb's convention for
        // records taken from a remote archive); where it came from, and when, is kept too.
        return { uri: ref.original, date: isoSeconds(when), sourceUri: url, creationDate: date };
      }
    }
    return { uri: url, date };
  }

  #placeFields(): HeaderPair[] {
    const t = this.#target!;
    const fields: HeaderPair[] = [];
    if (t.sourceUri) fields.push(['WARC-Source-URI', t.sourceUri]);
    if (t.creationDate) fields.push(['WARC-Creation-Date', t.creationDate]);
    return fields;
  }

  #requestRecord(concurrentTo: string): WARCRecord {
    const t = this.#target!;
    const { method, path, body } = this.#opts;
    const warcHeaders: HeaderPair[] = [
      ['WARC-Record-ID', this.#requestId],
      ['WARC-Concurrent-To', concurrentTo],
      ...this.#placeFields(),
    ];
    const payload = requestBody(body);
    if (payload === undefined) warcHeaders.push(['WARC-Truncated', 'unspecified']); // a streamed body is not kept
    return WARCRecord.create(
      {
        url: t.uri,
        date: t.date,
        type: 'request',
        warcVersion: WARC_VERSION,
        warcHeaders,
        statusline: `${method} ${path} HTTP/1.1`,
        httpHeaders: requestHeaders(this.#opts).map(([k, v]): HeaderPair => [k, wireToText(oneLine(v))]),
      },
      payload?.length ? [payload] : [],
    );
  }

  #responseRecord(truncated: Truncation | undefined): WARCRecord {
    const t = this.#target!;
    const r = this.#response!;
    const chunks = this.#chunks;
    this.#chunks = []; // from here on the serializer holds the body, until the record is written
    const size = chunks.reduce((n, c) => n + c.length, 0);
    const warcHeaders: HeaderPair[] = [
      ['WARC-Record-ID', r.id],
      ['WARC-Concurrent-To', this.#requestId],
      ...this.#placeFields(),
    ];
    if (truncated) warcHeaders.push(['WARC-Truncated', truncated]);
    return WARCRecord.create(
      {
        url: t.uri,
        date: t.date,
        type: 'response',
        warcVersion: WARC_VERSION,
        warcHeaders,
        statusline: `HTTP/1.1 ${r.status} ${wireToText(oneLine(r.statusText))}`,
        httpHeaders: reframed(r.headers, size).map(([k, v]): HeaderPair => [k, wireToText(v)]),
      },
      paced(chunks),
    );
  }

  #metadataRecord(id: string, err: unknown): WARCRecord {
    const t = this.#target!;
    const { code, name, message } = errorFields(err);
    const fields = [
      `${ERROR_FIELDS.code}: ${oneLine(code)}`,
      `${ERROR_FIELDS.name}: ${oneLine(name)}`,
      `${ERROR_FIELDS.message}: ${oneLine(message)}`,
    ];
    return WARCRecord.create(
      {
        url: t.uri,
        date: t.date,
        type: 'metadata',
        warcVersion: WARC_VERSION,
        warcHeaders: [['WARC-Record-ID', id], ['WARC-Concurrent-To', this.#requestId], ...this.#placeFields()],
      },
      [Buffer.from(fields.map((f) => `${f}\r\n`).join(''), 'utf8')],
    );
  }
}

/** Controller handed up to the client: the same controls, but a client abort is noted before it is passed down. */
class RecordingController implements Dispatcher.DispatchController {
  constructor(
    readonly inner: Dispatcher.DispatchController,
    readonly onAbort: (reason: unknown) => void,
  ) {}
  get aborted(): boolean {
    return this.inner.aborted;
  }
  get paused(): boolean {
    return this.inner.paused;
  }
  get reason(): Error | null {
    return this.inner.reason;
  }
  get rawHeaders(): Dispatcher.DispatchController['rawHeaders'] {
    return this.inner.rawHeaders;
  }
  get rawTrailers(): Dispatcher.DispatchController['rawTrailers'] {
    return this.inner.rawTrailers;
  }
  abort(reason: Error): void {
    this.onAbort(reason);
    this.inner.abort(reason);
  }
  pause(): void {
    this.inner.pause();
  }
  resume(): void {
    this.inner.resume();
  }
}

/**
 * Sits between the client's handler and the dispatcher below: sees every event, records it,
 * passes it on unchanged. Recording faults never reach the client: a fetch must not fail
 * because its archive could not be written.
 */
class RecordingHandler implements Dispatcher.DispatchHandler {
  readonly #inner: Dispatcher.DispatchHandler;
  readonly #exchange: Exchange;
  #controller: RecordingController | undefined;

  constructor(inner: Dispatcher.DispatchHandler, exchange: Exchange) {
    this.#inner = inner;
    this.#exchange = exchange;
  }

  #wrap(controller: Dispatcher.DispatchController): Dispatcher.DispatchController {
    if (!controller) return controller;
    if (this.#controller?.inner !== controller) {
      this.#controller = new RecordingController(controller, (reason) => this.#exchange.clientAborted(reason));
    }
    return this.#controller;
  }

  #record(step: () => void): void {
    try {
      step();
    } catch {
      // A recording fault (a bug) must not break the fetch; the exchange is then not recorded.
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#inner.onRequestStart?.(this.#wrap(controller), context);
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[2],
    socket: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[3],
  ): void {
    this.#inner.onRequestUpgrade?.(this.#wrap(controller), statusCode, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
    statusMessage?: string,
  ): void {
    this.#record(() =>
      this.#exchange.responseStart(statusCode, statusMessage ?? '', receivedHeaders(controller, headers)),
    );
    this.#inner.onResponseStart?.(this.#wrap(controller), statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#record(() => this.#exchange.data(chunk));
    this.#inner.onResponseData?.(this.#wrap(controller), chunk);
  }

  onResponseEnd(
    controller: Dispatcher.DispatchController,
    trailers: Record<string, string | string[] | undefined>,
  ): void {
    this.#record(() => this.#exchange.end());
    this.#inner.onResponseEnd?.(this.#wrap(controller), trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, err: Error): void {
    this.#record(() => this.#exchange.error(err));
    this.#inner.onResponseError?.(this.#wrap(controller), err);
  }
}
