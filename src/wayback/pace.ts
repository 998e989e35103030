// Pacing for one host that must never be hammered: requests spaced evenly, a shared pause when the host asks for one.
import { setTimeout as sleep } from 'node:timers/promises';

export class PaceError extends Error {
  override readonly name = 'PaceError';
}

/** The clock slots are counted on: the wall clock and a timer (a test gives one it moves by hand). */
interface PaceClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const WALL_CLOCK: PaceClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
};

/**
 * Hands out request slots at most `perMinute` a minute, evenly spaced (the Internet Archive
 * asks clients to stay near 15 a minute and firewalls those that burst). A 429's Retry-After
 * pauses every later slot, not only the request that got it. A slot that would start past
 * `deadlineAt` is refused instead of waited for.
 */
export class Pacer {
  private next = 0;
  private readonly intervalMs: number;
  /** When each request waiting for its slot starts (epoch ms), earliest first. */
  private readonly waiting: number[] = [];

  /** `onQueue` is told whenever a request starts or stops waiting for its slot. */
  constructor(
    perMinute: number,
    private readonly deadlineAt?: number,
    private readonly onQueue?: () => void,
    private readonly clock: PaceClock = WALL_CLOCK,
  ) {
    this.intervalMs = Number.isFinite(perMinute) && perMinute > 0 ? 60_000 / perMinute : 0;
  }

  /** Requests waiting for their slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** When the first waiting request starts (epoch ms), if one waits. */
  get nextAt(): number | undefined {
    return this.waiting[0];
  }

  /** Waits for the next free slot and takes it. */
  async slot(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const at = Math.max(now, this.next);
    if (this.deadlineAt !== undefined && at > this.deadlineAt) {
      throw new PaceError(`the next request would wait ${Math.ceil((at - now) / 1000)} s, past the deadline`);
    }
    this.next = at + this.intervalMs;
    if (at <= now) return;
    this.waiting.push(at);
    this.waiting.sort((a, b) => a - b);
    this.onQueue?.();
    try {
      // A timer counts from the event loop's time, which may be a little behind the wall clock: it can fire a
      // millisecond before `at`. The rest is waited too, so two slots are never closer than the interval.
      for (let left = at - now; left > 0; left = at - this.clock.now()) await this.clock.sleep(left, signal);
    } finally {
      this.waiting.splice(this.waiting.indexOf(at), 1);
      this.onQueue?.();
    }
  }

  /** No slot before `ms` from now (a 429's Retry-After). */
  pause(ms: number): void {
    this.next = Math.max(this.next, this.clock.now() + ms);
  }

  /** Milliseconds until the next slot. */
  waitMs(): number {
    return Math.max(0, this.next - this.clock.now());
  }
}
