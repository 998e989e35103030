// The library API as an agent builder imports it: the package's own entry point, the same code the CLI runs.
import { describe, expect, test } from 'vitest';
import { checkClaims, normalize, parseClaims, verifyQuote, type VerifyResult } from 'quotecheck';
import { serve } from '../support/helpers.js';

const PAGE =
  '<html><body><article><p>The committee approved the “budget” on Tuesday—after a long debate.</p></article></body></html>';

describe("import { checkClaims, verifyQuote, normalize } from 'quotecheck'", () => {
  test('normalize is the contract function', () => {
    expect(normalize(' The “Budget”—Tuesday ')).toBe('the "budget"-tuesday');
  });

  test('verifyQuote returns label, diagnosis and evidence', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: { 'content-type': 'text/html' } }]);
    const hit: VerifyResult = await verifyQuote(`${server.origin}/p`, 'approved the "budget" on Tuesday-after', {
      allowPrivate: true,
    });
    expect(hit).toMatchObject({ label: 'verbatim', diagnosis: 'verbatim', http_status: 200 });
    expect(hit.match?.selector?.exact).toBe('approved the “budget” on Tuesday—after');
    const miss = await verifyQuote(
      `${server.origin}/p`,
      'The committee rejected the budget on Tuesday after a long debate.',
      { allowPrivate: true },
    );
    expect(miss).toMatchObject({ label: 'no_match', diagnosis: 'near_miss' });
    expect(miss.nearest?.similarity).toBeGreaterThan(0.8);
    const bad = await verifyQuote('mailto:someone@example.com', 'x', { allowPrivate: true });
    expect(bad).toMatchObject({ label: 'no_match', diagnosis: 'invalid_claim' });
  });

  test('checkClaims reports each result as it is decided and returns them in input order', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: { 'content-type': 'text/html' } }]);
    const seen: string[] = [];
    const { entries } = parseClaims([
      { id: 'b', quote: 'long debate', url: `${server.origin}/p` },
      { id: 'a', quote: 'short debate', url: `${server.origin}/p` },
    ]);
    const run = await checkClaims(entries, { allowPrivate: true, onResult: (r) => seen.push(r.id) });
    expect(run.results.map((r) => [r.id, r.label])).toEqual([
      ['b', 'verbatim'],
      ['a', 'no_match'],
    ]);
    expect(seen.sort()).toEqual(['a', 'b']);
    expect(run.sources).toHaveLength(1);
  });

  test('a claim the run stopped before deciding says so in a field (undecided), not only in its note', async () => {
    const server = await serve([
      { path: '/p', body: PAGE, headers: { 'content-type': 'text/html' } },
      { path: '/hang', hang: true },
    ]);
    const stop = new AbortController();
    const run = await checkClaims(
      [
        { id: 'fast', quote: 'long debate', url: `${server.origin}/p` },
        { id: 'slow', quote: 'long debate', url: `${server.origin}/hang` },
      ],
      {
        allowPrivate: true,
        signal: stop.signal,
        onResult: (r) => {
          if (r.id === 'fast') setTimeout(() => stop.abort('deadline'), 50);
        },
      },
    );
    const [fast, slow] = run.results;
    expect(fast).toMatchObject({ id: 'fast', label: 'verbatim' });
    expect(fast!.undecided).toBeUndefined();
    expect(slow).toMatchObject({ id: 'slow', label: 'no_match', undecided: true });
    expect(run.stopped).toBe('deadline');
  });
});

describe('the subpath entry points: quotecheck/stages, quotecheck/contract, quotecheck/harbor', () => {
  test('the contract schema accepts what verifyQuote returns and names what it refuses', async () => {
    const { VerifyResultSchema, ReportRecordSchema, readReportLine } = await import('quotecheck/contract');
    const server = await serve([{ path: '/p', body: PAGE, headers: { 'content-type': 'text/html' } }]);
    const hit = await verifyQuote(`${server.origin}/p`, 'long debate', { allowPrivate: true });
    expect(VerifyResultSchema.parse(hit)).toMatchObject({ label: 'verbatim', diagnosis: 'verbatim' });
    const bad = ReportRecordSchema.safeParse({ ...hit, id: 'x', diagnosis: 'guessed' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['diagnosis']);
    // Another program's report line: each field kept only when well formed.
    expect(
      readReportLine({
        diagnosis: 'near_miss',
        http_status: '200',
        nearest: { text: 'a', similarity: 0.9, raw: '', diff: [{ op: 'bogus', text: 'a' }] },
      }),
    ).toEqual({ diagnosis: 'near_miss', nearest: { text: 'a', similarity: 0.9 } });
  });

  test('the stages are the pipeline the root runs: extract, normalize and find a quote by hand', async () => {
    const stages = await import('quotecheck/stages');
    expect(stages.normalize).toBe(normalize);
    const text = await stages.extractSource(
      { body: Buffer.from(PAGE), contentType: 'text/html; charset=utf-8', url: 'http://example.test/p' },
      { timeoutMs: 10_000 },
    );
    const views = stages.normalizeViews(text.views);
    expect(views.map((v) => v.name)).toContain('full');
    const match = stages.findQuote(normalize('approved the "budget" on Tuesday-after'), views);
    expect(match).toMatchObject({ exact: 'approved the "budget" on tuesday-after' });
    expect(stages.findQuote(normalize('rejected the budget'), views)).toBeNull();
  });

  test('harbor grades answers against gold labels as a task verifier does', async () => {
    const { failureShape, grade, parseLabels } = await import('quotecheck/harbor');
    const gold = parseLabels({ a: 'verbatim', b: 'no_match' }, 'gold');
    const g = grade(
      new Map([
        ['a', 'verbatim'],
        ['b', 'verbatim'],
      ]),
      gold,
    );
    expect(g).toMatchObject({ gold: 2, correct: 1, reward: 0.5 });
    // reward.json's shares: b, gold no_match, answered verbatim is an overclaim.
    expect(failureShape(g)).toEqual({ reward: 0.5, answered: 1, overclaim: 1, missed: 0 });
  });
});
