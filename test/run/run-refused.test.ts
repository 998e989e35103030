// `run` says when the network rule refused sources: how many, their claims, a host or two, and --allow-private.
import { describe, expect, test } from 'vitest';
import { checkClaims } from '../../src/check.js';
import { parseClaims } from '../../src/claims/schema.js';
import { refusedLine, summarize, toReportRecord } from '../../src/output/evidence-report.js';
import { claimsRun, runCliInProcess, serve, closedPort } from '../support/helpers.js';

const PAGE = '<html><body><article><p>The committee approved the budget on Tuesday.</p></article></body></html>';
const html = { 'content-type': 'text/html; charset=utf-8' };
const fast = ['--retries', '0', '--timeout', '2', '--wayback', 'off'];

/** Five claims over three sources on three loopback hosts: a builder's claims before anyone said --allow-private. */
async function loopbackClaims() {
  const server = await serve(
    [
      { path: '/a', body: PAGE, headers: html },
      { path: '/b', body: PAGE, headers: html },
    ],
    ['127.0.0.1', '127.0.0.2', '127.0.0.3'],
  );
  const at = (host: string, path: string) => `http://${host}:${server.port}${path}`;
  const claims = [
    { id: 'c1', quote: 'approved the budget', url: at('127.0.0.1', '/a') },
    { id: 'c2', quote: 'not on the page', url: at('127.0.0.1', '/a') },
    { id: 'c3', quote: 'approved the budget', url: at('127.0.0.2', '/b') },
    { id: 'c4', quote: 'approved the budget', url: at('127.0.0.3', '/a') },
    { id: 'c5', quote: 'on Tuesday', url: at('127.0.0.3', '/a#frag') },
  ];
  return { server, claims };
}

describe('sources the network rule refused', () => {
  test('run ends with one line: how many sources and claims, two hosts named, and --allow-private', async () => {
    const { server, claims } = await loopbackClaims();
    const files = claimsRun(claims);
    const r = await runCliInProcess([
      'run',
      '--claims',
      files.claims,
      '--out',
      files.out,
      '--report',
      files.report,
      ...fast,
    ]);
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.includes('refused by the network rule'));
    expect(lines).toEqual([
      `quotecheck: warning: 3 sources (5 claims) refused by the network rule: 127.0.0.1:${server.port} and 127.0.0.2:${server.port}, ... are not global addresses ` +
        '(loopback or a private network), so those claims were answered no_match unread; pass --allow-private to reach private networks',
    ]);
    expect(server.hits('/a') + server.hits('/b')).toBe(0);
  });

  test('--quiet keeps it: it is why every answer is no_match', async () => {
    const { claims } = await loopbackClaims();
    const files = claimsRun(claims.slice(0, 2));
    const r = await runCliInProcess(['run', '--claims', files.claims, '--out', files.out, '--quiet', ...fast]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /warning: 1 source \(2 claims\) refused by the network rule: 127\.0\.0\.1:\d+ is not a global address .*--allow-private/,
    );
  });

  test('with --allow-private, or when sources fail otherwise, nothing is said of the rule', async () => {
    const { claims } = await loopbackClaims();
    const files = claimsRun(claims);
    const allowed = await runCliInProcess([
      'run',
      '--claims',
      files.claims,
      '--out',
      files.out,
      '--allow-private',
      ...fast,
    ]);
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).not.toMatch(/network rule/);
    const port = await closedPort();
    const dead = claimsRun([{ id: 'd', quote: 'q', url: `http://127.0.0.1:${port}/x` }]);
    const down = await runCliInProcess(['run', '--claims', dead.claims, '--out', dead.out, '--allow-private', ...fast]);
    expect(down.stderr).toMatch(/1 failed/);
    expect(down.stderr).not.toMatch(/network rule/);
  });

  test('the library counts them by the failure kind, and each report line says `fetch_error: refused`', async () => {
    const { claims } = await loopbackClaims();
    const run = await checkClaims(parseClaims(claims).entries, { retries: 0, wayback: 'off' });
    const summary = summarize(run);
    expect(summary.refused).toMatchObject({ sources: 3, claims: 5 });
    expect(summary.refused.hosts).toHaveLength(3);
    expect(refusedLine(summary)).toMatch(/^3 sources \(5 claims\) refused by the network rule/);
    for (const r of run.results)
      expect(toReportRecord(r)).toMatchObject({ diagnosis: 'fetch_failed', fetch_error: 'refused' });
    // A run that reached its sources has no such line.
    const allowed = await checkClaims(parseClaims(claims).entries, { retries: 0, wayback: 'off', allowPrivate: true });
    expect(summarize(allowed).refused).toEqual({ sources: 0, claims: 0, hosts: [] });
    expect(refusedLine(summarize(allowed))).toBeUndefined();
    expect(allowed.results.map((r) => toReportRecord(r).fetch_error)).toEqual([null, null, null, null, null]);
  });

  test('verify says so of its one source, by the same words', async () => {
    const { claims } = await loopbackClaims();
    const r = await runCliInProcess([
      'verify',
      '--url',
      claims[0]!.url,
      '--quote',
      'approved the budget',
      '--retries',
      '0',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/diagnosis: fetch_failed/);
    expect(r.stdout).toMatch(
      /refused: 127\.0\.0\.1 is loopback \(127\.0\.0\.0\/8\): not a global address; pass --allow-private/,
    );
  });
});
