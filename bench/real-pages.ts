// The bench's real-pages profile (Issue 36): real HTML in several charsets and real PDFs, served with and without
// latency; each run's wall and CPU time (children included) against the larger of the network ideal and the CPU floor.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../golden/server.js';
import type { CliRun, RunCli } from './scale.js';
import { oracleRow, type OracleFigures } from './oracle-cost.js';
import { fixed, median, medianRun } from './stats.js';
import { defaultBound, defaultIdeal, runOnFreshServer } from './task-profile.js';
import { boundText } from './bound.js';
import {
  describeFaults,
  withoutLatency,
  withRealWebFaults,
  type FaultyWorkload,
  type RealWebFaults,
} from './faults.js';
import { buildWorkload, describeWorkload, type WorkloadOptions, type Workload } from './workload.js';

/**
 * One task's worth of real sources: 560 claims over 108 sources on 8 hosts, every document of golden/sources and of
 * bench/data/realworld served at least once, HTML with no charset in its Content-Type (the German and Polish pages are
 * windows-1250, windows-1252 and iso-8859-1, declared in `<meta>` only); the real web's faults are laid over it
 * (REAL_WEB_FAULTS).
 */
const REAL_PAGES_WORKLOAD: WorkloadOptions = {
  sources: 108,
  claims: 560,
  hosts: 8,
  pdfShare: 0.3,
  minDelayMs: 50,
  maxDelayMs: 400,
  flakyShare: 0,
  seed: 36,
  declareCharset: false,
  everyDocument: true,
};

/**
 * The real web's faults (Issue 46), the held-out set's shape: 5% of the sources ask to wait (Retry-After: 1, or an
 * HTTP-date a second ahead), in turn once, twice and three times; 3% are on a host that takes 2 s for every answer;
 * one host closes every connection after its answer and cuts the first answer of a third of its sources half-way;
 * 5% redirect to another host; 3% are behind a cookie wall.
 */
const REAL_WEB_FAULTS: RealWebFaults = {
  waitShare: 0.05,
  waitSeconds: 1,
  slowShare: 0.03,
  slowHost: '127.0.0.9',
  slowDelayMs: 2_000,
  closingHost: '127.0.0.8',
  cutShare: 1 / 3,
  redirectShare: 0.05,
  cookieWallShare: 0.03,
  seed: 46,
};

/** The latency run's wall time at most this multiple of its bound (bench/bound.ts). */
const REAL_PAGES_TARGET_RATIO = 1.25;
/** The run with no latency, where CPU is the bound: its wall time at most this share of its CPU time. */
const REAL_PAGES_TARGET_WALL_PER_CPU = 0.7;

/** The profile's documents beside golden/sources: copied from the held-out corpus (MANIFEST.json says whence). */
const REAL_PAGES_DATA = join(projectRoot(), 'bench', 'data', 'realworld');

/**
 * The workload with a draw of the real web's faults for each run: with the seeded latency, and the same sources with
 * no latency and no waits (the same faults otherwise). Which sources ask to wait, and where they stand in their host's
 * queue, decides how near any schedule that cannot know it beforehand comes to the bound: each run meets a draw of its
 * own, and the median is over draws.
 */
export interface RealPagesWorkloads {
  /** Run `run`'s draw (from 1): the first draw's seed is REAL_WEB_FAULTS.seed, the next ones follow it. */
  draw(run: number): { latency: FaultyWorkload; noLatency: FaultyWorkload };
  /** The first draw with latency: what the profile's line describes. */
  latency: FaultyWorkload;
  /**
   * The documents with their latency and no fault: a task's oracle's sources, as a task's are (its figure is start-up
   * and the network, not a fault's backoff).
   */
  plain: Workload;
}

/** A run and the draw of faults it met. */
export type DrawnRun = CliRun & { workload: FaultyWorkload };

export interface RealPagesRuns {
  latency: DrawnRun[];
  noLatency: DrawnRun[];
}

/** Builds both workloads from golden/sources and bench/data/realworld, and says what they are. */
export async function realPagesWorkloads(
  goldenSources: string,
  say: (line: string) => void,
): Promise<RealPagesWorkloads> {
  const plain = await buildWorkload([goldenSources, REAL_PAGES_DATA], 1, REAL_PAGES_WORKLOAD);
  const draw = (run: number) => {
    const latency = withRealWebFaults(plain, { ...REAL_WEB_FAULTS, seed: REAL_WEB_FAULTS.seed + run - 1 });
    return { latency, noLatency: withoutLatency(latency) };
  };
  const { latency } = draw(1);
  const documents = new Set(latency.sources.map((s) => s.file)).size;
  say(
    `real-pages profile: ${describeWorkload(plain, REAL_PAGES_WORKLOAD)}; ${documents} distinct documents; ` +
      `${describeFaults(latency)} (a draw of them each run)\n`,
  );
  return { draw, latency, plain };
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
  const { latency, noLatency } = w.draw(run);
  say(`running quotecheck on the real-pages profile, run ${run}...\n`);
  runs.latency.push({ ...(await runOnFreshServer(latency, `real-pages-${run}`, out, runCli)), workload: latency });
  say(`running quotecheck on the real-pages profile with no latency, run ${run}...\n`);
  const nolat = await runOnFreshServer(noLatency, `real-pages-nolat-${run}`, out, runCli);
  runs.noLatency.push({ ...nolat, workload: noLatency });
}

