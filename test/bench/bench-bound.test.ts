// The bench's lower bound (bench/bound.ts) and the slot rule's schedule (bench/slot-rule.ts) on cases worked out by
// hand, the real web's faults laid over a workload (bench/faults.ts), and quotecheck meeting each of them on the bench's
// fault server (bench/fault-server.ts).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { boundFigures, lowerBound, slotsBound } from '../../bench/bound.js';
import { startFaultServer } from '../../bench/fault-server.js';
import { withoutLatency, withRealWebFaults, type RealWebFaults } from '../../bench/faults.js';
import { simulateSlots } from '../../bench/slot-rule.js';
import { idealSeconds, requestsOf, type BenchSource, type SourceFault, type Workload } from '../../bench/workload.js';
import { checkClaims } from '../../src/check.js';

const QUOTE = 'approved the budget on Tuesday';
/** A page on disk for the fault server to serve. */
const PAGE = join(mkdtempSync(join(tmpdir(), 'qc-faults-')), 'page.html');
writeFileSync(
  PAGE,
  `<html><body><p>The committee ${QUOTE} after a long debate.</p>${'<p>More text here.</p>'.repeat(2000)}</body></html>`,
);

/** A source on `host` answering after `delayMs`, with `faults` first. */
function source(path: string, host: string, delayMs: number, extra: Partial<BenchSource> = {}): BenchSource {
  return { path, host, file: 'page.html', kind: 'html', bytes: 1, delayMs, flaky: false, ...extra };
}

const waits = (...seconds: number[]): SourceFault[] =>
  seconds.map((s) => ({ kind: 'status', status: 503, retryAfter: { seconds: s, form: 'seconds' } }));

const NONE = { cpuSeconds: 0, cores: 2, startupSeconds: 0 };

