// The library as a user script calls it (src/index.ts): checkClaims on plain claim objects, verifyQuote with the fields of `verify --json`.
import { describe, expect, test } from 'vitest';
import {
  checkClaims,
  ClaimsFileError,
  parseClaims,
  verifyQuote,
  type ClaimInput,
  type VerifyResult,
} from '../../src/index.js';
import { runCliInProcess, serve } from '../support/helpers.js';

const html = { 'content-type': 'text/html; charset=utf-8' };
const PAGE =
  '<html><body><article><p>The committee approved the “budget” on Tuesday—after a long debate.</p><p>Members said the vote was close.</p></article></body></html>';

describe('checkClaims takes plain claim objects', () => {
  test("{id, quote, url} objects, aliases and numeric ids, checked by the claims file's rules", async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const url = `${server.origin}/p`;
    const claims: ClaimInput[] = [
      { id: 'a', quote: 'approved the "budget" on Tuesday', url },
      { id: 7, quote: 'Members said the vote was narrow.', url, verify_date: '2024-05-01' },
      { id: 'empty', quote: '   ', url },
      { id: 'ftp', quote: 'the vote', url: 'ftp://example.org/x' },
    ];
    const run = await checkClaims(
      [...claims, { claim_id: 'alias', quoted_text: 'long debate', source_url: url } as unknown as ClaimInput],
      {
        allowPrivate: true,
      },
    );
    expect(run.results.map((r) => [r.id, r.label, r.diagnosis])).toEqual([
      ['a', 'verbatim', 'verbatim'],
      ['7', 'no_match', 'near_miss'],
      ['empty', 'no_match', 'invalid_claim'],
      ['ftp', 'no_match', 'invalid_claim'],
      ['alias', 'verbatim', 'verbatim'],
    ]);
    expect(run.results[2]!.note).toMatch(/field "quote" is empty or only whitespace/);
    expect(run.results[3]!.note).toMatch(/field "url" must be http\(s\), not ftp:/);
    expect(run.warnings).toEqual([]);
  });

  test('a dropped optional field is reported in run.warnings, as parseClaims reports it', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const run = await checkClaims(
      [{ id: 'd', quote: 'long debate', url: `${server.origin}/p`, verify_date: 'last tuesday' }],
      { allowPrivate: true },
    );
    expect(run.results[0]!.label).toBe('verbatim');
    expect(run.warnings).toHaveLength(1);
    expect(run.warnings[0]).toMatch(/id "d".*field "verify_date" ignored/);
  });

  test('what cannot be checked is one clear error naming it', async () => {
    const noId = checkClaims([{ quote: 'x', url: 'http://127.0.0.1:9/' } as unknown as ClaimInput], {
      allowPrivate: true,
    });
    await expect(noId).rejects.toThrow(ClaimsFileError);
    await expect(noId).rejects.toThrow(/^checkClaims: .*field "id" is missing/);
    await expect(
      checkClaims(
        [
          { id: 'a', quote: 'x', url: 'http://127.0.0.1:9/' },
          { id: 'a', quote: 'y', url: 'http://127.0.0.1:9/' },
        ],
        { allowPrivate: true },
      ),
    ).rejects.toThrow(/checkClaims: .*duplicate id/);
    await expect(checkClaims('claims.json' as unknown as ClaimInput[], { allowPrivate: true })).rejects.toThrow(
      /^checkClaims: expected an array of claims \(\{id, quote, url\} objects\) or what parseClaims returns, got string$/,
    );
    await expect(checkClaims(['a quote'] as unknown as ClaimInput[], { allowPrivate: true })).rejects.toThrow(
      /^checkClaims: .*must be a JSON object, got string/,
    );
    const { entries } = parseClaims([{ id: 'p', quote: 'x', url: 'http://127.0.0.1:9/' }]);
    await expect(
      checkClaims([...entries, { id: 'q', quote: 'y', url: 'http://127.0.0.1:9/' }] as unknown as ClaimInput[], {
        allowPrivate: true,
      }),
    ).rejects.toThrow(
      /^checkClaims: item 1 of the list is an entry from parseClaims but item 2 is not \(object\); pass either plain/,
    );
  });

  test('parseClaims entries and its whole result still work; a filtered list keeps its own order', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const url = `${server.origin}/p`;
    const set = parseClaims([
      { id: 'x', quote: 'short debate', url },
      { id: 'y', quote: 'long debate', url },
      { id: 'z', quote: 'the vote was close', url },
    ]);
    const whole = await checkClaims(set, { allowPrivate: true });
    expect(whole.results.map((r) => [r.id, r.label])).toEqual([
      ['x', 'no_match'],
      ['y', 'verbatim'],
      ['z', 'verbatim'],
    ]);
    const later = await checkClaims(
      set.entries.filter((e) => e.id !== 'x'),
      { allowPrivate: true },
    );
    expect(later.results.map((r) => [r.id, r.label, r.index])).toEqual([
      ['y', 'verbatim', 1],
      ['z', 'verbatim', 2],
    ]);
  });
});

