// Judging claims as of their verify date: drift proof, Wayback captures (the loopback stub), the archive's etiquette.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import { checkClaims, type CheckOptions, type ClaimResult } from '../src/check.js';
import { parseClaims } from '../src/claims/schema.js';
import { parseAsOf, timestamp14ToIso, AsOfDateError } from '../src/asof/date.js';
import { parseCdxJson, cdxQueryUrl, CdxError } from '../src/wayback/cdx.js';
import { Pacer, PaceError } from '../src/wayback/pace.js';
import { normalize } from '../src/normalize.js';
import { toReportRecord, summarize, summaryLine } from '../src/output/evidence-report.js';
import { startWaybackStub, type RunningWayback } from '../src/wayback/stub/stub.js';
import { startFaultyStub, type WaybackFaults } from './support/wayback-faults.js';
import { claimsRun, runCliInProcess, serve, tempDir, writeJson } from './support/helpers.js';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Capture } from '../src/wayback/stub/captures.js';

const sha256 = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
const html = { 'content-type': 'text/html; charset=utf-8' };
const page = (body: string): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Budget</title></head><body><article><h1>Report</h1>${body}</article></body></html>`;

const THEN = page(
  '<p>The committee approved the budget on Tuesday after a long debate.</p><p>Members praised the new school lunch program.</p>',
);
const NOW = page(
  '<p>The committee approved a revised budget on Wednesday.</p><p>Members praised the new school lunch program.</p>',
);
const QUOTE_THEN = 'approved the budget on Tuesday after a long debate';

const fast: Partial<CheckOptions> = {
  timeoutMs: 2_000,
  retries: 1,
  backoffMinMs: 10,
  backoffMaxMs: 20,
  waybackPerMinute: 6000,
};

const archives: RunningWayback[] = [];
afterEach(async () => {
  while (archives.length) await archives.pop()!.close();
});

/** The stub on 127.0.0.4; with faults, behind the faulty proxy (test/support/wayback-faults.ts). */
async function archive(captures: Capture[], faults: WaybackFaults = {}): Promise<RunningWayback> {
  const opts = { captures, host: '127.0.0.4' };
  const w =
    Object.keys(faults).length > 0 ? await startFaultyStub({ ...opts, ...faults }) : await startWaybackStub(opts);
  archives.push(w);
  return w;
}

async function check(claims: Record<string, unknown>[], opts: Partial<CheckOptions>) {
  const run = await checkClaims(parseClaims(claims).entries, { allowPrivate: true, ...fast, ...opts });
  return { run, r: Object.fromEntries(run.results.map((x) => [x.id, x])) as Record<string, ClaimResult> };
}

describe('dates', () => {
  test('a date covers the whole UTC day; a date-time is one instant (UTC unless it says otherwise)', () => {
    expect(parseAsOf('2024-05-01')).toMatchObject({ end14: '20240501235959', after14: '20240502000000' });
    expect(parseAsOf('2024-12-31').after14).toBe('20250101000000');
    expect(parseAsOf('2024-05-01T12:30:00Z').end14).toBe('20240501123000');
    expect(parseAsOf('2024-05-01T12:30:00+02:00').end14).toBe('20240501103000');
    expect(parseAsOf('2024-05-01T12:30').end14).toBe('20240501123000');
    expect(timestamp14ToIso('20240309120000')).toBe('2024-03-09T12:00:00Z');
  });

  test.each(['2024-02-31', '2024-13-01', 'yesterday', '01/05/2024', '2024-05-01T25:00:00Z'])(
    '%s is refused with a message naming it',
    (bad) => {
      expect(() => parseAsOf(bad)).toThrow(AsOfDateError);
      expect(() => parseAsOf(bad)).toThrow(JSON.stringify(bad));
    },
  );
});

describe('the CDX answer', () => {
  test('the query asks for the last N status-200 captures up to the end of the date, as JSON', () => {
    const q = new URL(cdxQueryUrl('https://web.archive.org/', 'http://example.org/a?b=1', parseAsOf('2024-05-01'), 5));
    expect(q.origin + q.pathname).toBe('https://web.archive.org/cdx/search/cdx');
    expect(Object.fromEntries(q.searchParams)).toMatchObject({
      url: 'http://example.org/a?b=1',
      to: '20240501235959',
      filter: 'statuscode:200',
      output: 'json',
      limit: '-5',
    });
    const after = new URL(
      cdxQueryUrl('https://web.archive.org', 'http://example.org/', parseAsOf('2024-05-01'), 5, true),
    );
    expect(Object.fromEntries(after.searchParams)).toMatchObject({ from: '20240502000000', limit: '1' });
  });

  test('rows by the header row, newest first, non-200 rows dropped; [] is no captures; garbage is an error', () => {
    const body = JSON.stringify([
      ['original', 'timestamp', 'statuscode', 'digest'],
      ['http://x.org/', '20240101000000', '200', 'AAA'],
      ['http://x.org/', '20240301000000', '302', 'BBB'],
      ['http://x.org/', '20240201000000', '200', 'CCC'],
    ]);
    const rows = parseCdxJson(body, 'http://wb', false);
    expect(rows.map((r) => r.timestamp)).toEqual(['20240201000000', '20240101000000']);
    expect(rows[0]!.rawUrl).toBe('http://wb/web/20240201000000id_/http://x.org/');
    expect(parseCdxJson('[]', 'http://wb', false)).toEqual([]);
    expect(() => parseCdxJson('<html>busy</html>', 'http://wb', false)).toThrow(CdxError);
  });
});

describe('pacing', () => {
  test('slots are spaced evenly; a pause holds every later slot; a slot past the deadline is refused', async () => {
    // A clock moved by hand: each timer fires when the clock reaches it. A timer marked `early` fires with the wall
    // clock a millisecond short of its time, as a real one may (it counts from the event loop's time).
    let t = 1_000;
    const timers: { at: number; early: boolean; fire: () => void }[] = [];
    const sleeper =
      (early: () => boolean) =>
      (ms: number): Promise<void> =>
        new Promise<void>((fire) => timers.push({ at: t + ms, early: early(), fire }));
    const clock = { now: () => t, sleep: sleeper(() => false) };
    const granted: number[] = [];
    /** Fires the timers in time order until `n` slots are granted (at most 50 timers: a bug fails, never hangs). */
    const runUntil = async (n: number): Promise<void> => {
      for (let i = 0; i < 50 && granted.length < n; i++) {
        await new Promise(setImmediate);
        timers.sort((a, b) => a.at - b.at);
        const next = timers.shift();
        if (!next) continue;
        t = Math.max(t, next.at - (next.early ? 1 : 0));
        next.fire();
      }
      await new Promise(setImmediate);
    };
    const pacer = new Pacer(600, undefined, undefined, clock); // one every 100 ms
    for (let i = 0; i < 4; i++) void pacer.slot().then(() => granted.push(t));
    await runUntil(4);
    expect(granted).toEqual([1_000, 1_100, 1_200, 1_300]);
    pacer.pause(300);
    void pacer.slot().then(() => granted.push(t));
    await runUntil(5);
    expect(granted[4]).toBe(1_600);
    // Every first timer of a slot fires early: the rest is waited, so slots are never closer than 100 ms.
    let first = true;
    const early = new Pacer(600, undefined, undefined, {
      now: () => t,
      sleep: sleeper(() => {
        const was = first;
        first = !first;
        return was;
      }),
    });
    await early.slot();
    const start = t;
    void early.slot().then(() => granted.push(t));
    await runUntil(6);
    expect(granted[5]! - start).toBe(100);
    const late = new Pacer(60, t + 100, undefined, clock); // one a second, deadline in 0.1 s
    await late.slot();
    await expect(late.slot()).rejects.toThrow(PaceError);
  });
});

describe('drift proof', () => {
  test('evidence equal to the bytes, the extracted text or its normalized form is "same"; otherwise "changed"; none is "unknown"', async () => {
    const server = await serve([{ path: '/p', body: THEN, headers: html }]);
    const url = `${server.origin}/p`;
    // The extracted text as the full view gives it, and its normalized form.
    const { r: probe } = await check([{ id: 'x', quote: 'approved the budget', url }], { wayback: 'off' });
    expect(probe.x!.drift).toBe('unknown');
    const { run } = await check([{ id: 'x', quote: 'approved the budget', url }], { wayback: 'off' });
    const full = run.sources[0]!.text!.views.find((v) => v.name === 'full')!.text;
    const { r } = await check(
      [
        { id: 'bytes', quote: QUOTE_THEN, url, evidence: { sha256: sha256(THEN) } },
        { id: 'prefixed', quote: QUOTE_THEN, url, evidence: { sha256: `sha256:${sha256(THEN).toUpperCase()}` } },
        { id: 'text', quote: QUOTE_THEN, url, evidence: { sha256: sha256(full) } },
        { id: 'normalized', quote: QUOTE_THEN, url, evidence: { sha256: sha256(normalize(full)) } },
        { id: 'changed', quote: QUOTE_THEN, url, evidence: { sha256: sha256(NOW) } },
      ],
      { wayback: 'off' },
    );
    expect(r.bytes).toMatchObject({ drift: 'same', evidenceMatch: 'bytes', label: 'verbatim' });
    expect(r.prefixed).toMatchObject({ drift: 'same', evidenceMatch: 'bytes' });
    expect(r.text).toMatchObject({ drift: 'same', evidenceMatch: 'text' });
    expect(r.normalized).toMatchObject({ drift: 'same', evidenceMatch: 'normalized_text' });
    expect(r.changed).toMatchObject({ drift: 'changed', label: 'verbatim' });
    expect(toReportRecord(r.bytes!)).toMatchObject({
      drift: 'same',
      evidence_match: 'bytes',
      as_of: { source: 'live', proof: 'sha256', capture_url: null },
    });
  });

  test('a malformed evidence hash is a warning naming the claim, never a crash', () => {
    const set = parseClaims([
      { id: 'a', quote: 'q', url: 'http://127.0.0.1/', evidence: { sha256: 'xyz' } },
      { id: 'b', quote: 'q', url: 'http://127.0.0.1/', evidence: 'abc' },
    ]);
    expect(set.entries.map((e) => e.kind)).toEqual(['claim', 'claim']);
    expect(set.warnings.join('\n')).toMatch(/claim #1 \(id "a"\): field "evidence.sha256" ignored/);
    expect(set.warnings.join('\n')).toMatch(/claim #2 \(id "b"\): field "evidence" ignored/);
  });
});

describe('the Wayback Machine as of the date', () => {
  async function drifted(captures: (origin: string) => Capture[], opts: WaybackFaults = {}) {
    const server = await serve([
      { path: '/story', body: NOW, headers: html },
      { path: '/gone', status: 404, body: 'gone' },
    ]);
    const url = `${server.origin}/story`;
    const wb = await archive(captures(server.origin), opts);
    return { server, url, wb };
  }

  test('auto: a changed source whose quote is gone is judged on the capture that hashes to the evidence', async () => {
    const { url, wb } = await drifted((o) => [
      { url: `${o}/story`, timestamp: '20240430120000', body: THEN, headers: html },
      { url: `${o}/story`, timestamp: '20240430180000', status: 302, location: '/elsewhere' },
      { url: `${o}/story`, timestamp: '20240601000000', body: NOW, headers: html },
    ]);
    const { r, run } = await check(
      [
        { id: 'gone', quote: QUOTE_THEN, url, verify_date: '2024-05-01', evidence: { sha256: sha256(THEN) } },
        {
          id: 'still',
          quote: 'praised the new school lunch program',
          url,
          verify_date: '2024-05-01',
          evidence: { sha256: sha256(THEN) },
        },
        {
          id: 'fake',
          quote: 'the mayor resigned in protest over the vote',
          url,
          verify_date: '2024-05-01',
          evidence: { sha256: sha256(THEN) },
        },
      ],
      { wayback: 'auto', waybackUrl: wb.origin },
    );
    expect(r.gone).toMatchObject({
      label: 'verbatim',
      drift: 'changed',
      asOf: { source: 'wayback', proof: 'sha256', timestamp: '2024-04-30T12:00:00Z', date: '2024-05-01' },
    });
    expect(r.gone!.asOf!.captureUrl).toBe(`${wb.origin}/web/20240430120000id_/${url}`);
    expect(r.gone!.asOf!.sha256).toBe(sha256(THEN));
    expect(r.gone!.note).toMatch(
      /judged on the Wayback capture of 2024-04-30T12:00:00Z, whose bytes hash to the evidence/,
    );
    // The quote is still in today's text, but a sibling brought the proven capture: that decides it (docs/sources-change.md#which-text-decides).
    expect(r.still).toMatchObject({
      label: 'verbatim',
      drift: 'changed',
      asOf: { source: 'wayback', proof: 'sha256' },
    });
    expect(r.fake).toMatchObject({
      label: 'no_match',
      diagnosis: 'not_found',
      asOf: { source: 'wayback', proof: 'sha256' },
    });
    // One lookup for the URL and date however many claims need it.
    expect(run.wayback).toMatchObject({ lookups: 1, captures: 1 });
    expect(wb.requests.filter((q) => q.path.startsWith('/cdx/')).length).toBe(1);
  });

  test('off: the same claim is no_match with the diagnosis drifted, never not_found', async () => {
    const { url, wb } = await drifted((o) => [
      { url: `${o}/story`, timestamp: '20240430120000', body: THEN, headers: html },
    ]);
    const { r, run } = await check(
      [{ id: 'gone', quote: QUOTE_THEN, url, verify_date: '2024-05-01', evidence: { sha256: sha256(THEN) } }],
      {
        wayback: 'off',
        waybackUrl: wb.origin,
      },
    );
    expect(r.gone).toMatchObject({
      label: 'no_match',
      diagnosis: 'drifted',
      drift: 'changed',
      asOf: { source: 'live' },
    });
    expect(r.gone!.note).toMatch(
      /the source has changed since 2024-05-01 \(its sha256 differs from the evidence\) and no text as of that date could be had: captures were not looked up \(--wayback off\)/,
    );
    expect(r.gone!.note).toMatch(/today's text: not_found/);
    expect(wb.requests).toHaveLength(0);
    expect(summarize(run).sourcesDrifted).toBe(1);
    expect(summaryLine(summarize(run))).toMatch(/1 drifted/);
  });

  test('a page gone today (404) is judged on its capture; without any capture it is fetch_failed, not drifted (no bytes, no drift)', async () => {
    const { server, wb } = await drifted((o) => [
      { url: `${o}/gone`, timestamp: '20240430120000', body: THEN, headers: html },
    ]);
    const gone = `${server.origin}/gone`;
    const { r } = await check(
      [
        { id: 'a', quote: QUOTE_THEN, url: gone, verify_date: '2024-05-01', evidence: { sha256: sha256(THEN) } },
        {
          id: 'b',
          quote: QUOTE_THEN,
          url: `${server.origin}/never-archived`,
          verify_date: '2024-05-01',
          evidence: { sha256: sha256(THEN) },
        },
      ],
      { waybackUrl: wb.origin },
    );
    expect(r.a).toMatchObject({
      label: 'verbatim',
      drift: 'changed',
      httpStatus: 404,
      asOf: { source: 'wayback', proof: 'sha256' },
    });
    expect(r.b).toMatchObject({
      label: 'no_match',
      diagnosis: 'fetch_failed',
      drift: 'changed',
      fetchError: 'http_status',
    });
    expect(r.b!.note).toMatch(/^HTTP 404 .*; not drift: .*; no capture as of the date could be had: .*has no capture/);
  });

  test('the latest capture before the date does not hash to the evidence, an earlier one does: the earlier one is proof', async () => {
    const { url, wb } = await drifted((o) => [
      { url: `${o}/story`, timestamp: '20240401000000', body: THEN, headers: html },
      { url: `${o}/story`, timestamp: '20240420000000', body: NOW, headers: html },
    ]);
    const { r } = await check(
      [{ id: 'a', quote: QUOTE_THEN, url, verify_date: '2024-05-01', evidence: { sha256: sha256(THEN) } }],
      { waybackUrl: wb.origin },
    );
    expect(r.a).toMatchObject({ label: 'verbatim', asOf: { timestamp: '2024-04-01T00:00:00Z', proof: 'sha256' } });
  });

  test('no capture hashes to the evidence: the latest at or before the date decides, reported as nearest', async () => {
    const other = page(
      '<p>The committee approved the budget on Tuesday after a long debate.</p><aside>ad 7731</aside>',
    );
    const { url, wb } = await drifted((o) => [
      { url: `${o}/story`, timestamp: '20240301000000', body: NOW, headers: html },
      { url: `${o}/story`, timestamp: '20240415000000', body: other, headers: html },
      { url: `${o}/story`, timestamp: '20240505000000', body: NOW, headers: html },
    ]);
    const { r } = await check(
      [{ id: 'a', quote: QUOTE_THEN, url, verify_date: '2024-05-01', evidence: { sha256: sha256(THEN) } }],
      { waybackUrl: wb.origin },
    );
    expect(r.a).toMatchObject({ label: 'verbatim', asOf: { timestamp: '2024-04-15T00:00:00Z', proof: 'nearest' } });
    expect(r.a!.note).toMatch(/the latest at or before 2024-05-01; none of the nearest hashes to the evidence/);
  });

  test('no capture at or before the date: the earliest after it, with a note', async () => {
    const { url, wb } = await drifted((o) => [
      {
        url: `${o}/story`,
        timestamp: '20240510000000',
        body: page('<p>The committee approved the budget on Tuesday after a long debate.</p>'),
        headers: html,
      },
    ]);
    const { r } = await check(
      [{ id: 'a', quote: QUOTE_THEN, url, verify_date: '2024-05-01', evidence: { sha256: sha256(THEN) } }],
      { waybackUrl: wb.origin },
    );
    expect(r.a).toMatchObject({ label: 'verbatim', asOf: { timestamp: '2024-05-10T00:00:00Z', proof: 'nearest' } });
    expect(r.a!.note).toMatch(/the earliest after 2024-05-01: there is none at or before it/);
  });

  test("--as-of replaces every claim's date", async () => {
    const { url, wb } = await drifted((o) => [
      { url: `${o}/story`, timestamp: '20230101000000', body: THEN, headers: html },
      { url: `${o}/story`, timestamp: '20240101000000', body: NOW, headers: html },
    ]);
    const { r } = await check([{ id: 'a', quote: QUOTE_THEN, url, verify_date: '2024-05-01' }], {
      waybackUrl: wb.origin,
      wayback: 'always',
      asOf: '2023-06-30',
    });
    expect(r.a).toMatchObject({
      label: 'verbatim',
      asOf: { date: '2023-06-30', timestamp: '2023-01-01T00:00:00Z', proof: 'nearest' },
    });
  });

  test('auto never looks up claims without evidence; always does, for quotes not found live', async () => {
    const { server, url, wb } = await drifted((o) => [
      { url: `${o}/story`, timestamp: '20240430120000', body: THEN, headers: html },
      { url: `${o}/gone`, timestamp: '20240430120000', body: THEN, headers: html },
    ]);
    const claims = [
      { id: 'a', quote: QUOTE_THEN, url, verify_date: '2024-05-01' },
      { id: 'live', quote: 'praised the new school lunch program', url, verify_date: '2024-05-01' },
      { id: 'gone', quote: QUOTE_THEN, url: `${server.origin}/gone`, verify_date: '2024-05-01' },
    ];
    const auto = await check(claims, { waybackUrl: wb.origin, wayback: 'auto' });
    expect(auto.r.a).toMatchObject({ label: 'no_match', diagnosis: 'not_found', drift: 'unknown' });
    expect(auto.r.gone).toMatchObject({ label: 'no_match', diagnosis: 'fetch_failed', drift: 'unknown' });
    expect(wb.requests).toHaveLength(0);
    const always = await check(claims, { waybackUrl: wb.origin, wayback: 'always' });
    expect(always.r.a).toMatchObject({
      label: 'verbatim',
      drift: 'unknown',
      asOf: { source: 'wayback', proof: 'nearest' },
    });
    expect(always.r.live).toMatchObject({ label: 'verbatim', asOf: { source: 'live' } });
    // A source gone today (404) without evidence: its capture decides.
    expect(always.r.gone).toMatchObject({
      label: 'verbatim',
      drift: 'unknown',
      httpStatus: 404,
      asOf: { source: 'wayback', proof: 'nearest' },
    });
    expect(always.r.gone!.note).toMatch(/the live fetch failed: HTTP 404/);
    expect(always.run.wayback!.lookups).toBe(2);
  });
});

describe('etiquette', () => {
  const setup = async (opts: WaybackFaults) => {
    const server = await serve([{ path: '/story', body: NOW, headers: html }]);
    const url = `${server.origin}/story`;
    const wb = await archive([{ url, timestamp: '20240430120000', body: THEN, headers: html }], opts);
    const claims = [{ id: 'a', quote: QUOTE_THEN, url, verify_date: '2024-05-01', evidence: { sha256: sha256(THEN) } }];
    return { wb, claims };
  };

  test('requests are paced at the configured rate', async () => {
    const { wb, claims } = await setup({});
    const t0 = Date.now();
    const { r } = await check(claims, { waybackUrl: wb.origin, waybackPerMinute: 30 });
    expect(r.a!.label).toBe('verbatim');
    const at = wb.requests.map((q) => q.at);
    expect(at.length).toBe(2);
    // One every 2 s: the first slot is at once (at or after t0), the second a whole interval after it, on the same
    // wall clock the server stamps arrivals with, so the second arrives 2 s after t0 at the earliest, however busy the
    // machine; back to back, both would arrive within milliseconds. The spacing itself is the pacer's, tested on a
    // clock moved by hand above. No upper bound: a busy machine only makes it later.
    expect(at[1]! - t0).toBeGreaterThanOrEqual(2_000);
    expect(at[1]!).toBeGreaterThanOrEqual(at[0]!);
  });

  test('a 429 with Retry-After is waited out, then the lookup succeeds', async () => {
    const { wb, claims } = await setup({ fail429: { count: 1, retryAfter: '1' } });
    const t0 = Date.now();
    const { r, run } = await check(claims, { waybackUrl: wb.origin });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(r.a!.label).toBe('verbatim');
    expect(run.wayback).toMatchObject({ rateLimited: 1 });
  });

  test('repeated 429s: the archive is left alone for the rest of the run, and the report says so', async () => {
    const { wb, claims } = await setup({ fail429: { count: 100, retryAfter: '0' } });
    const { r, run } = await check(claims, { waybackUrl: wb.origin });
    expect(r.a).toMatchObject({ label: 'no_match', diagnosis: 'drifted' });
    expect(r.a!.note).toMatch(/left alone for the rest of the run after 3 rate-limit answers/);
    expect(run.wayback!.abandoned).toMatch(/3 rate-limit answers/);
    expect(wb.requests).toHaveLength(3);
  });

  test('a Retry-After longer than the longest wait, or one past the deadline, ends the lookups at once', async () => {
    // Waiting would take an hour, or a minute past a two-second deadline: not waiting is anything well under that.
    const { wb, claims } = await setup({ fail429: { count: 100, retryAfter: '3600' } });
    const t0 = Date.now();
    const { r } = await check(claims, { waybackUrl: wb.origin });
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.a!.note).toMatch(/asked to wait 3600 s/);
    const second = await setup({ fail429: { count: 100, retryAfter: '60' } });
    const t1 = Date.now();
    const late = await check(second.claims, { waybackUrl: second.wb.origin, deadlineAt: Date.now() + 2_000 });
    expect(Date.now() - t1).toBeLessThan(20_000);
    expect(late.r.a!.note).toMatch(/past the deadline/);
  });

  test('an archive that keeps failing (503) is left alone too', async () => {
    const { wb, claims } = await setup({ down: true });
    const { r } = await check(claims, { waybackUrl: wb.origin });
    expect(r.a).toMatchObject({ label: 'no_match', diagnosis: 'drifted' });
    expect(r.a!.note).toMatch(/failed requests in a row/);
  });
});

describe('the CLI', () => {
  test('a bad --as-of or --wayback-url is one line and exit 2, before any fetch', async () => {
    const server = await serve([{ path: '/story', body: NOW, headers: html }]);
    const { claims, out } = claimsRun([{ id: 'a', quote: 'q', url: `${server.origin}/story` }]);
    const bad = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      claims,
      '--out',
      out,
      '--as-of',
      '2024-02-30',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--as-of: "2024-02-30" is not a calendar date/);
    const url = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      claims,
      '--out',
      out,
      '--wayback-url',
      'ftp://archive',
    ]);
    expect(url.code).toBe(2);
    expect(url.stderr.trim().split('\n')).toHaveLength(1);
    expect(url.stderr).toMatch(/--wayback-url: "ftp:\/\/archive" is not an http\(s\) URL/);
    expect(server.hits('/story')).toBe(0);
  });

  test('run writes drift and as_of in the report and counts drifted sources in its summary', async () => {
    const server = await serve([{ path: '/story', body: NOW, headers: html }]);
    const url = `${server.origin}/story`;
    const wb = await archive([{ url, timestamp: '20240430120000', body: THEN, headers: html }]);
    const dir = tempDir();
    const claims = writeJson(join(dir, 'claims.json'), [
      { id: 'a', quote: QUOTE_THEN, url, verify_date: '2024-05-01', evidence: { sha256: sha256(THEN) } },
    ]);
    const res = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      claims,
      '--out',
      join(dir, 'answers.json'),
      '--report',
      join(dir, 'r.jsonl'),
      '--wayback-url',
      wb.origin,
      '--wayback-rate',
      '6000',
    ]);
    expect(res.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8'))).toEqual({ a: 'verbatim' });
    const row = JSON.parse(readFileSync(join(dir, 'r.jsonl'), 'utf8'));
    expect(row).toMatchObject({
      drift: 'changed',
      evidence_match: null,
      as_of: { source: 'wayback', proof: 'sha256', date: '2024-05-01' },
    });
    expect(res.stderr).toMatch(/1 drifted; wayback 1 lookup, 2 requests, 1 claim judged on captures/);
  });

  test('run --record, then --replay with the server gone: the same answers; a URL the archive lacks is fetch_failed, "not in the archive"', async () => {
    const server = await serve([
      { path: '/story', body: THEN, headers: html },
      { path: '/other', body: NOW, headers: html },
    ]);
    const dir = tempDir();
    const warc = join(dir, 'run.warc.gz');
    const recorded = writeJson(join(dir, 'recorded.json'), [
      { id: 'a', quote: QUOTE_THEN, url: `${server.origin}/story` },
    ]);
    const rec = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      recorded,
      '--out',
      join(dir, 'a.json'),
      '--record',
      warc,
    ]);
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stderr).toMatch(/WARC records\)/);
    await server.close();
    const both = writeJson(join(dir, 'both.json'), [
      { id: 'a', quote: QUOTE_THEN, url: `${server.origin}/story` },
      { id: 'b', quote: 'praised', url: `${server.origin}/other` },
    ]);
    const replay = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      both,
      '--out',
      join(dir, 'b.json'),
      '--report',
      join(dir, 'b.jsonl'),
      '--replay',
      warc,
    ]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'b.json'), 'utf8'))).toEqual({ a: 'verbatim', b: 'no_match' });
    const rows = readFileSync(join(dir, 'b.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .sort((x, y) => x.id.localeCompare(y.id));
    expect(rows[0]).toMatchObject({ id: 'a', as_of: { source: 'replay' } });
    expect(rows[1]).toMatchObject({ id: 'b', diagnosis: 'fetch_failed' });
    expect(rows[1].note).toMatch(/not in the archive \(replaying .*run\.warc\.gz\)/);
    // A missing archive is one line and exit 2, before any fetch; so is asking to record a replay.
    const bad = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      both,
      '--out',
      join(dir, 'c.json'),
      '--replay',
      join(dir, 'missing.warc.gz'),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/cannot read the archive .*missing\.warc\.gz: no such file or folder/);
    const both2 = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      both,
      '--out',
      join(dir, 'c.json'),
      '--record',
      join(dir, 'x.warc.gz'),
      '--replay',
      warc,
    ]);
    expect(both2.code).toBe(2);
    expect(both2.stderr.trim().split('\n')).toHaveLength(1);
    expect(both2.stderr).toMatch(/--record and --replay cannot be used together/);
  });

  test('verify --as-of with --wayback always judges one quote on the capture nearest the date, and says so', async () => {
    const server = await serve([{ path: '/story', body: NOW, headers: html }]);
    const url = `${server.origin}/story`;
    const wb = await archive([{ url, timestamp: '20240430120000', body: THEN, headers: html }]);
    const res = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      url,
      '--quote',
      QUOTE_THEN,
      '--as-of',
      '2024-05-01',
      '--wayback',
      'always',
      '--wayback-url',
      wb.origin,
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^verbatim/);
    expect(res.stdout).toContain(
      `as of 2024-05-01: the Wayback capture of 2024-04-30T12:00:00Z (${wb.origin}/web/20240430120000id_/${url}), the nearest to the date`,
    );
    const today = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      url,
      '--quote',
      QUOTE_THEN,
      '--wayback-url',
      wb.origin,
    ]);
    expect(today.code).toBe(1);
  });
});
