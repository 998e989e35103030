// A source's claims are decided in slices (src/run/loop.ts DECIDE_SLICE_MS) with the I/O that is ready let through in
// between, so a source cited by many claims does not keep other hosts' answers unread and their slots idle; a run
// stopped between slices leaves the rest to the stop path, each claim answered once.
import { describe, expect, test } from 'vitest';
import { checkClaims } from '../../src/check.js';
import { DECIDE_SLICE_MS } from '../../src/run/loop.js';
import { serve } from '../support/helpers.js';

const PAGE = '<html><body><p>The committee approved the budget on Tuesday after a long debate.</p></body></html>';
const QUOTE = 'approved the budget on Tuesday';

/** Keeps the thread busy for `ms`, as a slow decision (a long page's diagnosis) does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe("a source's claims are decided in slices", () => {
  test('what is ready to run between two decisions runs before the source is done', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: { 'content-type': 'text/html' } }]);
    const events: string[] = [];
    const claims = ['c1', 'c2', 'c3', 'c4'].map((id) => ({ id, quote: QUOTE, url: `${server.origin}/p` }));
    await checkClaims(claims, {
      allowPrivate: true,
      onResult: (r) => {
        events.push(r.id);
        // Queued behind whatever I/O is ready: it runs at the next turn of the event loop, no sooner.
        if (r.id === 'c1') setImmediate(() => events.push('immediate'));
        // Each decision takes longer than a slice, so the loop yields after each.
        busy(2 * DECIDE_SLICE_MS);
      },
    });
    // Decided in one go, the four would come before the callback; in slices it runs after the first.
    expect(events).toEqual(['c1', 'immediate', 'c2', 'c3', 'c4']);
  });

  test('a run stopped between slices answers the rest as stopped, each claim once', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: { 'content-type': 'text/html' } }]);
    const stop = new AbortController();
    const seen: string[] = [];
    const claims = ['c1', 'c2', 'c3'].map((id) => ({ id, quote: QUOTE, url: `${server.origin}/p` }));
    const run = await checkClaims(claims, {
      allowPrivate: true,
      signal: stop.signal,
      onResult: (r) => {
        seen.push(r.id);
        if (r.id === 'c1') {
          busy(2 * DECIDE_SLICE_MS);
          stop.abort(new Error('stopped by the test'));
        }
      },
    });
    expect(seen.sort()).toEqual(['c1', 'c2', 'c3']);
    expect(run.results.map((r) => [r.id, r.label])).toEqual([
      ['c1', 'verbatim'],
      ['c2', 'no_match'],
      ['c3', 'no_match'],
    ]);
    expect(run.results[1]!.note).toContain('stopped by the test');
  });
});
