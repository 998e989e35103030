// Answers (design.md §2): one label per claim id in input order, written atomically and always.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export type Label = 'verbatim' | 'no_match';
export type AnswerFormat = 'map' | 'list';

/** Every claim starts as `no_match`: whatever happens, an answer file written now is complete and valid. */
export class AnswerBook {
  private readonly labels = new Map<string, Label>();

  constructor(ids: readonly string[]) {
    for (const id of ids) this.labels.set(id, 'no_match');
  }

  set(id: string, label: Label): void {
    if (!this.labels.has(id)) throw new Error(`unknown claim id ${JSON.stringify(id)}`);
    this.labels.set(id, label);
  }

  get size(): number {
    return this.labels.size;
  }

  /** The answers file's content: `{id: label}` or `[{id, label}]`, in input order. */
  serialize(format: AnswerFormat): string {
    const body = format === 'map'
      ? Object.fromEntries(this.labels)
      : [...this.labels].map(([id, label]) => ({ id, label }));
    return `${JSON.stringify(body, null, 2)}\n`;
  }
}

let tempCounter = 0;
function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${tempCounter++}.tmp`);
}

/** Writes via a temp file in the same folder and a rename, so readers never see half a file. */
export function writeFileAtomicSync(path: string, content: string): void {
  const tmp = tempPath(path);
  try {
    writeFileSync(tmp, content);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Keeps an answers file in step with an AnswerBook: written at once (all `no_match`), then
 * again as claims are decided (at most every `intervalMs`), so a run killed at any moment
 * leaves a valid file with everything decided so far. Writes are synchronous (a few
 * milliseconds even for 50,000 claims), so no older write can land after a newer one.
 */
export class AnswersFile {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly path: string,
    readonly format: AnswerFormat,
    readonly book: AnswerBook,
    private readonly intervalMs = 250,
  ) {}

  /** Writes the current answers now; throws if the path cannot be written. */
  write(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    writeFileAtomicSync(this.path, this.book.serialize(this.format));
  }

  /** Asks for a write soon; a burst of decisions makes one write. A failed write is retried by the next one. */
  schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      try {
        this.write();
      } catch {
        // The final write() reports the error; an intermediate one must not kill the run.
      }
    }, this.intervalMs);
  }
}
