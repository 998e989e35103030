// The golden scoreboard: the oracle and the baseline run through the real CLI on each task, graded by the verifier's code.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
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

/** The diagnosis set's confusion matrix: expected code (by construction) against quotecheck's diagnosis. */
export interface DiagnosisScore {
  codes: string[];
  /** matrix[expected][got] */
  matrix: Record<string, Record<string, number>>;
  precision: Record<string, number>;
  recall: Record<string, number>;
  /** Cases whose label was not no_match (must be none: every case is mechanically no_match). */
  relabelled: string[];
  misses: { id: string; expected: string; got: string; note: string }[];
  total: number;
}

/** Runs the real CLI on golden/diagnosis/claims.json and compares each report row's diagnosis with cases.jsonl. */
export async function scoreDiagnosis(diagnosisDir: string, outDir: string): Promise<DiagnosisScore> {
  const cli = join(projectRoot(), 'bin', 'quotecheck.js');
  mkdirSync(outDir, { recursive: true });
  const report = join(outDir, 'report.jsonl');
  await run(process.execPath, [cli, 'run', '--quiet', '--claims', join(diagnosisDir, 'claims.json'), '--out', join(outDir, 'answers.json'), '--report', report]);
  const cases = readFileSync(join(diagnosisDir, 'cases.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; expected: string });
  const rows = new Map(readFileSync(report, 'utf8').trim().split('\n').map((l) => {
    const r = JSON.parse(l) as { id: string; label: string; diagnosis: string; note: string | null };
    return [r.id, r] as const;
  }));
  const codes = [...new Set(cases.map((c) => c.expected))];
  const matrix: DiagnosisScore['matrix'] = {};
  const misses: DiagnosisScore['misses'] = [];
  const relabelled: string[] = [];
  for (const c of cases) {
    const r = rows.get(c.id);
    const got = r?.diagnosis ?? 'missing';
    if (!codes.includes(got)) codes.push(got);
    matrix[c.expected] ??= {};
    matrix[c.expected]![got] = (matrix[c.expected]![got] ?? 0) + 1;
    if (got !== c.expected) misses.push({ id: c.id, expected: c.expected, got, note: r?.note ?? '' });
    if (r?.label !== 'no_match') relabelled.push(c.id);
  }
  const precision: Record<string, number> = {};
  const recall: Record<string, number> = {};
  for (const code of codes) {
    const tp = matrix[code]?.[code] ?? 0;
    const predicted = codes.reduce((n, e) => n + (matrix[e]?.[code] ?? 0), 0);
    const actual = Object.values(matrix[code] ?? {}).reduce((n, v) => n + v, 0);
    precision[code] = predicted === 0 ? 0 : tp / predicted;
    recall[code] = actual === 0 ? 0 : tp / actual;
  }
  return { codes, matrix, precision, recall, relabelled, misses, total: cases.length };
}

export function diagnosisTable(s: DiagnosisScore): string {
  const short = (c: string) => c.replace('extraction_artifact', 'artifact').replace('fetch_failed', 'fetch_fail').replace('unsupported', 'unsupp');
  const w = 20;
  const head = `${'expected \\ got'.padEnd(w)}${s.codes.map((c) => short(c).padStart(11)).join('')}    recall`;
  const lines = [head, '-'.repeat(head.length)];
  for (const e of s.codes.filter((c) => s.matrix[c])) {
    lines.push(`${e.padEnd(w)}${s.codes.map((g) => String(s.matrix[e]?.[g] ?? 0).padStart(11)).join('')}    ${s.recall[e]!.toFixed(3)}`);
  }
  lines.push(`${'precision'.padEnd(w)}${s.codes.map((c) => (s.matrix[c] ? s.precision[c]!.toFixed(3) : '-').padStart(11)).join('')}`);
  return lines.join('\n');
}
