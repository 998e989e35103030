// Fetch slots: a source waiting for a retry (Retry-After, or backoff) holds neither its host's slot nor a global one, and
// each hop of a redirect takes its own host's slot, so the other sources of a host never queue behind a sleep.
import type http from 'node:http';
import { describe, expect, test } from 'vitest';
import { checkClaims } from '../../src/check.js';
import { FetchSlots } from '../../src/fetch/slots.js';
import { serve } from '../support/helpers.js';

const PAGE = '<html><body><p>The committee approved the budget on Tuesday after a long debate.</p></body></html>';
const html = { 'content-type': 'text/html; charset=utf-8' };
const QUOTE = 'approved the budget on Tuesday';

/** A handler that counts the requests in flight at once on the server, per Host, after a delay. */
function counted(inFlight: Map<string, { now: number; max: number }>, delayMs: number) {
  return (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const host = req.headers.host ?? '';
    const c = inFlight.get(host) ?? { now: 0, max: 0 };
    inFlight.set(host, c);
    c.now++;
    c.max = Math.max(c.max, c.now);
    setTimeout(() => {
      c.now--;
      res.writeHead(200, html).end(PAGE);
    }, delayMs);
  };
}

describe('a wait holds no slot', () => {
  test("a source told to come back in 1 s lets its host's other sources through meanwhile (one slot a host)", async () => {
    const server = await serve([
      {
        path: '/flaky',
        body: PAGE,
        headers: html,
        failFirst: { count: 1, status: 503, headers: { 'retry-after': '1' } },
      },
      { path: '/a', body: PAGE, headers: html, delayMs: 100 },
      { path: '/b', body: PAGE, headers: html, delayMs: 100 },
      { path: '/c', body: PAGE, headers: html, delayMs: 100 },
    ]);
    const started = Date.now();
    const decidedAt = new Map<string, number>();
    const run = await checkClaims(
      ['flaky', 'a', 'b', 'c'].map((id) => ({ id, quote: QUOTE, url: `${server.origin}/${id}` })),
      {
        allowPrivate: true,
        perHost: 1,
        concurrency: 4,
        retries: 1,
        onResult: (r) => decidedAt.set(r.id, Date.now() - started),
      },
    );
    expect(run.results.map((r) => r.label)).toEqual(['verbatim', 'verbatim', 'verbatim', 'verbatim']);
    // The three others (about 100 ms each, one at a time) are done while /flaky waits out its second.
    for (const id of ['a', 'b', 'c']) expect(decidedAt.get(id)!, id).toBeLessThan(decidedAt.get('flaky')!);
    expect(Math.max(...['a', 'b', 'c'].map((id) => decidedAt.get(id)!))).toBeLessThan(1_000);
    expect(decidedAt.get('flaky')!).toBeGreaterThanOrEqual(1_000);
  });

  test("a redirect's hop takes its own host's slot, and no host ever has more requests at once than its slots", async () => {
    const inFlight = new Map<string, { now: number; max: number }>();
    const server = await serve(
      [
        // Every page of 127.0.0.1 redirects to 127.0.0.2, where the pages are slow.
        ...['r1', 'r2', 'r3', 'r4'].map((id) => ({
          path: `/${id}`,
          host: '127.0.0.1',
          redirect: { location: `http://127.0.0.2:{port}/${id}` },
        })),
        ...['r1', 'r2', 'r3', 'r4', 'd1', 'd2'].map((id) => ({
          path: `/${id}`,
          host: '127.0.0.2',
          handler: counted(inFlight, 150),
        })),
      ],
      ['127.0.0.1', '127.0.0.2'],
    );
    const claims = [
      ...['r1', 'r2', 'r3', 'r4'].map((id) => ({ id, quote: QUOTE, url: `http://127.0.0.1:${server.port}/${id}` })),
      ...['d1', 'd2'].map((id) => ({ id, quote: QUOTE, url: `http://127.0.0.2:${server.port}/${id}` })),
    ];
    const run = await checkClaims(claims, { allowPrivate: true, perHost: 2, concurrency: 8 });
    expect(run.results.every((r) => r.label === 'verbatim')).toBe(true);
    // Six sources end on 127.0.0.2, four of them by redirect: at most its two slots' worth at once.
    expect(inFlight.get(`127.0.0.2:${server.port}`)!.max).toBe(2);
  });

  test("queueing for a slot uses up neither a source's time budget nor an attempt's limit", async () => {
    const server = await serve(
      ['s1', 's2', 's3'].map((id) => ({ path: `/${id}`, body: PAGE, headers: html, delayMs: 400 })),
    );
    // One slot: s3 queues about 800 ms, more than its whole budget, and is still fetched in full.
    const run = await checkClaims(
      ['s1', 's2', 's3'].map((id) => ({ id, quote: QUOTE, url: `${server.origin}/${id}` })),
      { allowPrivate: true, perHost: 1, concurrency: 3, retries: 0, timeoutMs: 550, sourceBudgetMs: 600 },
    );
    expect(run.results.map((r) => [r.id, r.label, r.note ?? ''])).toEqual([
      ['s1', 'verbatim', ''],
      ['s2', 'verbatim', ''],
      ['s3', 'verbatim', ''],
    ]);
  });

  test('FetchSlots.take: a taker stopped while it queues is refused at once, and the slot it would have had goes to the next', async () => {
    const slots = new FetchSlots(4, 1);
    const first = await slots.take('http://h.test/a');
    const stop = new AbortController();
    const stopped = slots.take('http://h.test/b', stop.signal);
    const third = slots.take('http://h.test/c');
    stop.abort(new Error('stopped'));
    await expect(stopped).rejects.toThrow('stopped');
    first();
    const release = await third; // granted: the stopped taker's turn was given back unused
    release();
    release(); // giving back twice is harmless
    const again = await slots.take('http://h.test/d');
    again();
  });
});

