// `quotecheck label`: a benchmark builder's first step, over sources served on loopback as the real web serves them
// (three charsets, a PDF, a redirect, a 503 then 200, a 404): gold labels with their proof, then export, grade and bench.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, test } from 'vitest';
import { runEvaluation } from '../../src/evaluate/evaluate.js';
import { QUICK_ISOLATION } from '../support/engine.js';
import { FIXTURES, runCliInProcess, serve, tempDir } from '../support/helpers.js';
import { gzipMembers, handParse } from '../support/warc-hand.js';
import type { Route } from '../../golden/server.js';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

const UTF8_PAGE = Buffer.from(
  '<!doctype html><html><head><title>Harbour report</title></head><body><article><h1>Harbour report</h1>' +
    '<p>The harbour master counted forty\u2014two ships on the first day, and \u201cnone\u201d sank.</p>' +
    '<p>By the second week the quay was too short for the fleet that came in with the tide.</p></article></body></html>',
);
const CP1252_PAGE = Buffer.from(
  '<html><head><meta charset="windows-1252"><title>Caf\xe9</title></head><body><div><p>Caf\xe9 au lait is served \x93hot\x94 every morning at the caf\xe9 on the square.</p></div></body></html>',
  'latin1',
);
const SJIS_TEXT =
  '<html><body><p>東京の港には毎朝たくさんの船が入ってくる。</p><p>二つ目の段落です。</p></body></html>';
const SJIS_PAGE = Buffer.from(iconv.encode(SJIS_TEXT, 'Shift_JIS'));
const PDF = readFileSync(join(FIXTURES, 'tracemonkey-p1.pdf'));
const FLAKY = Buffer.from('<html><body><p>The ferry timetable changes on the first of May.</p></body></html>');

function routes(): Route[] {
  return [
    { path: '/harbour.html', body: UTF8_PAGE, headers: { 'content-type': 'text/html; charset=utf-8' } },
    { path: '/cafe.html', body: CP1252_PAGE, headers: { 'content-type': 'text/html' } },
    { path: '/tokyo.html', body: SJIS_PAGE, headers: { 'content-type': 'text/html; charset=Shift_JIS' } },
    { path: '/paper.pdf', body: PDF, headers: { 'content-type': 'application/pdf' } },
    { path: '/old-harbour', redirect: { location: '/harbour.html', status: 301 } },
    {
      path: '/ferry.html',
      body: FLAKY,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      failFirst: { count: 1, status: 503, headers: { 'retry-after': '0' }, body: 'busy' },
    },
    { path: '/gone.html', status: 404, body: '<h1>Not found</h1>', headers: { 'content-type': 'text/html' } },
  ];
}

/** 12 claims over 7 sources; `gold` is what the rule must give each one whose source is readable. */
function claimsFor(origin: string) {
  const u = (p: string) => `${origin}${p}`;
  const claims = [
    {
      id: 'h1',
      quote: 'counted forty-two ships on the first day',
      url: u('/harbour.html'),
      claim: 'The master counted 42 ships.',
    },
    { id: 'h2', quote: 'counted forty-three ships on the first day', url: u('/harbour.html') },
    { id: 'h3', quote: 'and "none" sank', url: u('/harbour.html#p1') },
    { id: 'r1', quote: 'the quay was too short for the fleet', url: u('/old-harbour'), task: 'redirects' },
    { id: 'c1', quote: 'Café au lait is served “hot” every morning', url: u('/cafe.html') },
    { id: 'c2', quote: 'Café au lait is served cold every morning', url: u('/cafe.html') },
    { id: 'j1', quote: '東京の港には毎朝たくさんの船が入ってくる', url: u('/tokyo.html') },
    {
      id: 'p1',
      quote: 'Dynamic languages such as JavaScript are more difficult to compile than statically typed ones',
      url: u('/paper.pdf'),
    },
    { id: 'p2', quote: 'Dynamic languages such as Python are easy to compile', url: u('/paper.pdf') },
    { id: 'f1', quote: 'The ferry timetable changes on the first of May', url: u('/ferry.html') },
    { id: 'g1', quote: 'This page once said something', url: u('/gone.html') },
    { id: 'g2', quote: 'And something else', url: u('/gone.html') },
  ];
  const gold: Record<string, 'verbatim' | 'no_match'> = {
    h1: 'verbatim',
    h2: 'no_match',
    h3: 'verbatim',
    r1: 'verbatim',
    c1: 'verbatim',
    c2: 'no_match',
    j1: 'verbatim',
    p1: 'verbatim',
    p2: 'no_match',
    f1: 'verbatim',
  };
  return { claims, gold };
}

