// The bench's lower bound on a run's wall time (Issue 46): what no schedule can beat under the run's limits, from the
// workload's latencies and asked waits, the run's CPU seconds and its start-up (docs/performance.md#the-bound).
import { median } from './stats.js';
import { faultsOf, requestsOf, type BenchSource } from './workload.js';

/** The parts of the bound, in seconds; the bound is the largest. */
export interface BoundParts {
  /** The longest single source: its requests' latencies and the waits its server asked for, one after another. */
  chain: number;
  /** The busiest host: its requests' latencies over the per-host limit (or two of its longest sharing a slot). */
  host: number;
  /** Every request's latency over the global limit (or two of the longest sharing a slot). */
  global: number;
  /** The run's CPU seconds over the cores. */
  cpu: number;
  /** Start-up: from spawn to the first request. */
  startup: number;
}

export type BoundKind = keyof BoundParts;

export interface Bound {
  seconds: number;
  /** Which part the bound is (a network part counted after start-up). */
  kind: BoundKind;
  parts: BoundParts;
}

/**
 * The least time `slots` parallel slots need for jobs of these lengths, by two bounds every schedule meets: the total
 * over the slots, and the (slots)-th and (slots+1)-th longest jobs one after the other (of the slots+1 longest, two
 * share a slot, and each is at least the shorter of them).
 */
export function slotsBound(costs: readonly number[], slots: number): number {
  const total = costs.reduce((t, c) => t + c, 0);
  const sorted = [...costs].sort((a, b) => b - a);
  const paired = sorted.length > slots ? sorted[slots - 1]! + sorted[slots]! : (sorted[0] ?? 0);
  return Math.max(total / slots, paired);
}

/** The run's measured figures the bound takes beside the workload. */
export interface RunFigures {
  cpuSeconds: number;
  cores: number;
  startupSeconds: number;
  /**
   * The waits the server asked for, by source path, in order (bench/fault-server.ts logs them): an HTTP-date asks for
   * what is left until it when it is sent. A source without them is counted at its nominal Retry-After.
   */
  askedWaits?: ReadonlyMap<string, readonly number[]>;
}

/** One source's chain: its requests' latencies, and between them the waits its server asked for (ms). */
function chainOf(s: BenchSource, asked: readonly number[] | undefined): number {
  const requests = requestsOf(s, 0);
  const faults = faultsOf(s, 0);
  let length = 0;
  let waits = 0;
  requests.forEach((r, i) => {
    length += r.costMs;
    if (i === requests.length - 1) return;
    const fault = faults[i];
    const asks = fault?.kind === 'status' && fault.retryAfter !== undefined;
    length += asks ? (asked?.[waits++] ?? r.waitAfterMs) : r.waitAfterMs;
  });
  return length;
}

/**
 * A lower bound on the wall time of any run of `sources` at these limits, whatever its schedule: the largest of
 * (a) the longest chain of one source (its requests cannot overlap, and a wait its server asked for cannot be cut),
 * (b) each host's requests on its per-host slots, (c) all requests on the global slots, (d) the CPU seconds on the
 * cores and (e) start-up. No request leaves before start-up (it ends with the first request the server saw), so each
 * network part (a)-(c) is counted from there: start-up plus the part. A client's own backoff (an error without
 * Retry-After) is not counted: a schedule could retry at once. The parts are kept apart (`parts`, each from zero); the
 * bound is the largest of start-up plus the largest network part, the CPU part and start-up, not a sum of them all.
 */
