// Issue 42: evaluate on a real engine (Podman here, Docker where its daemon runs). The task's images are built, so a
// frozen edition of a builder's dataset scores as a harness would score it, and what the namespace emulation let
// through is caught or stopped: an image without its tools, a dataset kept in the host's system folders, an answers
// file raced into a link to the host's gold.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runEvaluation, type EvaluationOptions } from '../src/evaluate/evaluate.js';
import { ENGINE, frozenEdition, needEngine } from './support/engine.js';
import { runCliInProcess, tempDir } from './support/helpers.js';

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
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
