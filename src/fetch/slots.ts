// Fetch slots: a global cap and a per-host cap (p-limit), taken for each request and given back while a source waits.
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

  /** The host's limit, made on first use. */
  #host(url: string): LimitFunction {
    const host = new URL(url).host;
    let limit = this.perHost.get(host);
    if (!limit) {
      limit = pLimit(this.perHostConcurrency);
      this.perHost.set(host, limit);
    }
    return limit;
  }

  /**
   * Takes the URL's host slot and then a global slot, for one request (the host's first, so that requests queued
   * behind a busy host do not hold global slots other hosts could use): the returned function
   * gives them back. A source gives its slots back while it waits for a retry, and each hop of a redirect takes its
   * own host's, so a wait holds nothing another source could use. Rejects at once when `signal` aborts; a slot
   * granted after that is given back unused.
   */
  take(url: string, signal?: AbortSignal): Promise<() => void> {
    return new Promise((granted, refused) => {
      let gaveUp = false;
      const onAbort = (): void => {
        gaveUp = true;
        refused(signal!.reason as Error);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const hold = (): Promise<void> =>
        new Promise<void>((release) => {
          signal?.removeEventListener('abort', onAbort);
          if (gaveUp) return release();
          let released = false;
          granted(() => {
            if (released) return;
            released = true;
            release();
          });
        });
      void this.#host(url)(() => this.global(hold));
    });
  }
}
