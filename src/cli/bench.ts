// `quotecheck bench`: run a Harbor dataset locally (agent, then verifier, per task), print the table, write report.json and report.html.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import cliProgress from 'cli-progress';
import { runBench, type Isolation } from '../harbor/bench.js';
import { DatasetError, listTasks } from '../harbor/dataset.js';
import { benchTable, writeBenchReports } from '../harbor/reports.js';

export interface BenchCommandOptions {
  tasks: string;
  agent: string;
  jobs?: number;
  out: string;
  isolation: Isolation | 'auto';
  replay?: string;
  quiet?: boolean;
}

/** This package's own entry point: what `quotecheck` on the trials' PATH runs. */
export const QUOTECHECK_BIN = fileURLToPath(new URL('../../../bin/quotecheck.js', import.meta.url));

export async function benchCommand(opts: BenchCommandOptions): Promise<number> {
  let total: number;
  if (opts.replay && !existsSync(opts.replay)) {
    process.stderr.write(`quotecheck bench: error: --replay ${opts.replay}: no such file\n`);
    return 2;
  }
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
    replay: opts.replay,
    quotecheckBin: QUOTECHECK_BIN,
    onTaskDone: (t) => {
      done++;
      if (bar) bar.update(done, { task: t.task });
      else if (!opts.quiet) process.stderr.write(`bench: ${done}/${total} ${t.task} reward ${t.reward.toFixed(3)}\n`);
    },
  });
  bar?.stop();
  const written = writeBenchReports(report, opts.out);
  process.stdout.write(`${benchTable(report)}\n\nagent ${report.agent}; ${report.isolation === 'namespace' ? 'container paths bind-mounted in private mount namespaces' : 'container paths given by QUOTECHECK_*_DIR variables'}; ${report.seconds.toFixed(1)} s\n`);
  process.stdout.write(`wrote ${written.json} and ${written.html}\n`);
  return 0;
}
