// Output paths checked before any work (one line, exit 2, nothing fetched, nothing left behind),
// and the answers-file promise: written by every run past input validation, by none that fails it.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { OutputPathError, checkOutputPath } from '../../src/output/output-files.js';
import { claimsRun, runCli, runCliInProcess, serve, tempDir, writeJson, type CliResult } from '../support/helpers.js';

const PAGE = '<html><body><p>The committee approved the budget on Tuesday after a long debate.</p></body></html>';
const html = { 'content-type': 'text/html; charset=utf-8' };
const IS_ROOT = process.getuid?.() === 0;
/** The unprivileged user the not-writable case runs as when the tests run as root. */
const NOBODY = 65534;

/** Exit 2 with exactly one line on stderr, that line being `expected`. */
function expectOneLine(r: CliResult, expected: string | RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines, r.stderr).toHaveLength(1);
  if (typeof expected === 'string') expect(lines[0]).toBe(expected);
  else expect(lines[0]).toMatch(expected);
}

/** A server with one page, and a claims file citing it: a refused run must not have fetched it. */
async function setup(): Promise<{ dir: string; claims: string; hits: () => number }> {
  const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
  const dir = tempDir();
  const claims = writeJson(join(dir, 'claims.json'), [
    { id: 'a', quote: 'approved the budget', url: `${server.origin}/p` },
  ]);
  return { dir, claims, hits: () => server.hits('/p') };
}

describe('run: every output path is checked before anything is fetched', () => {
  test('--report naming a folder: one line, exit 2, no fetch, no answers file', async () => {
    const { dir, claims, hits } = await setup();
    const folder = join(dir, 'reports');
    mkdirSync(folder);
    const out = join(dir, 'answers.json');
    const r = await runCliInProcess(['run', '--allow-private', '--claims', claims, '--out', out, '--report', folder]);
    expectOneLine(r, `quotecheck: error: --report ${folder}: is a folder; give a file name`);
    expect(hits()).toBe(0);
    expect(existsSync(out)).toBe(false);
  });

  test('--report into a missing folder: names the folder; the folder is not created', async () => {
    const { dir, claims, hits } = await setup();
    const missing = join(dir, 'no', 'such');
    const r = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      claims,
      '--out',
      join(dir, 'answers.json'),
      '--report',
      join(missing, 'r.jsonl'),
    ]);
    expectOneLine(r, `quotecheck: error: --report ${join(missing, 'r.jsonl')}: folder ${missing} does not exist`);
    expect(hits()).toBe(0);
    expect(existsSync(join(dir, 'no'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['claims.json']); // no probe file, no answers
  });

  test.each([
    ['--out', 'a folder', (dir: string) => dir, (dir: string) => `--out ${dir}: is a folder; give a file name`],
    [
      '--out',
      'in a missing folder',
      (dir: string) => join(dir, 'gone', 'a.json'),
      (dir: string) => `--out ${join(dir, 'gone', 'a.json')}: folder ${join(dir, 'gone')} does not exist`,
    ],
    [
      '--record',
      'in a missing folder',
      (dir: string) => join(dir, 'gone', 'run.warc.gz'),
      (dir: string) => `--record ${join(dir, 'gone', 'run.warc.gz')}: folder ${join(dir, 'gone')} does not exist`,
    ],
    [
      '--record',
      'under a file',
      (dir: string) => join(dir, 'claims.json', 'run.warc.gz'),
      (dir: string) => `--record ${join(dir, 'claims.json', 'run.warc.gz')}: a part of the path is not a folder`,
    ],
    ['--report', 'a device', () => '/dev/null', () => '--report /dev/null: is not a regular file'],
  ])('%s %s: one line naming the option and the path', async (flag, _what, path, message) => {
    const { dir, claims, hits } = await setup();
    const args = ['run', '--allow-private', '--claims', claims, '--out', join(dir, 'answers.json'), flag, path(dir)];
    const r = await runCliInProcess(
      flag === '--out' ? ['run', '--allow-private', '--claims', claims, flag, path(dir)] : args,
    );
    expectOneLine(r, `quotecheck: error: ${message(dir)}`);
    expect(hits()).toBe(0);
    expect(readdirSync(dir)).toEqual(['claims.json']);
  });

  test('--out naming the claims file, or the same file as --report, is refused before it is overwritten', async () => {
    const { dir, claims } = await setup();
    const before = readFileSync(claims, 'utf8');
    expectOneLine(
      await runCliInProcess(['run', '--allow-private', '--claims', claims, '--out', claims]),
      `quotecheck: error: --out ${claims}: is the claims file; writing it would destroy the claims`,
    );
    expect(readFileSync(claims, 'utf8')).toBe(before);
    const same = join(dir, 'x.json');
    expectOneLine(
      await runCliInProcess(['run', '--allow-private', '--claims', claims, '--out', same, '--report', same]),
      `quotecheck: error: --out and --report name the same file ${same}; give each its own`,
    );
    expect(existsSync(same)).toBe(false);
  });

  test('a folder that is not writable: permission denied, in words', async () => {
    const { chmodSync } = await import('node:fs');
    const { dir, claims } = await setup();
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    // Root may write anywhere: as root, the CLI runs as nobody (65534), who may read the claims but not write there.
    chmodSync(dir, 0o755);
    chmodSync(claims, 0o644);
    const r = await runCli(
      ['run', '--allow-private', '--claims', claims, '--out', join(locked, 'a.json')],
      IS_ROOT ? { asUid: NOBODY } : {},
    );
    expectOneLine(
      r,
      `quotecheck: error: --out ${join(locked, 'a.json')}: folder ${locked} is not writable (permission denied)`,
    );
  });

  test('checkOutputPath (library): a writable path passes and creates nothing; createFolders accepts a missing folder under a writable one', () => {
    const dir = tempDir();
    checkOutputPath(join(dir, 'a.json'), '--out');
    checkOutputPath(join(dir, 'x', 'y', 'reward.txt'), '--reward', { createFolders: true });
    expect(readdirSync(dir)).toEqual([]);
    writeFileSync(join(dir, 'file'), 'x');
    expect(() => checkOutputPath(join(dir, 'file', 'y', 'r.txt'), '--reward', { createFolders: true })).toThrowError(
      OutputPathError,
    );
    expect(() => checkOutputPath(join(dir, 'file', 'y', 'r.txt'), '--reward', { createFolders: true })).toThrowError(
      `--reward ${join(dir, 'file', 'y', 'r.txt')}: a part of the path is not a folder`,
    );
    expect(() => checkOutputPath(join(dir, 'file'), '--out', { folder: true })).toThrowError(
      `--out ${join(dir, 'file')}: exists and is not a folder`,
    );
    expect(() => checkOutputPath('', '--out')).toThrowError('--out: the path is empty; give a file name');
  });
});

