// The hostile web: every misbehaving source is answered (no crash, no hang) with the right diagnosis and a note naming the limit.
import { describe, expect, test } from 'vitest';
import { checkClaims } from '../src/check.js';
import { parseClaims } from '../src/claims/schema.js';
import { articleView, DOM_LIMITS, parseHtml } from '../src/extract/html.js';
import { normalize } from '../src/normalize.js';
import { LONG_PLANTED, longChapterPage, PLANTED } from '../bench/pages.js';
import { HOSTILE_CASES, HOSTILE_LIMITS, hostileRoutes, longPageRoutes } from './support/hostile.js';
import { serve } from './support/helpers.js';

describe('hostile sources', () => {
  test('every case at once, in one run: answered, with the right diagnosis and the limit in the note', async () => {
    const server = await serve(await hostileRoutes());
    const plain = HOSTILE_CASES.filter((c) => !c.limits);
    const claims = plain.map((c, i) => ({ id: `h${i}`, quote: PLANTED, url: `${server.origin}${c.path}` }));
    const started = Date.now();
    const run = await checkClaims(parseClaims(claims).entries, { ...HOSTILE_LIMITS, allowPrivate: true });
    // Nothing waits past its limits: the slowest case is a source's whole time budget.
    expect(Date.now() - started).toBeLessThan(HOSTILE_LIMITS.sourceBudgetMs + 30_000);
    plain.forEach((c, i) => {
      const r = run.results[i]!;
      expect({ path: c.path, label: r.label, diagnosis: r.diagnosis }).toEqual({
        path: c.path,
        label: c.label,
        diagnosis: c.diagnosis,
      });
      expect(r.note ?? '', `${c.path}: ${r.note}`).toMatch(c.note);
    });
  }, 120_000);

  test.each(HOSTILE_CASES.filter((c) => c.limits).map((c) => [c.path, c] as const))(
    '%s under its own limit',
    async (_path, c) => {
      const server = await serve(await hostileRoutes());
      const run = await checkClaims(
        parseClaims([{ id: 'x', quote: PLANTED, url: `${server.origin}${c.path}` }]).entries,
        {
          allowPrivate: true,
          ...HOSTILE_LIMITS,
          ...c.limits,
        },
      );
      expect(run.results[0]).toMatchObject({ label: c.label, diagnosis: c.diagnosis });
      expect(run.results[0]!.note).toMatch(c.note);
    },
  );
});

describe('long real pages keep their article view (the DOM caps are sized from them: src/extract/html.ts)', () => {
  test('a 20,000-paragraph chapter (<p> or <br> paragraphs) and a long report: the quote from the middle is found in the article view', async () => {
    const server = await serve(longPageRoutes());
    const paths = ['/long/chapter', '/long/chapter-br', '/long/report'];
    const claims = paths.map((path, i) => ({ id: `long${i}`, quote: LONG_PLANTED, url: `${server.origin}${path}` }));
    const run = await checkClaims(parseClaims(claims).entries, {
      allowPrivate: true,
      ...HOSTILE_LIMITS,
      timeoutMs: 20_000,
      sourceBudgetMs: 100_000,
      extractTimeoutMs: 60_000,
      htmlView: 'article',
    });
    run.results.forEach((r, i) => {
      expect({ path: paths[i], label: r.label, diagnosis: r.diagnosis, view: r.match?.view }).toEqual({
        path: paths[i],
        label: 'verbatim',
        diagnosis: 'verbatim',
        view: 'article',
      });
    });
  }, 150_000);

  test('the chapter is within every cap, and its article holds all 20,000 paragraphs', () => {
    const page = parseHtml(longChapterPage(20_000, 'p'));
    expect(page.note).toBeUndefined();
    const article = normalize(articleView(page.doc!).article!);
    expect(article).toContain(normalize(LONG_PLANTED));
    expect(article.length).toBeGreaterThan(0.9 * normalize(page.full).length);
  }, 60_000);
});

describe('DOM caps: a page past one gets its full view from the streaming parser, in bounded time', () => {
  test.each([
    [
      'children of one node',
      () =>
        `<html><body><div>${'<i>x</i> '.repeat(DOM_LIMITS.maxChildren / 2 + 5_000)}</div><p>${PLANTED}</p></body></html>`,
      /more than 200000 children in one element \(the DOM cap\)/,
    ],
    [
      'elements',
      () =>
        `<html><body>${'<p><b>x</b> <i>y</i></p>'.repeat(DOM_LIMITS.maxElements / 3 + 1000)}<p>${PLANTED}</p></body></html>`,
      /more than 200000 elements \(the DOM cap\)/,
    ],
    [
      'ancestor-descendant pairs (many 390-deep chains)',
      () =>
        `<html><body>${Array.from({ length: 120 }, () => `${'<div>'.repeat(390)}words${'</div>'.repeat(390)}`).join('')}<p>${PLANTED}</p></body></html>`,
      /more than 6000000 ancestor-descendant pairs of elements \(the DOM cap\)/,
    ],
  ])(
    '%s',
    (_cap, make, note) => {
      const html = make();
      const started = performance.now();
      const page = parseHtml(html);
      expect(page.doc).toBeUndefined();
      expect(page.note).toMatch(note);
      expect(normalize(page.full)).toContain(normalize(PLANTED));
      expect(performance.now() - started).toBeLessThan(20_000);
    },
    60_000,
  );
});

