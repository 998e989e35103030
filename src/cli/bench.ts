// `quotecheck bench`: run a Harbor dataset locally (agent, then verifier, per task), print the table, write report.json and report.html.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import cliProgress from 'cli-progress';
import { runBench, type BenchReport, type Isolation } from '../harbor/bench.js';
import { DatasetError, listTasks } from '../harbor/dataset.js';
import { renderHtmlReport } from '../harbor/html.js';

export interface BenchCommandOptions {
  tasks: string;
  agent: string;
  jobs?: number;
  out: string;
  isolation: Isolation | 'auto';
  quiet?: boolean;
}

/** This package's own entry point: what `quotecheck` on the trials' PATH runs. */
const QUOTECHECK_BIN = fileURLToPath(new URL('../../../bin/quotecheck.js', import.meta.url));

export function benchTable(r: BenchReport): string {
  const w = Math.max(10, ...r.tasks.map((t) => t.task.length));
  const row = (a: string, b: string, c: string, d: string, e: string) => `${a.padEnd(w)}  ${b.padStart(6)}  ${c.padStart(7)}  ${d.padStart(8)}  ${e}`;
  const lines = [row('task', 'claims', 'reward', 'baseline', 'problems'), '-'.repeat(w + 40)];
  for (const t of r.tasks) lines.push(row(t.task, String(t.claims), t.reward.toFixed(3), t.floor.toFixed(3), t.problems.join('; ')));
  lines.push('-'.repeat(w + 40));
  lines.push(row('mean', String(r.claims), r.mean_reward.toFixed(3), r.baseline_mean_reward.toFixed(3), `${r.correct}/${r.claims} claims correct`));
  const c = r.confusion;
  lines.push('', 'confusion (gold \\ answered)   verbatim  no_match  missing  invalid');
  lines.push(`gold verbatim                ${String(c.verbatim.verbatim).padStart(9)} ${String(c.verbatim.no_match).padStart(9)} ${String(c.verbatim.missing).padStart(8)} ${String(c.verbatim.invalid).padStart(8)}`);
  lines.push(`gold no_match                ${String(c.no_match.verbatim).padStart(9)} ${String(c.no_match.no_match).padStart(9)} ${String(c.no_match.missing).padStart(8)} ${String(c.no_match.invalid).padStart(8)}`);
  const diagnoses = Object.entries(r.diagnoses).sort((a, b) => b[1] - a[1]);
  if (diagnoses.length) lines.push('', `diagnoses: ${diagnoses.map(([d, n]) => `${d} ${n}`).join(', ')}`);
  return lines.join('\n');
}

/** report.json keeps per-task numbers and per-claim rows; the grade object is summarized by the confusion matrix. */
function reportJson(r: BenchReport): string {
  const tasks = r.tasks.map(({ grade: _grade, ...t }) => t);
  return `${JSON.stringify({ ...r, tasks }, null, 2)}\n`;
}

export async function benchCommand(opts: BenchCommandOptions): Promise<number> {
  let total: number;
  try {
    total = listTasks(opts.tasks).length;
  } catch (err) {
    if (err instanceof DatasetError) {
      process.stderr.write(`quotecheck bench: error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const bar = !opts.quiet && process.stderr.isTTY
    ? new cliProgress.SingleBar({ stream: process.stderr, format: 'bench |{bar}| {value}/{total} tasks | {task}', hideCursor: true, clearOnComplete: true }, cliProgress.Presets.shades_classic)
    : undefined;
  bar?.start(total, 0, { task: '' });
  let done = 0;
  const report = await runBench({
    tasksDir: opts.tasks,
    agent: opts.agent,
    jobs: opts.jobs,
    outDir: opts.out,
    isolation: opts.isolation,
    quotecheckBin: QUOTECHECK_BIN,
    onTaskDone: (t) => {
      done++;
      if (bar) bar.update(done, { task: t.task });
      else if (!opts.quiet) process.stderr.write(`bench: ${done}/${total} ${t.task} reward ${t.reward.toFixed(3)}\n`);
    },
  });
  bar?.stop();
  writeFileSync(join(opts.out, 'report.json'), reportJson(report));
  writeFileSync(join(opts.out, 'report.html'), renderHtmlReport(report));
  process.stdout.write(`${benchTable(report)}\n\nagent ${report.agent}; ${report.isolation === 'namespace' ? 'container paths bind-mounted in private mount namespaces' : 'container paths given by QUOTECHECK_*_DIR variables'}; ${report.seconds.toFixed(1)} s\n`);
  process.stdout.write(`wrote ${join(opts.out, 'report.json')} and ${join(opts.out, 'report.html')}\n`);
  return 0;
}
