// A JSON Lines file written a whole line at a time, straight to the file: what `run --report` and `label`'s files
// append as each claim is decided, so that a run killed at any moment leaves every line it wrote whole.
import { closeSync, openSync, writeSync } from 'node:fs';
import { describeFsError } from '../grader/grade.mjs';

/** How a file is opened: made new (refused when it exists), replacing one (--force), or appended to (--resume). */
export type WriteMode = 'new' | 'replace' | 'append';

const FLAGS: Record<WriteMode, string> = { new: 'wx', replace: 'w', append: 'a' };

/**
 * A JSON Lines file written a whole line at a time: each line one `write(2)` with its newline, no buffer in this
 * process, so a SIGKILL loses nothing appended. Opened at its first line: a run that writes none leaves no file (and an
 * existing one as it was). A write that fails stops the appending; `failure` says why.
 */
export class LinesFile {
  #fd: number | undefined;
  #failure: string | undefined;
  #lines = 0;
  #closed = false;

  constructor(
    readonly path: string,
    readonly mode: WriteMode,
  ) {}

  /** Opens the file now rather than at its first line; throws the file system's error when it cannot. */
  open(): void {
    this.#fd ??= openSync(this.path, FLAGS[this.mode]);
  }

  /** Lines this run wrote. */
  get lines(): number {
    return this.#lines;
  }

  get failure(): string | undefined {
    return this.#failure;
  }

  append(obj: object): void {
    if (this.#closed || this.#failure !== undefined) return;
    const line = Buffer.from(`${JSON.stringify(obj)}\n`);
    try {
      this.open();
      let done = 0;
      while (done < line.length) done += writeSync(this.#fd!, line, done, line.length - done);
      this.#lines++;
    } catch (err) {
      this.#failure = describeFsError(err);
      this.close();
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    closeSync(fd);
  }
}
