// evaluate names the real cause when sources could not be read: per cause, across tasks, with evidence; never the archive, never "drifted".
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runEvaluation } from '../src/evaluate/evaluate.js';
import { archiveFailure, sourcesAdvice, sourcesFailure, unreadLine, unreadSources } from '../src/results/failures.js';
import { evaluationTable } from '../src/results/report-files.js';
import { startWaybackStub } from '../src/wayback/stub/stub.js';
import { makeTask } from './support/harbor-helpers.js';
import { EVIDENCE, NOW, QUOTE, THEN, html } from './support/budget-pages.js';
import { afterTest, serve, tempDir, closedPort } from './support/helpers.js';
import type { ClaimRow } from '../src/results/evaluation-report.js';

type LabelledClaim = {
  id: string;
  quote: string;
  url: string;
  gold: string;
  verify_date?: string;
  evidence?: { sha256: string };
};

/**
 * A task as makeTask writes it, its oracle's run told `args` instead (--allow-private or not, the archive to ask): what a
 * builder's export writes into solve.sh. Fails loudly if solve.sh no longer has the run line it rewrites.
 */
function task(root: string, name: string, claims: LabelledClaim[], args: string[]): void {
  const dir = makeTask(root, name, claims);
  const solve = join(dir, 'solution', 'solve.sh');
  const text = readFileSync(solve, 'utf8');
  const rewritten = text.replace(/"\$@"[^;\n]*;/, `"$@" ${args.join(' ')};`);
  expect(rewritten, 'solve.sh has its run line').not.toBe(text);
  writeFileSync(solve, rewritten);
}

/** A loopback Wayback Machine holding nothing the claims cite: every lookup finds no capture. */
async function emptyArchive(): Promise<string> {
  const wb = await startWaybackStub({
    captures: [{ url: 'http://127.0.0.9/other', timestamp: '20240101000000', body: THEN, headers: html }],
    host: '127.0.0.4',
  });
  afterTest(() => wb.close());
  return wb.origin;
}

/**
 * Five tasks, every claim with evidence: one over loopback exported without --allow-private, one whose server is
 * down, one of pages gone (404, 410), one with both, and one that was read (a source changed, one the same).
 */
async function builderDataset(archive: string) {
  const server = await serve([
    { path: '/same', body: THEN, headers: html },
    { path: '/changed', body: NOW, headers: html },
    { path: '/gone', status: 404, body: 'not here', headers: { 'content-type': 'text/plain' } },
    { path: '/removed', status: 410, body: 'gone', headers: { 'content-type': 'text/plain' } },
  ]);
  const down = await closedPort();
  const o = server.origin;
  const claim = (id: string, url: string, gold = 'no_match'): LabelledClaim => ({
    id,
    quote: QUOTE,
    url,
    gold,
    ...EVIDENCE,
  });
  const fast = ['--retries', '0', '--timeout', '5', '--wayback-url', archive, '--wayback-rate', '6000'];
  const dir = tempDir();
  task(dir, 'private', [claim('p-1', `${o}/same`, 'verbatim'), claim('p-2', `${o}/changed`)], fast);
  task(
    dir,
    'down',
    [claim('d-1', `http://127.0.0.1:${down}/a`), claim('d-2', `http://127.0.0.1:${down}/b`)],
    ['--allow-private', ...fast],
  );
  task(dir, 'gone', [claim('g-1', `${o}/gone`), claim('g-2', `${o}/removed`)], ['--allow-private', ...fast]);
  task(
    dir,
    'mixed',
    [claim('m-1', `${o}/gone#top`), claim('m-2', `http://127.0.0.1:${down}/c`)],
    ['--allow-private', ...fast],
  );
  task(
    dir,
    'read',
    [claim('r-1', `${o}/same`, 'verbatim'), claim('r-2', `${o}/changed`)],
    ['--allow-private', ...fast],
  );
  return { dir, o, down };
}