describe('FetchSlots.take: who gets a free slot', () => {
  /** The order in which `takers` are granted, each released as soon as it is granted, after `first` is released. */
  async function grantOrder(first: () => void, takers: [string, Promise<() => void>][]) {
    const order: string[] = [];
    const done = takers.map(([name, p]) =>
      p.then((release) => {
        order.push(name);
        release();
      }),
    );
    first();
    await Promise.all(done);
    return order;
  }

  test('first requests go first, then a retry the server asked to wait for, then the other hops, each in arrival order', async () => {
    const slots = new FetchSlots(4, 1);
    const held = await slots.take('http://h.test/busy');
    const order = await grantOrder(held, [
      ['hop-1', slots.take('http://h.test/hop1', undefined, 'next')],
      ['first-1', slots.take('http://h.test/a')],
      ['waited-1', slots.take('http://h.test/w1', undefined, 'waited')],
      ['first-2', slots.take('http://h.test/b', undefined, 'first')],
      ['waited-2', slots.take('http://h.test/w2', undefined, 'waited')],
      ['hop-2', slots.take('http://h.test/hop2', undefined, 'next')],
    ]);
    expect(order).toEqual(['first-1', 'first-2', 'waited-1', 'waited-2', 'hop-1', 'hop-2']);
  });

  test('a global slot goes to the best waiter of any host that has a slot free, not to the first host asked', async () => {
    // One global slot, two hosts: a hop of host a queued before a first request of host b.
    const slots = new FetchSlots(1, 2);
    const held = await slots.take('http://c.test/busy');
    const order = await grantOrder(held, [
      ['a-hop', slots.take('http://a.test/1', undefined, 'next')],
      ['b-first', slots.take('http://b.test/1')],
      ['a-waited', slots.take('http://a.test/2', undefined, 'waited')],
    ]);
    expect(order).toEqual(['b-first', 'a-waited', 'a-hop']);
  });

  test("a request waiting for its host's slot holds no global slot: another host's request passes it", async () => {
    const slots = new FetchSlots(2, 1);
    const a = await slots.take('http://a.test/1');
    const queued = slots.take('http://a.test/2'); // waits for a's slot, with a global slot free
    const b = await slots.take('http://b.test/1'); // granted at once: the free global slot was not held for a.test
    b();
    a();
    (await queued)();
  });
});

/** A handler that logs when its request starts and when it is answered, `delayMs` later, with `status`. */
function loggedHandler(
  events: string[],
  name: string,
  delayMs: number,
  status: number,
  headers: http.OutgoingHttpHeaders = {},
) {
  return (_req: http.IncomingMessage, res: http.ServerResponse): void => {
    events.push(`start ${name}`);
    setTimeout(() => {
      events.push(`end ${name}`);
      res.writeHead(status, { ...html, ...headers }).end(PAGE);
    }, delayMs);
  };
}