describe('verifyQuote returns what `verify --json` prints', () => {
  test('the same fields and values, no id', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const url = `${server.origin}/p`;
    for (const [quote, exit] of [
      ['approved the "budget" on Tuesday-after', 0],
      ['The committee approved the budget on Wednesday after a long debate.', 1],
    ] as const) {
      const lib: VerifyResult = await verifyQuote(url, quote, { allowPrivate: true });
      const cli = await runCliInProcess(['verify', '--allow-private', '--json', '--url', url, '--quote', quote]);
      expect(cli.code, cli.stderr).toBe(exit); // 0 verbatim, 1 no_match
      const printed = JSON.parse(cli.stdout) as Record<string, unknown>;
      expect(lib).not.toHaveProperty('id');
      expect(printed).not.toHaveProperty('id');
      expect(Object.keys(lib)).toEqual(Object.keys(printed));
      // Times aside (the two fetches are a moment apart), the values are the same.
      const untimed = (r: Record<string, unknown>) => ({
        ...r,
        ms: 0,
        as_of: { ...(r.as_of as object), timestamp: null },
      });
      expect(untimed(lib as unknown as Record<string, unknown>)).toEqual(untimed(printed));
    }
    const hit = await verifyQuote(url, 'approved the "budget" on Tuesday-after', { allowPrivate: true });
    expect(hit).toMatchObject({
      label: 'verbatim',
      diagnosis: 'verbatim',
      http_status: 200,
      quote: 'approved the "budget" on Tuesday-after',
    });
    expect(hit.match?.selector?.exact).toBe('approved the “budget” on Tuesday—after');
    const miss = await verifyQuote(url, 'The committee approved the "budget" on Wednesday after a long debate.', {
      allowPrivate: true,
    });
    expect(miss.nearest?.raw).toBe('The committee approved the “budget” on Tuesday—after a long debate.');
    expect(miss.nearest?.diff).toEqual([
      { op: 'equal', text: 'The committee approved the “budget” on' },
      { op: 'missing', text: 'Wednesday' },
      { op: 'extra', text: 'Tuesday—' },
      { op: 'equal', text: 'after a long debate.' },
    ]);
  });

  test('a bad URL or quote: invalid_claim with the reason, no placeholder id', async () => {
    const bad = await verifyQuote('mailto:someone@example.com', 'x', { allowPrivate: true });
    expect(bad).toMatchObject({
      label: 'no_match',
      diagnosis: 'invalid_claim',
      url: 'mailto:someone@example.com',
      quote: 'x',
      match: null,
      nearest: null,
    });
    expect(bad).not.toHaveProperty('id');
    expect(bad.note).toMatch(/field "url" must be http\(s\), not mailto:/);
    const empty = await verifyQuote('http://127.0.0.1:9/', ' ', { allowPrivate: true });
    expect(empty.note).toMatch(/field "quote" is empty or only whitespace/);
    expect(empty.note).not.toMatch(/"quote"\)|id "quote"/);
  });
});
