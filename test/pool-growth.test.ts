// docs/performance.md#real-pages: the HTML pool grows to a worker per core while pages queue and pdftotext leaves room,
// never past that bound, and lets the extra worker go once idle; a page's text is the same whichever worker read it.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { HtmlPool, defaultPoolSize, maxPoolSize, type PoolGrowth } from '../src/extract/pool.js';
import { ROOT, tempDir } from './support/helpers.js';

/** A stand-in worker: each page takes 150 ms of CPU, then its text is its bytes. */
function busyStandIn(): URL {
  const file = join(tempDir('quotecheck-pool-'), 'worker.mjs');
  writeFileSync(
    file,
    `import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ id, bytes }) => {
  const end = Date.now() + 150; while (Date.now() < end) {}
  const text = new TextDecoder().decode(bytes);
  parentPort.postMessage({ id, ok: true, stage: 'full', final: true, full: text, normalizedFull: text,
    charset: 'utf-8', markup: { notFree: false, scripted: false } });
});
`,
  );
  return pathToFileURL(file);
}

const page = (s: string) => new TextEncoder().encode(s);

/** Extracts `n` pages at once; the texts in order, and the most workers alive and busy at any point. */
async function extractMany(
  pool: HtmlPool,
  n: number,
): Promise<{ texts: string[]; mostWorkers: number; mostBusy: number }> {
  let mostWorkers = 0;
  let mostBusy = 0;
  const watch = () => {
    mostWorkers = Math.max(mostWorkers, pool.workers);
    mostBusy = Math.max(mostBusy, pool.busy);
  };
  const timer = setInterval(watch, 5);
  try {
    const jobs = Array.from({ length: n }, (_, i) => pool.extract(page(`page ${i}`), undefined, 20_000));
    watch();
    const texts = (await Promise.all(jobs)).map((r) => r.views.full);
    return { texts, mostWorkers, mostBusy };
  } finally {
    clearInterval(timer);
  }
}

const expected = (n: number) => Array.from({ length: n }, (_, i) => `page ${i}`);

describe('the HTML pool grows while pages queue, within its bound', () => {
  test('by default it may grow to one worker per core', () => {
    expect([1, 2, 4, 8].map((cores) => maxPoolSize(cores))).toEqual([1, 2, 4, 8]);
    expect([1, 2, 4, 8].map((cores) => defaultPoolSize(cores))).toEqual([1, 1, 3, 7]);
  });

  test('with pages waiting and the cores free, a second worker starts, and no third', async () => {
    const pool = new HtmlPool(1, busyStandIn(), 60_000, { maxSize: 2, cores: 2, queuedBytes: 0 });
    try {
      const { texts, mostWorkers, mostBusy } = await extractMany(pool, 8);
      expect(texts).toEqual(expected(8));
      expect(mostWorkers).toBe(2);
      expect(mostBusy).toBe(2);
    } finally {
      await pool.close();
    }
  });

  test('a small queue (a small task) waits for the warm worker: the pool grows for GROW_QUEUED_BYTES', async () => {
    const pool = new HtmlPool(1, busyStandIn(), 60_000, { maxSize: 2, cores: 2, queuedBytes: 64 });
    try {
      const small = await extractMany(pool, 4); // 6 bytes a page: 18 waiting
      expect(small.texts).toEqual(expected(4));
      expect(small.mostWorkers).toBe(1);
      const jobs = [
        pool.extract(page('x'.repeat(40)), undefined, 20_000),
        pool.extract(page('y'.repeat(40)), undefined, 20_000),
      ];
      expect(pool.busy).toBe(1); // 40 bytes waiting
      const third = pool.extract(page('z'.repeat(40)), undefined, 20_000);
      expect(pool.busy).toBe(2); // 80 waiting: past the threshold
      await Promise.all([...jobs, third]);
    } finally {
      await pool.close();
    }
  });

  test('while pdftotext takes the other core, the pool keeps to its size', async () => {
    const pool = new HtmlPool(1, busyStandIn(), 60_000, { maxSize: 2, cores: 2, otherWork: () => 1, queuedBytes: 0 });
    try {
      const { texts, mostWorkers } = await extractMany(pool, 4);
      expect(texts).toEqual(expected(4));
      expect(mostWorkers).toBe(1);
    } finally {
      await pool.close();
    }
  });

  test('once the core is free again, a waiting page gets the second worker (pump)', async () => {
    let pdftotext = 1;
    const pool = new HtmlPool(1, busyStandIn(), 60_000, {
      maxSize: 2,
      cores: 2,
      otherWork: () => pdftotext,
      queuedBytes: 0,
    });
    try {
      const jobs = Array.from({ length: 4 }, (_, i) => pool.extract(page(`page ${i}`), undefined, 20_000));
      expect(pool.busy).toBe(1);
      pdftotext = 0;
      pool.pump(); // what the shells' command-end listener does (src/extract/pool.ts htmlPool)
      expect(pool.busy).toBe(2);
      expect((await Promise.all(jobs)).map((r) => r.views.full)).toEqual(expected(4));
    } finally {
      await pool.close();
    }
  });

  test('the extra worker stops once idle; the pool keeps its size', async () => {
    const growth: PoolGrowth = { maxSize: 2, cores: 2, idleMs: 100, queuedBytes: 0 };
    const pool = new HtmlPool(1, busyStandIn(), 60_000, growth);
    try {
      await extractMany(pool, 4);
      expect(pool.workers).toBe(2);
      await new Promise((r) => setTimeout(r, 400));
      expect(pool.workers).toBe(1);
      expect((await pool.extract(page('again'), undefined, 20_000)).views.full).toBe('again');
    } finally {
      await pool.close();
    }
  });
});

describe("a page's text does not depend on how many workers read the pages", () => {
  test('the golden pages give the same views, charsets and signals with one worker and with two', async () => {
    const dir = join(ROOT, 'golden', 'sources', 'html');
    const pages = readdirSync(dir).map((f) => new Uint8Array(readFileSync(join(dir, f))));
    const one = new HtmlPool(1);
    const two = new HtmlPool(1, undefined, undefined, { maxSize: 2, cores: 2, queuedBytes: 0 });
    try {
      const alone = await Promise.all(pages.map((p) => one.extract(p, undefined, 60_000)));
      const jobs = pages.map((p) => two.extract(p, undefined, 60_000));
      expect(two.workers).toBe(2);
      expect(await Promise.all(jobs)).toEqual(alone);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  }, 120_000);
});