describe('a host that says it is overloaded gets fewer requests at once', () => {
  /** `n` slots of `url`'s host, taken at once. */
  const takeAll = (slots: FetchSlots, url: string, n: number) =>
    Promise.all(Array.from({ length: n }, () => slots.take(url)));

  test('429 or 503 halves the host limit (not below one); it comes back by one after as many answers as it is', async () => {
    const slots = new FetchSlots(16, 4);
    const held = await takeAll(slots, 'http://a.test/', 4);
    const granted: string[] = [];
    const waiting = ['w1', 'w2', 'w3', 'w4'].map((name) =>
      slots.take(`http://a.test/${name}`).then((release) => {
        granted.push(name);
        return release;
      }),
    );
    const settle = () => new Promise<void>((r) => setImmediate(r));
    held[0]!('overloaded'); // the limit is 2: three are still in flight
    await settle();
    expect(granted).toEqual([]);
    // Another host is not held back.
    (await slots.take('http://b.test/'))('answered');
    held[1]!('answered'); // two in flight, one answer at the limit of 2
    await settle();
    expect(granted).toEqual([]);
    held[2]!('answered'); // two answers at 2: the limit is 3, and one in flight
    await settle();
    expect(granted).toEqual(['w1', 'w2']);
    held[3]!('overloaded'); // the limit is 1 (half of 3), two in flight
    const [w1, w2] = await Promise.all(waiting.slice(0, 2));
    w1!('none'); // no answer (a failure, a stop): the limit stays
    await settle();
    expect(granted).toEqual(['w1', 'w2']);
    w2!('answered'); // one answer at 1: the limit is 2, nothing in flight
    const rest = await Promise.all(waiting.slice(2));
    expect(granted).toEqual(['w1', 'w2', 'w3', 'w4']);
    for (const release of rest) release('answered'); // two answers at 2: 3
    // Three more answers at 3: the host's own limit of 4 again, all four at once.
    for (const release of await takeAll(slots, 'http://a.test/', 3)) release('answered');
    const four = await takeAll(slots, 'http://a.test/', 4);
    for (const release of four) release();
  });

  test.each([503, 429])(
    'a run: after a %i, the host has two requests at once until two of its answers are in',
    async (status) => {
      const events: string[] = [];
      const logged = (name: string, delayMs: number, status = 200) => ({
        path: `/${name}`,
        handler: (_req: http.IncomingMessage, res: http.ServerResponse) => {
          events.push(`start ${name}`);
          setTimeout(() => {
            events.push(`end ${name}`);
            res.writeHead(status, html).end(PAGE);
          }, delayMs);
        },
      });
      // a answers `status` at once; b, c and d take 300 ms; e and f queue behind them (four a host).
      const server = await serve([
        logged('a', 0, status),
        ...['b', 'c', 'd', 'e', 'f'].map((name) => logged(name, 300)),
      ]);
      const run = await checkClaims(
        ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ id, quote: QUOTE, url: `${server.origin}/${id}` })),
        { allowPrivate: true, perHost: 4, concurrency: 8, retries: 0 },
      );
      expect(run.results.map((r) => r.label)).toEqual(['no_match', ...Array(5).fill('verbatim')]);
      // Once a said so, its host's limit was two with three in flight: e and f went out after two answers came back.
      const at = (event: string) => events.indexOf(event);
      const answered = ['b', 'c', 'd'].map((n) => at(`end ${n}`)).sort((x, y) => x - y);
      expect(at('end a')).toBeLessThan(answered[0]!);
      for (const n of ['e', 'f']) expect(at(`start ${n}`), n).toBeGreaterThan(answered[1]!);
    },
  );

  test('a 503 that says when to come back (Retry-After) is followed as it says: the host keeps its four', async () => {
    const events: string[] = [];
    const server = await serve([
      { path: '/a', handler: loggedHandler(events, 'a', 0, 503, { 'retry-after': '1' }) },
      ...['b', 'c', 'd', 'e', 'f'].map((name) => ({
        path: `/${name}`,
        handler: loggedHandler(events, name, 800, 200),
      })),
    ]);
    const run = await checkClaims(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ id, quote: QUOTE, url: `${server.origin}/${id}` })),
      { allowPrivate: true, perHost: 4, concurrency: 8, retries: 0 },
    );
    expect(run.results.map((r) => r.label)).toEqual(['no_match', ...Array(5).fill('verbatim')]);
    // a's slot went to e at once; f waited for the first of b, c and d.
    const first = Math.min(...['b', 'c', 'd'].map((n) => events.indexOf(`end ${n}`)));
    expect(events.indexOf('start e')).toBeLessThan(first);
  });
});
