// Fetching against a loopback server: retries, redirects, cookies, limits, content sniffing, each URL once.
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { checkClaims, type CheckOptions } from '../../src/check.js';
import { parseClaims } from '../../src/claims/schema.js';
import { FetchError, fetchSource } from '../../src/fetch/index.js';
import { SourceCookies } from '../../src/fetch/cookies.js';
import { retryDelay } from '../../src/fetch/source.js';
import { serve } from '../support/helpers.js';

/** Fast settings: short backoff so retry tests take milliseconds, not seconds. */
const fast: Partial<CheckOptions> = { timeoutMs: 2_000, retries: 2, backoffMinMs: 10, backoffMaxMs: 50 };

const PAGE =
  '<html><body><article><h1>Report</h1><p>The committee approved the budget on Tuesday after a long debate.</p></article></body></html>';
const html = { 'content-type': 'text/html; charset=utf-8' };

async function check(claims: { id: string; quote: string; url: string }[], opts: Partial<CheckOptions> = {}) {
  const run = await checkClaims(parseClaims(claims).entries, { allowPrivate: true, ...fast, ...opts });
  return Object.fromEntries(run.results.map((r) => [r.id, r]));
}

describe('retries', () => {
  test('503 twice, then 200: retried and verbatim', async () => {
    const server = await serve([{ path: '/flaky', body: PAGE, headers: html, failFirst: { count: 2, status: 503 } }]);
    const r = await check([{ id: 'a', quote: 'approved the budget on Tuesday', url: `${server.origin}/flaky` }]);
    expect(r.a).toMatchObject({ label: 'verbatim', httpStatus: 200 });
    expect(server.hits('/flaky')).toBe(3);
  });

  test('429 with Retry-After: waits at least that long, then succeeds', async () => {
    const server = await serve([
      {
        path: '/busy',
        body: PAGE,
        headers: html,
        failFirst: { count: 1, status: 429, headers: { 'retry-after': '1' } },
      },
    ]);
    const started = Date.now();
    const r = await check([{ id: 'a', quote: 'approved the budget', url: `${server.origin}/busy` }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(r.a!.label).toBe('verbatim');
    expect(server.hits('/busy')).toBe(2);
  });

  test('503 twice with Retry-After: 1: the two waits are what the server asked, not backoff on top (about 2 s, not 7)', async () => {
    const server = await serve([
      {
        path: '/later',
        body: PAGE,
        headers: html,
        failFirst: { count: 2, status: 503, headers: { 'retry-after': '1' } },
      },
    ]);
    const started = Date.now();
    // The default backoff (0.5 s doubling, up to 8 s) would add 1.5-3 s here if it were added to the asked waits.
    const r = await check([{ id: 'a', quote: 'approved the budget', url: `${server.origin}/later` }], {
      backoffMinMs: 500,
      backoffMaxMs: 8_000,
    });
    const elapsed = Date.now() - started;
    expect(r.a!.label).toBe('verbatim');
    expect(server.hits('/later')).toBe(3);
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    expect(elapsed).toBeLessThan(2900);
  });

  test('the wait before a retry: Retry-After as asked (capped); otherwise exponential backoff with jitter', () => {
    const settings = { backoffMinMs: 500, backoffMaxMs: 8_000, retryAfterCapMs: 30_000 };
    const asked = (ms: number) =>
      new FetchError('HTTP 429', { kind: 'http_status', status: 429, retryable: true, retryAfterMs: ms });
    expect(retryDelay(asked(1000), 3, settings)).toBe(1000);
    expect(retryDelay(asked(0), 1, settings)).toBe(0);
    expect(retryDelay(asked(120_000), 1, settings)).toBe(30_000);
    const plain = new FetchError('HTTP 503', { kind: 'http_status', status: 503, retryable: true });
    for (let attempt = 1; attempt <= 6; attempt++) {
      for (let i = 0; i < 20; i++) {
        const d = retryDelay(plain, attempt, settings);
        expect(d).toBeGreaterThanOrEqual(Math.min(500 * 2 ** (attempt - 1), 8_000));
        expect(d).toBeLessThanOrEqual(Math.min(1000 * 2 ** (attempt - 1), 8_000));
      }
    }
  });

  test.each([
    [404, 'fetch_failed'],
    [410, 'fetch_failed'],
    [403, 'fetch_failed'],
    [401, 'paywall'], // authentication required: a login wall
  ])('%i is not retried and is answered no_match (%s)', async (status, diagnosis) => {
    const server = await serve([{ path: '/gone', status, body: 'nope', headers: html }]);
    const r = await check([{ id: 'a', quote: 'anything', url: `${server.origin}/gone` }]);
    expect(r.a).toMatchObject({ label: 'no_match', diagnosis, httpStatus: status });
    expect(r.a!.note).toContain(`HTTP ${status}`);
    expect(server.hits('/gone')).toBe(1);
  });

  test('500 on every attempt: retries run out, answered no_match', async () => {
    const server = await serve([{ path: '/down', status: 500, body: 'oops' }]);
    const r = await check([{ id: 'a', quote: 'anything', url: `${server.origin}/down` }], { retries: 2 });
    expect(r.a).toMatchObject({ label: 'no_match', diagnosis: 'fetch_failed', httpStatus: 500 });
    expect(r.a!.note).toMatch(/after 3 attempts/);
    expect(server.hits('/down')).toBe(3);
  });

  test('a server that never answers times out (and is retried) within the limit', async () => {
    const server = await serve([{ path: '/hang', hang: true }]);
    const started = Date.now();
    const r = await check([{ id: 'a', quote: 'anything', url: `${server.origin}/hang` }], {
      timeoutMs: 300,
      retries: 1,
    });
    expect(r.a).toMatchObject({ label: 'no_match', diagnosis: 'fetch_failed' });
    expect(r.a!.note).toMatch(/timed out after 0.3 s/);
    expect(server.hits('/hang')).toBe(2);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  test('a refused connection is a fetch failure, not a crash', async () => {
    const server = await serve([]);
    const url = `${server.origin}/x`;
    await server.close();
    const outcome = await fetchSource(url, {
      timeoutMs: 1000,
      retries: 1,
      backoffMinMs: 10,
      backoffMaxMs: 10,
      retryAfterCapMs: 0,
      budgetMs: 10_000,
      maxBytes: 1e6,
      maxRedirects: 10,
      userAgent: 'test',
      allowPrivate: true,
    });
    expect(outcome).toMatchObject({ ok: false, error: 'connection', attempts: 2 });
    expect(outcome.ok ? '' : outcome.message).toMatch(/ECONNREFUSED/);
  });
});

describe('redirects and cookies', () => {
  test('a chain of three redirects ends at the page; final_url records it', async () => {
    const server = await serve([
      { path: '/r1', redirect: { location: '/r2', status: 301 } },
      { path: '/r2', redirect: { location: '/r3', status: 307 } },
      { path: '/r3', redirect: { location: '/final?x=1' } },
      { path: '/final?x=1', body: PAGE, headers: html },
    ]);
    const r = await check([{ id: 'a', quote: 'approved the budget', url: `${server.origin}/r1` }]);
    expect(r.a).toMatchObject({ label: 'verbatim', finalUrl: `${server.origin}/final?x=1` });
  });

  test('a redirect loop stops at the limit with a clear note', async () => {
    const server = await serve([
      { path: '/a', redirect: { location: '/b' } },
      { path: '/b', redirect: { location: '/a' } },
    ]);
    const r = await check([{ id: 'a', quote: 'x', url: `${server.origin}/a` }]);
    expect(r.a).toMatchObject({ label: 'no_match', diagnosis: 'fetch_failed' });
    expect(r.a!.note).toMatch(/more than 10 redirects/);
    expect(server.hits('/a') + server.hits('/b')).toBe(11);
  });

  test('a cookie set on a redirect is sent back (set-cookie, redirect to itself)', async () => {
    const server = await serve([
      { path: '/gated', body: PAGE, headers: html, cookieGate: { name: 'consent', value: 'yes' } },
    ]);
    const r = await check([{ id: 'a', quote: 'approved the budget', url: `${server.origin}/gated` }]);
    expect(r.a!.label).toBe('verbatim');
    expect(server.hits('/gated')).toBe(2);
  });

  test("a source's cookie jar, made at the first Set-Cookie: nothing sent before one; then its host's cookies, a malformed one ignored", async () => {
    const cookies = new SourceCookies();
    expect(await cookies.header('http://example.com/a')).toBe('');
    await cookies.keep([], 'http://example.com/a');
    expect(await cookies.header('http://example.com/a')).toBe('');
    await cookies.keep(['session=1; Path=/', '=', 'gate=open; Path=/docs'], 'http://example.com/docs/page');
    // RFC 6265 §5.4: the longer path first.
    expect(await cookies.header('http://example.com/docs/next')).toBe('gate=open; session=1');
    expect(await cookies.header('http://example.com/')).toBe('session=1');
    expect(await cookies.header('http://example.org/')).toBe('');
  });
});

describe('bodies', () => {
  test('gzip is decoded', async () => {
    const server = await serve([{ path: '/gz', body: PAGE, headers: html, gzip: true }]);
    const r = await check([{ id: 'a', quote: 'after a long debate', url: `${server.origin}/gz` }]);
    expect(r.a!.label).toBe('verbatim');
  });

  test('deflate and brotli are decoded too', async () => {
    const { deflateSync, brotliCompressSync } = await import('node:zlib');
    const server = await serve([
      {
        path: '/deflate',
        handler: (_q, s) => {
          s.writeHead(200, { ...html, 'content-encoding': 'deflate' });
          s.end(deflateSync(PAGE));
        },
      },
      {
        path: '/br',
        handler: (_q, s) => {
          s.writeHead(200, { ...html, 'content-encoding': 'br' });
          s.end(brotliCompressSync(PAGE));
        },
      },
    ]);
    const r = await check([
      { id: 'd', quote: 'after a long debate', url: `${server.origin}/deflate` },
      { id: 'b', quote: 'after a long debate', url: `${server.origin}/br` },
    ]);
    expect([r.d!.label, r.b!.label]).toEqual(['verbatim', 'verbatim']);
  });

  test('an oversized body is refused with a note naming the cap', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 'a');
    const server = await serve([
      { path: '/big', body: big, headers: { 'content-type': 'text/plain' } },
      // No Content-Length: the cap must hold while streaming.
      {
        path: '/chunked',
        handler: (_q, s) => {
          s.writeHead(200, { 'content-type': 'text/plain' });
          for (let i = 0; i < 6; i++) s.write(Buffer.alloc(512 * 1024, 'b'));
          s.end();
        },
      },
      // Small on the wire, large once inflated.
      {
        path: '/bomb',
        handler: (_q, s) => {
          s.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
          s.end(gzipSync(Buffer.alloc(20 * 1024 * 1024, 'c')));
        },
      },
    ]);
    const r = await check(
      [
        { id: 'big', quote: 'aaa', url: `${server.origin}/big` },
        { id: 'chunked', quote: 'bbb', url: `${server.origin}/chunked` },
        { id: 'bomb', quote: 'ccc', url: `${server.origin}/bomb` },
      ],
      { maxBytes: 1024 * 1024 },
    );
    for (const id of ['big', 'chunked', 'bomb']) {
      expect(r[id], id).toMatchObject({ label: 'no_match', diagnosis: 'fetch_failed' });
      expect(r[id]!.note, id).toMatch(/larger than the 1 MB cap/);
    }
    expect(server.hits('/big')).toBe(1); // too large is not retried
  });
});

describe('what is fetched', () => {
  test('each distinct URL is fetched once however many claims cite it (fragments ignored)', async () => {
    const server = await serve([{ path: '/page', body: PAGE, headers: html }]);
    const url = `${server.origin}/page`;
    const r = await check([
      { id: 'a', quote: 'approved the budget', url },
      { id: 'b', quote: 'not in the page', url: `${url}#frag` },
      { id: 'c', quote: 'long debate', url },
    ]);
    expect([r.a!.label, r.b!.label, r.c!.label]).toEqual(['verbatim', 'no_match', 'verbatim']);
    expect(r.b!.diagnosis).toBe('not_found');
    expect(server.hits('/page')).toBe(1);
  });

  test('sends an honest User-Agent and browser-like Accept headers', async () => {
    let seen: Record<string, string | string[] | undefined> = {};
    const server = await serve([
      {
        path: '/h',
        handler: (q, s) => {
          seen = q.headers;
          s.writeHead(200, html);
          s.end(PAGE);
        },
      },
    ]);
    await check([{ id: 'a', quote: 'x', url: `${server.origin}/h` }]);
    expect(seen['user-agent']).toMatch(/^quotecheck\//);
    expect(seen.accept).toMatch(/text\/html/);
    expect(seen['accept-language']).toMatch(/en/);
    expect(seen['accept-encoding']).toMatch(/gzip/);
    await check([{ id: 'a', quote: 'x', url: `${server.origin}/h` }], { userAgent: 'my-agent/1.0' });
    expect(seen['user-agent']).toBe('my-agent/1.0');
  });

  test('per-host concurrency is respected', async () => {
    let active = 0;
    let peak = 0;
    const slow = (_q: unknown, s: import('node:http').ServerResponse) => {
      active++;
      peak = Math.max(peak, active);
      setTimeout(() => {
        active--;
        s.writeHead(200, html);
        s.end(PAGE);
      }, 50);
    };
    const server = await serve(Array.from({ length: 8 }, (_, i) => ({ path: `/p${i}`, handler: slow })));
    await check(
      Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, quote: 'x', url: `${server.origin}/p${i}` })),
      { perHost: 3, concurrency: 10 },
    );
    expect(peak).toBe(3);
  });
});

