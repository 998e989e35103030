// Memory bounded by the work in flight: a run lets go of each source's texts once its claims are decided, counted with weak references after a forced collection.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { HELD_PER_FETCH_SLOT, checkClaims, streamClaims, type CheckOptions, type SourceRecord } from '../src/check.js';
import { CaptureTexts } from '../src/asof/captures.js';
import type { WaybackClient } from '../src/wayback/client.js';
import { RunTally } from '../src/output/evidence-report.js';
import { startWaybackStub, type RunningWayback } from '../src/wayback/stub/stub.js';
import { goldenDir } from '../golden/server.js';
import { serve } from './support/helpers.js';

setFlagsFromString('--expose-gc');
/** V8's collector, exposed for this file: a full collection, so what is still reachable is what is still held. */
const gc = runInNewContext('gc') as () => void;

const SOURCES = 300;
const CONCURRENCY = 6;
/** At most this many sources are held at once once fetched: waiting to be read, being read or being decided. */
const HELD_BOUND = CONCURRENCY * HELD_PER_FETCH_SLOT;
/** At most this many bodies in memory: those held, and one being fetched (or waiting for a held slot) per fetch slot. */
const BODIES_BOUND = CONCURRENCY * (1 + HELD_PER_FETCH_SLOT);

const PAGES = readdirSync(join(goldenDir(), 'sources', 'html'))
  .filter((f) => f.endsWith('.html'))
  .sort()
  .map((f) => readFileSync(join(goldenDir(), 'sources', 'html', f)));
const html = { 'content-type': 'text/html; charset=utf-8' };

/**
 * SOURCES distinct URLs serving the golden pages in turn at once (the network far outruns extraction),
 * each cited by a fabricated quote (matched, then diagnosed) and a second claim. `ahead` is the most
 * sources ever answered by the server and not yet decided.
 */
async function site(): Promise<{
  claims: { id: string; quote: string; url: string }[];
  ahead: () => number;
  decided: (id: string) => void;
}> {
  let served = 0;
  let ahead = 0;
  const claimsDecided = new Map<string, number>();
  let sourcesDecided = 0;
  const server = await serve(
    Array.from({ length: SOURCES }, (_, i) => ({
      path: `/doc/${i}`,
      handler: (_req, res) => {
        served++;
        ahead = Math.max(ahead, served - sourcesDecided);
        res.writeHead(200, html).end(PAGES[i % PAGES.length]);
      },
    })),
  );
  const claims = Array.from({ length: SOURCES }, (_, i) => [
    {
      id: `f${i}`,
      quote: `The committee reported that prices rose by ${i} percent in the year before the vote.`,
      url: `${server.origin}/doc/${i}`,
    },
    { id: `g${i}`, quote: 'the', url: `${server.origin}/doc/${i}` },
  ]).flat();
  const decided = (id: string): void => {
    const source = id.slice(1);
    const n = (claimsDecided.get(source) ?? 0) + 1;
    claimsDecided.set(source, n);
    if (n === 2) sourcesDecided++;
  };
  return { claims, ahead: () => ahead, decided };
}

/** Weak references to every source a run settles, and how many were still reachable at each count taken mid-run. */
class Watch {
  readonly refs: WeakRef<SourceRecord>[] = [];
  readonly midRun: number[] = [];
  readonly #counts: Promise<void>[] = [];

  onSource = (s: SourceRecord): void => {
    this.refs.push(new WeakRef(s));
    // Every 50 sources: counted in a later task, so no reference taken in this one keeps a source alive.
    if (this.refs.length % 50 === 0)
      this.#counts.push(
        new Promise((done) =>
          setTimeout(() => {
            this.midRun.push(this.alive());
            done();
          }, 0),
        ),
      );
  };

  /** Sources still reachable after a full collection. */
  alive(): number {
    gc();
    return this.refs.filter((r) => r.deref() !== undefined).length;
  }

  /** The count after the run, once the counts taken during it are in. */
  async afterRun(): Promise<number> {
    await Promise.all(this.#counts);
    await new Promise((r) => setTimeout(r, 0));
    return this.alive();
  }
}

const settings: Partial<CheckOptions> = { concurrency: CONCURRENCY, perHost: CONCURRENCY, retries: 0, wayback: 'off' };

