// Labels made in batches (issue 43): a source that was gone in the first batch, fixed and labelled again from the
// left-out file, carries nothing of its first attempt; `export --warc a --warc b ...` finds each claim's record in
// whichever archive holds it (a 404 in one, the 200 it was labelled on in another) and the frozen oracle scores 1.000.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runEvaluation } from '../src/evaluate/evaluate.js';
import { QUICK_ISOLATION } from './support/engine.js';
import { runCliInProcess, serve, tempDir, writeJson } from './support/helpers.js';

const html = { 'content-type': 'text/html; charset=utf-8' };
const page = (text: string) => `<!doctype html><html><body><article><p>${text}</p></article></body></html>`;

const readJsonl = (path: string): Record<string, unknown>[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Four pages and one that answers 404 until it is fixed; two batches of claims over them. */
async function batches() {
  let fixed = false;
  const late = 'The late report was published after all, in the autumn.';
  const server = await serve([
    { path: '/a', body: page('The first page says the ferry leaves at nine.'), headers: html },
    { path: '/b', body: page('The second page says the ferry returns at six.'), headers: html },
    { path: '/c', body: page('The third page lists the fares for children.'), headers: html },
    { path: '/d', body: page('The fourth page lists the fares for adults.'), headers: html },
    {
      path: '/late',
      handler: (_req, res) => {
        res.writeHead(fixed ? 200 : 404, html);
        res.end(fixed ? page(late) : page('Not found'));
      },
    },
  ]);
  const u = (p: string) => `${server.origin}${p}`;
  const dir = tempDir();
  const first = writeJson(join(dir, 'first.json'), [
    { id: 'a1', quote: 'the ferry leaves at nine', url: u('/a') },
    { id: 'a2', quote: 'the ferry leaves at ten', url: u('/a') },
    { id: 'b1', quote: 'the ferry returns at six', url: u('/b') },
    { id: 'l1', quote: 'published after all', url: u('/late') },
    { id: 'l2', quote: 'published in the spring', url: u('/late') },
  ]);
  const second = writeJson(join(dir, 'second.json'), [
    { id: 'c1', quote: 'fares for children', url: u('/c') },
    { id: 'd1', quote: 'fares for pensioners', url: u('/d') },
    { id: 'd2', quote: 'lists the fares for adults', url: u('/d') },
  ]);
  const gold = { a1: 'verbatim', a2: 'no_match', b1: 'verbatim', l1: 'verbatim', l2: 'no_match' } as const;
  return {
    dir,
    first,
    second,
    fix: () => {
      fixed = true;
    },
    gold: { ...gold, c1: 'verbatim', d1: 'no_match', d2: 'verbatim' },
  };
}

async function label(args: string[]) {
  const r = await runCliInProcess(['label', '--allow-private', '--quiet', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return r;
}

describe('labels in batches, one frozen edition', () => {
  test('a 404 fixed and labelled again keeps no trace of it; export --warc of three batches: the frozen oracle scores 1.000', async () => {
    const { dir, first, second, fix, gold } = await batches();
    const f = (n: string) => join(dir, n);
    await label(['--claims', first, '--out', f('a.jsonl'), '--record', f('a.warc.gz'), '--left-out', f('left.jsonl')]);
    const left = readJsonl(f('left.jsonl'));
    expect(left.map((l) => [l.id, (l.left_out as { reason: string }).reason])).toEqual([
      ['l1', 'HTTP 404 Not Found'],
      ['l2', 'HTTP 404 Not Found'],
    ]);
    // The source is fixed; the left-out file is labelled as it is.
    fix();
    await label(['--claims', f('left.jsonl'), '--out', f('a2.jsonl'), '--record', f('a2.warc.gz')]);
    const relabelled = readJsonl(f('a2.jsonl'));
    expect(relabelled.map((r) => [r.id, r.label])).toEqual([
      ['l1', 'verbatim'],
      ['l2', 'no_match'],
    ]);
    for (const r of relabelled) {
      expect(r.left_out, String(r.id)).toBeUndefined();
      expect(JSON.stringify(r)).not.toContain('404');
    }
    await label(['--claims', second, '--out', f('b.jsonl'), '--record', f('b.warc.gz')]);
    const all = f('all.jsonl');
    writeFileSync(all, ['a.jsonl', 'a2.jsonl', 'b.jsonl'].map((n) => readFileSync(f(n), 'utf8')).join(''));
    expect(Object.fromEntries(readJsonl(all).map((r) => [r.id, r.label]))).toEqual(gold);

    // Each claim's record is in one of the archives; /late's 404 (in a.warc.gz) must not be what its task replays.
    const exported = await runCliInProcess([
      'export',
      '--labelled',
      all,
      '--out',
      f('frozen'),
      '--per-task',
      '3',
      '--name',
      'fz',
      '--warc',
      f('a.warc.gz'),
      '--warc',
      f('a2.warc.gz'),
      '--warc',
      f('b.warc.gz'),
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`sources from ${f('a.warc.gz')} and ${f('a2.warc.gz')} and ${f('b.warc.gz')}`);
    const oracle = await runEvaluation({
      tasksDir: f('frozen'),
      agent: 'oracle',
      outDir: f('oracle'),
      ...QUICK_ISOLATION,
    });
    expect(oracle.claims).toBe(8);
    expect(oracle.tasks.map((t) => t.reward)).toEqual(oracle.tasks.map(() => 1));

    // Archives joined into one file (as a resumed label run's is) are the same runs: each source from its own.
    execFileSync('sh', ['-c', `cat "${f('a.warc.gz')}" "${f('a2.warc.gz')}" > "${f('joined.warc.gz')}"`]);
    const joined = await runCliInProcess(
      ['export', '--labelled', all, '--out', f('joined'), '--per-task', '3', '--name', 'fz'].concat([
        '--warc',
        f('joined.warc.gz'),
        '--warc',
        f('b.warc.gz'),
      ]),
    );
    expect(joined.code, joined.stderr).toBe(0);

    // Without the archive the relabelled claims were recorded in: refused, naming the claim, its record and the way.
    const missing = await runCliInProcess(
      ['export', '--labelled', all, '--out', f('missing'), '--name', 'fz'].concat([
        '--warc',
        f('a.warc.gz'),
        '--warc',
        f('b.warc.gz'),
      ]),
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /claim "l1" names WARC record <urn:uuid:[^>]+> \(evidence\.warc_record_id\), which none of .*a\.warc\.gz, .*b\.warc\.gz holds; give --warc the archive its label was recorded in \(label --record FILE; repeat --warc for each batch\)/,
    );
  }, 180_000);
});