describe('the lower bound', () => {
  test('slots: the total over the slots, or the two shortest of the (slots + 1) longest one after the other', () => {
    expect(slotsBound([], 2)).toBe(0);
    expect(slotsBound([300], 2)).toBe(300);
    // Three answers of 2 s on two slots: two share a slot, 4 s, not the 3 s the total says.
    expect(slotsBound([2000, 2000, 2000], 2)).toBe(4000);
    // Many short ones: the total over the slots.
    expect(slotsBound([100, 100, 100, 100, 100, 100], 2)).toBe(300);
  });

  test("a source's chain: its requests one after another, and the waits its server asked for between them", () => {
    // 100 ms, wait 1 s, 100 ms, wait 2 s, 100 ms.
    const s = source('/a', 'h', 100, { faults: waits(1, 2) });
    expect(lowerBound([s], 16, 2, NONE)).toMatchObject({ kind: 'chain', seconds: 3.3 });
    // A cut answer asks for no wait: the client's own backoff is not the bound's.
    const cut = source('/b', 'h', 100, { faults: [{ kind: 'cut' }] });
    expect(lowerBound([cut], 16, 2, NONE).parts.chain).toBe(0.2);
    // A redirect is a request on each host; a cookie wall two on the source's host.
    const moved = source('/c', 'h', 100, { redirect: { host: 'g', path: '/c2', delayMs: 300 } });
    expect(lowerBound([moved], 16, 2, NONE).parts.chain).toBe(0.4);
    const wall = source('/d', 'h', 100, { cookieWall: true });
    expect(lowerBound([wall], 16, 2, NONE).parts.chain).toBe(0.2);
  });

  test('the waits a server asked for, when logged, stand for the nominal ones (an HTTP-date asks what is left)', () => {
    const s = source('/a', 'h', 100, {
      faults: [{ kind: 'status', status: 429, retryAfter: { seconds: 1, form: 'date' } }],
    });
    const askedWaits = new Map([['/a', [1_600]]]);
    expect(lowerBound([s], 16, 2, { ...NONE, askedWaits }).parts.chain).toBe(1.8);
  });

  test('a host, the global slots, the CPU and start-up: the largest part, a network one after start-up', () => {
    const sources = [
      source('/1', 'h', 400),
      source('/2', 'h', 400),
      source('/3', 'h', 400),
      source('/4', 'h', 400),
      source('/5', 'g', 100),
    ];
    // Host h: 1.6 s of answers on 2 slots. Global: 1.7 s on 16 slots, less than the longest answer.
    const b = lowerBound(sources, 16, 2, NONE);
    expect(b).toMatchObject({ kind: 'host', seconds: 0.8 });
    expect(b.parts.global).toBe(0.4);
    // One global slot: everything in a row.
    expect(lowerBound(sources, 1, 2, NONE)).toMatchObject({ kind: 'global', seconds: 1.7 });
    expect(lowerBound(sources, 16, 2, { cpuSeconds: 3, cores: 2, startupSeconds: 0 })).toMatchObject({
      kind: 'cpu',
      seconds: 1.5,
    });
    // No request leaves before start-up: a network part counts from its end.
    const late = lowerBound(sources, 16, 2, { cpuSeconds: 0, cores: 2, startupSeconds: 0.9 });
    expect(late).toMatchObject({ kind: 'host', parts: { host: 0.8, startup: 0.9 } });
    expect(late.seconds).toBeCloseTo(1.7, 10);
    // The CPU part is the run's whole CPU time, start-up's included: nothing is added to it.
    expect(lowerBound(sources, 16, 2, { cpuSeconds: 4, cores: 2, startupSeconds: 0.9 })).toMatchObject({
      kind: 'cpu',
      seconds: 2,
    });
    expect(lowerBound([], 16, 2, { cpuSeconds: 0, cores: 2, startupSeconds: 0.9 })).toMatchObject({
      kind: 'startup',
      seconds: 0.9,
    });
  });

  test('the bound is no more than the greedy ideal when extraction costs nothing', () => {
    const sources = [
      source('/1', 'h', 300, { faults: waits(1) }),
      source('/2', 'h', 200),
      source('/3', 'g', 250, { redirect: { host: 'h', path: '/3b', delayMs: 100 } }),
      source('/4', 'g', 50, { cookieWall: true }),
    ];
    expect(lowerBound(sources, 16, 2, NONE).seconds).toBeLessThanOrEqual(idealSeconds(sources, 16, 2, 500));
  });

  test('each run against its own bound: the medians of the bounds, of each part and of the ratios', () => {
    const s = [source('/1', 'h', 1000)];
    const f = boundFigures(
      s,
      [
        { seconds: 1.2, cpuSeconds: 1 },
        { seconds: 3, cpuSeconds: 5 },
        { seconds: 1.5, cpuSeconds: 1 },
      ],
      { concurrency: 16, perHost: 2, cores: 2 },
    );
    // Bounds 1, 2.5 and 1; ratios 1.2, 1.2 and 1.5.
    expect(f).toMatchObject({ bound_seconds: 1, bound_runs_seconds: [1, 2.5, 1], ratio_to_bound: 1.2 });
    expect(f.ratio_to_bound_runs).toEqual([1.2, 1.2, 1.5]);
  });
});

/** A workload of `n` plain sources on 4 hosts. */
function plainWorkload(n: number): Workload {
  const hosts = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'];
  const sources = Array.from({ length: n }, (_, i) => source(`/doc/${i}.html`, hosts[i % 4]!, 10 + i));
  const claims = sources.map((s, i) => ({ id: `c${i}`, quote: QUOTE, url: `http://${s.host}:1${s.path}` }));
  return { sources, claims, routes: [], hosts };
}

const FAULTS: RealWebFaults = {
  waitShare: 0.1,
  waitSeconds: 1,
  slowShare: 0.05,
  slowHost: '127.0.0.5',
  slowDelayMs: 2_000,
  closingHost: '127.0.0.4',
  cutShare: 0.5,
  redirectShare: 0.1,
  cookieWallShare: 0.05,
  seed: 3,
};