export function lowerBound(
  sources: readonly BenchSource[],
  concurrency: number,
  perHost: number,
  run: RunFigures,
): Bound {
  let chain = 0;
  const byHost = new Map<string, number[]>();
  const all: number[] = [];
  for (const s of sources) {
    for (const r of requestsOf(s, 0)) {
      all.push(r.costMs);
      const costs = byHost.get(r.host);
      if (costs) costs.push(r.costMs);
      else byHost.set(r.host, [r.costMs]);
    }
    chain = Math.max(chain, chainOf(s, run.askedWaits?.get(s.path)));
  }
  const host = Math.max(0, ...[...byHost.values()].map((costs) => slotsBound(costs, perHost)));
  const parts: BoundParts = {
    chain: chain / 1000,
    host: host / 1000,
    global: slotsBound(all, concurrency) / 1000,
    cpu: run.cpuSeconds / run.cores,
    startup: run.startupSeconds,
  };
  // What each part bounds the run's wall time at: a network part after start-up.
  const after = (k: BoundKind): number => (NETWORK_PARTS.includes(k) ? parts.startup + parts[k] : parts[k]);
  // Start-up alone when no network part adds to it.
  const kind = (Object.keys(parts) as BoundKind[]).reduce<BoundKind>(
    (a, b) => (after(b) > after(a) ? b : a),
    'startup',
  );
  return { seconds: after(kind), kind, parts };
}

/** The parts that are the network's: each counted from the end of start-up. */
const NETWORK_PARTS: readonly BoundKind[] = ['chain', 'host', 'global'];

/** What the bound of `kind` is, as the tables say it: a network part after start-up (`start-up + chain`). */
function boundKindText(kind: BoundKind): string {
  return NETWORK_PARTS.includes(kind) ? `start-up + ${kind}` : kind;
}

/** What the bound needs of one run (bench.ts's runs give more). */
export interface BoundRun {
  seconds: number;
  /** The sources this run met, when not the profile's own (a draw of faults of its own). */
  sources?: readonly BenchSource[];
  cpuSeconds?: number;
  startupSeconds?: number;
  askedWaits?: ReadonlyMap<string, readonly number[]>;
}

const round = (n: number): number => Number(n.toFixed(2));

/**
 * A profile's bound figures from its runs: each run against its own bound (its CPU seconds, its start-up, the waits
 * its server asked for), and the medians: of the bounds, of each part, and of the ratios (a run on a slow stretch of
 * the machine has more CPU seconds and more wall time both, so each run is held to its own). The kind is the median
 * run's.
 */
export function boundFigures(
  sources: readonly BenchSource[],
  runs: readonly BoundRun[],
  limits: { concurrency: number; perHost: number; cores: number },
) {
  const each = runs.map((r) => {
    const bound = lowerBound(r.sources ?? sources, limits.concurrency, limits.perHost, {
      cpuSeconds: r.cpuSeconds ?? 0,
      cores: limits.cores,
      startupSeconds: r.startupSeconds ?? 0,
      askedWaits: r.askedWaits,
    });
    return { bound, ratio: r.seconds / bound.seconds };
  });
  const middle = [...each].sort((a, b) => a.ratio - b.ratio)[Math.floor(each.length / 2)]!;
  const part = (k: BoundKind) => round(median(each.map((e) => e.bound.parts[k])));
  return {
    bound_seconds: round(median(each.map((e) => e.bound.seconds))),
    bound_runs_seconds: each.map((e) => round(e.bound.seconds)),
    bound_kind: middle.bound.kind,
    bound_parts_seconds: {
      chain: part('chain'),
      host: part('host'),
      global: part('global'),
      cpu: part('cpu'),
      startup: part('startup'),
    },
    ratio_to_bound: round(middle.ratio),
    ratio_to_bound_runs: each.map((e) => round(e.ratio)),
  };
}

export type BoundFigures = ReturnType<typeof boundFigures>;

/** The bound as the bench's tables say it: its seconds, the part it is (a network one after start-up), every part. */
export function boundText(b: BoundFigures): string {
  const p = b.bound_parts_seconds;
  return (
    `bound ${b.bound_seconds.toFixed(2)} s (${boundKindText(b.bound_kind)}; chain ${p.chain.toFixed(2)}, host ${p.host.toFixed(2)}, ` +
    `global ${p.global.toFixed(2)}, CPU ${p.cpu.toFixed(2)}, start-up ${p.startup.toFixed(2)} s), ` +
    `${b.ratio_to_bound.toFixed(2)}x the bound`
  );
}
