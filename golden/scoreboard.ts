// The golden scoreboard: oracle and baseline run through each task's real solve.sh and test.sh (quotecheck evaluate), and the diagnosis set's confusion matrix.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { runEvaluation } from '../src/evaluate/evaluate.js';
import { readJsonLines } from '../src/task/task-dir.js';
import { shippedCli } from '../src/task/ship.js';
import { AGENT_DIR, AGENT_DIR_ENV } from '../src/evaluate/namespace-trial.js';
import { GOLDEN_PORT, goldenDir, projectRoot, startGoldenServer, type RunningServer } from './server.js';
import { DRIFT_TASK } from './drift/build.js';
import type { GoldenAtPort } from './lib/tasks.js';
import type { EvaluationReport } from '../src/results/evaluation-report.js';

const run = promisify(execFile);

export interface GoldenEvaluation {
  oracle: EvaluationReport;
  baseline: EvaluationReport;
  /** The drift task with the archive out of the picture (`--wayback off`): what judging by today's web alone scores. */
  waybackOff: EvaluationReport;
}

/**
 * The oracle of the drift task without the Wayback Machine: today's pages only. An agent command, so it runs the
 * shipped build by its absolute path (a plain task's image has no quotecheck on PATH).
 */
export function waybackOffAgent(): string {
  return `node "\${${AGENT_DIR_ENV}:-${AGENT_DIR}}"/${basename(shippedCli())} run --allow-private --quiet --claims claims.json --out answers.json --wayback off`;
}

/**
 * The golden server on `port` (the demo's --port), or null when that port is taken: most often by a golden server the
 * user started (`node dist/golden/server.js &`, as the README's evaluate section says), which serves the same files.
 * Any other failure (no loopback aliases, ...) is thrown. Without --port the demo takes a free port and cannot collide.
 */
export async function serveGolden(port = GOLDEN_PORT): Promise<RunningServer | null> {
  try {
    return await startGoldenServer({ port });
  } catch (err) {
    // The golden server reports EADDRINUSE as "port N on HOST is in use: ..." (src/wayback/stub/loopback.ts explainListenError).
    if (!/ is in use/.test((err as Error).message)) throw err;
    return null;
  }
}

/**
 * Runs the oracle and the baseline on every golden task as the harness would: the committed tasks, or `golden`'s copy
 * made for the port the golden server listens on (golden/lib/tasks.ts goldenAtPort). The golden server must be
 * running; `sourcesHint` says what to check when a task's sources all fail.
 */
export async function evaluateGolden(
  outDir: string,
  sourcesHint?: string,
  golden?: GoldenAtPort,
): Promise<GoldenEvaluation> {
  // Nothing of the host (golden/, labelled.jsonl, the checkout) is in the agents' containers: only the task's files.
  const common = { tasksDir: golden?.tasksDir ?? join(goldenDir(), 'tasks'), sourcesHint };
  const oracle = await runEvaluation({ ...common, agent: 'oracle', outDir: join(outDir, 'oracle') });
  const baseline = await runEvaluation({ ...common, agent: 'baseline', outDir: join(outDir, 'baseline') });
  const waybackOff = await runEvaluation({
    ...common,
    tasksDir: join(common.tasksDir, DRIFT_TASK),
    agent: waybackOffAgent(),
    agentDir: dirname(shippedCli()),
    outDir: join(outDir, 'wayback-off'),
  });
  return { oracle, baseline, waybackOff };
}

/**
 * Why the columns read as they do: the baseline answers no_match everywhere, so it scores exactly the no_match
 * share; "all claims" pools the claims (a big task weighs more), "mean reward" averages the tasks (each weighs the same).
 */
export const SCOREBOARD_LEGEND =
  'baseline answers no_match for every claim, so it scores each task\'s no_match share; "all claims" is correct/claims over every claim (big tasks weigh more), "mean reward" the mean of the task rewards (each task weighs the same)';

/** Per task: claims, no_match share, oracle and baseline rewards; then all claims, the mean reward and the legend. */
export function table({ oracle, baseline, waybackOff }: GoldenEvaluation): string {
  const width = Math.max(12, ...oracle.tasks.map((t) => t.task.length));
  const row = (task: string, claims: string, share: string, o: string, b: string, secs: string) =>
    `${task.padEnd(width)}  ${claims.padStart(6)}  ${share.padStart(8)}  ${o.padStart(6)}  ${b.padStart(8)}  ${secs.padStart(6)}`.trimEnd();
  const lines = [row('task', 'claims', 'no_match', 'oracle', 'baseline', 'secs'), '-'.repeat(width + 46)];
  for (const t of oracle.tasks) {
    const b = baseline.tasks.find((x) => x.task === t.task);
    lines.push(
      row(
        t.task,
        String(t.claims),
        t.floor.toFixed(3),
        t.reward.toFixed(3),
        b ? b.reward.toFixed(3) : '-',
        t.seconds.toFixed(1),
      ),
    );
  }
  lines.push('-'.repeat(width + 46));
  const noMatch = oracle.tasks.reduce((n, t) => n + t.floor * t.claims, 0);
  lines.push(
    row(
      'all claims',
      String(oracle.claims),
      (noMatch / oracle.claims).toFixed(3),
      (oracle.correct / oracle.claims).toFixed(3),
      (baseline.correct / baseline.claims).toFixed(3),
      '',
    ),
  );
  lines.push(row('mean reward', '', '', oracle.mean_reward.toFixed(3), baseline.mean_reward.toFixed(3), ''));
  lines.push('', SCOREBOARD_LEGEND);
  const off = waybackOff.tasks[0];
  if (off) {
    lines.push(
      '',
      `${DRIFT_TASK} with --wayback off (today's pages only): ${off.reward.toFixed(3)} (${off.correct}/${off.claims}); with the archive (the oracle): ${oracle.tasks.find((t) => t.task === DRIFT_TASK)?.reward.toFixed(3) ?? '-'}`,
    );
    lines.push(
      `${oracle.drifted_sources} drifted sources; the oracle judged ${oracle.claims_from_captures} claims on Wayback captures`,
    );
  }
  for (const a of oracle.advice ?? []) lines.push('', a);
  return lines.join('\n');
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
  await run(process.execPath, [
    cli,
    'run',
    '--allow-private',
    '--quiet',
    '--claims',
    join(diagnosisDir, 'claims.json'),
    '--out',
    join(outDir, 'answers.json'),
    '--report',
    report,
  ]);
  const cases = readJsonLines(join(diagnosisDir, 'cases.jsonl')) as { id: string; expected: string }[];
  const rows = new Map(
    readJsonLines(report).map((r) => [String(r.id), r as { label: string; diagnosis: string; note: string | null }]),
  );
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
  const short = (c: string) =>
    c.replace('extraction_artifact', 'artifact').replace('fetch_failed', 'fetch_fail').replace('unsupported', 'unsupp');
  const w = 20;
  const head = `${'expected \\ got'.padEnd(w)}${s.codes.map((c) => short(c).padStart(11)).join('')}    recall`;
  const lines = [head, '-'.repeat(head.length)];
  for (const e of s.codes.filter((c) => s.matrix[c])) {
    lines.push(
      `${e.padEnd(w)}${s.codes.map((g) => String(s.matrix[e]?.[g] ?? 0).padStart(11)).join('')}    ${s.recall[e]!.toFixed(3)}`,
    );
  }
  lines.push(
    `${'precision'.padEnd(w)}${s.codes.map((c) => (s.matrix[c] ? s.precision[c]!.toFixed(3) : '-').padStart(11)).join('')}`,
  );
  return lines.join('\n');
}
