// A large page's claims decided, and its passages searched, off the run's thread (src/run/decide.ts OffThread, the MCP
// server's page worker src/mcp/page-worker.ts): the same results as on the run's thread, claims that need the archive
// left to the run, and a thread that fails leaving its work to the run.
import { describe, expect, test } from 'vitest';
import { checkClaims, type ClaimResult } from '../../src/check.js';
import { decideHere, type OffThread, type OffThreadRequest } from '../../src/run/decide.js';
import { PageWorker, searchHere } from '../../src/mcp/page-worker.js';
import { normalize } from '../../src/normalize.js';
import { serve } from '../support/helpers.js';

const PARAGRAPH =
  '<p>The council’s budget vote was close — members said the regional assembly would meet again in spring.</p>';
const PAGE = `<html><body><article><h1>Report</h1>${PARAGRAPH.repeat(40)}<p>The committee approved the budget on Tuesday after a long debate.</p></article></body></html>`;
const html = { 'content-type': 'text/html; charset=utf-8' };

const CLAIMS = (origin: string) => [
  { id: 'found', quote: 'approved the budget on Tuesday', url: `${origin}/a` },
  { id: 'misquote', quote: 'the committee rejected the budget on Tuesday', url: `${origin}/a` },
  { id: 'curly', quote: "The council's budget vote was close - members said", url: `${origin}/a` },
  { id: 'absent', quote: 'nothing like this sentence appears anywhere on the page', url: `${origin}/a` },
  { id: 'dated', quote: 'approved the budget on Monday', url: `${origin}/a`, verify_date: '2024-01-01' },
];

/** Results without their timing and when their source was fetched, which differ run to run. */
const timeless = (rs: readonly ClaimResult[]) =>
  rs.map(({ ms: _ms, asOf, ...r }) => ({ ...r, asOf: asOf && { ...asOf, timestamp: null } }));

/** An OffThread that decides here, counting what it was asked; `fail` makes it reject instead. */
function inProcess(fail = false): OffThread & { requests: OffThreadRequest[] } {
  const requests: OffThreadRequest[] = [];
  return {
    requests,
    takes: () => true,
    decide: async (request) => {
      requests.push(request);
      if (fail) throw new Error('the thread died');
      // As the request crosses to another thread: a structured clone.
      return decideHere(structuredClone(request));
    },
  };
}

describe('deciding off the run thread', () => {
  test('gives the results the run gives on its own thread, from a record without its body', async () => {
    const server = await serve([{ path: '/a', body: PAGE, headers: html }]);
    const claims = CLAIMS(server.origin);
    const here = await checkClaims(claims, { allowPrivate: true, wayback: 'off' });
    const off = inProcess();
    const there = await checkClaims(claims, { allowPrivate: true, wayback: 'off', offThread: off });
    expect(timeless(there.results)).toEqual(timeless(here.results));
    expect(here.results.map((r) => r.label)).toEqual(['verbatim', 'no_match', 'verbatim', 'no_match', 'no_match']);
    expect(off.requests).toHaveLength(1);
    expect(off.requests[0]!.record.fetch.ok && off.requests[0]!.record.fetch.body.byteLength).toBe(0);
    expect(off.requests[0]!.record.text!.views.every((v) => v.normalized === undefined)).toBe(true);
  });

  test('a thread that fails leaves every claim to the run, decided as ever', async () => {
    const server = await serve([{ path: '/a', body: PAGE, headers: html }]);
    const claims = CLAIMS(server.origin);
    const here = await checkClaims(claims, { allowPrivate: true, wayback: 'off' });
    const failing = inProcess(true);
    const there = await checkClaims(claims, { allowPrivate: true, wayback: 'off', offThread: failing });
    expect(failing.requests).toHaveLength(1);
    expect(timeless(there.results)).toEqual(timeless(here.results));
  });

  test('claims whose date and evidence need a capture come back undecided, with every claim of their date and evidence', () => {
    const record = {
      url: 'http://h.test/a',
      fetch: {
        ok: true as const,
        url: 'http://h.test/a',
        finalUrl: 'http://h.test/a',
        status: 200,
        redirects: [],
        headers: {},
        body: Buffer.alloc(0),
        sha256: 'a'.repeat(64),
        attempts: 1,
        ms: 1,
        fetchedAt: '2026-01-01T00:00:00Z',
      },
      text: {
        kind: 'text' as const,
        views: [{ name: 'text' as const, extractor: 'text' as const, text: 'Some text.' }],
        ms: 1,
      },
      views: [{ name: 'text' as const, extractor: 'text' as const, text: 'some text.' }],
    };
    const claim = (id: string, quote: string, evidenceSha256?: string) => ({
      kind: 'claim' as const,
      index: 0,
      id,
      quote,
      url: 'http://h.test/a',
      fetchUrl: 'http://h.test/a',
      verifyDate: '2024-01-01',
      ...(evidenceSha256 ? { evidenceSha256 } : {}),
    });
    const date = { input: '2024-01-01', end14: '20240101235959', after14: '20240102000000' };
    const results = decideHere({
      record,
      claims: [
        claim('needs', 'other words', 'b'.repeat(64)),
        claim('sibling', 'some text', 'b'.repeat(64)),
        claim('alone', 'some text'),
      ],
      ctx: { htmlView: 'any', wayback: 'auto', captures: true, replaying: false, now: date },
      sourceMs: 1,
    });
    expect(results.map((r) => r?.label ?? null)).toEqual([null, null, 'verbatim']);
  });
});