describe('a dataset whose sources fail for different reasons, with evidence', () => {
  test('evaluate names each cause first, with what to check for it, and never the archive', async () => {
    const { dir, o, down } = await builderDataset(await emptyArchive());
    const report = await runEvaluation({ tasksDir: dir, agent: 'oracle', outDir: tempDir(), isolation: 'paths' });
    const byTask = Object.fromEntries(report.tasks.map((t) => [t.task, t]));
    // The oracle never read task private's verbatim claim: it is the one claim the refusal cost.
    for (const t of report.tasks) expect(t.reward, t.task).toBe(t.task === 'private' ? 0.5 : 1);
    // Nothing that could not be read is drifted: the diagnoses say what happened.
    expect(report.diagnoses.drifted).toBe(1);
    expect(byTask.read!.rows.find((r) => r.id === 'r-2')).toMatchObject({ diagnosis: 'drifted', drift: 'changed' });
    for (const t of ['private', 'down', 'gone', 'mixed'])
      for (const row of byTask[t]!.rows)
        expect(row, `${t}/${row.id}`).toMatchObject({ diagnosis: 'fetch_failed', drift: 'changed' });
    expect(byTask.private!.problems).toEqual([
      expect.stringMatching(/^every source failed \(2 sources on 127\.0\.0\.1:\d+: refused by the network rule\)$/),
    ]);
    expect(byTask.gone!.problems).toEqual([
      expect.stringMatching(/^every source failed \(2 sources on 127\.0\.0\.1:\d+: HTTP 404, 410\)$/),
    ]);
    expect(byTask.mixed!.problems).toEqual([
      expect.stringMatching(/: (HTTP 404; connection refused or dropped|connection refused or dropped; HTTP 404)\)$/),
    ]);
    expect(byTask.read!.problems).toEqual([]);

    const [lead, ...causes] = report.advice;
    expect(lead).toBe(
      'every source failed in 4 of 5 tasks (down, gone, mixed, private), so their no_match answers say nothing about the quotes; 3 causes, most sources first:',
    );
    expect(causes).toHaveLength(3);
    const line = (re: RegExp) => causes.find((c) => re.test(c)) ?? '';
    expect(line(/refused by the network rule/)).toMatch(
      /^2 sources refused by the network rule \(task private\): refused: 127\.0\.0\.1 is loopback .*\. Check: they are on a private network \(127\.0\.0\.1:\d+\), which quotecheck refuses unless told: export the dataset with --allow-private/,
    );
    expect(line(/connection refused or dropped/)).toMatch(
      new RegExp(
        `^3 sources with the connection refused or dropped \\(tasks down, mixed\\): connection failed: .*ECONNREFUSED.*Check: they are on loopback \\(127\\.0\\.0\\.1:${down}\\): is the server that serves them running, on that port\\?$`,
      ),
    );
    // The server answered: the advice does not ask whether it is running (issue 33, item 7).
    const http = line(/HTTP error/);
    expect(http).toMatch(
      /^3 sources that answered an HTTP error \(tasks gone, mixed\): HTTP 404 Not Found\. Check: the sources answered HTTP 404, 410: their claims are right as no_match labels only if those pages are meant to be gone; otherwise fix the URLs or what serves them$/,
    );
    expect(http).not.toMatch(/running/);
    for (const a of report.advice) expect(a).not.toMatch(/archive|Wayback|judged on today/);

    // Drift counts only what was read; the sources that could not be read are counted and named apart.
    expect(report.drifted_sources).toBe(1);
    expect(report.unread_sources!.map((s) => s.url).sort()).toEqual(
      [
        `${o}/same`,
        `${o}/changed`,
        `http://127.0.0.1:${down}/a`,
        `http://127.0.0.1:${down}/b`,
        `${o}/gone`,
        `${o}/removed`,
        `http://127.0.0.1:${down}/c`,
      ].sort(),
    );
    const text = evaluationTable(report);
    expect(text).toMatch(
      /^drifted sources: 1 \(read, and their live bytes no longer hash to the evidence\); claims judged on Wayback captures: 0$/m,
    );
    const unread = text.split('\n').find((l) => l.startsWith('sources that could not be read'));
    expect(unread).toMatch(
      /^sources that could not be read \(no bytes, so not drift\): 7; 3 with the connection refused or dropped: /,
    );
    expect(unread).toMatch(
      /; 2 refused by the network rule: http:\/\/127\.0\.0\.1:\d+\/same, http:\/\/127\.0\.0\.1:\d+\/changed(;|$)/,
    );
    expect(unread).toMatch(
      /; 2 that answered an HTTP error: http:\/\/127\.0\.0\.1:\d+\/gone \(HTTP 404\), http:\/\/127\.0\.0\.1:\d+\/removed \(HTTP 410\)(;|$)/,
    );
  }, 60_000);

  test('when the archive is down too, a task whose sources could not be read is blamed on its sources, and only a read source on the archive', async () => {
    const dead = `http://127.0.0.4:${await closedPort()}`;
    const { dir } = await builderDataset(dead);
    const report = await runEvaluation({ tasksDir: dir, agent: 'oracle', outDir: tempDir(), isolation: 'paths' });
    const archiveLines = report.advice.filter((a) => /archive/.test(a) && !/replayed archive/.test(a));
    // Only task read had a source that was read, had changed and needed a capture: one claim, judged on today's changed text.
    expect(archiveLines).toEqual([
      expect.stringMatching(
        /^every archive request failed in 1 of 5 tasks \(read\), so the claim that needed a Wayback capture was judged on today's changed text: .*Check: is the archive solve\.sh names \(--wayback-url http:\/\/127\.0\.0\.4:\d+\) reachable\?/,
      ),
    ]);
    expect(report.advice[0]).toMatch(/^every source failed in 4 of 5 tasks/);
    expect(report.drifted_sources).toBe(1);
  }, 60_000);
});

