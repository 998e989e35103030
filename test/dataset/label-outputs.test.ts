// `label` never overwrites the proof (issue 43): every file it writes is refused when it exists, before anything is
// fetched, unless --force (or --resume, which appends); a resumed run reads what a killed one left, a cut last line
// included, and a finished job is left alone.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { resumeCommand } from '../../src/cli/actions/label-summary.js';
import { etaText } from '../../src/cli/progress.js';
import { runCliInProcess, serve, tempDir, writeJson } from '../support/helpers.js';

const html = { 'content-type': 'text/html; charset=utf-8' };

/** Three pages and four claims; the folder the outputs go in. */
async function small() {
  const server = await serve(
    ['a', 'b', 'c'].map((p) => ({
      path: `/${p}`,
      body: `<html><body><p>Page ${p} says the tide turns at noon.</p></body></html>`,
      headers: html,
    })),
  );
  const dir = tempDir();
  const claims = writeJson(join(dir, 'claims.json'), [
    { id: 'a1', quote: 'Page a says the tide turns at noon', url: `${server.origin}/a` },
    { id: 'a2', quote: 'Page a says the tide turns at dawn', url: `${server.origin}/a` },
    { id: 'b1', quote: 'Page b says the tide turns at noon', url: `${server.origin}/b` },
    { id: 'c1', quote: 'Page c says the tide turns at noon', url: `${server.origin}/c` },
  ]);
  const hits = () => ['a', 'b', 'c'].map((p) => server.hits(`/${p}`));
  return { dir, claims, hits, f: (n: string) => join(dir, n) };
}

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('label never overwrites the proof', () => {
  test.each(['--record', '--report', '--left-out', '--out'])(
    'an existing %s is refused before anything is fetched, and left as it was',
    async (flag) => {
      const { claims, hits, f } = await small();
      const paths: Record<string, string> = {
        '--out': f('out.jsonl'),
        '--record': f('run.warc.gz'),
        '--report': f('report.jsonl'),
        '--left-out': f('left.jsonl'),
      };
      writeFileSync(paths[flag]!, 'an earlier batch\n');
      const args = Object.entries(paths).flat();
      const r = await runCliInProcess(['label', '--claims', claims, ...args, '--allow-private', '--quiet']);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `quotecheck: error: ${flag} ${paths[flag]}: exists; label never overwrites a file unless asked: --resume ` +
          'appends to it, labelling only the claims not yet in --out; --force replaces it\n',
      );
      expect(hits()).toEqual([0, 0, 0]);
      expect(readFileSync(paths[flag]!, 'utf8')).toBe('an earlier batch\n');
      for (const [other, path] of Object.entries(paths))
        if (other !== flag) expect(existsSync(path), other).toBe(false);
    },
  );

  test('several existing files are named together; --force replaces them all', async () => {
    const { claims, f } = await small();
    writeFileSync(f('run.warc.gz'), 'old');
    writeFileSync(f('report.jsonl'), 'old\n');
    const args = ['--out', f('out.jsonl'), '--record', f('run.warc.gz'), '--report', f('report.jsonl')];
    const r = await runCliInProcess(['label', '--claims', claims, ...args, '--allow-private', '--quiet']);
    expect(r.stderr).toContain(`--record ${f('run.warc.gz')}, --report ${f('report.jsonl')}: exist; `);
    const forced = await runCliInProcess([
      'label',
      '--claims',
      claims,
      ...args,
      '--force',
      '--allow-private',
      '--quiet',
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(lines(f('report.jsonl'))).toHaveLength(4);
    expect(readFileSync(f('run.warc.gz')).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  test('--resume with --force, and --resume without --out, are refused', async () => {
    const { claims, f } = await small();
    const both = await runCliInProcess(['label', '--claims', claims, '--out', f('o'), '--resume', '--force']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--resume appends to the files of an earlier run, --force replaces them: give one');
    const noOut = await runCliInProcess(['label', '--claims', claims, '--resume', '--report', f('r')]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('--resume needs --out');
  });
});

describe('label --resume', () => {
  test("a killed run's cut last line is dropped and its claim labelled again; a finished job is left alone", async () => {
    const { claims, hits, f } = await small();
    const args = ['--claims', claims, '--out', f('out.jsonl'), '--report', f('report.jsonl')];
    const full = await runCliInProcess(['label', ...args, '--allow-private', '--quiet']);
    expect(full.code, full.stderr).toBe(0);
    const whole = readFileSync(f('out.jsonl'), 'utf8');
    const [a1, a2] = whole.split('\n');
    // As a SIGKILL during a write could leave it: a1 whole, a2 cut short; the report as far as a2.
    writeFileSync(f('out.jsonl'), `${a1}\n${a2!.slice(0, 40)}`);
    writeFileSync(f('report.jsonl'), `${readFileSync(f('report.jsonl'), 'utf8').split('\n').slice(0, 2).join('\n')}\n`);
    const before = hits();
    const resumed = await runCliInProcess(['label', ...args, '--resume', '--allow-private', '--quiet']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `resuming: 1 of 4 claims labelled in ${f('out.jsonl')}; the cut last line of ${f('out.jsonl')} was dropped ` +
        '(a run killed mid-write); labelling the 3 not decided',
    );
    expect(resumed.stderr).toMatch(/labelled 3 of 3 claims: 2 verbatim, 1 no_match today/);
    // a is read again (a2 was not decided); b and c too; the file is whole, in input order, each claim once.
    expect(hits().map((n, i) => n - before[i]!)).toEqual([1, 1, 1]);
    expect(lines(f('out.jsonl')).map((r) => r.id)).toEqual(['a1', 'a2', 'b1', 'c1']);
    expect(
      lines(f('report.jsonl'))
        .map((r) => r.id)
        .sort(),
    ).toEqual(['a1', 'a2', 'b1', 'c1']);

    const again = await runCliInProcess(['label', ...args, '--resume', '--allow-private', '--quiet']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('nothing left to label: every claim of');
    expect(hits().map((n, i) => n - before[i]!)).toEqual([1, 1, 1]);
  });

  test('the resume command a stop prints: the same arguments, --force dropped, --resume added, quoted for sh', () => {
    expect(resumeCommand(['label', '--claims', 'my claims.json', '--out', "it's.jsonl", '--force'])).toBe(
      "quotecheck label --claims 'my claims.json' --out 'it'\\''s.jsonl' --resume",
    );
  });
});

describe('label --replay says what it is judged on', () => {
  test('"in the recording", never "today"', async () => {
    const { claims, f } = await small();
    const made = await runCliInProcess([
      'label',
      '--claims',
      claims,
      '--out',
      f('out.jsonl'),
      '--record',
      f('run.warc.gz'),
      '--allow-private',
      '--quiet',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const replayed = await runCliInProcess(['label', '--claims', f('out.jsonl'), '--replay', f('run.warc.gz')]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stderr).toContain('3 verbatim, 1 no_match in the recording');
    expect(replayed.stderr).toContain('every label given holds in the recording');
    expect(replayed.stderr).not.toContain('today');
  });
});

describe('ETA', () => {
  test('the time left at the pace so far; none before anything is done or in the first second', () => {
    expect(etaText(10_000, 0.5)).toBe('ETA 10 s');
    expect(etaText(30_000, 0.25)).toBe('ETA 1 min 30 s');
    expect(etaText(3_600_000, 0.5)).toBe('ETA 1 h 00 min');
    expect(etaText(5_000, 0)).toBe('');
    expect(etaText(500, 0.5)).toBe('');
    expect(etaText(5_000, 1)).toBe('ETA 0 s');
  });
});