/**
 * One variant's figures: the median run's wall and CPU time (the median of the CPU times apart, as they vary apart),
 * the greedy network ideal, and each run against its bound (bench/bound.ts).
 */
function variantFigures(runs: readonly DrawnRun[], cores: number) {
  const middle = medianRun(runs).median;
  const cpus = runs.map((r) => r.cpuSeconds ?? Number.NaN);
  const cpu = median(cpus);
  return {
    seconds: fixed(middle.seconds),
    runs_seconds: runs.map((r) => fixed(r.seconds)),
    cpu_seconds: fixed(cpu),
    cpu_runs_seconds: cpus.map((c) => fixed(c)),
    wall_per_cpu: fixed(middle.seconds / cpu),
    /** The median of the runs' draws' greedy ideals. */
    ideal_seconds: fixed(median(runs.map((r) => defaultIdeal(r.workload)))),
    ...defaultBound(
      runs[0]!.workload,
      runs.map((r) => ({ ...r, sources: r.workload.sources })),
      cores,
    ),
    peak_rss_mb: Math.max(...runs.map((r) => r.peakRssMb ?? Infinity)),
  };
}

/**
 * The run with no latency against its target: where CPU is the bound, its wall at most
 * REAL_PAGES_TARGET_WALL_PER_CPU of its CPU time; where another part is, within REAL_PAGES_TARGET_RATIO of the bound.
 */
function noLatencyTarget(v: ReturnType<typeof variantFigures>) {
  if (v.bound_kind === 'cpu')
    return {
      target_wall_per_cpu: REAL_PAGES_TARGET_WALL_PER_CPU,
      target_met: v.wall_per_cpu <= REAL_PAGES_TARGET_WALL_PER_CPU,
    };
  return { target_ratio: REAL_PAGES_TARGET_RATIO, target_met: v.ratio_to_bound <= REAL_PAGES_TARGET_RATIO };
}

/** bench/results.json's real_pages: the workload, each variant's figures against its target, and a task's oracle. */
export function realPagesFigures(
  w: RealPagesWorkloads,
  runs: RealPagesRuns,
  oracle: OracleFigures,
  cores = availableParallelism(),
) {
  const latency = variantFigures(runs.latency, cores);
  const noLatency = variantFigures(runs.noLatency, cores);
  const src = w.latency.sources;
  const waits = src.filter((s) => s.faults?.[0]?.kind === 'status');
  return {
    claims: w.latency.claims.length,
    sources: src.length,
    pdf_sources: src.filter((s) => s.kind === 'pdf').length,
    documents: new Set(src.map((s) => s.file)).size,
    hosts: w.latency.hosts.length,
    sources_with_retry_after: waits.length,
    sources_asking_to_wait_twice_or_more: waits.filter((s) => s.faults!.length >= 2).length,
    sources_on_slow_host: src.filter((s) => w.latency.slowHosts.includes(s.host)).length,
    sources_cut_short: src.filter((s) => s.faults?.[0]?.kind === 'cut').length,
    sources_redirected: src.filter((s) => s.redirect).length,
    sources_behind_cookie_wall: src.filter((s) => s.cookieWall).length,
    /** Runs whose answers differ from the first run's (with latency or without, one worker or two: none should). */
    runs_disagreeing: disagreeing([...runs.latency, ...runs.noLatency]),
    cores,
    latency: {
      ...latency,
      target_ratio: REAL_PAGES_TARGET_RATIO,
      target_met: latency.ratio_to_bound <= REAL_PAGES_TARGET_RATIO,
    },
    no_latency: { ...noLatency, ...noLatencyTarget(noLatency) },
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
  const noLatencyTarget =
    'target_wall_per_cpu' in n
      ? `wall ${n.wall_per_cpu.toFixed(2)}x the CPU time (target <= ${n.target_wall_per_cpu}, CPU the bound: ${met(n.target_met)})`
      : `${n.ratio_to_bound.toFixed(2)}x the bound (target <= ${n.target_ratio}: ${met(n.target_met)}); wall ${n.wall_per_cpu.toFixed(2)}x the CPU time`;
  return [
    [
      `real-pages profile, the real web's faults (${what})`,
      one(l.seconds),
      one(l.ideal_seconds),
      `median of ${l.runs_seconds.length} runs (${runsOf(l.runs_seconds)} s); ` +
        `CPU ${one(l.cpu_seconds)} s (${runsOf(l.cpu_runs_seconds)}); ${boundText(l)} ` +
        `(target <= ${l.target_ratio}: ${met(l.target_met)}); peak ${l.peak_rss_mb} MB`,
    ],
    [
      'real-pages profile, no latency and no waits',
      one(n.seconds),
      one(n.ideal_seconds),
      `median of ${n.runs_seconds.length} runs (${runsOf(n.runs_seconds)} s); ` +
        `CPU ${one(n.cpu_seconds)} s (${runsOf(n.cpu_runs_seconds)}); ${boundText(n)}; ${noLatencyTarget}; ` +
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