describe("the real web's faults", () => {
  test('each on distinct sources, in the shares asked; the waits once, twice, three times in turn', () => {
    const w = withRealWebFaults(plainWorkload(60), FAULTS);
    const asking = w.sources.filter((s) => s.faults?.[0]?.kind === 'status');
    expect(asking.map((s) => s.faults!.length).sort()).toEqual([1, 1, 2, 2, 3, 3]);
    const forms = asking.flatMap((s) => s.faults!.map((f) => (f.kind === 'status' ? f.retryAfter?.form : 'cut')));
    expect(forms.filter((f) => f === 'seconds')).toHaveLength(6);
    expect(forms.filter((f) => f === 'date')).toHaveLength(6);
    expect(w.sources.filter((s) => s.redirect)).toHaveLength(6);
    expect(w.sources.filter((s) => s.cookieWall)).toHaveLength(3);
    const slow = w.sources.filter((s) => s.host === FAULTS.slowHost);
    expect(slow).toHaveLength(3);
    expect(slow.every((s) => s.delayMs === 2_000 && !s.faults && !s.redirect && !s.cookieWall)).toBe(true);
    for (const s of w.sources.filter((x) => x.redirect)) expect(s.redirect!.host).not.toBe(s.host);
    const cut = w.sources.filter((s) => s.faults?.[0]?.kind === 'cut');
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.every((s) => s.host === FAULTS.closingHost && !s.redirect && !s.cookieWall)).toBe(true);
    // The claims of the moved sources follow them to the slow host.
    for (const s of slow) expect(w.claims.some((c) => c.url.includes(`${s.host}:1${s.path}`))).toBe(true);
    // With no latency: the same faults, no delay anywhere, every wait 0 s.
    const none = withoutLatency(w);
    expect(none.sources.map((s) => requestsOf(s, 0).length)).toEqual(w.sources.map((s) => requestsOf(s, 0).length));
    expect(none.sources.flatMap((s) => requestsOf(s, 0)).every((r) => r.costMs === 0 && r.waitAfterMs === 0)).toBe(
      true,
    );
  });

  test('quotecheck meets every fault on the fault server and reads every source; the server logs the waits asked', async () => {
    const w = withoutLatency(withRealWebFaults(plainWorkload(40), { ...FAULTS, slowDelayMs: 0 }));
    // Pages on disk: the fault server reads each source's file.
    const sources = w.sources.map((s) => ({ ...s, file: PAGE }));
    const server = await startFaultServer({ ...w, sources }, new Set(w.closingHosts));
    try {
      const claims = w.claims.map((c) => {
        const u = new URL(c.url);
        u.port = String(server.port);
        return { ...c, url: u.href };
      });
      const started = performance.now();
      const run = await checkClaims(claims, { allowPrivate: true, backoffMinMs: 10, backoffMaxMs: 20 });
      expect(run.results.map((r) => [r.id, r.label])).toEqual(claims.map((c) => [c.id, 'verbatim']));
      expect(server.log.firstRequestAt).toBeGreaterThanOrEqual(started);
      // Every Retry-After answered was logged, an HTTP-date's as what was left until it (0 here: the second under way).
      const asked = [...server.log.askedWaits.values()].flat();
      expect(asked).toHaveLength(7); // 4 sources ask: once, twice, three times, once
      expect(asked.every((ms) => ms === 0)).toBe(true);
      // Each source's requests: its faults, then the document (and a redirect's or a cookie wall's second request).
      const expected = sources.reduce((n, s) => n + requestsOf(s, 0).length, 0);
      expect(server.log.requests).toBe(expected);
    } finally {
      await server.close();
    }
  });
});

describe("the slot rule's schedule (bench/slot-rule.ts), worked out by hand", () => {
  test('a wait holds no slot: the host serves the others while a source waits out its Retry-After', () => {
    // One slot: a answers 503 at 100 ms asking 1 s; b (100-400) and c (400-700) go meanwhile; a again 1100-1200.
    const sources = [source('/a', 'h', 100, { faults: waits(1) }), source('/b', 'h', 300), source('/c', 'h', 300)];
    expect(simulateSlots(sources, 4, 1)).toBe(1200);
  });

  test('the global limit: two hosts of two slots each on three global slots', () => {
    // Four 100 ms requests, three at once: the fourth goes when the first slot frees.
    const sources = [source('/a', 'h', 100), source('/b', 'h', 100), source('/c', 'g', 100), source('/d', 'g', 100)];
    expect(simulateSlots(sources, 3, 2)).toBe(200);
    expect(simulateSlots(sources, 4, 2)).toBe(100);
  });
});
