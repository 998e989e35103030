// The command line as users run it: exit codes, messages, answers always written, signals and deadlines.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { claimsRun, runCli, runCliInProcess, serve, tempDir, writeJson } from '../support/helpers.js';

const PAGE = '<html><body><p>The committee approved the budget on Tuesday after a long debate.</p></body></html>';
const html = { 'content-type': 'text/html; charset=utf-8' };
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('quotecheck run: bad input', () => {
  test('a file that is not JSON: exit 2, a message naming the file, no answers', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'claims.json'), '{"claims": [');
    const r = await runCli(['run'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /quotecheck: error: claims\.json: is not valid JSON: line 1, column 13: expected a value, found the end of the file/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  test('a claim without id: exit 2 naming the claim index and the field', async () => {
    const dir = tempDir();
    writeJson(join(dir, 'claims.json'), [
      { id: 'a', quote: 'q', url: 'http://127.0.0.1:9/' },
      { quote: 'q', url: 'http://127.0.0.1:9/' },
    ]);
    const r = await runCli(['run', '--allow-private', '--baseline'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/claim #2: field "id" is missing/);
  });

  test('duplicate ids: exit 2 naming both claims', async () => {
    const dir = tempDir();
    const claims = writeJson(join(dir, 'c.json'), [
      { id: 'x', quote: 'q', url: 'http://127.0.0.1:9/' },
      { id: 'x', quote: 'r', url: 'http://127.0.0.1:9/' },
    ]);
    const r = await runCliInProcess(['run', '--allow-private', '--claims', claims, '--out', join(dir, 'a.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/claim #2 \(id "x"\): duplicate id, first used by claim #1;/);
    expect(existsSync(join(dir, 'a.json'))).toBe(false);
  });

  test('malformed claims among good ones: named on stderr, answered no_match, the rest checked', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const dir = tempDir();
    const claims = writeJson(join(dir, 'c.json'), [
      { id: 'good', quote: 'approved the budget', url: `${server.origin}/p` },
      { id: 'empty', quote: '   ', url: `${server.origin}/p` },
      { id: 'ftp', quote: 'x', url: 'ftp://127.0.0.1/x' },
    ]);
    const out = join(dir, 'answers.json');
    const report = join(dir, 'report.jsonl');
    const r = await runCliInProcess(['run', '--allow-private', '--claims', claims, '--out', out, '--report', report]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/claim #2 \(id "empty"\): field "quote" is empty or only whitespace/);
    expect(r.stderr).toMatch(/claim #3 \(id "ftp"\): field "url" must be http\(s\), not ftp:/);
    expect(readJson(out)).toEqual({ good: 'verbatim', empty: 'no_match', ftp: 'no_match' });
    const rows = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // In decision order: the invalid claims are decided before any fetch.
    expect(rows.map((x) => [x.id, x.diagnosis])).toEqual([
      ['empty', 'invalid_claim'],
      ['ftp', 'invalid_claim'],
      ['good', 'verbatim'],
    ]);
  });

  test.each([
    [['--concurrency', '0'], /--concurrency/],
    [['--timeout', 'soon'], /--timeout/],
    [['--format', 'csv'], /--format/],
    [['--html-view', 'body'], /--html-view/],
  ])('bad option %j: exit 2 naming it', async (args, message) => {
    const r = await runCliInProcess(['run', '--allow-private', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('quotecheck run: answers and report', () => {
  test('map and list formats, input order, report fields of docs/how-it-decides.md#the-evidence-report (--report-order input), summary line', async () => {
    const server = await serve([
      { path: '/p', body: PAGE, headers: html },
      { path: '/gone', status: 404 },
    ]);
    const dir = tempDir();
    const claims = writeJson(join(dir, 'claims.json'), {
      claims: [
        { id: 'z', quote: 'not in there', url: `${server.origin}/p` },
        { id: 'a', quoted_text: 'The Committee approved  the budget', source_url: `${server.origin}/p` },
        { id: 'm', quote: 'x', url: `${server.origin}/gone` },
      ],
    });
    const r = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      claims,
      '--out',
      join(dir, 'map.json'),
      '--report',
      join(dir, 'r.jsonl'),
      '--report-order',
      'input',
    ]);
    expect(r.code).toBe(0);
    expect(Object.entries(readJson(join(dir, 'map.json')))).toEqual([
      ['z', 'no_match'],
      ['a', 'verbatim'],
      ['m', 'no_match'],
    ]);
    expect(r.stderr).toMatch(/3 claims, 1 verbatim, 2 no_match; sources 1 fetched, 1 failed; [\d.]+ s/);
    const rows = readFileSync(join(dir, 'r.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(Object.keys(rows[1])).toEqual(
      expect.arrayContaining([
        'id',
        'label',
        'diagnosis',
        'url',
        'final_url',
        'http_status',
        'content_type',
        'source_sha256',
        'extractor',
        'match',
        'nearest',
        'note',
        'ms',
      ]),
    );
    expect(rows[1]).toMatchObject({
      id: 'a',
      label: 'verbatim',
      http_status: 200,
      content_type: 'text/html; charset=utf-8',
      extractor: expect.stringMatching(/readability|fulltext/),
      charset: 'UTF-8',
      charset_source: 'http',
    });
    expect(rows[1].source_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[1].match).toMatchObject({
      offset: 0,
      context: expect.stringContaining('the committee approved the budget'),
    });
    expect(rows[2]).toMatchObject({ id: 'm', diagnosis: 'fetch_failed', http_status: 404, match: null });

    const list = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      claims,
      '--out',
      join(dir, 'list.json'),
      '--format',
      'list',
      '--quiet',
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect(readJson(join(dir, 'list.json'))).toEqual([
      { id: 'z', label: 'no_match' },
      { id: 'a', label: 'verbatim' },
      { id: 'm', label: 'no_match' },
    ]);
  });

  test('--baseline answers no_match everywhere and fetches nothing', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const dir = tempDir();
    writeJson(join(dir, 'claims.json'), [
      { id: 'a', quote: 'approved the budget', url: `${server.origin}/p` },
      { id: 'b', quote: 'x', url: `${server.origin}/p` },
    ]);
    const r = await runCli(['run', '--allow-private', '--baseline'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readJson(join(dir, 'answers.json'))).toEqual({ a: 'no_match', b: 'no_match' });
    expect(server.hits('/p')).toBe(0);
  });

  test('an answers path that cannot be written: exit 2 before any fetching', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const dir = tempDir();
    const claims = writeJson(join(dir, 'claims.json'), [{ id: 'a', quote: 'q', url: `${server.origin}/p` }]);
    const r = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      claims,
      '--out',
      join(dir, 'no', 'such', 'dir', 'answers.json'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `quotecheck: error: --out ${join(dir, 'no', 'such', 'dir', 'answers.json')}: folder ${join(dir, 'no', 'such', 'dir')} does not exist\n`,
    );
    expect(server.hits('/p')).toBe(0);
  });
});

describe('quotecheck run: stopping early never loses answers', () => {
  async function setup() {
    const server = await serve([
      { path: '/fast', body: PAGE, headers: html },
      ...Array.from({ length: 20 }, (_, i) => ({ path: `/hang/${i}`, hang: true })),
    ]);
    const dir = tempDir();
    const claims = writeJson(join(dir, 'claims.json'), [
      { id: 'fast', quote: 'approved the budget', url: `${server.origin}/fast` },
      ...Array.from({ length: 20 }, (_, i) => ({
        id: `slow-${i}`,
        quote: 'anything',
        url: `${server.origin}/hang/${i}`,
      })),
    ]);
    return { server, dir, claims, out: join(dir, 'answers.json') };
  }

  test('SIGTERM in the middle of a run leaves a complete, valid answers file with what was decided', async () => {
    const { dir, claims, out } = await setup();
    const r = await runCli(
      ['run', '--allow-private', '--claims', claims, '--out', out, '--timeout', '60', '--report', join(dir, 'r.jsonl')],
      {
        onSpawn: async (child) => {
          // Wait until the fast claim's verbatim is on disk (incremental writes), then stop the run.
          for (let i = 0; i < 200; i++) {
            await sleep(50);
            if (existsSync(out) && readJson(out).fast === 'verbatim') break;
          }
          child.kill('SIGTERM');
        },
      },
    );
    expect(r.code).toBe(143);
    const answers = readJson(out);
    expect(Object.keys(answers)).toHaveLength(21);
    expect(answers.fast).toBe('verbatim');
    expect(Object.values(answers).filter((l) => l === 'no_match')).toHaveLength(20);
    expect(r.stderr).toMatch(/stopped early \(received SIGTERM\): 20 claims not decided were answered no_match/);
    const rows = readFileSync(join(dir, 'r.jsonl'), 'utf8').trim().split('\n');
    expect(rows).toHaveLength(21);
  });

  test('--deadline stops the run in time and answers the rest no_match', async () => {
    const { claims, out } = await setup();
    const started = Date.now();
    const r = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      claims,
      '--out',
      out,
      '--timeout',
      '60',
      '--deadline',
      '1.5',
    ]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/deadline of 1.5 s reached/);
    const answers = readJson(out);
    expect(answers.fast).toBe('verbatim');
    expect(Object.keys(answers)).toHaveLength(21);
    // The summary and the diagnoses agree on the claims never decided: 20, never counted as failed fetches.
    expect(r.stderr).toMatch(
      /21 claims, 1 verbatim, 20 no_match \(20 not decided: the run stopped first\); sources 1 fetched, 0 failed/,
    );
    expect(r.stderr).toMatch(/stopped 20 \(not decided: the run stopped first\)/);
    expect(r.stderr).not.toMatch(/fetch_failed/);
  });
});

describe('quotecheck grade', () => {
  test('reward = correct / gold; missing answers are wrong; extras reported and ignored', async () => {
    const dir = tempDir();
    const gold = writeJson(join(dir, 'gold.json'), { a: 'verbatim', b: 'no_match', c: 'no_match', d: 'verbatim' });
    const answers = writeJson(join(dir, 'answers.json'), [
      { id: 'a', label: 'verbatim' },
      { id: 'b', label: 'verbatim' },
      { id: 'c', label: 'no_match' },
      { id: 'zz', label: 'no_match' },
    ]);
    const reward = join(dir, 'logs', 'reward.txt');
    const r = await runCliInProcess(['grade', '--answers', answers, '--gold', gold, '--reward', reward]);
    expect(r.code).toBe(0);
    expect(readFileSync(reward, 'utf8').trim()).toBe('0.5');
    expect(r.stdout).toMatch(/accuracy 0\.500 \(2\/4 correct\)/);
    // Not every gold id has an answer: said first, so the accuracy is read as what it is.
    expect(r.stdout.split('\n')[0]).toBe(
      'the answers cover 3 of the 4 gold ids: the 1 without an answer counts as wrong (grading one task against a ' +
        'whole labelled file?)',
    );
    expect(r.stdout).toMatch(/^1 answer with no gold label, ignored: "zz"$/m);
    expect(r.stdout).toMatch(
      /^2 wrong answers:\n {2}"b": expected no_match, given verbatim\n {2}"d": expected verbatim, given no answer$/m,
    );
  });

  test("--answers by the verifier's rules: a link to the gold or a FIFO is refused (exit 2, reward 0), never followed or waited on", async () => {
    const dir = tempDir();
    const gold = writeJson(join(dir, 'gold.json'), { a: 'verbatim' });
    const reward = join(dir, 'reward.txt');
    symlinkSync(gold, join(dir, 'link.json'));
    const linked = await runCliInProcess([
      'grade',
      '--answers',
      join(dir, 'link.json'),
      '--gold',
      gold,
      '--reward',
      reward,
    ]);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toBe(
      `quotecheck: error: answers file ${join(dir, 'link.json')} is a symbolic link (to ${gold}), not a regular file: not graded\n`,
    );
    expect(readFileSync(reward, 'utf8')).toBe('0\n');
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    const fifo = await runCliInProcess(['grade', '--answers', join(dir, 'fifo.json'), '--gold', gold]);
    expect(fifo.code).toBe(2);
    expect(fifo.stderr).toContain('is a named pipe (FIFO), not a regular file: not graded');
  });

  test('an unreadable answers file: exit 2 with a clear message', async () => {
    const dir = tempDir();
    const gold = writeJson(join(dir, 'gold.json'), { a: 'verbatim' });
    const r = await runCliInProcess(['grade', '--answers', join(dir, 'missing.json'), '--gold', gold]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^quotecheck: error: cannot read answers file .*missing\.json: no such file\n/);
    expect(r.stderr).not.toMatch(/ENOENT/);
  });
});

const STORY =
  '<html><body><article><p>The committee approved the budget on Tuesday after a long debate.</p><p>Members said the vote was close.</p></article></body></html>';

describe('quotecheck verify', () => {
  test('verbatim: exit 0, says where it matched', async () => {
    const server = await serve([{ path: '/s', body: STORY, headers: html }]);
    const r = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      `${server.origin}/s`,
      '--quote',
      'approved the budget on Tuesday',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^verbatim \(diagnosis: verbatim\)/);
    // In the page's own wording and case, not the normalized text.
    expect(r.stdout).toMatch(/\[approved the budget on Tuesday\]/);
  });

  test('a misquote: exit 1, diagnosis near_miss with the nearest span', async () => {
    const server = await serve([{ path: '/s', body: STORY, headers: html }]);
    const r = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      `${server.origin}/s`,
      '--quote',
      'The committee approved the budget on Wednesday after a long debate.',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^no_match \(diagnosis: near_miss\)/);
    expect(r.stdout).toMatch(/The committee approved the budget on Tuesday after a long debate\./);
  });

  test('--json gives the report record with a TextQuoteSelector; --quote - reads stdin', async () => {
    const server = await serve([{ path: '/s', body: STORY, headers: html }]);
    const r = await runCliInProcess(
      ['verify', '--allow-private', '--json', '--url', `${server.origin}/s`, '--quote', '-'],
      {
        input: 'Members said  the vote\nwas close.',
      },
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ label: 'verbatim', diagnosis: 'verbatim', http_status: 200 });
    expect(out.match.selector).toEqual({
      type: 'TextQuoteSelector',
      exact: 'Members said the vote was close.',
      prefix: expect.any(String),
      suffix: expect.any(String),
    });
  });

  test('bad input: exit 2 naming the field', async () => {
    const r = await runCliInProcess(['verify', '--allow-private', '--url', 'file:///etc/passwd', '--quote', 'root']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/field "url" must be http\(s\), not file:/);
  });
});

describe('quotecheck run: the closing summary', () => {
  test('counts per diagnosis and the claims worth a look', async () => {
    const server = await serve([
      { path: '/s', body: STORY, headers: html },
      { path: '/gone', status: 404 },
    ]);
    const { claims, out } = claimsRun([
      { id: 'ok', quote: 'approved the budget', url: `${server.origin}/s` },
      {
        id: 'mis',
        quote: 'The committee approved the budget on Monday after a long debate.',
        url: `${server.origin}/s`,
      },
      { id: 'gone', quote: 'x', url: `${server.origin}/gone` },
    ]);
    const r = await runCliInProcess(['run', '--allow-private', '--claims', claims, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/diagnoses: verbatim 1, near_miss 1, fetch_failed 1/);
    expect(r.stderr).toMatch(/worth a human look:\n\s+mis\s+near_miss \(similarity 0\.\d+\)/);
  });
});

describe('quotecheck bench, the old name of evaluate', () => {
  test('names the new command and the performance benchmark, exits 2, runs nothing, and is not in the help', async () => {
    const r = await runCliInProcess(['bench', '--tasks', 'golden/tasks', '--agent', 'baseline']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'quotecheck: error: `quotecheck bench` is now `quotecheck evaluate` (same options); ' +
        '`npm run bench` is the performance benchmark\n',
    );
    const help = await runCliInProcess(['--help']);
    expect(help.stdout).toMatch(/^ {2}evaluate \[options\]/m);
    expect(help.stdout).not.toMatch(/^ {2}bench\b/m);
  });
});
