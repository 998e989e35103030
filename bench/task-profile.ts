// The bench's task profiles (Issue 27): one benchmark task's worth, and the flaky-host workload where a wait that held its slots would cost most; their runs, figures and table rows.
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_OPTIONS } from '../src/config/defaults.js';
import type { CliRun, RunCli } from './scale.js';
import { startFaultServer } from './fault-server.js';
import { boundFigures, boundText, type BoundFigures } from './bound.js';
import { fixed, medianRun } from './stats.js';
import { claimsOnPort, idealSeconds, type WaitRule, type Workload } from './workload.js';

/** The two workloads, built by bench.ts's set-up (workload.ts TASK_WORKLOAD and FLAKY_HOST_WORKLOAD). */
export interface TaskWorkloads {
  task: Workload;
  flakyHost: Workload;
}

/** Each workload's runs, in the order they ran. */
export interface TaskRuns {
  task: CliRun[];
  flakyHost: CliRun[];
}

/**
 * One run of `w` against a fresh server of its own (so it meets every fault from the start), closed after; with its
 * start-up (spawn to the first request the server saw) and the waits the server asked for.
 */
export async function runOnFreshServer<R extends CliRun>(
  w: Workload & { closingHosts?: readonly string[] },
  name: string,
  out: string,
  runCli: (claims: string, out: string, args: string[]) => Promise<R>,
  args: string[] = [],
): Promise<R> {
  const server = await startFaultServer(w, new Set(w.closingHosts));
  try {
    const claims = join(out, `claims-${name}.json`);
    writeFileSync(claims, JSON.stringify(claimsOnPort(w.claims, server.port)));
    const spawned = performance.now();
    const run = await runCli(claims, join(out, `answers-${name}.json`), args);
    const first = server.log.firstRequestAt;
    return {
      ...run,
      ...(first === undefined ? {} : { startupSeconds: (first - spawned) / 1000 }),
      askedWaits: server.log.askedWaits,
    };
  } finally {
    await server.close();
  }
}

/** Run `run` of both profiles, one after the other (bench.ts alternates them with its other profile's runs). */
export async function runTaskProfilesOnce(
  w: TaskWorkloads,
  run: number,
  runs: TaskRuns,
  out: string,
  runCli: RunCli,
  say: (line: string) => void,
): Promise<void> {
  say(`running quotecheck on the task profile, run ${run}...\n`);
  runs.task.push(await runOnFreshServer(w.task, `task-${run}`, out, runCli));
  say(`running quotecheck on the flaky-host profile, run ${run}...\n`);
  runs.flakyHost.push(await runOnFreshServer(w.flakyHost, `flaky-host-${run}`, out, runCli));
}

/** The network ideal at the run's default limits, under quotecheck's rule or the old one (workload.ts idealSeconds). */
export function defaultIdeal(w: Workload, rule: WaitRule = 'wait-holds-nothing'): number {
  return idealSeconds(
    w.sources,
    DEFAULT_OPTIONS.concurrency,
    DEFAULT_OPTIONS.perHost,
    DEFAULT_OPTIONS.backoffMinMs,
    rule,
  );
}

/** The bound's figures (bench/bound.ts) of a profile's runs at the run's default limits on this machine's cores. */
export function defaultBound(w: Workload, runs: readonly CliRun[], cores = availableParallelism()): BoundFigures {
  return boundFigures(w.sources, runs, {
    concurrency: DEFAULT_OPTIONS.concurrency,
    perHost: DEFAULT_OPTIONS.perHost,
    cores,
  });
}

/**
 * One profile's figures: its median run against the ideal under a wait holding nothing (its target), what holding
 * slots through the wait would allow, and each run against the bound no schedule can beat.
 */
export function profileFigures(w: Workload, runs: readonly CliRun[], targetRatio: number) {
  const { median } = medianRun(runs);
  const ideal = defaultIdeal(w);
  const heldIdeal = defaultIdeal(w, 'wait-holds-slots');
  return {
    ...defaultBound(w, runs),
    claims: w.claims.length,
    sources: w.sources.length,
    hosts: w.hosts.length,
    sources_with_retry_after: w.sources.filter((s) => s.retryAfterMs !== undefined).length,
    seconds: fixed(median.seconds),
    runs_seconds: runs.map((r) => fixed(r.seconds)),
    ideal_seconds: fixed(ideal),
    ratio_vs_ideal: fixed(median.seconds / ideal),
    target_met: median.seconds / ideal <= targetRatio,
    /** The ideal when a source holds its slots through its wait (the rule before Issue 27): what the change bought. */
    ideal_seconds_wait_holds_slots: fixed(heldIdeal),
    peak_rss_mb: Math.max(...runs.map((r) => r.peakRssMb ?? Infinity)),
  };
}

/** bench/results.json's task_profile: the one-task workload's figures, and the flaky-host workload's under flaky_host. */
export function taskProfileFigures(w: TaskWorkloads, runs: TaskRuns, targetRatio: number) {
  return {
    ...profileFigures(w.task, runs.task, targetRatio),
    flaky_host: profileFigures(w.flakyHost, runs.flakyHost, targetRatio),
  };
}

export type TaskProfileFigures = ReturnType<typeof taskProfileFigures>;

const one = (n: number): string => n.toFixed(1);

/** The bench table's rows for the two profiles: label, wall s, ideal s, notes. */
export function taskProfileRows(f: TaskProfileFigures, targetRatio: number): [string, string, string, string][] {
  const row = (label: string, p: ReturnType<typeof profileFigures>, what: string): [string, string, string, string] => [
    `${label} (${p.claims} claims, ${p.sources} sources, ${p.hosts} hosts)`,
    one(p.seconds),
    one(p.ideal_seconds),
    `median of ${p.runs_seconds.length} runs (${[...p.runs_seconds]
      .sort((a, b) => a - b)
      .map(one)
      .join(
        ', ',
      )} s): ${boundText(p)}; ratio to the ideal ${p.ratio_vs_ideal.toFixed(2)} (target <= ${targetRatio}: ${p.target_met ? 'ok' : 'MISSED'}); ${p.sources_with_retry_after} sources ${what}; a wait holding its slots would allow ${one(p.ideal_seconds_wait_holds_slots)} s at best; peak ${p.peak_rss_mb} MB`,
  ];
  return [
    row('task profile', f, 'ask to wait (Retry-After) before answering'),
    row('flaky-host profile', f.flaky_host, 'ask to wait (Retry-After) on hosts whose per-host limit paces the run'),
  ];
}