describe('one task, one deliberate 404', () => {
  test('the advice says the source answered, and does not ask whether the server is running', async () => {
    const server = await serve([
      { path: '/gone', status: 404, body: 'not here', headers: { 'content-type': 'text/plain' } },
    ]);
    const dir = tempDir();
    makeTask(dir, 'gone', [{ id: 'g', quote: QUOTE, url: `${server.origin}/gone`, gold: 'no_match' }]);
    const report = await runEvaluation({ tasksDir: dir, agent: 'oracle', outDir: tempDir(), isolation: 'paths' });
    expect(report.advice).toEqual([
      'every source failed in task gone, so its no_match answers say nothing about the quotes: HTTP 404 Not Found. Check: the sources answered HTTP 404: ' +
        'their claims are right as no_match labels only if those pages are meant to be gone; otherwise fix the URLs or what serves them',
    ]);
  }, 30_000);
});

/** A failed claim's row as evaluate keeps it from an evidence report. */
const row = (url: string, note: string, extra: Partial<ClaimRow> = {}): ClaimRow => ({
  id: url,
  quote: 'q',
  url,
  gold: 'no_match',
  correct: true,
  diagnosis: 'fetch_failed',
  note,
  ...extra,
});

describe('every cause has its own question', () => {
  const cases: [string, ClaimRow, RegExp][] = [
    [
      'dns',
      row('http://news.invalid/a', 'DNS lookup failed for news.invalid (ENOTFOUND)', { fetchError: 'dns' }),
      /Check: does news\.invalid resolve here\? \(DNS, \/etc\/hosts/,
    ],
    [
      'timeout',
      row('http://10.0.0.7/a', 'timed out after 30 s (after 4 attempts)', { fetchError: 'timeout' }),
      /Check: 10\.0\.0\.7 .*did not answer in time/,
    ],
    [
      'tls',
      row('https://example.test/a', 'TLS failure: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)', {
        fetchError: 'tls',
      }),
      /Check: does example\.test present a certificate valid/,
    ],
    [
      '5xx',
      row('http://127.0.0.1:9/a', 'HTTP 503 Service Unavailable (after 4 attempts)', {
        fetchError: 'http_status',
        httpStatus: 503,
      }),
      /Check: the sources answered HTTP 503 \(a 5xx through every retry: is the server failing\?\)/,
    ],
    [
      'connection, remote',
      row('http://192.0.2.1/a', 'connection failed: other side closed (UND_ERR_SOCKET)', { fetchError: 'connection' }),
      /Check: is the server up, and can this machine reach 192\.0\.2\.1\?/,
    ],
    [
      'replay',
      row('http://127.0.0.1:9/a', 'not in the archive (replaying run.warc.gz)', { fetchError: 'not_archived' }),
      /Check: do the sources appear in the archive run\.warc\.gz\?/,
    ],
    [
      'other',
      row('http://127.0.0.1:9/a', 'body larger than the 50 MB cap (content-length)', { fetchError: 'too_large' }),
      /Check: each claim's note in the agent's evidence report/,
    ],
  ];
  test.each(cases)('%s', (_name, r, check) => {
    const failed = sourcesFailure([r])!;
    const advice = sourcesAdvice([{ task: 't', sourcesFailed: failed }], 1, { replay: 'run.warc.gz' });
    expect(advice).toHaveLength(1);
    expect(advice[0]).toMatch(check);
    expect(advice[0]).toContain(`: ${r.note}. Check: `);
    expect(advice[0]).not.toMatch(/archive request|Wayback/);
  });

  test('a report written before fetch_error is classified from its notes, the network rule by its own words', () => {
    const rows = [
      row(
        'http://127.0.0.1:1/a',
        'refused: 127.0.0.1 is loopback (127.0.0.0/8): not a global address; pass --allow-private to reach private networks',
      ),
      row('http://127.0.0.1:1/b', 'HTTP 404 Not Found', { httpStatus: 404 }),
      row('http://127.0.0.1:2/c', 'connection failed: connect ECONNREFUSED 127.0.0.1:2 (ECONNREFUSED)'),
      row('http://x.invalid/d', 'DNS lookup failed for x.invalid (ENOTFOUND)'),
    ];
    expect(
      sourcesFailure(rows)!
        .causes!.map((c) => c.cause)
        .sort(),
    ).toEqual(['connection', 'dns', 'http_status', 'network_rule']);
  });

  test('the golden server hint answers a connection that failed, not a page that answered 404', () => {
    const failed = sourcesFailure([
      row('http://127.0.0.1:9/a', 'connection failed: connect ECONNREFUSED (ECONNREFUSED)', {
        fetchError: 'connection',
      }),
      row('http://127.0.0.1:9/b', 'HTTP 404 Not Found', { fetchError: 'http_status', httpStatus: 404 }),
    ])!;
    const advice = sourcesAdvice([{ task: 't', sourcesFailed: failed }], 1, {
      sourcesHint: 'is the golden server running?',
    });
    expect(advice.find((a) => /connection/.test(a))).toMatch(/Check: is the golden server running\?$/);
    expect(advice.find((a) => /HTTP error/.test(a))).not.toMatch(/golden server/);
  });

  test('a source that could not be read but whose claims a capture decided is named as unread, and not as an archive failure', () => {
    const judged = row(
      'http://127.0.0.1:9/gone',
      'judged on the Wayback capture of 2024-04-30T12:00:00Z, ... (the live source: the live fetch failed: HTTP 410 Gone)',
      {
        diagnosis: 'verbatim',
        fetchError: 'http_status',
        httpStatus: 410,
        drift: 'changed',
        asOf: { source: 'wayback', capture_url: 'http://127.0.0.4:1/web/20240430120000id_/http://127.0.0.1:9/gone' },
      },
    );
    const unread = unreadSources([{ task: 't', rows: [judged] }]);
    expect(unread).toEqual([
      { url: 'http://127.0.0.1:9/gone', task: 't', cause: 'http_status', reason: 'HTTP 410 Gone', fromCaptures: true },
    ]);
    expect(unreadLine(unread)).toBe(
      'sources that could not be read (no bytes, so not drift): 1; 1 that answered an HTTP error: http://127.0.0.1:9/gone (HTTP 410; judged on Wayback captures)',
    );
    const noCapture = row(
      'http://127.0.0.1:9/x',
      'HTTP 404 Not Found; not drift: the source could not be read, so no bytes were compared with the evidence; no capture as of the date could be had: Wayback Machine left alone for the rest of the run after 4 failed requests in a row',
      {
        fetchError: 'http_status',
        drift: 'changed',
      },
    );
    expect(archiveFailure([noCapture])).toBeUndefined();
  });
});
