// Answers (docs/how-it-decides.md#answers): one label per claim id in input order, written atomically and always.
import type { Label } from '../contract.js';
import { writeFileAtomicSync, type AnswersTarget } from './output-files.js';

export type { Label };
// Atomic writes serve every output (outputs.ts); answers files are their first user.
export type { AnswersTarget } from './output-files.js';
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
    if (format === 'list')
      return `${JSON.stringify(
        [...this.labels].map(([id, label]) => ({ id, label })),
        null,
        2,
      )}\n`;
    // Written member by member, in input order (docs/how-it-decides.md#answers): an object would put integer-like ids
    // ("10", "2") first.
    if (this.labels.size === 0) return '{}\n';
    const members = [...this.labels].map(([id, label]) => `  ${JSON.stringify(id)}: ${JSON.stringify(label)}`);
    return `{\n${members.join(',\n')}\n}\n`;
  }
}

/** How soon after a decision the answers file is rewritten, for a run of up to LARGE_RUN_CLAIMS claims. */
export const WRITE_INTERVAL_MS = 250;
/**
 * Past this many claims a rewrite is large (hundreds of kilobytes): rewrites are spaced LARGE_WRITE_INTERVAL_MS apart.
 */
export const LARGE_RUN_CLAIMS = 5_000;
export const LARGE_WRITE_INTERVAL_MS = 1_000;

/**
 * The least time between two rewrites of an answers file of `claims` claims. Each rewrite is the whole
 * file: at 50,000 claims (about 1.5 MB) four a second would be megabytes a second of writes for no
 * reader's benefit, so a large run's file is rewritten at most once a second (plus the final write).
 */
export function writeIntervalFor(claims: number): number {
  return claims > LARGE_RUN_CLAIMS ? LARGE_WRITE_INTERVAL_MS : WRITE_INTERVAL_MS;
}

/**
 * Keeps an answers file in step with an AnswerBook: written at once (all `no_match`), then
 * again as claims are decided (at most once every `intervalMs`, which grows with the run's size:
 * writeIntervalFor), so a run killed at any moment leaves a valid file with everything decided
 * so far. Writes are synchronous (a few milliseconds even for 50,000 claims), so no older write
 * can land after a newer one.
 */
export class AnswersFile {
  private timer: NodeJS.Timeout | undefined;
  #writes = 0;
  readonly target: AnswersTarget;

  constructor(
    target: string | AnswersTarget,
    readonly format: AnswerFormat,
    readonly book: AnswerBook,
    private readonly intervalMs = writeIntervalFor(book.size),
  ) {
    this.target = typeof target === 'string' ? { path: target } : target;
  }

  get path(): string {
    return this.target.path;
  }

  /** How many times the file has been written (the first, the intermediate and the final writes). */
  get writes(): number {
    return this.#writes;
  }

  /** Writes the current answers now; throws if the path cannot be written. */
  write(): void {
    this.cancel();
    writeFileAtomicSync(this.target, this.book.serialize(this.format));
    this.#writes++;
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

  /** No write pending any more (the run is over; its final write comes next, or never). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
