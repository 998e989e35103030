// The --report file as a run writes it: one line appended per decided claim, so a run killed at any moment leaves every
// decision made so far.
import { closeSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { LinesFile } from './lines-file.js';
import { tempPath } from './output-files.js';
import { toReportRecord } from './evidence-report.js';
import type { ClaimResult } from '../check.js';

export type { ReportOrder } from '../config/settings.js';

/**
 * A report being written: a JSON Lines file (lines-file.ts) of one line per decided claim, each one `write(2)` of the
 * whole line, so a SIGKILL can lose nothing already appended; a line cut by a crash of the machine itself is the only
 * damage, and readers skip a last line without its newline. A write that fails (a full disk) stops the appending;
 * `failure` says why.
 */
export class ReportFile {
  readonly #file: LinesFile;

  /**
   * Creates (or empties) the file at `path`, or with `append` adds to it (a resumed run); throws the file system's
   * error when it cannot.
   */
  constructor(
    readonly path: string,
    opts: { append?: boolean } = {},
  ) {
    this.#file = new LinesFile(path, opts.append ? 'append' : 'replace');
    this.#file.open();
  }

  /** Lines written so far. */
  get lines(): number {
    return this.#file.lines;
  }

  /** Why appending stopped, when a write failed (the file system's message). */
  get failure(): string | undefined {
    return this.#file.failure;
  }

  append(result: ClaimResult): void {
    this.#file.append(toReportRecord(result));
  }

  close(): void {
    this.#file.close();
  }
}

/** Bytes read at a time when a report is scanned for its lines. */
const SCAN_CHUNK = 1 << 20;

/**
 * Where each whole line of a JSON Lines file starts and ends, by its `id`: a cut last line, or one that does not parse,
 * is left out.
 */
function lineSpans(fd: number, keyOf: (line: Buffer) => string | undefined): Map<string, [number, number]> {
  const spans = new Map<string, [number, number]>();
  const chunk = Buffer.alloc(SCAN_CHUNK);
  let pending: Buffer[] = [];
  let lineStart = 0;
  let pos = 0;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, pos);
    if (n === 0) break;
    const data = chunk.subarray(0, n);
    let from = 0;
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, from)) {
      // A line that began in an earlier read is put together; one within this read is used in place.
      const line = pending.length > 0 ? Buffer.concat([...pending, data.subarray(from, nl)]) : data.subarray(from, nl);
      pending = [];
      const id = keyOf(line);
      if (id !== undefined) spans.set(id, [lineStart, line.length + 1]);
      lineStart = pos + nl + 1;
      from = nl + 1;
    }
    pending.push(Buffer.from(data.subarray(from))); // a copy: the next read reuses the chunk
    pos += n;
  }
  return spans;
}

/** A JSON line's `id` (a report line's), or undefined when it has none or does not parse. */
function idOf(line: Buffer): string | undefined {
  try {
    const record = JSON.parse(line.toString('utf8')) as { id?: unknown };
    return typeof record.id === 'string' ? record.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Rewrites the report at `path` with its lines in the order of `ids` (`--report-order input`), via a
 * temp file and a rename: a run killed while it runs keeps the report in decision order. Reads one
 * line at a time by its offset, so the rewrite holds two numbers per claim, not the report.
 * Lines whose id is not in `ids` keep their place after the others. `keyOf` reads a line's id (by default its `id`
 * field, as a report has it; label's files name a claim as its claims file did).
 */
export function reorderReport(
  path: string,
  ids: readonly string[],
  keyOf: (line: Buffer) => string | undefined = idOf,
): void {
  const tmp = tempPath(path);
  const src = openSync(path, 'r');
  let out: number | undefined;
  try {
    const spans = lineSpans(src, keyOf);
    out = openSync(tmp, 'wx');
    const copy = ([start, length]: [number, number]): void => {
      const buf = Buffer.alloc(length);
      readSync(src, buf, 0, length, start);
      writeSync(out!, buf);
    };
    for (const id of ids) {
      const span = spans.get(id);
      if (span) copy(span);
      spans.delete(id);
    }
    for (const span of spans.values()) copy(span);
    closeSync(out);
    out = undefined;
    renameSync(tmp, path);
  } catch (err) {
    if (out !== undefined) closeSync(out);
    rmSync(tmp, { force: true });
    throw err;
  } finally {
    closeSync(src);
  }
}
