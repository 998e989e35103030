// Issue 42: evaluate on a real engine (Podman here, Docker where its daemon runs). The task's images are built, so a
// frozen edition of a builder's dataset scores as a harness would score it, and what the namespace emulation let
// through is caught or stopped: an image without its tools, a dataset kept in the host's system folders, an answers
// file raced into a link to the host's gold.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readLabelled, readRecordedRun, tasksByName, writeDataset, writeTaskArchives } from '../src/harbor/export.js';
import { runEvaluation, type EvaluationOptions } from '../src/harbor/local-harness.js';
import { ENGINE, needEngine } from './support/engine.js';
import { FIXTURES, ROOT, fileTempDir, runCliInProcess, serve, tempDir, writeJson } from './support/helpers.js';

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const page = (words: string): string => `<html><head><title>Notes</title></head><body><p>${words}</p></body></html>`;
const HARBOUR = 'The harbour master rang the bell at six every morning, fog or no fog.';

/** The builder's claims: a `pages` task (HTML) and a `papers` task (an English PDF and a Japanese one, which needs
 * poppler-data), each half verbatim. */
function claims(origin: string) {
  return [
    { task: 'pages', id: 'h1', quote: 'rang the bell at six every morning', url: `${origin}/notes` },
    { task: 'pages', id: 'h2', quote: 'rang the bell at seven every morning', url: `${origin}/notes` },
    {
      task: 'papers',
      id: 'p1',
      quote: 'Trace-based Just-in-Time Type Specialization for Dynamic Languages',
      url: `${origin}/tracemonkey.pdf`,
    },
    {
      task: 'papers',
      id: 'p2',
      quote: 'Trace-based Ahead-of-Time Type Specialization',
      url: `${origin}/tracemonkey.pdf`,
    },
    { task: 'papers', id: 'p3', quote: 'わたくしといふ現象は', url: `${origin}/jo.pdf` },
    { task: 'papers', id: 'p4', quote: 'わたくしといふ幻想は', url: `${origin}/jo.pdf` },
  ];
}

const EXPECTED = { h1: 'verbatim', h2: 'no_match', p1: 'verbatim', p2: 'no_match', p3: 'verbatim', p4: 'no_match' };

/**
 * The builder's path: the claims run on this machine with the sources recorded, the answers as labels, a frozen
 * edition exported with the recording (its sources then gone: the tasks need no network).
 */
async function frozenEdition(): Promise<string> {
  const dir = fileTempDir();
  const server = await serve([
    { path: '/notes', body: page(HARBOUR), headers: { 'content-type': 'text/html; charset=utf-8' } },
    {
      path: '/tracemonkey.pdf',
      body: readFileSync(join(FIXTURES, 'tracemonkey-p1.pdf')),
      headers: { 'content-type': 'application/pdf' },
    },
    {
      path: '/jo.pdf',
      body: readFileSync(join(ROOT, 'golden', 'sources', 'pdf', 'jo.pdf')),
      headers: { 'content-type': 'application/pdf' },
    },
  ]);
  const rows = claims(server.origin);
  const warc = join(dir, 'run.warc.gz');
  const claimsFile = writeJson(
    join(dir, 'claims.json'),
    rows.map(({ task: _t, ...c }) => c),
  );
  const answers = join(dir, 'answers.json');
  const run = await runCliInProcess([
    'run',
    '--allow-private',
    '--quiet',
    '--claims',
    claimsFile,
    '--out',
    answers,
    '--record',
    warc,
  ]);
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.parse(readFileSync(answers, 'utf8'))).toEqual(EXPECTED);
  await server.close();
  const labelled = join(dir, 'labelled.jsonl');
  const labels = EXPECTED as Record<string, string>;
  writeFileSync(labelled, `${rows.map((r) => JSON.stringify({ ...r, label: labels[r.id] })).join('\n')}\n`);
  const { names, tasks } = tasksByName(readLabelled(labelled, { taskField: 'task' }));
  const out = join(dir, 'dataset');
  await writeTaskArchives(
    writeDataset(out, tasks, 'x', { frozen: true, taskNames: names }),
    await readRecordedRun(warc),
  );
  return out;
}

let dataset = '';
beforeAll(async () => {
  if ('engine' in ENGINE) dataset = await frozenEdition();
}, 120_000);

/** One agent over a dataset on the engine; the rewards by task. */
async function evaluate(tasksDir: string, agent: string, opts: Partial<EvaluationOptions> = {}) {
  const report = await runEvaluation({
    tasksDir,
    agent,
    outDir: tempDir(),
    isolation: 'engine' in ENGINE ? ENGINE.engine : 'namespace',
    jobs: 2,
    ...opts,
  });
  return { report, rewards: Object.fromEntries(report.tasks.map((t) => [t.task, t.reward])) };
}

