// Bad input, as it comes from the real world: huge, deep, broken or odd claims files, huge and empty
// quotes, URLs with credentials and fragments. Each case ends with a clear message naming what is
// wrong (and exit 2 when nothing can be answered), never a stack trace or an exhausted heap.
import { execFileSync } from 'node:child_process';
import { closeSync, createWriteStream, existsSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { rng } from '../../bench/random.js';
import { ClaimsFileError } from '../../src/claims/schema.js';
import { readClaimsFile } from '../../src/claims/claims-file.js';
import { findQuote, normalizeViews } from '../../src/match.js';
import { claimsRun, runCli, runCliInProcess, serve, tempDir, writeJson, type CliResult } from '../support/helpers.js';

const html = { 'content-type': 'text/html; charset=utf-8' };
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
/** The report's rows in the claims file's order (a run appends them as claims are decided). */
function reportRows(path: string, claimsFile: string): Record<string, any>[] {
  const ids = (JSON.parse(readFileSync(claimsFile, 'utf8')) as { id: string }[]).map((c) => c.id);
  const rows = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return ids.map((id) => rows.find((r) => r.id === id));
}
const NO_STACK = /\n\s+at /;

/** A claims file's CLI verdict: exit 2, one clear error line naming the file, no stack trace, no answers. */
function expectRefused(r: CliResult, file: string, message: RegExp, out?: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(`quotecheck: error: ${file}: `);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(NO_STACK);
  expect(r.stderr).not.toMatch(/heap|RangeError|TypeError|Maximum call stack/i);
  if (out) expect(existsSync(out)).toBe(false);
}

/** Deterministic prose (bench/random.ts's seeded generator over a word list): long, varied and free of repeats that matter. */
function prose(length: number, seed = 1): string {
  const words =
    'the committee approved a budget of several million for roads schools and water after long debate over costs delays audits and the mayor said it was fair though critics disagreed strongly'.split(
      ' ',
    );
  const random = rng(seed);
  let out = '';
  while (out.length < length) {
    out += `${words[Math.floor(random() * words.length)]}${random() < 1 / 7 ? ', ' : ' '}`;
  }
  return out.slice(0, length).trim();
}

describe('a claims file of 50,000 valid claims', () => {
  const claims = Array.from({ length: 50_000 }, (_, i) => ({
    id: `c${i}`,
    quote: `The committee approved budget line ${i} after a long debate.`,
    url: `https://example.org/sources/${i % 700}.html`,
    claim: `Claim number ${i}`,
    verify_date: '2024-05-01',
    evidence: { sha256: 'ab'.repeat(32) },
  }));

  test('is read and validated whole, in order (library)', async () => {
    const file = writeJson(join(tempDir(), 'claims.json'), claims);
    const started = performance.now();
    const set = await readClaimsFile(file);
    const ms = performance.now() - started;
    console.info(
      `50,000 claims (${(readFileSync(file).length / 1e6).toFixed(1)} MB) read and validated in ${ms.toFixed(0)} ms`,
    );
    expect(set.warnings).toEqual([]);
    expect(set.entries).toHaveLength(50_000);
    expect(set.entries.every((e, i) => e.kind === 'claim' && e.index === i && e.id === `c${i}`)).toBe(true);
    expect(set.entries[49_999]).toMatchObject({
      kind: 'claim',
      id: 'c49999',
      quote: claims[49_999]!.quote,
      fetchUrl: 'https://example.org/sources/299.html',
      verifyDate: '2024-05-01',
    });
  });

  test('integer-like ids keep their place too: the file lists b, 10, 2, a as the claims do (an object would put 2 and 10 first)', async () => {
    const { claims: file, out } = claimsRun(
      ['b', 10, '2', 'a'].map((id) => ({ id, quote: 'q', url: 'http://127.0.0.1:9/' })),
    );
    expect((await runCliInProcess(['run', '--claims', file, '--out', out, '--baseline'])).code).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect([...text.matchAll(/^ {2}"([^"]+)":/gm)].map((m) => m[1])).toEqual(['b', '10', '2', 'a']);
    expect(JSON.parse(text)).toEqual({ b: 'no_match', 10: 'no_match', 2: 'no_match', a: 'no_match' });
    expect(text).toBe('{\n  "b": "no_match",\n  "10": "no_match",\n  "2": "no_match",\n  "a": "no_match"\n}\n');
  });

  test('every id is answered, in input order (CLI, --baseline)', async () => {
    const { claims: file, out } = claimsRun(claims);
    const r = await runCliInProcess(['run', '--allow-private', '--claims', file, '--out', out, '--baseline']);
    expect(r.code, r.stderr).toBe(0);
    const answers = readJson(out);
    const ids = Object.keys(answers);
    expect(ids).toHaveLength(50_000);
    expect(ids.every((id, i) => id === `c${i}` && answers[id] === 'no_match')).toBe(true);
  });
});

describe('claims files too large to read', () => {
  test('200 MB: refused before it is read, naming the file, its size, the limit and the flag', async () => {
    const dir = tempDir();
    const file = join(dir, 'huge.json');
    // Sparse: a real claim at the start, then 200 MB of holes that take no disk and no time to write.
    const fd = openSync(file, 'w');
    writeSync(fd, '[{"id": "a", "quote": "q", "url": "http://127.0.0.1:9/"}');
    ftruncateSync(fd, 200 * 1024 * 1024);
    closeSync(fd);
    const out = join(dir, 'answers.json');
    const r = await runCliInProcess(['run', '--allow-private', '--claims', file, '--out', out, '--baseline']);
    expectRefused(
      r,
      file,
      /is 200 MB \(209,715,200 bytes\), over the 64 MB limit for claims files; .*--max-claims-mb/,
      out,
    );
    await expect(readClaimsFile(file)).rejects.toThrowError(ClaimsFileError);
  });

  test('the limit is an option (maxBytes) and a flag (--max-claims-mb), and holds for a pipe too', async () => {
    const dir = tempDir();
    // About 1.5 MB of valid claims.
    const claims = Array.from({ length: 6000 }, (_, i) => ({
      id: `c${i}`,
      quote: prose(200, i + 1),
      url: 'http://127.0.0.1:9/',
    }));
    const file = writeJson(join(dir, 'claims.json'), claims);
    const size = readFileSync(file).length;
    expect(size).toBeGreaterThan(1024 * 1024);
    expect(size).toBeLessThan(2 * 1024 * 1024);

    await expect(readClaimsFile(file, { maxBytes: 1024 * 1024 })).rejects.toThrowError(/over the 1 MB limit/);
    expect((await readClaimsFile(file, { maxBytes: 2 * 1024 * 1024 })).entries).toHaveLength(6000);

    const out = join(dir, 'answers.json');
    expectRefused(
      await runCliInProcess([
        'run',
        '--allow-private',
        '--claims',
        file,
        '--out',
        out,
        '--baseline',
        '--max-claims-mb',
        '1',
      ]),
      file,
      /over the 1 MB limit/,
      out,
    );
    const ok = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      file,
      '--out',
      out,
      '--baseline',
      '--max-claims-mb',
      '2',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(Object.keys(readJson(out))).toHaveLength(6000);

    // A pipe has no size to stat: the read itself stops at the limit. (A named pipe, as
    // `cat claims.json | quotecheck run --claims /dev/stdin` would give; the writer sees EPIPE
    // when quotecheck stops reading, which is expected.)
    const fromPipe = async (mb: string) => {
      const fifo = join(dir, `claims-${mb}.fifo`);
      execFileSync('mkfifo', [fifo]);
      const writer = createWriteStream(fifo);
      writer.on('error', () => {});
      writer.end(readFileSync(file));
      const result = await runCli([
        'run',
        '--allow-private',
        '--claims',
        fifo,
        '--out',
        join(dir, `piped-${mb}.json`),
        '--baseline',
        '--max-claims-mb',
        mb,
      ]);
      writer.destroy();
      return { fifo, result, out: join(dir, `piped-${mb}.json`) };
    };
    const over = await fromPipe('1');
    expectRefused(
      over.result,
      over.fifo,
      /is larger than the 1 MB limit for claims files; .*--max-claims-mb/,
      over.out,
    );
    const under = await fromPipe('2');
    expect(under.result.code, under.result.stderr).toBe(0);
    expect(Object.keys(readJson(under.out))).toEqual(claims.map((c) => c.id));

    const bad = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      file,
      '--out',
      out,
      '--baseline',
      '--max-claims-mb',
      '0',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-claims-mb/);
    expect(bad.stderr).not.toMatch(NO_STACK);
  });
});

describe('deeply nested JSON', () => {
  const claim = '{"id": "x", "quote": "q", "url": "http://127.0.0.1:9/"}';

  test.each([
    ['100,000 nested arrays', () => '['.repeat(100_000) + ']'.repeat(100_000)],
    ['a claim nested inside 10,000 objects', () => '{"a": '.repeat(10_000) + claim + '}'.repeat(10_000)],
    [
      'a claim nested inside 10,000 objects inside "claims"',
      () => `{"claims": [${'{"wrap": '.repeat(10_000)}${claim}${'}'.repeat(10_000)}]}`,
    ],
    [
      'a valid claim with an unknown field nested 100,000 deep',
      () =>
        `[{"id": "x", "quote": "q", "url": "http://127.0.0.1:9/", "extra": ${'['.repeat(100_000)}${']'.repeat(100_000)}}]`,
    ],
  ])('%s: exit 2, the depth named, no stack trace', async (_, make) => {
    const { claims: file, out } = claimsRun(make());
    const r = await runCliInProcess(['run', '--allow-private', '--claims', file, '--out', out, '--baseline']);
    expectRefused(r, file, /JSON nested more than 1000 levels deep \(at line 1, column \d+\)/, out);
  });

  test('nesting a few hundred levels deep in an unknown field is still read (and ignored)', async () => {
    const { claims: file, out } = claimsRun(
      `[{"id": "x", "quote": "q", "url": "http://127.0.0.1:9/", "extra": ${'{"a": '.repeat(500)}1${'}'.repeat(500)}}]`,
    );
    const r = await runCliInProcess(['run', '--allow-private', '--claims', file, '--out', out, '--baseline']);
    expect(r.code, r.stderr).toBe(0);
    expect(readJson(out)).toEqual({ x: 'no_match' });
  });

  test('brackets inside strings do not count', async () => {
    const { claims: file } = claimsRun([
      { id: 'x', quote: `${'['.repeat(5000)} "\\ ${'{'.repeat(5000)}`, url: 'http://127.0.0.1:9/' },
    ]);
    expect((await readClaimsFile(file)).entries[0]).toMatchObject({ kind: 'claim', id: 'x' });
  });
});

describe('bytes that are not UTF-8', () => {
  test('exit 2 naming the file and the line of the first bad byte', async () => {
    const { claims: file, out } = claimsRun(
      Buffer.concat([
        Buffer.from('[\n{"id": "a", "quote": "caf'),
        Buffer.from([0xe9]),
        Buffer.from('", "url": "http://127.0.0.1:9/"}\n]'),
      ]),
    );
    expectRefused(
      await runCliInProcess(['run', '--allow-private', '--claims', file, '--out', out]),
      file,
      /is not valid UTF-8 \(first bad byte on line 2\); save it as UTF-8/,
      out,
    );
  });
});

describe('quotes', () => {
  test('a quote of 100 KB is found when the page holds it, and not when one character differs', {
    timeout: 90_000,
  }, async () => {
    const big = prose(100_000, 7);
    expect(big.length).toBeGreaterThan(99_000);
    const page = `<html><head><title>Report</title></head><body><h1>Report</h1><p>Before it.</p><p>${big}</p><p>After it.</p></body></html>`;
    const server = await serve([{ path: '/big', body: page, headers: html }]);
    const mid = big.indexOf(' ', 50_000) + 1; // the first letter of a word in the middle
    const changed = big.slice(0, mid) + (big[mid] === 'x' ? 'y' : 'x') + big.slice(mid + 1);
    const {
      claims: file,
      out,
      report,
    } = claimsRun([
      { id: 'whole', quote: big, url: `${server.origin}/big` },
      { id: 'one-char-off', quote: changed, url: `${server.origin}/big` },
    ]);
    const r = await runCliInProcess(['run', '--allow-private', '--claims', file, '--out', out, '--report', report]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(r.stderr.length).toBeLessThan(5_000); // the quote is never echoed whole
    expect(readJson(out)).toEqual({ whole: 'verbatim', 'one-char-off': 'no_match' });
    const [whole, off] = reportRows(report, file);
    expect(whole).toMatchObject({ id: 'whole', label: 'verbatim', diagnosis: 'verbatim' });
    // Too long to align whole, but its first and last words are there: a small change in the middle.
    expect(off).toMatchObject({ id: 'one-char-off', label: 'no_match', diagnosis: 'near_miss' });
  });

  test('empty and whitespace-only quotes: answered no_match, diagnosis invalid_claim, named on stderr', async () => {
    const server = await serve([
      { path: '/p', body: '<html><body><p>The committee approved the budget.</p></body></html>', headers: html },
    ]);
    const {
      claims: file,
      out,
      report,
    } = claimsRun([
      { id: 'good', quote: 'approved the budget', url: `${server.origin}/p` },
      { id: 'empty', quote: '', url: `${server.origin}/p` },
      // Every kind of whitespace design §3 folds: ASCII, NBSP, em space, ideographic space, NEL, U+001C.
      { id: 'blank', quote: ' \t\n\r\u00A0\u2003\u3000\u0085\u001C\u2028', url: `${server.origin}/p` },
    ]);
    const r = await runCliInProcess(['run', '--allow-private', '--claims', file, '--out', out, '--report', report]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/claim #2 \(id "empty"\): field "quote" is empty or only whitespace; answered no_match/);
    expect(r.stderr).toMatch(/claim #3 \(id "blank"\): field "quote" is empty or only whitespace; answered no_match/);
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(readJson(out)).toEqual({ good: 'verbatim', empty: 'no_match', blank: 'no_match' });
    const rows = reportRows(report, file);
    expect(rows.map((x) => [x.id, x.label, x.diagnosis])).toEqual([
      ['good', 'verbatim', 'verbatim'],
      ['empty', 'no_match', 'invalid_claim'],
      ['blank', 'no_match', 'invalid_claim'],
    ]);
    expect(rows[2]!.note).toMatch(/field "quote" is empty or only whitespace/);
  });

  test('a quote with an unpaired surrogate (a lone JSON \\ud83d escape) is an invalid claim, not a match inside an emoji', async () => {
    // Why: the label compares UTF-16 code units, so half a surrogate pair is "found" inside any
    // character beyond U+FFFF that starts with it.
    expect(
      findQuote('\uD83D', normalizeViews([{ name: 'text', extractor: 'text', text: 'I \u{1F600} it' }])),
    ).not.toBeNull();
    const server = await serve([
      { path: '/p', body: '<html><body><p>We \u{1F600} it.</p></body></html>', headers: html },
    ]);
    const {
      claims: file,
      out,
      report,
    } = claimsRun(
      `[{"id": "half", "quote": "We \\ud83d", "url": "${server.origin}/p"}, {"id": "whole", "quote": "We \\ud83d\\ude00 it", "url": "${server.origin}/p"}]`,
    );
    const r = await runCliInProcess(['run', '--allow-private', '--claims', file, '--out', out, '--report', report]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /claim #1 \(id "half"\): field "quote" has an unpaired surrogate U\+D83D .* at character 3: it is not valid Unicode text; answered no_match/,
    );
    expect(readJson(out)).toEqual({ half: 'no_match', whole: 'verbatim' });
    expect(reportRows(report, file).map((x) => x.diagnosis)).toEqual(['invalid_claim', 'verbatim']);
  });
});

describe('URLs', () => {
  const PAGE = '<html><body><p>The committee approved the budget on Tuesday.</p></body></html>';

  /** A page that records what each request asked for: path (a fragment would show here) and Authorization. */
  async function recordingServer() {
    const seen: { url: string | undefined; authorization: string | undefined }[] = [];
    const server = await serve([
      {
        path: '/p',
        handler: (req, res) => {
          seen.push({ url: req.url, authorization: req.headers.authorization });
          res.writeHead(200, html);
          res.end(PAGE);
        },
      },
    ]);
    return { server, seen };
  }

  test('credentials in the URL: sent as Basic auth to that origin (fetch() itself refuses such URLs), never echoed on stderr', async () => {
    const { server, seen } = await recordingServer();
    const {
      claims: file,
      out,
      report,
    } = claimsRun([
      { id: 'cred', quote: 'approved the budget', url: `http://reader:s3cr3t-pw@127.0.0.1:${server.port}/p#frag` },
      { id: 'cred-again', quote: 'on Tuesday', url: `http://reader:s3cr3t-pw@127.0.0.1:${server.port}/p` },
    ]);
    const r = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      file,
      '--out',
      out,
      '--report',
      report,
      '--retries',
      '0',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('s3cr3t-pw');
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(readJson(out)).toEqual({ cred: 'verbatim', 'cred-again': 'verbatim' });
    // One request for both claims (they differ only in the fragment), no fragment, the credentials as a header.
    expect(seen).toEqual([{ url: '/p', authorization: `Basic ${Buffer.from('reader:s3cr3t-pw').toString('base64')}` }]);
    const rows = reportRows(report, file);
    expect(rows.map((x) => [x.label, x.http_status, x.final_url])).toEqual([
      ['verbatim', 200, `${server.origin}/p`],
      ['verbatim', 200, `${server.origin}/p`],
    ]);
  });

  test('fragments are dropped for fetching: two claims differing only in the fragment make one request, without it', async () => {
    const { server, seen } = await recordingServer();
    const {
      claims: file,
      out,
      report,
    } = claimsRun([
      { id: 'f1', quote: 'approved the budget', url: `${server.origin}/p#frag` },
      { id: 'f2', quote: 'on Tuesday', url: `${server.origin}/p#:~:text=Tuesday` },
      { id: 'f3', quote: 'not on this page', url: `${server.origin}/p#frag` },
    ]);
    const r = await runCliInProcess(['run', '--allow-private', '--claims', file, '--out', out, '--report', report]);
    expect(r.code, r.stderr).toBe(0);
    expect(readJson(out)).toEqual({ f1: 'verbatim', f2: 'verbatim', f3: 'no_match' });
    expect(seen).toEqual([{ url: '/p', authorization: undefined }]);
    expect(server.hits('/p')).toBe(1);
    const rows = reportRows(report, file);
    expect(rows.map((x) => x.url)).toEqual([
      `${server.origin}/p#frag`,
      `${server.origin}/p#:~:text=Tuesday`,
      `${server.origin}/p#frag`,
    ]);
    expect(rows.every((x) => x.final_url === `${server.origin}/p`)).toBe(true);
  });
});
