// A tool call's turns under the work budget (src/mcp/work.ts): a page seen before waits for room before it is fetched;
// a page that does not fit stops the call's attempt at its headers, and the call waits for its bytes and runs again.
import { thousands } from '../messages.js';
import { collectSoon } from '../extract/collect.js';
import { CallWork, currentCall, SMALL_PAGE_BYTES, type KnownSizes, type WorkBudget } from './work.js';

/** The session's work budget and what it knows of pages' sizes. */
export interface WorkSettings {
  budget: WorkBudget;
  sizes: KnownSizes;
}

/** Turns a call takes at most: a page that keeps outgrowing its lease (a changing source) is read on the last. */
const MAX_TURNS = 4;
/** A call that waited longer than this for the budget says so in its result. */
export const WAIT_NOTE_MS = 1_000;

/** What a call's waits cost, for its result and the client's progress notifications. */
interface Waits {
  /** Milliseconds spent waiting for the budget. */
  ms: number;
  /** Told when the call starts to wait, with a line saying for what. */
  onWait: (message: string) => void;
}

/** The URL as the HTTP stack asks it (no fragment), the key of KnownSizes; undefined for a URL that does not parse. */
function sizeKey(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search}`;
  } catch {
    return undefined;
  }
}

/** Waits for `bytes` more of the budget for `call`, the wait counted in `waits`. */
async function waitFor(call: CallWork, bytes: number, signal: AbortSignal, waits: Waits, url?: string): Promise<void> {
  const { budget } = call;
  const mb = (n: number): string => thousands(Math.round(n / (1024 * 1024)));
  const now = budget.tryTake(bytes, url);
  if (now) return call.hold(now);
  const started = performance.now();
  const take = budget.take(bytes, signal, url);
  waits.onWait(
    `waiting for the work budget: this page's ${mb(bytes)} MB, with ${mb(budget.inUse)} of ${mb(budget.maxBytes)} MB ` +
      `in use and ${budget.waiting - 1} call(s) ahead`,
  );
  call.hold(await take);
  waits.ms += performance.now() - started;
}

/**
 * Runs `work` for a call on `url` in turns: each under the call's CallWork (its fetches find it) with a signal that
 * stops the turn when its page must wait or the call stops. The call's leases are given back when its work ends,
 * not when it answers: a stopped call's memory is counted until its fetch and extraction have let it go.
 */
export async function inTurns<T>(
  settings: WorkSettings,
  url: string,
  signal: AbortSignal,
  waits: Waits,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const call = new CallWork(settings.budget);
  const key = sizeKey(url);
  let want = key === undefined ? undefined : settings.sizes.get(key);
  try {
    for (let turn = 1; ; turn++) {
      if (want !== undefined && want > SMALL_PAGE_BYTES && want > call.covered)
        await waitFor(call, want - call.covered, signal, waits, key);
      const attempt = new AbortController();
      const stop = (): void => attempt.abort(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      call.stopAttempt = (reason) => attempt.abort(reason);
      call.deferred = undefined;
      call.lastTurn = turn === MAX_TURNS;
      try {
        const value = await currentCall.run(call, () => work(attempt.signal));
        if (call.deferred === undefined || turn >= MAX_TURNS) return value;
      } catch (err) {
        if (call.deferred === undefined || signal.aborted || turn >= MAX_TURNS) throw err;
      } finally {
        signal.removeEventListener('abort', stop);
      }
      // Nothing is held while waiting: two calls each holding a part and waiting for more would wait for ever.
      want = call.deferred;
      call.releaseAll();
    }
  } finally {
    const large = call.covered > 0;
    call.releaseAll();
    // The garbage a large page's work left goes before the next page is worked on.
    if (large) collectSoon();
  }
}
