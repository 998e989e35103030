// Concurrency limits for fetching: a global cap and a per-host cap (p-limit), politely applied.
import pLimit, { type LimitFunction } from 'p-limit';

export class FetchSlots {
  private readonly global: LimitFunction;
  private readonly perHost = new Map<string, LimitFunction>();

  constructor(
    readonly concurrency: number,
    readonly perHostConcurrency: number,
  ) {
    this.global = pLimit(concurrency);
  }

  /**
   * Runs `task` once both a slot for the URL's host and a global slot are free. The host
   * slot is taken first so that requests queued behind a busy host do not hold global
   * slots other hosts could use.
   */
  run<T>(url: string, task: () => Promise<T>): Promise<T> {
    const host = new URL(url).host;
    let limit = this.perHost.get(host);
    if (!limit) {
      limit = pLimit(this.perHostConcurrency);
      this.perHost.set(host, limit);
    }
    return limit(() => this.global(task));
  }
}