describe('served as they come', () => {
  const pdfQuote =
    'We present an alternative compilation technique for dynamically-typed languages that identifies frequently executed loop traces';
  test.each([
    ['application/octet-stream', '/download?id=7'],
    ['text/html; charset=utf-8', '/paper'],
    ['application/pdf', '/paper.pdf'],
  ])('a PDF served as %s at %s is read with pdftotext', async (type, path) => {
    const server = await serve([{ path, file: 'tracemonkey-p1.pdf', headers: { 'content-type': type } }]);
    const r = await check([
      { id: 'in', quote: pdfQuote, url: `${server.origin}${path}` },
      { id: 'out', quote: 'uses a mixed-mode execution approach', url: `${server.origin}${path}` },
    ]);
    expect(r.in).toMatchObject({ label: 'verbatim', extractor: 'pdftotext', contentType: type });
    expect(r.in!.match).toMatchObject({ view: 'text' });
    expect(r.out!.label).toBe('no_match');
  });

  test('a windows-1252 page with its charset only in <meta> (none in Content-Type) matches quotes with umlauts', async () => {
    const server = await serve([
      {
        path: '/demut',
        file: '../../golden/sources/html/traf-die-tagespost.de-demut.html',
        headers: { 'content-type': 'text/html' },
      },
    ]);
    const r = await check([
      { id: 'a', quote: 'Sorgfalt und Zurückhaltung sind mehr denn je gefragt.', url: `${server.origin}/demut` },
    ]);
    expect(r.a).toMatchObject({ label: 'verbatim', charset: 'windows-1252' });
  });

  test('a scanned PDF is answered no_match with diagnosis empty; an image is unsupported', async () => {
    const server = await serve([
      { path: '/scan.pdf', file: 'issue-203-decimalize.pdf', headers: { 'content-type': 'application/pdf' } },
      { path: '/img', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]), headers: { 'content-type': 'image/png' } },
    ]);
    const r = await check([
      { id: 'scan', quote: 'decimal', url: `${server.origin}/scan.pdf` },
      { id: 'img', quote: 'x', url: `${server.origin}/img` },
    ]);
    expect(r.scan).toMatchObject({ label: 'no_match', diagnosis: 'empty' });
    expect(r.img).toMatchObject({ label: 'no_match', diagnosis: 'unsupported' });
  });

  test('--html-view: a quote only in the navigation matches the full view, not the article view', async () => {
    const para = (n: number) =>
      `<p>Paragraph ${n} of the story is long enough, with commas, clauses, and plenty of words, to be scored as article content.</p>`;
    const page = `<html><body><nav><ul><li>Subscribe to our newsletter today</li></ul></nav><article>${[1, 2, 3, 4, 5].map(para).join('')}</article></body></html>`;
    const server = await serve([{ path: '/story', body: page, headers: html }]);
    const claims = [
      { id: 'nav', quote: 'Subscribe to our newsletter today', url: `${server.origin}/story` },
      { id: 'body', quote: 'Paragraph 3 of the story', url: `${server.origin}/story` },
    ];
    const any = await check(claims);
    expect(any.nav).toMatchObject({ label: 'verbatim', extractor: 'fulltext' });
    expect(any.nav!.match!.view).toBe('full');
    expect(any.body!.match!.view).toBe('article');
    const article = await check(claims, { htmlView: 'article' });
    expect([article.nav!.label, article.body!.label]).toEqual(['no_match', 'verbatim']);
    const full = await check(claims, { htmlView: 'full' });
    expect([full.nav!.label, full.body!.label]).toEqual(['verbatim', 'verbatim']);
  });
});