describe('a run holds the sources in flight, not the sources it has seen', () => {
  test(`streamClaims over ${SOURCES} sources: every source text is released once its claims are decided`, async () => {
    const { claims, ahead, decided } = await site();
    const watch = new Watch();
    const tally = new RunTally();
    const run = await streamClaims(claims, {
      allowPrivate: true,
      ...settings,
      onSource: watch.onSource,
      onResult: (r) => {
        tally.addResult(r);
        decided(r.id);
      },
    });
    expect(run.claims).toBe(SOURCES * 2);
    expect(tally.claims).toBe(SOURCES * 2);
    expect(watch.refs).toHaveLength(SOURCES);
    // After the run, no source is held; during it, only those in flight.
    expect(await watch.afterRun()).toBe(0);
    expect(watch.midRun).toHaveLength(SOURCES / 50);
    for (const n of watch.midRun) expect(n).toBeLessThanOrEqual(HELD_BOUND);
    // The server answers as fast as it is asked, extraction is slower: fetching waits for it, so bodies never pile up.
    expect(ahead()).toBeLessThanOrEqual(BODIES_BOUND);
  }, 120_000);

  test('the count sees what is kept: checkClaims keeps every source for the CheckRun it returns', async () => {
    const { claims } = await site();
    const watch = new Watch();
    const run = await checkClaims(claims, { allowPrivate: true, ...settings, onSource: watch.onSource });
    expect(await watch.afterRun()).toBe(SOURCES);
    expect(run.sources).toHaveLength(SOURCES);
  }, 120_000);
});

describe('captures are let go with their source', () => {
  const wayback: RunningWayback[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(wayback.splice(0).map((w) => w.close()));
  });

  test('a drifted run holds at most the captures of the sources in flight, and none at its end', async () => {
    const drifted = 60;
    const then = (i: number) =>
      `<html><body><article><h1>Story ${i}</h1><p>On the day it was checked, the council said that it would fund ${i} new buses for the city.</p></article></body></html>`;
    const server = await serve(
      Array.from({ length: drifted }, (_, i) => ({
        path: `/story/${i}`,
        body: `<html><body><p>This page was replaced, story ${i}.</p></body></html>`,
        headers: html,
      })),
    );
    const captures = Array.from({ length: drifted }, (_, i) => ({
      url: `${server.origin}/story/${i}`,
      timestamp: '20240430120000',
      body: then(i),
      headers: html,
    }));
    const archive = await startWaybackStub({ captures, host: '127.0.0.4' });
    wayback.push(archive);
    const claims = Array.from({ length: drifted }, (_, i) => ({
      id: `c${i}`,
      quote: `it would fund ${i} new buses`,
      url: `${server.origin}/story/${i}`,
      verify_date: '2024-05-01',
      evidence: { sha256: createHash('sha256').update(then(i)).digest('hex') },
    }));
    // The run's CaptureTexts, seen through its own method: how many URLs' captures it holds as each claim asks.
    const instances = new Set<CaptureTexts>();
    const heldAtFind: number[] = [];
    const find = CaptureTexts.prototype.find;
    vi.spyOn(CaptureTexts.prototype, 'find').mockImplementation(function (this: CaptureTexts, ...args) {
      instances.add(this);
      heldAtFind.push(this.held);
      return find.apply(this, args);
    });
    const labels: Record<string, string> = {};
    await streamClaims(claims, {
      allowPrivate: true,
      ...settings,
      concurrency: 4,
      perHost: 4,
      wayback: 'auto',
      waybackUrl: archive.origin,
      waybackPerMinute: 60_000,
      onResult: (r) => {
        labels[r.id] = r.label;
      },
    });
    expect(Object.values(labels).filter((l) => l === 'verbatim')).toHaveLength(drifted);
    expect(instances.size).toBe(1);
    const [texts] = [...instances];
    expect(heldAtFind).toHaveLength(drifted);
    expect(Math.max(...heldAtFind)).toBeLessThanOrEqual(4 * HELD_PER_FETCH_SLOT);
    expect(texts!.held).toBe(0);
    // The Wayback client's own caches (lookups, capture bytes) went with them.
    expect((texts as unknown as { client: WaybackClient }).client.cached).toEqual({ urls: 0, captures: 0 });
  }, 120_000);
});
