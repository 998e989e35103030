// `evaluate` and the demo say what went wrong: a task whose sources all failed, what to check, one name for the no_match share, the scoreboard's legend.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runEvaluation } from '../src/evaluate/evaluate.js';
import { evaluationTable } from '../src/results/report-files.js';
import { GOLDEN_SERVER_HINT, isGoldenTasks } from '../src/cli/actions/evaluate.js';
import { SCOREBOARD_LEGEND, serveGolden, table } from '../golden/scoreboard.js';
import { makeTask } from './support/harbor-helpers.js';
import { ROOT, runCli, serve, tempDir, closedPort } from './support/helpers.js';
import type { EvaluationReport } from '../src/results/evaluation-report.js';

async function dataset(): Promise<{ dir: string; port: number }> {
  const port = await closedPort();
  const live = await serve([
    {
      path: '/ok',
      body: '<html><body><p>The words are here.</p></body></html>',
      headers: { 'content-type': 'text/html' },
    },
  ]);
  const dir = tempDir();
  makeTask(dir, 'dead', [
    { id: 'd-1', quote: 'one', url: `http://127.0.0.1:${port}/a`, gold: 'verbatim' },
    { id: 'd-2', quote: 'two', url: `http://127.0.0.1:${port}/b#frag`, gold: 'no_match' },
    { id: 'd-3', quote: 'three', url: `http://127.0.0.1:${port}/b`, gold: 'verbatim' },
  ]);
  makeTask(dir, 'live', [{ id: 'l-1', quote: 'the words are here', url: `${live.origin}/ok`, gold: 'verbatim' }]);
  return { dir, port };
}

describe('a task whose sources all fail', () => {
  test('runEvaluation names it, counts its sources and hosts, and says what to check', async () => {
    const { dir, port } = await dataset();
    const report = await runEvaluation({ tasksDir: dir, agent: 'oracle', outDir: tempDir(), isolation: 'paths' });
    const dead = report.tasks.find((t) => t.task === 'dead')!;
    const live = report.tasks.find((t) => t.task === 'live')!;
    expect(dead.sourcesFailed).toMatchObject({ sources: 2, hosts: [`127.0.0.1:${port}`] });
    expect(dead.problems).toContain(
      `every source failed (2 sources on 127.0.0.1:${port}: connection refused or dropped)`,
    );
    expect(live.sourcesFailed).toBeUndefined();
    expect(live.reward).toBe(1);
    expect(report.advice).toHaveLength(1);
    expect(report.advice[0]).toMatch(
      new RegExp(
        `^every source failed in 1 of 2 tasks \\(dead\\), so its no_match answers say nothing about the quotes: connection failed: .+ECONNREFUSED.+\\. Check: they are on loopback \\(127\\.0\\.0\\.1:${port}\\): is the server that serves them running, on that port\\?$`,
      ),
    );
    // The terminal table carries it too, and names the no_match share one way.
    const text = evaluationTable(report);
    expect(text).toContain(report.advice[0]);
    expect(text).not.toMatch(/floor/);
    expect(text.split('\n')[0]).toMatch(/\bbaseline\b/);
    // A caller's hint (the golden server) replaces the generic one.
    const hinted = await runEvaluation({
      tasksDir: join(dir, 'dead'),
      agent: 'oracle',
      outDir: tempDir(),
      isolation: 'paths',
      sourcesHint: 'is the golden server running?',
    });
    expect(hinted.advice).toEqual([
      expect.stringMatching(/^every source failed in task dead, .*Check: is the golden server running\?$/),
    ]);
  }, 30_000);

  test('the CLI prints it after the table and writes it into report.json and report.html', async () => {
    const { dir } = await dataset();
    const out = tempDir();
    const r = await runCli(['evaluate', '--tasks', dir, '--out', out, '--isolation', 'paths', '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/every source failed in 1 of 2 tasks \(dead\).*Check: they are on loopback/);
    const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as EvaluationReport;
    expect(json.advice).toHaveLength(1);
    expect(json.tasks.find((t) => t.task === 'dead')!.baseline).toBeCloseTo(1 / 3, 5);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('every source failed in 1 of 2 tasks (dead)');
  }, 30_000);

  test('nothing is said when the agent wrote no evidence report (the baseline) or something was fetched', async () => {
    const { dir } = await dataset();
    const report = await runEvaluation({ tasksDir: dir, agent: 'baseline', outDir: tempDir(), isolation: 'paths' });
    expect(report.advice).toEqual([]);
    expect(report.tasks.every((t) => t.sourcesFailed === undefined)).toBe(true);
  }, 30_000);
});

describe('the golden tasks', () => {
  test('are recognised by folder, so evaluate can say the golden server must run', () => {
    expect(isGoldenTasks(join(ROOT, 'golden', 'tasks'))).toBe(true);
    expect(isGoldenTasks(join(ROOT, 'golden', 'tasks', 'news-wire'))).toBe(true);
    expect(isGoldenTasks(tempDir())).toBe(false);
    expect(isGoldenTasks(join(ROOT, 'golden-copy'))).toBe(false);
    expect(GOLDEN_SERVER_HINT).toContain('node dist/golden/server.js &');
  });

  test('the demo uses a server already on its port rather than crashing', async () => {
    const port = await closedPort();
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    try {
      expect(await serveGolden(port)).toBeNull();
    } finally {
      await new Promise<void>((r) => squatter.close(() => r()));
    }
    const own = await serveGolden(port);
    expect(own).not.toBeNull();
    await own!.close();
  });
});

describe('the demo scoreboard', () => {
  test('has a one-line legend for the baseline column and the two totals', () => {
    const task = (name: string, claims: number, baseline: number, reward: number) => ({
      task: name,
      claims,
      correct: Math.round(reward * claims),
      reward,
      baseline,
      floor: baseline,
      seconds: 1,
      rows: [],
      problems: [],
    });
    const report = (reward: (b: number) => number, tasks: [string, number, number][]): EvaluationReport => {
      const ts = tasks.map(([n, c, b]) => task(n, c, b, reward(b)));
      const claims = ts.reduce((n, t) => n + t.claims, 0);
      return {
        tasks: ts,
        claims,
        correct: ts.reduce((n, t) => n + t.correct, 0),
        mean_reward: ts.reduce((n, t) => n + t.reward, 0) / ts.length,
        advice: [],
        drifted_sources: 0,
        claims_from_captures: 0,
      } as unknown as EvaluationReport;
    };
    const sizes: [string, number, number][] = [
      ['big', 20, 0.25],
      ['small', 4, 0.75],
    ];
    const text = table({
      oracle: report(() => 1, sizes),
      baseline: report((b) => b, sizes),
      waybackOff: report(() => 1, []),
    });
    const lines = text.split('\n');
    expect(lines).toContain(SCOREBOARD_LEGEND);
    expect(SCOREBOARD_LEGEND).not.toContain('\n');
    expect(SCOREBOARD_LEGEND).toMatch(/no_match share/);
    expect(SCOREBOARD_LEGEND).toMatch(/"all claims".*"mean reward"/);
    // The two totals the legend explains do differ here: pooled 8/24 against the mean of 0.25 and 0.75.
    expect(lines.find((l) => l.startsWith('all claims'))).toMatch(/0\.333\s*$/);
    expect(lines.find((l) => l.startsWith('mean reward'))).toMatch(/0\.500\s*$/);
  });
});
