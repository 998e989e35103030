// A source that could not be read is not drift: with evidence, a failed live fetch is diagnosed as what happened, and a refused one is never looked up in the archive.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { checkClaims, type CheckOptions, type ClaimResult } from '../../src/check.js';
import { parseClaims } from '../../src/claims/schema.js';
import { summarize, summaryLine } from '../../src/output/evidence-report.js';
import { verifyQuote } from '../../src/verify.js';
import { startWaybackStub, type RunningWayback } from '../../src/wayback/stub/stub.js';
import { EVIDENCE, NOW, QUOTE, THEN, html, sha256 } from '../support/budget-pages.js';
import { CLI, afterTest, claimsRun, runCliInProcess, serve, closedPort } from '../support/helpers.js';

const fast: Partial<CheckOptions> = { timeoutMs: 1_000, retries: 0, sourceBudgetMs: 3_000, waybackPerMinute: 6000 };

/** A loopback Wayback Machine with one capture of a page no claim cites: every lookup of the sources below finds none. */
async function emptyArchive(): Promise<RunningWayback> {
  const wb = await startWaybackStub({
    captures: [{ url: 'http://127.0.0.9/other', timestamp: '20240101000000', body: THEN, headers: html }],
    host: '127.0.0.4',
  });
  afterTest(() => wb.close());
  return wb;
}

/** Sources that fail in every way a fetch can, and one read whose bytes changed. */
async function sources() {
  const server = await serve([
    { path: '/changed', body: NOW, headers: html },
    { path: '/gone', status: 404, body: 'not here', headers: { 'content-type': 'text/plain' } },
    { path: '/removed', status: 410, body: 'gone', headers: { 'content-type': 'text/plain' } },
    { path: '/failing', status: 503, body: 'down', headers: { 'content-type': 'text/plain' } },
    {
      path: '/login',
      status: 401,
      body: '<html><head><title>Sign in</title></head><body><form><input type="password" name="password"></form></body></html>',
      headers: html,
    },
    { path: '/hang', hang: true },
  ]);
  const port = await closedPort();
  const o = server.origin;
  return {
    server,
    urls: {
      changed: `${o}/changed`,
      gone: `${o}/gone`,
      removed: `${o}/removed`,
      failing: `${o}/failing`,
      login: `${o}/login`,
      timeout: `${o}/hang`,
      closed: `http://127.0.0.1:${port}/x`,
      tls: `https://127.0.0.1:${server.port}/changed`,
      dns: 'http://quotecheck-test.invalid/x',
    },
  };
}

async function check(claims: Record<string, unknown>[], opts: Partial<CheckOptions>) {
  const run = await checkClaims(parseClaims(claims).entries, { ...fast, ...opts });
  return { run, r: Object.fromEntries(run.results.map((x) => [x.id, x])) as Record<string, ClaimResult> };
}

describe('a live fetch that failed, with evidence', () => {
  test('every kind of failure is diagnosed as what happened, its drift still `changed`, its note naming the failure and the lookup', async () => {
    const { urls } = await sources();
    const wb = await emptyArchive();
    const ids = ['gone', 'removed', 'failing', 'timeout', 'closed', 'tls', 'dns'] as const;
    const { r, run } = await check(
      [...ids, 'changed' as const].map((id) => ({ id, quote: QUOTE, url: urls[id], ...EVIDENCE })),
      { allowPrivate: true, waybackUrl: wb.origin },
    );
    const kinds = {
      gone: 'http_status',
      removed: 'http_status',
      failing: 'http_status',
      timeout: 'timeout',
      closed: 'connection',
      tls: 'tls',
      dns: 'dns',
    };
    for (const id of ids) {
      expect(r[id], id).toMatchObject({
        label: 'no_match',
        diagnosis: 'fetch_failed',
        drift: 'changed',
        fetchError: kinds[id],
      });
      expect(r[id]!.note, id).toMatch(
        /; not drift: the source could not be read, so no bytes were compared with the evidence; no capture as of the date could be had: the Wayback Machine has no capture of /,
      );
      expect(r[id]!.note, id).not.toMatch(/has changed|proves nothing/);
    }
    expect(r.gone!.note).toMatch(/^HTTP 404/);
    expect(r.closed!.note).toMatch(/^connection failed: .*ECONNREFUSED/);
    expect(r.dns!.note).toMatch(/^DNS lookup failed for quotecheck-test\.invalid/);
    expect(r.tls!.note).toMatch(/^TLS failure: /);
    // Bytes that were read and hash otherwise are drift, as before.
    expect(r.changed).toMatchObject({ diagnosis: 'drifted', drift: 'changed' });
    expect(r.changed!.note).toMatch(/the source has changed since 2024-05-01 \(its sha256 differs from the evidence\)/);
    // The summary counts one drifted source: the one read.
    expect(summarize(run).sourcesDrifted).toBe(1);
    expect(summaryLine(summarize(run))).toMatch(/1 fetched, 7 failed, 1 drifted;/);
  }, 30_000);

  test('a login wall answering 401 is a paywall, not drift', async () => {
    const { urls } = await sources();
    const wb = await emptyArchive();
    const { r } = await check([{ id: 'login', quote: QUOTE, url: urls.login, ...EVIDENCE }], {
      allowPrivate: true,
      waybackUrl: wb.origin,
    });
    expect(r.login).toMatchObject({ diagnosis: 'paywall', drift: 'changed', fetchError: 'http_status' });
    expect(r.login!.note).toMatch(/login wall.*; not drift: /);
  });

  test('with --wayback off the note says no capture was looked up', async () => {
    const { urls } = await sources();
    const { r } = await check([{ id: 'gone', quote: QUOTE, url: urls.gone, ...EVIDENCE }], {
      allowPrivate: true,
      wayback: 'off',
    });
    expect(r.gone).toMatchObject({ diagnosis: 'fetch_failed', drift: 'changed' });
    expect(r.gone!.note).toBe(
      'HTTP 404 Not Found; not drift: the source could not be read, so no bytes were compared with the evidence; captures were not looked up (--wayback off)',
    );
  });
});

