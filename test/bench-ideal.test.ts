// The bench's network ideal (bench/workload.ts idealSeconds) on small schedules worked out by hand: a wait holds no slot
// under quotecheck's rule, every request queues in the order it is ready, and the old rule holds the slots throughout.
import { describe, expect, test } from 'vitest';
import { idealSeconds, type BenchSource } from '../bench/workload.js';

/** A source on `host` answering after `delayMs`; `waitMs` makes it answer an error first, asking (Retry-After) for that wait. */
function source(host: string, delayMs: number, waitMs?: number): BenchSource {
  return {
    path: `/${host}/${delayMs}`,
    host,
    file: 'page.html',
    kind: 'html',
    bytes: 1,
    delayMs,
    flaky: waitMs !== undefined,
    ...(waitMs !== undefined && waitMs >= 0 ? { retryAfterMs: waitMs } : {}),
  };
}

/** A source that answers 503 first without Retry-After: it waits the minimum backoff. */
function withoutRetryAfter(host: string, delayMs: number): BenchSource {
  return { ...source(host, delayMs), flaky: true };
}

const BACKOFF_MIN_MS = 500;
const both = (sources: BenchSource[], concurrency: number, perHost: number) => ({
  nothing: idealSeconds(sources, concurrency, perHost, BACKOFF_MIN_MS, 'wait-holds-nothing'),
  slots: idealSeconds(sources, concurrency, perHost, BACKOFF_MIN_MS, 'wait-holds-slots'),
});

describe('the network ideal', () => {
  test('without errors both rules are the greedy schedule in claim order', () => {
    // One slot: 100 + 200 + 300 ms in a row.
    expect(both([source('a', 100), source('a', 200), source('a', 300)], 4, 1)).toEqual({ nothing: 0.6, slots: 0.6 });
    // Two slots: 0-100 and 0-200; the third starts on the first slot free, at 100, and ends at 400.
    expect(both([source('a', 100), source('a', 200), source('a', 300)], 4, 2)).toEqual({ nothing: 0.4, slots: 0.4 });
    // Two hosts, one slot each, two global: each host's sources in a row, side by side.
    expect(both([source('a', 100), source('b', 300), source('a', 100)], 2, 1)).toEqual({ nothing: 0.3, slots: 0.3 });
  });

  test("a source told to come back in 1 s lets its host's other sources through meanwhile", () => {
    // One slot on the host. The 503 takes 0-100; a, b and c take 100-400; the second request is ready at 1100 and
    // takes 1100-1200. Holding the slot through the wait: 0-1200 (100 + 1000 + 100), then a, b and c until 1500.
    const sources = [source('h', 100, 1000), source('h', 100), source('h', 100), source('h', 100)];
    expect(both(sources, 4, 1)).toEqual({ nothing: 1.2, slots: 1.5 });
  });

  test('a retry queues behind every request ready before it, in claim order', () => {
    // One slot. The 503 takes 0-100 and its retry is ready at 200, but a (100-600) and b (600-1100) queued at the
    // start, so it runs 1100-1200. Holding the slot: 0-300, then a 300-800 and b 800-1300.
    const sources = [source('h', 100, 100), source('h', 500), source('h', 500)];
    expect(both(sources, 4, 1)).toEqual({ nothing: 1.2, slots: 1.3 });
  });

  test('a wait holds no global slot either', () => {
    // One global slot, hosts of two slots. The 503 on host a takes 0-100, b's source 100-400, the retry 1100-1200.
    // Holding the global slot through the wait: 0-1200, then b's source until 1500.
    const sources = [source('a', 100, 1000), source('b', 300)];
    expect(both(sources, 1, 2)).toEqual({ nothing: 1.2, slots: 1.5 });
  });

  test('without Retry-After the wait is the minimum backoff', () => {
    // 100 ms, a 500 ms backoff, 100 ms: the same under both rules when nothing else waits for the slot.
    expect(both([withoutRetryAfter('h', 100)], 4, 1)).toEqual({ nothing: 0.7, slots: 0.7 });
    // Another source on the host fits in the wait (100-400) only when the wait holds nothing.
    expect(both([withoutRetryAfter('h', 100), source('h', 300)], 4, 1)).toEqual({ nothing: 0.7, slots: 1 });
  });

  test("a retry ready while its host's slots are busy starts on the first of them to free", () => {
    // Two slots. The 503 takes 0-300 on slot 1 and a 0-600 on slot 2; b takes slot 1 at 300-500. The retry is ready at
    // 350, both slots busy; slot 1 frees first, at 500, so it takes 500-800 (not 600-900 on slot 2, nor 350-650).
    const sources = [source('h', 300, 50), source('h', 600), source('h', 200)];
    expect(both(sources, 4, 2).nothing).toBe(0.8);
  });
});
