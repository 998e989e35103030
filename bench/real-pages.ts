// The bench's real-pages profile (Issue 36): real HTML in several charsets and real PDFs, served with and without
// latency; each run's wall and CPU time (children included) against the larger of the network ideal and the CPU floor.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../golden/server.js';
import type { CliRun, RunCli } from './scale.js';
import { oracleRow, type OracleFigures } from './oracle-cost.js';
import { fixed, median, medianRun } from './stats.js';
import { defaultIdeal, runOnFreshServer } from './task-profile.js';
import { buildWorkload, describeWorkload, type WorkloadOptions, type Workload } from './workload.js';

/**
 * One task's worth of real sources: 560 claims over 108 sources on 8 hosts, every document of golden/sources and of
 * bench/data/realworld served at least once, HTML with no charset in its Content-Type (the German and Polish pages are
 * windows-1250, windows-1252 and iso-8859-1, declared in `<meta>` only), a few sources answering 503 or 429 with
 * Retry-After: 1 first.
 */
const REAL_PAGES_WORKLOAD: WorkloadOptions = {
  sources: 108,
  claims: 560,
  hosts: 8,
  pdfShare: 0.3,
  minDelayMs: 50,
  maxDelayMs: 400,
  flakyShare: 0.05,
  flakyRetryAfterSec: 1,
  seed: 36,
  declareCharset: false,
  everyDocument: true,
};

/** The latency run's wall time at most this multiple of the larger of its network ideal and its CPU floor. */
const REAL_PAGES_TARGET_RATIO = 1.2;
/** The run with no latency (CPU-bound): its wall time at most this share of its CPU time. */
const REAL_PAGES_TARGET_WALL_PER_CPU = 0.65;

/** The profile's documents beside golden/sources: copied from the held-out corpus (MANIFEST.json says whence). */
const REAL_PAGES_DATA = join(projectRoot(), 'bench', 'data', 'realworld');

/** The workload twice: with the seeded latency, and the same sources answering at once (the same errors first). */
export interface RealPagesWorkloads {
  latency: Workload;
  noLatency: Workload;
}

export interface RealPagesRuns {
  latency: CliRun[];
  noLatency: CliRun[];
}

/** Builds both workloads from golden/sources and bench/data/realworld, and says what they are. */
export async function realPagesWorkloads(
  goldenSources: string,
  say: (line: string) => void,
): Promise<RealPagesWorkloads> {
  const latency = await buildWorkload([goldenSources, REAL_PAGES_DATA], 1, REAL_PAGES_WORKLOAD);
  const documents = new Set(latency.sources.map((s) => s.file)).size;
  say(`real-pages profile: ${describeWorkload(latency, REAL_PAGES_WORKLOAD)}; ${documents} distinct documents\n`);
  const noLatency: Workload = {
    ...latency,
    sources: latency.sources.map((s) => ({ ...s, delayMs: 0 })),
    routes: latency.routes.map((r) => ({ ...r, delayMs: 0 })),
  };
  return { latency, noLatency };
}

/** One run of each (latency, then none), each against a fresh server; bench.ts alternates them with its other runs. */
export async function runRealPagesOnce(
  w: RealPagesWorkloads,
  run: number,
  runs: RealPagesRuns,
  out: string,
  runCli: RunCli,
  say: (line: string) => void,
): Promise<void> {
  say(`running quotecheck on the real-pages profile, run ${run}...\n`);
  runs.latency.push(await runOnFreshServer(w.latency, `real-pages-${run}`, out, runCli));
  say(`running quotecheck on the real-pages profile with no latency, run ${run}...\n`);
  runs.noLatency.push(await runOnFreshServer(w.noLatency, `real-pages-nolat-${run}`, out, runCli));
}

/**
 * One variant's figures: the median run's wall and CPU time (the median of the CPU times apart, as they vary apart),
 * the network ideal, the CPU floor (CPU seconds over the cores) and the wall against the larger of the two.
 */