describe('a source the network rule refused', () => {
  test('is never looked up in the archive (a private address no public archive holds), and the note says so', async () => {
    const { server, urls } = await sources();
    const wb = await emptyArchive();
    for (const wayback of ['auto', 'always', 'strict'] as const) {
      const { r, run } = await check(
        [
          { id: 'ev', quote: QUOTE, url: urls.changed, ...EVIDENCE },
          { id: 'bare', quote: QUOTE, url: urls.gone },
        ],
        { waybackUrl: wb.origin, wayback },
      );
      expect(r.ev, wayback).toMatchObject({ diagnosis: 'fetch_failed', drift: 'changed', fetchError: 'refused' });
      expect(r.ev!.note).toMatch(
        /^refused: 127\.0\.0\.1 is loopback .*--allow-private to reach private networks; not drift: .*; the Wayback Machine was not asked: the network rule refused the address/,
      );
      // Without evidence, auto would not ask anyway; always and strict would, and say why they did not.
      expect(r.bare!.note, wayback).toMatch(
        wayback === 'auto'
          ? /^refused: [^;]*; pass --allow-private to reach private networks$/
          : /the Wayback Machine was not asked/,
      );
      expect(run.wayback?.lookups ?? 0, wayback).toBe(0);
    }
    expect(wb.requests).toHaveLength(0);
    expect(server.hits('/changed') + server.hits('/gone')).toBe(0);
  });

  test('verify, its library call and the MCP verify_quote tool go the same way', async () => {
    const { urls } = await sources();
    const wb = await emptyArchive();
    const cli = await runCliInProcess([
      'verify',
      '--url',
      urls.changed,
      '--quote',
      QUOTE,
      '--as-of',
      '2024-05-01',
      '--evidence',
      sha256(THEN),
      '--wayback-url',
      wb.origin,
      '--retries',
      '0',
    ]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/diagnosis: fetch_failed/);
    expect(cli.stdout).toMatch(/the Wayback Machine was not asked/);
    const lib = await verifyQuote(urls.changed, QUOTE, {
      ...fast,
      asOf: '2024-05-01',
      evidence: sha256(THEN),
      waybackUrl: wb.origin,
    });
    expect(lib).toMatchObject({ diagnosis: 'fetch_failed', drift: 'changed', fetch_error: 'refused' });
    // The MCP server answers a refusal as a tool error, evidence or not (before, with evidence it was a `drifted` no_match).
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--retries', '0', '--wayback-url', wb.origin],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'quotecheck-test', version: '1.0.0' });
    await client.connect(transport);
    afterTest(() => client.close());
    const v = (await client.callTool({
      name: 'verify_quote',
      arguments: { url: urls.changed, quote: QUOTE, as_of: '2024-05-01', evidence: sha256(THEN) },
    })) as CallToolResult;
    expect(v.isError).toBe(true);
    expect((v.content[0] as { text: string }).text).toMatch(/^refused: 127\.0\.0\.1 is loopback .*--allow-private/);
    expect(wb.requests).toHaveLength(0);
  }, 30_000);
});

describe('replay', () => {
  test('a source recorded as 404 replays as fetch_failed, and one never recorded as not in the archive, neither as drift', async () => {
    const { urls } = await sources();
    const wb = await emptyArchive();
    const files = claimsRun([{ id: 'gone', quote: QUOTE, url: urls.gone, ...EVIDENCE }]);
    const warc = join(files.dir, 'run.warc.gz');
    const rec = await runCliInProcess([
      'run',
      '--claims',
      files.claims,
      '--out',
      files.out,
      '--allow-private',
      '--retries',
      '0',
      '--wayback-url',
      wb.origin,
      '--record',
      warc,
    ]);
    expect(rec.code).toBe(0);
    const again = claimsRun([
      { id: 'gone', quote: QUOTE, url: urls.gone, ...EVIDENCE },
      { id: 'never', quote: QUOTE, url: urls.removed, ...EVIDENCE },
    ]);
    const rep = await runCliInProcess([
      'run',
      '--claims',
      again.claims,
      '--out',
      again.out,
      '--report',
      again.report,
      '--replay',
      warc,
      '--quiet',
    ]);
    expect(rep.code).toBe(0);
    const lines = readFileSync(again.report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const byId = Object.fromEntries(lines.map((l) => [l.id, l]));
    expect(byId.gone).toMatchObject({
      diagnosis: 'fetch_failed',
      drift: 'changed',
      fetch_error: 'http_status',
      http_status: 404,
    });
    expect(byId.gone!.note).toMatch(/^HTTP 404.*; not drift: .*no capture as of the date could be had/);
    expect(byId.never).toMatchObject({ diagnosis: 'fetch_failed', drift: 'changed', fetch_error: 'not_archived' });
    expect(rep.stderr).not.toMatch(/drifted/);
  }, 30_000);
});