describe('grade and export check their output paths first', () => {
  test('grade --reward naming a folder: one line, exit 2, before the files are read', async () => {
    const dir = tempDir();
    // The answers file does not exist: the reward path is what is wrong first, and said.
    const r = await runCliInProcess([
      'grade',
      '--answers',
      join(dir, 'missing.json'),
      '--gold',
      join(dir, 'gold.json'),
      '--reward',
      dir,
    ]);
    expectOneLine(r, `quotecheck: error: --reward ${dir}: is a folder; give a file name`);
  });

  test('grade --reward into missing folders creates them (a verifier log folder may not exist yet)', async () => {
    const dir = tempDir();
    const gold = writeJson(join(dir, 'gold.json'), { a: 'verbatim' });
    const answers = writeJson(join(dir, 'answers.json'), { a: 'verbatim' });
    const reward = join(dir, 'logs', 'verifier', 'reward.txt');
    const r = await runCliInProcess(['grade', '--answers', answers, '--gold', gold, '--reward', reward]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(reward, 'utf8')).toBe('1\n');
  });

  test('export --out that is a file, or a folder that is not empty: one line, before the labelled file is read', async () => {
    const dir = tempDir();
    const file = join(dir, 'taken');
    writeFileSync(file, 'x');
    const labelled = join(dir, 'missing.jsonl');
    expectOneLine(
      await runCliInProcess(['export', '--labelled', labelled, '--out', file]),
      `quotecheck: error: --out ${file}: exists and is not a folder`,
    );
    mkdirSync(join(dir, 'full'));
    writeFileSync(join(dir, 'full', 'x'), 'x');
    expectOneLine(
      await runCliInProcess(['export', '--labelled', labelled, '--out', join(dir, 'full')]),
      `quotecheck: error: --out ${join(dir, 'full')}: exists and is not empty; choose a new folder`,
    );
  });
});

describe('the answers file: written by every run past input validation, by none that fails it', () => {
  test('an invalid claims file: exit 2, no answers file; an answers file already there is left as it was', async () => {
    const { claims, out } = claimsRun(
      '[{"id": "a", "quote": "q", "url": "http://127.0.0.1:9/"},\n  {"id": "b" "quote": "q"}]',
    );
    const r = await runCliInProcess(['run', '--allow-private', '--claims', claims, '--out', out]);
    expectOneLine(
      r,
      `quotecheck: error: ${claims}: is not valid JSON: line 2, column 14: expected ',' or '}' after a property value, found "\\""`,
    );
    expect(existsSync(out)).toBe(false);
    writeFileSync(out, '{"old": "verbatim"}\n');
    expect((await runCliInProcess(['run', '--allow-private', '--claims', claims, '--out', out])).code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('{"old": "verbatim"}\n');
  });

  test('SIGKILL after validation leaves a valid file with every claim, the decided ones decided', async () => {
    const server = await serve([
      { path: '/fast', body: PAGE, headers: html },
      { path: '/slow', hang: true },
    ]);
    const { dir, claims, out } = claimsRun([
      { id: 'fast', quote: 'approved the budget', url: `${server.origin}/fast` },
      { id: 'slow', quote: 'approved the budget', url: `${server.origin}/slow` },
    ]);
    const r = await runCli(['run', '--allow-private', '--claims', claims, '--out', out, '--quiet'], {
      onSpawn: (child) => {
        void (async () => {
          // Wait until the fast claim is decided and written (writes are at most a quarter second apart), then kill.
          for (let i = 0; i < 200; i++) {
            await sleep(50);
            if (existsSync(out) && readFileSync(out, 'utf8').includes('"fast": "verbatim"')) break;
          }
          child.kill('SIGKILL');
        })();
      },
    });
    expect(r.signal).toBe('SIGKILL');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ fast: 'verbatim', slow: 'no_match' });
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