function variantFigures(w: Workload, runs: readonly CliRun[], cores: number) {
  const middle = medianRun(runs).median;
  const cpus = runs.map((r) => r.cpuSeconds ?? Number.NaN);
  const cpu = median(cpus);
  const ideal = defaultIdeal(w);
  const floor = cpu / cores;
  const bound = Math.max(ideal, floor);
  return {
    seconds: fixed(middle.seconds),
    runs_seconds: runs.map((r) => fixed(r.seconds)),
    cpu_seconds: fixed(cpu),
    cpu_runs_seconds: cpus.map((c) => fixed(c)),
    wall_per_cpu: fixed(middle.seconds / cpu),
    ideal_seconds: fixed(ideal),
    cpu_floor_seconds: fixed(floor),
    ratio_vs_bound: fixed(middle.seconds / bound),
    peak_rss_mb: Math.max(...runs.map((r) => r.peakRssMb ?? Infinity)),
  };
}

/** bench/results.json's real_pages: the workload, each variant's figures against its target, and a task's oracle. */
export function realPagesFigures(
  w: RealPagesWorkloads,
  runs: RealPagesRuns,
  oracle: OracleFigures,
  cores = availableParallelism(),
) {
  const latency = variantFigures(w.latency, runs.latency, cores);
  const noLatency = variantFigures(w.noLatency, runs.noLatency, cores);
  const src = w.latency.sources;
  return {
    claims: w.latency.claims.length,
    sources: src.length,
    pdf_sources: src.filter((s) => s.kind === 'pdf').length,
    documents: new Set(src.map((s) => s.file)).size,
    hosts: w.latency.hosts.length,
    sources_with_retry_after: src.filter((s) => s.retryAfterMs !== undefined).length,
    /** Runs whose answers differ from the first run's (with latency or without, one worker or two: none should). */
    runs_disagreeing: disagreeing([...runs.latency, ...runs.noLatency]),
    cores,
    latency: {
      ...latency,
      target_ratio: REAL_PAGES_TARGET_RATIO,
      target_met: latency.ratio_vs_bound <= REAL_PAGES_TARGET_RATIO,
    },
    no_latency: {
      ...noLatency,
      target_wall_per_cpu: REAL_PAGES_TARGET_WALL_PER_CPU,
      target_met: noLatency.wall_per_cpu <= REAL_PAGES_TARGET_WALL_PER_CPU,
    },
    oracle,
  };
}

/** How many runs give other answers than the first. */
function disagreeing(runs: readonly CliRun[]): number {
  const first = JSON.stringify(runs[0]?.answers);
  return runs.filter((r) => JSON.stringify(r.answers) !== first).length;
}

type RealPagesFigures = ReturnType<typeof realPagesFigures>;

const one = (n: number): string => n.toFixed(1);
const runsOf = (xs: readonly number[]): string => [...xs].map(one).join(', ');

/** The bench table's rows for the profile: label, wall s, ideal s, notes. */
export function realPagesRows(f: RealPagesFigures): [string, string, string, string][] {
  const what = `${f.claims} claims, ${f.sources} sources (${f.pdf_sources} PDF), ${f.hosts} hosts`;
  const l = f.latency;
  const n = f.no_latency;
  const met = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  return [
    [
      `real-pages profile (${what})`,
      one(l.seconds),
      one(l.ideal_seconds),
      `median of ${l.runs_seconds.length} runs (${runsOf(l.runs_seconds)} s); ` +
        `CPU ${one(l.cpu_seconds)} s (${runsOf(l.cpu_runs_seconds)}), floor ${one(l.cpu_floor_seconds)} s ` +
        `on ${f.cores} cores; ${l.ratio_vs_bound.toFixed(2)}x the larger of ideal and floor ` +
        `(target <= ${l.target_ratio}: ${met(l.target_met)}); peak ${l.peak_rss_mb} MB`,
    ],
    [
      'real-pages profile, no latency',
      one(n.seconds),
      one(n.ideal_seconds),
      `median of ${n.runs_seconds.length} runs (${runsOf(n.runs_seconds)} s); ` +
        `CPU ${one(n.cpu_seconds)} s (${runsOf(n.cpu_runs_seconds)}); ` +
        `wall ${n.wall_per_cpu.toFixed(2)}x the CPU time (target <= ${n.target_wall_per_cpu}: ${met(n.target_met)}); ${n.ratio_vs_bound.toFixed(2)}x the floor; ` +
        `peak ${n.peak_rss_mb} MB`,
    ],
    oracleRow(f.oracle),
  ];
}

/** The profile's failures: runs that disagree on any answer. */
export function realPagesFailures(f: RealPagesFigures): string[] {
  if (f.runs_disagreeing === 0) return [];
  return [`MISMATCH: ${f.runs_disagreeing} real-pages runs answer otherwise than the first`];
}