describe('the page worker', () => {
  test('decides and searches on its thread what the run thread would, and is let go when idle', async () => {
    const text = `${PARAGRAPH.replace(/<\/?p>/g, '')} `.repeat(200) + 'The committee approved the budget on Tuesday.';
    const normalized = normalize(text);
    const request = {
      query: normalize('committee approved the budget on a Tuesday'),
      normalized: [normalized],
      raw: [{ name: 'full' as const, extractor: 'fulltext' as const, text }],
      max: 3,
    };
    const pages = new PageWorker();
    try {
      expect(await pages.search(request)).toEqual(searchHere(request));
      expect(pages.takes(3 * 1024 * 1024)).toBe(true);
      expect(pages.takes(1024 * 1024)).toBe(false);
    } finally {
      await pages.close();
    }
  });

  test("a page's long texts cross one at a time and arrive whole, beside the short ones", async () => {
    // Past a million characters a text is sent on its own (src/mcp/texts.ts); two views, one of them short.
    const text =
      `${PARAGRAPH.replace(/<\/?p>/g, '')} `.repeat(12_000) + 'The committee approved the budget on Tuesday.';
    const short = 'A short view: the committee approved the budget on Tuesday.';
    const request = {
      query: normalize('committee approved the budget on a Tuesday'),
      normalized: [normalize(text), normalize(short)],
      raw: [
        { name: 'full' as const, extractor: 'fulltext' as const, text },
        { name: 'article' as const, extractor: 'readability' as const, text: short },
      ],
      max: 4,
    };
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const pages = new PageWorker();
    try {
      const there = await pages.search(request);
      expect(there).toEqual(searchHere(request));
      expect(there.passages.length).toBeGreaterThan(0);
    } finally {
      await pages.close();
    }
  });

  test('a job that throws on the thread fails its call, and the worker takes the next', async () => {
    const pages = new PageWorker();
    try {
      const broken = { query: 'x', normalized: ['some text'], raw: [], max: 1 };
      await expect(pages.search(broken as never)).rejects.toThrow(/the page worker failed/);
      const request = {
        query: 'text',
        normalized: ['some text'],
        raw: [{ name: 'text' as const, extractor: 'text' as const, text: 'Some text' }],
        max: 1,
      };
      expect(await pages.search(request)).toEqual(searchHere(request));
    } finally {
      await pages.close();
    }
  });
});
