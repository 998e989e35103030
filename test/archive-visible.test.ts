// The archive is visible when it is the slow part or fails: run's progress shows the pacing wait, evaluate names a task
// whose archive never answered, and `quotecheck wayback-stub` serves the stub from captures on disk.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { Label } from '../src/output/answers.js';
import { runEvaluation } from '../src/evaluate/evaluate.js';
import { writeTaskFolder } from '../src/task/task-writer.js';
import { startWaybackStub, type RunningWayback } from '../src/wayback/stub/stub.js';
import { CLI, runCliInProcess, serve, tempDir, writeJson, closedPort } from './support/helpers.js';
import { instruction } from '../src/task/instruction.js';
import type { Capture } from '../src/wayback/stub/captures.js';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const html = { 'content-type': 'text/html; charset=utf-8' };
const page = (p: string): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Budget</title></head><body><article><h1>Report</h1><p>${p}</p><p>Members praised the new school lunch program.</p></article></body></html>`;
const THEN = (n: number): string => page(`The committee approved budget ${n} on Tuesday after a long debate.`);
const NOW = (n: number): string => page(`The committee approved a revised budget ${n} on Wednesday.`);
const QUOTE = (n: number): string => `approved budget ${n} on Tuesday after a long debate`;

/** `n` drifted sources on loopback: today's page lost the quote; a capture before the date has it and hashes to the evidence. */
async function drifted(n: number): Promise<{ claims: Record<string, unknown>[]; captures: Capture[] }> {
  const ids = Array.from({ length: n }, (_, i) => i + 1);
  const live = await serve(ids.map((i) => ({ path: `/budget-${i}`, body: NOW(i), headers: html })));
  const claims = ids.map((i) => ({
    id: `c${i}`,
    quote: QUOTE(i),
    url: `${live.origin}/budget-${i}`,
    verify_date: '2024-05-01',
    evidence: { sha256: sha256(THEN(i)) },
  }));
  const captures = ids.map((i) => ({
    url: `${live.origin}/budget-${i}`,
    timestamp: '20240420120000',
    headers: html,
    body: THEN(i),
  }));
  return { claims, captures };
}

const running: RunningWayback[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('run shows the archive while claims wait on it', () => {
  test('the plain progress line counts archive requests and says how many wait for the pacer and when the next goes', async () => {
    const { claims, captures } = await drifted(2);
    const wb = await startWaybackStub({ captures, host: '127.0.0.4' });
    running.push(wb);
    const dir = tempDir();
    const claimsFile = writeJson(join(dir, 'claims.json'), claims);
    // 30 a minute: a request every 2 s, so the run spends most of its time waiting for the archive (four requests).
    const r = await runCliInProcess([
      'run',
      '--claims',
      claimsFile,
      '--out',
      join(dir, 'answers.json'),
      '--allow-private',
      '--wayback-url',
      wb.origin,
      '--wayback-rate',
      '30',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8'))).toEqual({ c1: 'verbatim', c2: 'verbatim' });
    const waiting = r.stderr.split('\n').filter((l) => /waiting for the archive/.test(l));
    expect(waiting.length, r.stderr).toBeGreaterThan(0);
    for (const line of waiting)
      expect(line).toMatch(
        /^quotecheck: \d+\/2 claims, \d\/2 sources \(0 failed\), [\d.]+ s(, ETA \d+ s)?; \d+ archive requests? sent, waiting for the archive: \d+ lookups? queued, next in \d+ s$/,
      );
    // The stdout contract holds: progress is on stderr only.
    expect(r.stdout).toBe('');
  }, 60_000);
});

/** A drift task whose oracle asks the archive at `waybackUrl`. */
function driftTask(root: string, name: string, claims: Record<string, unknown>[], waybackUrl: string): string {
  const dir = join(root, name);
  writeTaskFolder(dir, {
    name,
    layout: 'harbor',
    claims,
    gold: Object.fromEntries(claims.map((c) => [c.id as string, 'verbatim' as Label])),
    instruction: instruction(
      claims.length,
      claims.map((c) => c.id as string),
    ),
    config: { agentTimeoutSec: 60, verifierTimeoutSec: 30 },
    variant: {},
    solve: {
      runArgs: [
        '--allow-private',
        '--retries',
        '0',
        '--timeout',
        '5',
        '--wayback-url',
        waybackUrl,
        '--wayback-rate',
        '600',
      ],
    },
  });
  return dir;
}

describe('evaluate names a task whose archive never answered', () => {
  test("the oracle's archive requests all failed: the task's problems say so and the advice says what to check", async () => {
    const { claims, captures } = await drifted(2);
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const wb = await startWaybackStub({ captures, host: '127.0.0.4' });
    running.push(wb);
    const root = tempDir();
    driftTask(root, 'drift-dead-archive', claims, dead);
    driftTask(root, 'drift-archive', claims, wb.origin);
    const report = await runEvaluation({ tasksDir: root, agent: 'oracle', outDir: tempDir(), isolation: 'paths' });
    const bad = report.tasks.find((t) => t.task === 'drift-dead-archive')!;
    const good = report.tasks.find((t) => t.task === 'drift-archive')!;
    expect(good.reward).toBe(1);
    expect(good.problems).toEqual([]);
    expect(good.archiveFailed).toBeUndefined();
    expect(bad.reward).toBe(0);
    expect(bad.archiveFailed).toMatchObject({ claims: 2, waybackUrl: dead });
    expect(bad.problems).toEqual([
      `every archive request failed (2 claims needing a Wayback capture got none from ${dead})`,
    ]);
    expect(report.advice).toHaveLength(1);
    expect(report.advice[0]).toMatch(
      /^every archive request failed in 1 of 2 tasks \(drift-dead-archive\), so the 2 claims that needed a Wayback capture were judged on today's changed text: Wayback Machine left alone .+\. Check: is the archive solve\.sh names \(--wayback-url http:\/\/127\.0\.0\.1:\d+\) reachable\? It is on loopback: is the Wayback stub running\? \(`quotecheck wayback-stub/,
    );
  }, 90_000);
});