describe('security', () => {
  test('by default the library refuses loopback IP literals and names that resolve to private addresses, before connecting', async () => {
    const server = await serve(await hostileRoutes());
    const claims = [
      { id: 'ip', quote: PLANTED, url: `${server.origin}/cookie` },
      { id: 'name', quote: PLANTED, url: `http://localhost:${server.port}/cookie` },
      { id: 'v6', quote: PLANTED, url: `http://[::1]:${server.port}/cookie` },
    ];
    const run = await checkClaims(parseClaims(claims).entries, HOSTILE_LIMITS);
    for (const r of run.results) {
      expect(r, r.id).toMatchObject({ label: 'no_match', diagnosis: 'fetch_failed' });
      expect(r.note, r.id).toMatch(
        /refused: .*loopback \((127\.0\.0\.0\/8|::1\/128)\): not a global address; pass --allow-private/,
      );
    }
    expect(server.hits('/cookie')).toBe(0);
    // Allowed, the same claims are fetched (loopback is where tests live).
    const open = await checkClaims(parseClaims(claims.slice(0, 1)).entries, { ...HOSTILE_LIMITS, allowPrivate: true });
    expect(open.results[0]!.label).toBe('verbatim');
  });

  test('credentials in a URL go to that origin as Basic auth, and never to the host a redirect leads to', async () => {
    const seen: Record<string, string | undefined> = {};
    const server = await serve(
      [
        {
          path: '/private',
          handler: (q, s) => {
            seen.first = q.headers.authorization;
            s.writeHead(302, { location: `http://127.0.0.2:${server.port}/elsewhere` });
            s.end();
          },
        },
        {
          path: '/elsewhere',
          handler: (q, s) => {
            seen.second = q.headers.authorization;
            s.writeHead(200, { 'content-type': 'text/html' });
            s.end(`<p>${PLANTED}</p>`);
          },
        },
      ],
      ['127.0.0.1', '127.0.0.2'],
    );
    const run = await checkClaims(
      parseClaims([{ id: 'c', quote: PLANTED, url: `http://al%40ice:s3cr%3At@127.0.0.1:${server.port}/private` }])
        .entries,
      {
        ...HOSTILE_LIMITS,
        allowPrivate: true,
      },
    );
    expect(run.results[0]!.label).toBe('verbatim');
    expect(seen.first).toBe(`Basic ${Buffer.from('al@ice:s3cr:t').toString('base64')}`);
    expect(seen.second).toBeUndefined();
    expect(run.results[0]!.finalUrl).toBe(`http://127.0.0.2:${server.port}/elsewhere`);
  });

  test.each([
    ['file:///etc/passwd', /must be http\(s\), not file:/],
    ['data:text/html,<p>x</p>', /must be http\(s\), not data:/],
    ['javascript:alert(1)', /must be http\(s\), not javascript:/],
    ['ftp://127.0.0.1/x', /must be http\(s\), not ftp:/],
    ['gopher://127.0.0.1/x', /must be http\(s\), not gopher:/],
  ])('%s is refused as an invalid claim', async (url, message) => {
    const run = await checkClaims(parseClaims([{ id: 'x', quote: 'q', url }]).entries, { allowPrivate: true });
    expect(run.results[0]).toMatchObject({ label: 'no_match', diagnosis: 'invalid_claim' });
    expect(run.results[0]!.note).toMatch(message);
  });

  test('a redirect to a non-http scheme is refused', async () => {
    const server = await serve([{ path: '/r', redirect: { location: 'file:///etc/passwd' } }]);
    const run = await checkClaims(parseClaims([{ id: 'x', quote: 'q', url: `${server.origin}/r` }]).entries, {
      ...HOSTILE_LIMITS,
      allowPrivate: true,
    });
    expect(run.results[0]).toMatchObject({ label: 'no_match', diagnosis: 'fetch_failed' });
    expect(run.results[0]!.note).toMatch(/redirect to a non-http\(s\) URL refused: file:/);
  });
});