const readJsonl = (path: string): Record<string, unknown>[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

type Evidence = {
  sha256?: string;
  final_url?: string;
  http_status?: number;
  diagnosis: string;
  warc_record_id?: string;
  note?: string;
};

/** Serves the sources, writes the claims, runs `label` with the options `extra` gives for the folder; what a test looks at. */
async function labelled(extra: (dir: string) => string[] = () => []) {
  const server = await serve(routes());
  const dir = tempDir();
  const { claims, gold } = claimsFor(server.origin);
  const claimsPath = join(dir, 'claims.json');
  writeFileSync(claimsPath, JSON.stringify(claims, null, 2));
  const out = join(dir, 'claims.labelled.jsonl');
  const before = Date.now();
  const r = await runCliInProcess([
    'label',
    '--claims',
    claimsPath,
    '--out',
    out,
    '--allow-private',
    '--quiet',
    ...extra(dir),
  ]);
  return { server, dir, claims, gold, claimsPath, out, before, after: Date.now(), r };
}

/** The served bytes of each path, as the server sends them (no Content-Encoding): what evidence.sha256 must hash. */
const SERVED: Record<string, Buffer> = {
  '/harbour.html': UTF8_PAGE,
  '/old-harbour': UTF8_PAGE,
  '/cafe.html': CP1252_PAGE,
  '/tokyo.html': SJIS_PAGE,
  '/paper.pdf': PDF,
  '/ferry.html': FLAKY,
};

describe('label: gold labels with their proof', () => {
  test('every readable source labelled by the rule, dated, hashed, its bytes a record of the --record WARC; unreadable ones left out and listed', async () => {
    const { dir, gold, out, before, after, r, claims, server } = await labelled((d) => [
      '--record',
      join(d, 'run.warc.gz'),
      '--left-out',
      join(d, 'left.jsonl'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readJsonl(out);
    // Every readable claim, in input order, with every field it had (claim, task) and nothing of the old proof.
    expect(rows.map((row) => row.id)).toEqual(Object.keys(gold));
    expect(Object.fromEntries(rows.map((row) => [row.id, row.label]))).toEqual(gold);
    expect(rows.find((row) => row.id === 'h1')!.claim).toBe('The master counted 42 ships.');
    expect(rows.find((row) => row.id === 'r1')!.task).toBe('redirects');
    // An independent WARC reader: every response record's payload hash, and its id.
    const records = gzipMembers(readFileSync(join(dir, 'run.warc.gz'))).map((m) => handParse(m.bytes));
    const responses = records.filter((rec) => rec.fields.get('warc-type') === 'response');
    for (const row of rows) {
      const e = row.evidence as Evidence;
      const path = new URL(String(row.url)).pathname;
      expect(e.sha256, String(row.id)).toBe(sha256(SERVED[path]!));
      // verify_date: when the source was read, an ISO date-time in UTC within the run.
      expect(row.verify_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      const t = Date.parse(String(row.verify_date));
      expect(t).toBeGreaterThanOrEqual(before - 1000);
      expect(t).toBeLessThanOrEqual(after + 1000);
      if (row.label === 'verbatim') expect(e.diagnosis).toBe('verbatim');
      else expect(e.diagnosis).not.toBe('verbatim');
      expect(e.http_status).toBe(200);
      // The record evidence names holds exactly those bytes.
      const record = responses.find((rec) => rec.fields.get('warc-record-id') === e.warc_record_id);
      expect(record, `${row.id}: ${e.warc_record_id}`).toBeDefined();
      expect(sha256(record!.payload)).toBe(e.sha256);
      expect(record!.fields.get('warc-target-uri')).toBe(e.final_url);
    }
    // The redirect's evidence is its final URL; the 503 before the 200 is in the archive too.
    expect((rows.find((row) => row.id === 'r1')!.evidence as Evidence).final_url).toBe(`${server.origin}/harbour.html`);
    const ferry = responses.filter((rec) => rec.fields.get('warc-target-uri') === `${server.origin}/ferry.html`);
    expect(ferry.map((rec) => rec.httpHead?.[0])).toEqual(['HTTP/1.1 503 Service Unavailable', 'HTTP/1.1 200 OK']);
    // The 404's claims: no gold label, listed with the reason on stderr and in --left-out.
    expect(r.stderr).toMatch(/left out 2 claims with no gold label \(2 with an HTTP error status\)/);
    expect(r.stderr).toContain('diagnoses of the labels: verbatim 7, near_miss 2, not_found 1');
    expect(r.stderr).toContain(`g1 ${server.origin}/gone.html: HTTP 404`);
    expect(r.stderr).toContain(`g2 ${server.origin}/gone.html: HTTP 404`);
    expect(r.stderr).toMatch(
      /labelled 10 of 12 claims: 7 verbatim, 3 no_match today \(sources: 6 read, 1 could not be read\)/,
    );
    const left = readJsonl(join(dir, 'left.jsonl'));
    expect(left.map((l) => [l.id, l.left_out])).toEqual([
      ['g1', { cause: 'unreadable', kind: 'http_status', reason: 'HTTP 404 Not Found' }],
      ['g2', { cause: 'unreadable', kind: 'http_status', reason: 'HTTP 404 Not Found' }],
    ]);
    expect(left[0]!.quote).toBe(claims.find((c) => c.id === 'g1')!.quote);
  }, 60_000);

  test('--keep-unreadable labels the 404 claims no_match, as the bare rule would, without a hash (there were no bytes)', async () => {
    const { out, r } = await labelled(() => ['--keep-unreadable']);
    expect(r.code, r.stderr).toBe(0);
    const rows = readJsonl(out);
    const gone = rows.filter((row) => String(row.id).startsWith('g'));
    expect(gone.map((row) => row.label)).toEqual(['no_match', 'no_match']);
    for (const row of gone) {
      expect((row.evidence as Evidence).sha256).toBeUndefined();
      expect(row.evidence).toMatchObject({ diagnosis: 'fetch_failed', note: expect.stringContaining('404') });
    }
    expect(r.stderr).not.toContain('left out');
  }, 60_000);

  test('sources refused by the network rule are left out, the reason naming --allow-private once; labelling nothing exits 3 and writes no --out', async () => {
    const server = await serve(routes());
    const dir = tempDir();
    const claimsPath = join(dir, 'claims.jsonl');
    writeFileSync(
      claimsPath,
      `${JSON.stringify({ id: 'a', quote: 'counted', url: `${server.origin}/harbour.html` })}\n`,
    );
    const r = await runCliInProcess(['label', '--claims', claimsPath, '--out', join(dir, 'out.jsonl'), '--quiet']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/left out 1 claim with no gold label \(1 refused by the network rule\)/);
    expect(r.stderr).toMatch(/not a global address.*--allow-private/);
    // The advice is given once a claim, not twice.
    const listed = r.stderr.split('\n').find((l) => l.includes('not a global address'))!;
    expect(listed.split('--allow-private').length - 1, listed).toBe(1);
    expect(r.stderr).toContain('error: no claim could be labelled');
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
    expect(server.hits('/harbour.html')).toBe(0);
    // So the retry needs no --force.
    const again = await runCliInProcess([
      'label',
      '--claims',
      claimsPath,
      '--out',
      join(dir, 'out.jsonl'),
      '--quiet',
      '--allow-private',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(readJsonl(join(dir, 'out.jsonl')).map((row) => row.label)).toEqual(['verbatim']);
  });

  test('over a labelled file: today against each label given, the reason for each change; nothing written; exit 1 when a label would change', async () => {
    const { out, dir } = await labelled();
    // Unchanged sources: every label holds.
    const same = await runCliInProcess(['label', '--claims', out, '--allow-private', '--quiet']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toContain('every label given holds today');
    expect(same.stderr).toContain('nothing written');
    // A label made by another rule on the same bytes, and one whose source changed since (its evidence hash differs).
    const rows = readJsonl(out).map((row) => {
      if (row.id === 'c2') return { ...row, label: 'verbatim' };
      if (row.id === 'p2')
        return { ...row, label: 'verbatim', evidence: { ...(row.evidence as object), sha256: '0'.repeat(64) } };
      if (row.id === 'h1') return { ...row, evidence: { ...(row.evidence as object), sha256: '1'.repeat(64) } };
      return row;
    });
    const edited = join(dir, 'edited.jsonl');
    writeFileSync(edited, rows.map((row) => JSON.stringify(row)).join('\n'));
    const changed = await runCliInProcess(['label', '--claims', edited, '--allow-private', '--quiet']);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('2 labels given would not hold today:\n');
    // The source that changed under a label that holds is named, with its claims.
    expect(changed.stderr).toMatch(
      /1 source changed since its claims' evidence \(the sha256 differs\), the labels of that claim holding:\nquotecheck: {3}\S+\/harbour\.html: h1\n/,
    );
    expect(changed.stderr).toMatch(
      /c2: labelled verbatim, no_match today \(near_miss\) on the same bytes \(sha256 equals the evidence\): the label was not made by this rule/,
    );
    expect(changed.stderr).toMatch(
      /p2: the source changed since \S+ \(its sha256 differs from the evidence\): labelled verbatim, no_match today/,
    );
    expect(readFileSync(edited, 'utf8')).toBe(rows.map((row) => JSON.stringify(row)).join('\n'));
  }, 60_000);

  test('never overwrites a file unless asked, nor the claims file; --out is required for claims without labels', async () => {
    const { out, claimsPath, dir } = await labelled();
    const first = readFileSync(out, 'utf8');
    const again = await runCliInProcess(['label', '--claims', claimsPath, '--out', out, '--allow-private', '--quiet']);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `quotecheck: error: --out ${out}: exists; label never overwrites a file unless asked: --resume appends to it, ` +
        'labelling only the claims not yet in --out; --force replaces it\n',
    );
    expect(readFileSync(out, 'utf8')).toBe(first);
    const self = await runCliInProcess(['label', '--claims', out, '--out', out, '--force', '--quiet']);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain('is the claims file');
    const none = await runCliInProcess(['label', '--claims', claimsPath, '--quiet']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--out is required');
    const forced = await runCliInProcess([
      'label',
      '--claims',
      claimsPath,
      '--out',
      out,
      '--force',
      '--allow-private',
      '--quiet',
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(existsSync(join(dir, 'claims.labelled.jsonl'))).toBe(true);
  }, 60_000);
  test('a claims file that cannot be labelled is refused before anything is fetched or written, naming its line', async () => {
    const server = await serve(routes());
    const dir = tempDir();
    const claimsPath = join(dir, 'claims.jsonl');
    const claim = { id: 'a', quote: 'counted', url: `${server.origin}/harbour.html` };
    writeFileSync(claimsPath, `${JSON.stringify(claim)}\n\n${JSON.stringify({ ...claim, quote: 'ships' })}\n`);
    const warc = join(dir, 'run.warc.gz');
    const r = await runCliInProcess([
      'label',
      '--claims',
      claimsPath,
      '--out',
      join(dir, 'out.jsonl'),
      '--record',
      warc,
      '--allow-private',
      '--quiet',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `quotecheck: error: ${claimsPath}: line 3 (id "a"): duplicate id, first used by line 1; ids must be unique\n`,
    );
    expect(existsSync(warc)).toBe(false);
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
    expect(server.hits('/harbour.html')).toBe(0);
  });
});

describe('one labelled file everywhere', () => {
  test('grade --gold reads what label writes: JSON Lines, a single line, and the same claims as a JSON array', async () => {
    const { out, dir, gold } = await labelled();
    const answers = join(dir, 'answers.json');
    writeFileSync(answers, JSON.stringify({ ...gold, h2: 'verbatim' }));
    const graded = await runCliInProcess(['grade', '--answers', answers, '--gold', out]);
    expect(graded.code, graded.stderr).toBe(0);
    expect(graded.stdout).toContain('accuracy 0.900 (9/10 correct)');
    expect(graded.stdout).toContain('"h2": expected no_match, given verbatim');
    const rows = readJsonl(out);
    const array = join(dir, 'labelled.json');
    writeFileSync(array, JSON.stringify(rows, null, 2));
    expect((await runCliInProcess(['grade', '--answers', answers, '--gold', array])).stdout).toContain(
      'accuracy 0.900 (9/10 correct)',
    );
    const one = join(dir, 'one.jsonl');
    writeFileSync(one, `${JSON.stringify(rows[0])}\n`);
    expect((await runCliInProcess(['grade', '--answers', answers, '--gold', one])).stdout).toContain(
      'accuracy 1.000 (1/1 correct)',
    );
    const broken = join(dir, 'broken.jsonl');
    writeFileSync(broken, `${JSON.stringify(rows[0])}\n${JSON.stringify({ ...rows[1], label: undefined })}\n`);
    const refused = await runCliInProcess(['grade', '--answers', answers, '--gold', broken]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/broken\.jsonl:2 \(id "h2"\): field "label" is missing/);
  }, 60_000);

  test('label -> export -> evaluate: the oracle scores 1.000, the baseline each task its no_match share', async () => {
    const { out, dir, gold } = await labelled();
    const dataset = join(dir, 'dataset');
    const exported = await runCliInProcess([
      'export',
      '--labelled',
      out,
      '--out',
      dataset,
      '--per-task',
      '4',
      '--allow-private',
      '--name',
      'lb',
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    // The agent's claims carry the proof it may check (verify_date, evidence.sha256), never the label or its diagnosis.
    for (const task of readdirSync(dataset).filter((t) => t !== 'README.md')) {
      const given = JSON.parse(readFileSync(join(dataset, task, 'environment', 'claims.json'), 'utf8')) as Record<
        string,
        unknown
      >[];
      for (const c of given) {
        expect(
          Object.keys(c).every((k) => ['id', 'claim', 'quote', 'url', 'verify_date', 'evidence'].includes(k)),
          JSON.stringify(c),
        ).toBe(true);
        expect(Object.keys(c.evidence as object)).toEqual(['sha256']);
      }
    }
    const oracle = await runEvaluation({
      tasksDir: dataset,
      agent: 'oracle',
      outDir: join(dir, 'oracle'),
      ...QUICK_ISOLATION,
    });
    expect(oracle.tasks.map((t) => t.reward).every((x) => x === 1)).toBe(true);
    expect(oracle.claims).toBe(Object.keys(gold).length);
    const baseline = await runEvaluation({
      tasksDir: dataset,
      agent: 'baseline',
      outDir: join(dir, 'baseline'),
      ...QUICK_ISOLATION,
    });
    for (const t of baseline.tasks) {
      const goldOfTask = JSON.parse(readFileSync(join(dataset, t.task, 'tests', 'gold.json'), 'utf8')) as Record<
        string,
        string
      >;
      const share = Object.values(goldOfTask).filter((l) => l === 'no_match').length / Object.keys(goldOfTask).length;
      expect(t.reward, t.task).toBeCloseTo(share, 6);
    }
  }, 120_000);

  test('label --record -> export --warc -> evaluate with the sources gone: the frozen oracle scores 1.000, the 503-then-200 source included', async () => {
    const { out, dir, server } = await labelled((d) => ['--record', join(d, 'run.warc.gz')]);
    const dataset = join(dir, 'frozen');
    const exported = await runCliInProcess([
      'export',
      '--labelled',
      out,
      '--out',
      dataset,
      '--warc',
      join(dir, 'run.warc.gz'),
      '--name',
      'fz',
      '--allow-private',
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    // The network off: nothing serves the sources any more.
    await server.close();
    const oracle = await runEvaluation({
      tasksDir: dataset,
      agent: 'oracle',
      outDir: join(dir, 'oracle'),
      ...QUICK_ISOLATION,
    });
    expect(oracle.tasks.map((t) => t.reward)).toEqual(oracle.tasks.map(() => 1));
    expect(oracle.claims).toBe(10);
  }, 120_000);
});