/** `quotecheck wayback-stub` in the background; resolves with its origin (its first stdout line). */
function startStub(
  args: string[],
): Promise<{ child: ChildProcess; origin: string; stderr: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'wayback-stub', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      ready();
    });
    child.stderr!.on('data', () => ready());
    // Ready once the origin is on stdout and the line saying what it serves on stderr (two pipes: either may come first).
    function ready(): void {
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line && /wayback-stub: serving/.test(stderr))
        resolve({ child, origin: line, stderr: () => stderr, exited });
    }
    void exited.then((code) => reject(new Error(`wayback-stub exited ${code}: ${stderr}`)));
  });
}

describe('quotecheck wayback-stub', () => {
  test('serves captures from a folder (captures.json, bodies from files beside it) to run --wayback-url, until SIGTERM', async () => {
    const { claims, captures } = await drifted(1);
    const folder = tempDir();
    mkdirSync(join(folder, 'bodies'));
    writeFileSync(join(folder, 'bodies', 'then.html'), captures[0]!.body as string);
    writeJson(join(folder, 'captures.json'), [
      { url: captures[0]!.url, timestamp: captures[0]!.timestamp, headers: html, file: 'bodies/then.html' },
    ]);
    const stub = await startStub(['--captures', folder, '--host', '127.0.0.4']);
    expect(stub.origin).toMatch(/^http:\/\/127\.0\.0\.4:\d+$/);
    expect(stub.stderr()).toContain(
      `quotecheck: wayback-stub: serving 1 capture of 1 URL from ${join(folder, 'captures.json')} at ${stub.origin}`,
    );

    const dir = tempDir();
    const claimsFile = writeJson(join(dir, 'claims.json'), claims);
    const report = join(dir, 'report.jsonl');
    const r = await runCliInProcess([
      'run',
      '--claims',
      claimsFile,
      '--out',
      join(dir, 'answers.json'),
      '--report',
      report,
      '--allow-private',
      '--wayback-url',
      stub.origin,
      '--wayback-rate',
      '600',
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8'))).toEqual({ c1: 'verbatim' });
    const line = JSON.parse(readFileSync(report, 'utf8').trim()) as {
      as_of: { source: string; capture_url: string; proof: string };
      drift: string;
    };
    expect(line.drift).toBe('changed');
    expect(line.as_of).toMatchObject({ source: 'wayback', proof: 'sha256' });
    expect(line.as_of.capture_url.startsWith(`${stub.origin}/web/20240420120000id_/`)).toBe(true);

    stub.child.kill('SIGTERM');
    expect(await stub.exited).toBe(0);
    expect(stub.stderr()).toMatch(/wayback-stub: stopped \(SIGTERM\) after \d+ requests/);
  }, 60_000);

  test('a JSON Lines file with inline bodies works too', async () => {
    const { captures } = await drifted(1);
    const file = join(tempDir(), 'caps.jsonl');
    writeFileSync(file, `${JSON.stringify(captures[0])}\n\n`);
    const stub = await startStub(['--captures', file, '--port', '0']);
    expect(stub.origin).toMatch(/^http:\/\/127\.0\.0\.4:\d+$/);
    const cdx = await fetch(
      `${stub.origin}/cdx/search/cdx?url=${encodeURIComponent(captures[0]!.url)}&output=json&fl=timestamp,statuscode`,
    );
    expect(await cdx.json()).toEqual([
      ['timestamp', 'statuscode'],
      ['20240420120000', '200'],
    ]);
    stub.child.kill('SIGINT');
    expect(await stub.exited).toBe(0);
  }, 30_000);

  test.each([
    [
      'a path that does not exist',
      (d: string) => join(d, 'nope'),
      /^quotecheck: error: --captures \S+nope: no such file or folder$/,
    ],
    [
      'a folder without captures.json',
      (d: string) => d,
      /^quotecheck: error: --captures \S+: the folder has no captures\.json or captures\.jsonl$/,
    ],
    [
      'a file that is not JSON',
      (d: string) => writeText(join(d, 'c.json'), '[{"url":'),
      /^quotecheck: error: --captures \S+c\.json: not valid JSON: /,
    ],
    [
      'an object, not an array',
      (d: string) => writeText(join(d, 'c.json'), '{"url":"http://x.org/"}'),
      /^quotecheck: error: --captures \S+c\.json: line 1 \(http:\/\/x\.org\/\) "timestamp" must be/,
    ],
    [
      'a bad timestamp',
      (d: string) => writeText(join(d, 'c.json'), '[{"url":"http://x.org/","timestamp":"2024"}]'),
      /^quotecheck: error: --captures \S+c\.json: capture #0 \(http:\/\/x\.org\/ @ 2024\) "timestamp" must be a string of 14 digits/,
    ],
    [
      'a body file that is missing',
      (d: string) =>
        writeText(join(d, 'c.json'), '[{"url":"http://x.org/","timestamp":"20240101000000","file":"gone.html"}]'),
      /^quotecheck: error: --captures \S+c\.json: capture #0 \(http:\/\/x\.org\/ @ 20240101000000\) "file" gone\.html: no such file /,
    ],
    [
      'an unknown field',
      (d: string) => writeText(join(d, 'c.json'), '[{"url":"http://x.org/","timestamp":"20240101000000","bodyy":"x"}]'),
      /^quotecheck: error: --captures \S+c\.json: capture #0 .* has an unknown field "bodyy"/,
    ],
    [
      'no captures at all',
      (d: string) => writeText(join(d, 'c.json'), '[]'),
      /^quotecheck: error: --captures \S+c\.json: holds no captures$/,
    ],
  ])('%s is one error line and exit 2', async (_name, input, message) => {
    const r = await runCliInProcess(['wayback-stub', '--captures', input(tempDir())]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr.trimEnd()).toMatch(message);
  });

  test('a host that is not loopback is refused', async () => {
    const file = writeText(
      join(tempDir(), 'c.json'),
      '[{"url":"http://x.org/","timestamp":"20240101000000","body":"x"}]',
    );
    const r = await runCliInProcess(['wayback-stub', '--captures', file, '--host', '0.0.0.0']);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd()).toBe(
      'quotecheck: error: --host 0.0.0.0: not a loopback address (127.x.y.z, ::1 or localhost): ' +
        'the stub serves this machine only',
    );
  });
});

function writeText(path: string, text: string): string {
  writeFileSync(path, text);
  return path;
}
