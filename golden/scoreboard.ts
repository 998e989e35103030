// The golden scoreboard: the oracle and the baseline run through the real CLI on each task, graded by the verifier's code.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { grade, readLabelFile } from '../src/harbor/grade.js';
import pLimit from 'p-limit';
import { projectRoot } from './server.js';

const run = promisify(execFile);

export interface Score {
  task: string;
  claims: number;
  noMatchShare: number;
  oracle: number;
  baseline: number;
  oracleCorrect: number;
  baselineCorrect: number;
  seconds: number;
}

/** Runs the real CLI (as solve.sh does) on one task, then grades it with the verifier's code. */
export async function scoreTask(taskDir: string, task: string, outDir: string): Promise<Score> {
  const cli = join(projectRoot(), 'bin', 'quotecheck.js');
  const claims = join(taskDir, 'environment', 'claims.json');
  const gold = await readLabelFile(join(taskDir, 'tests', 'gold.json'), 'gold');
  const dir = join(outDir, task);
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  await run(process.execPath, [cli, 'run', '--quiet', '--claims', claims, '--out', join(dir, 'answers.json'), '--report', join(dir, 'report.jsonl')]);
  const seconds = (performance.now() - started) / 1000;
  await run(process.execPath, [cli, 'run', '--quiet', '--baseline', '--claims', claims, '--out', join(dir, 'baseline.json')]);
  const oracle = grade(await readLabelFile(join(dir, 'answers.json'), 'answers'), gold);
  const baseline = grade(await readLabelFile(join(dir, 'baseline.json'), 'answers'), gold);
  const noMatch = [...gold.values()].filter((l) => l === 'no_match').length;
  return {
    task,
    claims: gold.size,
    noMatchShare: noMatch / gold.size,
    oracle: oracle.reward,
    baseline: baseline.reward,
    oracleCorrect: oracle.correct,
    baselineCorrect: baseline.correct,
    seconds,
  };
}

export function table(scores: Score[]): string {
  const width = Math.max(12, ...scores.map((s) => s.task.length));
  const row = (task: string, claims: string, share: string, oracle: string, baseline: string, secs: string) =>
    `${task.padEnd(width)}  ${claims.padStart(6)}  ${share.padStart(8)}  ${oracle.padStart(6)}  ${baseline.padStart(8)}  ${secs.padStart(6)}`;
  const lines = [row('task', 'claims', 'no_match', 'oracle', 'baseline', 'secs'), '-'.repeat(width + 46)];
  for (const s of scores) {
    lines.push(row(s.task, String(s.claims), s.noMatchShare.toFixed(3), s.oracle.toFixed(3), s.baseline.toFixed(3), s.seconds.toFixed(1)));
  }
  const claims = scores.reduce((n, s) => n + s.claims, 0);
  const noMatch = scores.reduce((n, s) => n + s.noMatchShare * s.claims, 0);
  const oracle = scores.reduce((n, s) => n + s.oracleCorrect, 0);
  const baseline = scores.reduce((n, s) => n + s.baselineCorrect, 0);
  lines.push('-'.repeat(width + 46));
  lines.push(row("all claims", String(claims), (noMatch / claims).toFixed(3), (oracle / claims).toFixed(3), (baseline / claims).toFixed(3), ""));
  const mean = (f: (s: Score) => number) => (scores.reduce((n, s) => n + f(s), 0) / scores.length).toFixed(3);
  lines.push(row('mean reward', '', '', mean((s) => s.oracle), mean((s) => s.baseline), ''));
  return lines.join('\n');
}

/** Scores every task under `tasksDir` (a few at a time), in name order; outputs go to `outDir/<task>/`. The golden server must be running. */
export async function scoreAll(tasksDir: string, outDir: string, jobs = availableParallelism()): Promise<Score[]> {
  const tasks = readdirSync(tasksDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const limit = pLimit(jobs);
  return Promise.all(tasks.map((task) => limit(() => scoreTask(join(tasksDir, task), task, outDir))));
}
