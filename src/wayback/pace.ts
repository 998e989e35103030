// Pacing for one host that must never be hammered: requests spaced evenly, a shared pause when the host asks for one.
import { setTimeout as sleep } from 'node:timers/promises';

export class PaceError extends Error {
  override readonly name = 'PaceError';
}

/**
 * Hands out request slots at most `perMinute` a minute, evenly spaced (the Internet Archive
 * asks clients to stay near 15 a minute and firewalls those that burst). A 429's Retry-After
 * pauses every later slot, not only the request that got it. A slot that would start past
 * `deadlineAt` is refused instead of waited for.
 */
export class Pacer {
  private next = 0;
  private readonly intervalMs: number;

  constructor(perMinute: number, private readonly deadlineAt?: number) {
    this.intervalMs = Number.isFinite(perMinute) && perMinute > 0 ? 60_000 / perMinute : 0;
  }

  /** Waits for the next free slot and takes it. */
  async slot(signal?: AbortSignal): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    if (this.deadlineAt !== undefined && at > this.deadlineAt) {
      throw new PaceError(`the next request would wait ${Math.ceil((at - now) / 1000)} s, past the deadline`);
    }
    this.next = at + this.intervalMs;
    if (at > now) await sleep(at - now, undefined, { signal });
  }

  /** No slot before `ms` from now (a 429's Retry-After). */
  pause(ms: number): void {
    this.next = Math.max(this.next, Date.now() + ms);
  }

  /** Milliseconds until the next slot. */
  waitMs(): number {
    return Math.max(0, this.next - Date.now());
  }
}
