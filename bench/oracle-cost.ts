// What a task's oracle costs in its container (Issue 36): the shipped build, cold, over a 10-claim task of real pages
// with latency, wall and CPU time (children included), beside the CPU of the build's bare start-up (`--version`).
import { readFileSync } from 'node:fs';
import { shippedCli } from '../src/task/ship.js';
import { runTimed } from './cpu-time.js';
import type { CliRun, RunCli } from './scale.js';
import { fixed, median } from './stats.js';
import { boundText } from './bound.js';
import { defaultBound, defaultIdeal, runOnFreshServer } from './task-profile.js';
import type { BenchClaim, Workload } from './workload.js';

/** Claims of the task: a typical golden task's 10 to 16. */
const ORACLE_CLAIMS = 10;
/** Sources they cite, round robin: a typical task's handful. */
const ORACLE_SOURCES = 6;
/** Cold runs of each; the medians are reported. */
const ORACLE_RUNS = 5;

/**
 * The task: ORACLE_CLAIMS claims over the first ORACLE_SOURCES sources of the real-pages workload (with its latency
 * and its errors first), one claim of each source in turn.
 */
function oracleTask(w: Workload): Workload {
  const sources = w.sources.slice(0, ORACLE_SOURCES);
  const paths = new Set(sources.map((s) => s.path));
  const byPath = new Map<string, BenchClaim[]>();
  for (const c of w.claims) {
    const path = new URL(c.url).pathname;
    if (paths.has(path)) byPath.set(path, [...(byPath.get(path) ?? []), c]);
  }
  const claims: BenchClaim[] = [];
  for (let round = 0; claims.length < ORACLE_CLAIMS && round < w.claims.length; round++)
    for (const s of sources) {
      const c = byPath.get(s.path)?.[round];
      if (c && claims.length < ORACLE_CLAIMS) claims.push(c);
    }
  return { ...w, sources, claims, routes: w.routes.filter((r) => paths.has(r.path)) };
}

/** The shipped build `cli`'s `run` as a task's solve.sh calls it (a report too), wall and CPU from outside. */
function runShipped(cli: string): RunCli {
  return async (claims, out) => {
    const args = [cli, 'run', '--allow-private', '--quiet', '--claims', claims, '--out', out];
    const { seconds, cpuSeconds } = await runTimed(process.execPath, [...args, '--report', `${out}.report.jsonl`]);
    return { seconds, cpuSeconds, answers: JSON.parse(readFileSync(out, 'utf8')) };
  };
}

/** The task's oracle, ORACLE_RUNS times cold (each against a fresh server), and the build's bare start-up's CPU. */
export async function measureOracle(w: Workload, out: string, say: (line: string) => void) {
  const task = oracleTask(w);
  const runs: CliRun[] = [];
  const bare: number[] = [];
  // Found once (src/task/ship.ts, what evaluate's baseline runs too): a missing build fails here, named, not in a run.
  const cli = shippedCli();
  say(`running the shipped build on a ${task.claims.length}-claim task of real pages, ${ORACLE_RUNS} times...\n`);
  for (let i = 1; i <= ORACLE_RUNS; i++) {
    runs.push(await runOnFreshServer(task, `oracle-${i}`, out, runShipped(cli)));
    bare.push((await runTimed(process.execPath, [cli, '--version'])).cpuSeconds ?? Number.NaN);
  }
  return {
    claims: task.claims.length,
    sources: task.sources.length,
    pdf_sources: task.sources.filter((s) => s.kind === 'pdf').length,
    sources_with_retry_after: task.sources.filter((s) => s.retryAfterMs !== undefined).length,
    seconds: fixed(median(runs.map((r) => r.seconds))),
    runs_seconds: runs.map((r) => fixed(r.seconds)),
    cpu_seconds: fixed(median(runs.map((r) => r.cpuSeconds ?? Number.NaN))),
    cpu_runs_seconds: runs.map((r) => fixed(r.cpuSeconds ?? Number.NaN)),
    ideal_seconds: fixed(defaultIdeal(task)),
    ...defaultBound(task, runs),
    startup_cpu_seconds: fixed(median(bare)),
  };
}

export type OracleFigures = Awaited<ReturnType<typeof measureOracle>>;

/** The bench table's row: label, wall s, ideal s, notes. */
export function oracleRow(o: OracleFigures): [string, string, string, string] {
  return [
    `a task's oracle: shipped build, cold (${o.claims} claims, ${o.sources} sources, ${o.pdf_sources} PDF)`,
    o.seconds.toFixed(2),
    o.ideal_seconds.toFixed(2),
    `median of ${o.runs_seconds.length} runs (${o.runs_seconds.join(', ')} s); ` +
      `CPU ${o.cpu_seconds.toFixed(2)} s (${o.cpu_runs_seconds.join(', ')}), ` +
      `of which start-up (--version) ${o.startup_cpu_seconds.toFixed(2)} s; ${boundText(o)}`,
  ];
}