describe("evaluate on a real engine: a frozen edition of a builder's dataset (HTML and PDF claims)", () => {
  test("quotecheck evaluate --isolation ENGINE: the oracle 1.000, the baseline each task's no_match share, doing nothing 0; the images built", async (ctx) => {
    const engine = needEngine(ctx);
    const out = tempDir();
    const r = await runCliInProcess([
      'evaluate',
      '--tasks',
      dataset,
      '--isolation',
      engine,
      '--agent',
      'oracle',
      '--out',
      out,
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`each trial on ${engine === 'podman' ? 'Podman' : 'Docker'}: the task's images built`);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(report.isolation).toBe(engine);
    expect(report.isolation_limits).toEqual([]);
    for (const t of report.tasks) expect([t.task, t.reward, t.problems]).toEqual([t.task, 1, []]);
    expect(readFileSync(join(out, 'trials', 'papers', 'build-environment.txt'), 'utf8')).toMatch(
      /poppler-utils|built before/,
    );
    const baseline = await evaluate(dataset, 'baseline');
    expect(baseline.rewards).toEqual({ pages: 0.5, papers: 0.5 });
    const nothing = await evaluate(dataset, 'true');
    expect(nothing.rewards).toEqual({ pages: 0, papers: 0 });
  }, 300_000);

  test("without poppler-utils in environment/Dockerfile the PDF task scores below 1: the image was built, not the host's tools used", async (ctx) => {
    needEngine(ctx);
    const broken = join(tempDir(), 'dataset');
    cpSync(dataset, broken, { recursive: true });
    for (const task of ['pages', 'papers']) {
      const file = join(broken, task, 'environment', 'Dockerfile');
      const text = readFileSync(file, 'utf8');
      expect(text).toContain(' poppler-utils ');
      writeFileSync(file, text.replace(' poppler-utils ', ' '));
    }
    const { rewards, report } = await evaluate(broken, 'oracle');
    expect(rewards.pages).toBe(1);
    expect(rewards.papers).toBeLessThan(1);
    const papers = report.tasks.find((t) => t.task === 'papers')!;
    expect(
      papers.rows
        .filter((row) => !row.correct)
        .map((row) => row.id)
        .sort(),
    ).toEqual(['p1', 'p3']);
  }, 300_000);
});

describe('evaluate on a real engine: what the agent cannot reach', () => {
  const kept: string[] = [];
  afterAll(() => {
    for (const d of kept) rmSync(d, { recursive: true, force: true });
  });

  test('a dataset kept under /var/lib: an agent searching /var, /usr, /etc and / for its gold finds none, as the agent user or as root', async (ctx) => {
    needEngine(ctx);
    const home = mkdtempSync('/var/lib/quotecheck-test-');
    kept.push(home);
    cpSync(dataset, join(home, 'dataset'), { recursive: true });
    const search =
      'for f in $(find /var /usr /etc / -xdev -name gold.json 2>/dev/null); do cp "$f" /app/answers.json; done; ' +
      `ls ${q(join(home, 'dataset'))} >/dev/null 2>&1 && echo "host dataset visible"; true`;
    for (const agentUser of ['task', 'root'] as const) {
      const { rewards, report } = await evaluate(join(home, 'dataset'), search, { agentUser });
      expect(rewards).toEqual({ pages: 0, papers: 0 });
      for (const t of report.tasks) expect(t.problems.join(' ')).not.toContain('host dataset visible');
    }
  }, 300_000);

  test("answers raced into a link to the host's gold by a process the agent leaves running score no more than its own answers", async (ctx) => {
    needEngine(ctx);
    const gold = join(dataset, 'pages', 'tests', 'gold.json');
    const honest = JSON.stringify({ h1: 'no_match', h2: 'no_match' });
    const racer =
      `printf '%s' ${q(honest)} > /app/honest.json; cp /app/honest.json /app/answers.json; ` +
      `setsid nohup sh -c 'while :; do ln -sfn ${gold} /app/a.lnk; mv -fT /app/a.lnk /app/answers.json; ` +
      `cp /app/honest.json /app/a.tmp; mv -fT /app/a.tmp /app/answers.json; done' >/dev/null 2>&1 &`;
    const rewards: number[] = [];
    for (let i = 0; i < 4; i++) rewards.push((await evaluate(join(dataset, 'pages'), racer)).rewards.pages!);
    // Its own answers (all no_match) earn the no_match share, 0.5; the gold would earn 1.
    for (const r of rewards) expect(r).toBeLessThanOrEqual(0.5);
  }, 300_000);
});
