// The run's bound on sources fetched and not yet decided: how many, and the bytes of their bodies, granted in order.

/**
 * Sources a run holds once fetched (waiting to be read, being read or decided), per fetch slot. Past it, or past
 * HELD_BYTES, fetching waits for extraction to catch up, so memory follows the bound, not the run's size. The count
 * is generous because small sources cost little: what bounds memory on large ones is the bytes. A run whose sources
 * all fit starts every first request at once, so a source that answers "retry after 1 s" waits while the others are
 * read, not after them (Issue 36: with 4 a slot, such sources met their wait at the end of a CPU-bound run).
 */
export const HELD_PER_FETCH_SLOT = 16;

/**
 * Bytes of held bodies (as received) at once. A body larger than this is held alone. At most --concurrency more bodies
 * are in flight beside them (a fetch slot keeps its answer until it has a held place).
 */
const HELD_BYTES = 96 * 1024 * 1024;

interface Waiter {
  bytes: number;
  grant: (release: () => void) => void;
}

/**
 * Places for fetched sources, by count and by bytes, granted in the order they were asked for: a large body waiting
 * for room is not overtaken by small ones (it would wait for ever on a busy run).
 */
export class HeldSources {
  #count = 0;
  #bytes = 0;
  readonly #waiting: Waiter[] = [];

  constructor(
    readonly maxCount: number,
    readonly maxBytes: number = HELD_BYTES,
  ) {}

  /** A place for a source whose body has `bytes` bytes, held until the returned function is called. */
  acquire(bytes: number): Promise<() => void> {
    return new Promise((grant) => {
      this.#waiting.push({ bytes, grant });
      this.#pump();
    });
  }

  get held(): { count: number; bytes: number } {
    return { count: this.#count, bytes: this.#bytes };
  }

  #fits(bytes: number): boolean {
    return this.#count === 0 || (this.#count < this.maxCount && this.#bytes + bytes <= this.maxBytes);
  }

  #pump(): void {
    while (this.#waiting.length > 0 && this.#fits(this.#waiting[0]!.bytes)) {
      const { bytes, grant } = this.#waiting.shift()!;
      this.#count++;
      this.#bytes += bytes;
      let released = false;
      grant(() => {
        if (released) return;
        released = true;
        this.#count--;
        this.#bytes -= bytes;
        this.#pump();
      });
    }
  }
}
