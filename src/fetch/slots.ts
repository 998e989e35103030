// Fetch slots: a global cap and a per-host cap, taken for each request and given back while a source waits; first
// requests go first, then the retries of sources whose server asked them to wait, then the other hops under way; a host
// that answers it is overloaded gets fewer at once.

/**
 * Which requests a free slot goes to first. First requests: each may reveal a long chain of its own (a source that asks
 * to wait, once or more), and the sooner every source has been asked, the sooner each wait starts and the more of the
 * others' work it overlaps; a retry held back meanwhile is work to fill the slots while the last waits run out (served
 * first, the retries left the flaky-host profile's slots idle at its end, 10% slower). Then the retry of a source whose
 * server asked it to wait (Retry-After: a server that asked once often asks again, so its chain may be the longest),
 * then the other hops of sources under way (a redirect's target, a cookie wall's second request, a retry after a
 * failure that asked no wait), whose remaining chain is known to be short.
 */
export type SlotPriority = 'waited' | 'first' | 'next';

const RANK: Readonly<Record<SlotPriority, number>> = { first: 0, waited: 1, next: 2 };

/** One request waiting for its slots. */
interface Waiter {
  host: string;
  rank: number;
  /** Arrival order, among waiters of the same rank. */
  seq: number;
  grant: () => void;
}

/** A host's slots in use and the requests waiting for one, in arrival order. */
interface Host {
  busy: number;
  queue: Waiter[];
}

/**
 * How a request's answer went, told when its slots are given back: `overloaded` when its server said so without
 * saying when to come back (429 Too Many Requests, RFC 6585 §4: too many requests in a given time; 503 Service
 * Unavailable, RFC 9110 §15.6.4: a temporary overload; no usable Retry-After: a server that sends one has said what it
 * needs, that request again after the wait, and the source waits holding no slot), `answered` for any other answer,
 * `none` when no answer came (a failure, a stop).
 */
export type SlotOutcome = 'overloaded' | 'answered' | 'none';

/**
 * A host's own limit, lowered while it says it is overloaded (additive increase, multiplicative decrease, as TCP does
 * with its window): halved (not below one) by each `overloaded` answer, and raised by one after as many answers as the
 * limit, until it is the per-host limit again. Kept apart from the host's queue, which goes when the host is idle.
 */
interface Pace {
  limit: number;
  /** Answers since the limit last changed. */
  answers: number;
}

/** Gives a request's slots back, saying how its answer went (SlotOutcome; `none` when not said). */
export type SlotRelease = (outcome?: SlotOutcome) => void;

export class FetchSlots {
  readonly #hosts = new Map<string, Host>();
  /** Hosts whose limit is below the per-host one (Pace): none on a run no server calls overloaded. */
  readonly #paces = new Map<string, Pace>();
  #busy = 0;
  #seq = 0;

  constructor(
    readonly concurrency: number,
    readonly perHostConcurrency: number,
  ) {}

  /** The host's slots, made on first use. */
  #host(key: string): Host {
    let host = this.#hosts.get(key);
    if (!host) {
      host = { busy: 0, queue: [] };
      this.#hosts.set(key, host);
    }
    return host;
  }

  /**
   * Takes the URL's host slot and a global slot, together, for one request: the returned function gives them back.
   * A request waits for its host's slot without holding a global one, so that requests queued behind a busy host never
   * keep other hosts waiting. Waiting requests are served by `priority` (SlotPriority), in arrival order within one.
   * A source gives its slots back while it waits for a retry, and each hop of a redirect takes its own host's, so a
   * wait holds nothing another source could use. A host that answers it is overloaded gets fewer slots for a while
   * (Pace). Rejects at once when `signal` aborts.
   */
  take(url: string, signal?: AbortSignal, priority: SlotPriority = 'first'): Promise<SlotRelease> {
    return new Promise((granted, refused) => {
      if (signal?.aborted) return refused(signal.reason as Error);
      const key = new URL(url).host;
      const host = this.#host(key);
      const waiter: Waiter = {
        host: key,
        rank: RANK[priority],
        seq: this.#seq++,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          let released = false;
          granted((outcome = 'none') => {
            if (released) return;
            released = true;
            this.#pace(waiter.host, outcome);
            host.busy--;
            this.#busy--;
            this.#forgetIdle(waiter.host, host);
            this.#pump();
          });
        },
      };
      const onAbort = (): void => {
        const i = host.queue.indexOf(waiter);
        if (i !== -1) host.queue.splice(i, 1);
        this.#forgetIdle(waiter.host, host);
        refused(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // The queue stays in serving order: by rank, then arrival.
      const at = host.queue.findIndex((w) => w.rank > waiter.rank);
      if (at === -1) host.queue.push(waiter);
      else host.queue.splice(at, 0, waiter);
      this.#pump();
    });
  }

  /** The host's limit now: the per-host limit unless its server has said it is overloaded (Pace). */
  #limitOf(key: string): number {
    return this.#paces.get(key)?.limit ?? this.perHostConcurrency;
  }

  /** Lowers or restores the host's limit by how its answer went (Pace). */
  #pace(key: string, outcome: SlotOutcome): void {
    const pace = this.#paces.get(key);
    if (outcome === 'overloaded') {
      const limit = Math.max(1, Math.floor((pace?.limit ?? this.perHostConcurrency) / 2));
      if (limit < this.perHostConcurrency) this.#paces.set(key, { limit, answers: 0 });
    } else if (outcome === 'answered' && pace && ++pace.answers >= pace.limit) {
      pace.limit++;
      pace.answers = 0;
      if (pace.limit >= this.perHostConcurrency) this.#paces.delete(key);
    }
  }

  /** Drops a host with nothing in flight and nothing queued: a run over many hosts scans only the busy ones. */
  #forgetIdle(key: string, host: Host): void {
    if (host.busy === 0 && host.queue.length === 0 && this.#hosts.get(key) === host) this.#hosts.delete(key);
  }

  /** Grants slots while a global one is free: each time to the first waiter of a free host, by rank, then oldest. */
  #pump(): void {
    while (this.#busy < this.concurrency) {
      let best: Waiter | undefined;
      for (const [key, host] of this.#hosts) {
        const head = host.busy < this.#limitOf(key) ? host.queue[0] : undefined;
        if (head && (!best || head.rank < best.rank || (head.rank === best.rank && head.seq < best.seq))) best = head;
      }
      if (!best) return;
      const host = this.#hosts.get(best.host)!;
      host.queue.shift();
      host.busy++;
      this.#busy++;
      best.grant();
    }
  }
}
