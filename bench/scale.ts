// The bench's scale phase (issue 17, item 4): the workload repeated over N times as many distinct URLs, run at 1x, Nx, 1x; its figures, table and answer check.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type Route } from '../golden/server.js';
import { DEFAULT_OPTIONS } from '../src/config/defaults.js';
import { claimsOnPort, idealSeconds, type BenchClaim, type BenchSource, type Workload } from './workload.js';
import { fixed } from './stats.js';
import { boundFigures } from './bound.js';
import { availableParallelism } from 'node:os';

/** `npm run bench` runs the scale phase at this factor; `--scale N` at N. */
export const DEFAULT_SCALE = 10;
/** Wall time per claim at Nx at most this multiple of 1x's. */
export const SCALE_TARGET_RATIO = 1.15;
/** Peak resident memory of the Nx run under this, in MB. */
export const SCALE_TARGET_RSS_MB = 600;
/** How the 1x wall time is made from the two runs that bracket the Nx run (the README says so too). */
const ONE_X_WALL = 'mean of the two 1x runs, one before and one after the scaled run';

/** What the scale phase needs of a quotecheck run (bench.ts's runQuotecheck gives more). */
export interface CliRun {
  seconds: number;
  peakRssMb?: number;
  answers: Record<string, string>;
  /** User + system CPU seconds, its threads and children (pdftotext) included (bench/cpu-time.ts). */
  cpuSeconds?: number;
  /** From spawn to the first request its server saw (bench/fault-server.ts). */
  startupSeconds?: number;
  /** The waits its server asked for, by source path (bench/fault-server.ts). */
  askedWaits?: ReadonlyMap<string, readonly number[]>;
}

/** Runs the quotecheck CLI on a claims file, writing answers to `out`, with extra arguments. */
export type RunCli = (claims: string, out: string, args: string[]) => Promise<CliRun>;

/** Replica k's URL path prefix: none for replica 0 (the workload itself), `/r{k}` for the others. */
const replicaPrefix = (k: number): string => (k === 0 ? '' : `/r${k}`);

/** Replica k's id of a claim: the claim's own id for replica 0, `{id}~r{k}` for the others (still unique). */
export const replicaId = (id: string, k: number): string => (k === 0 ? id : `${id}~r${k}`);

/** A workload URL with the path prefixed (scheme, host and port kept). */
function prefixedUrl(url: string, prefix: string): string {
  const u = new URL(url);
  return `${u.origin}${prefix}${u.pathname}${u.search}`;
}

/**
 * The workload `factor` times over: replica k serves the same documents under its own paths, on the
 * same hosts, with the same latency and the same first-request errors (its own routes: the server
 * counts failFirst per route), and its claims are the same quotes with ids of its own. Replica 0 is
 * the workload unchanged, so `factor` 1 gives it back; sources and claims stay in replica order.
 */
export function scaleWorkload(base: Workload, factor: number): Workload {
  const sources: BenchSource[] = [];
  const claims: BenchClaim[] = [];
  const routes: Route[] = [];
  for (let k = 0; k < factor; k++) {
    const prefix = replicaPrefix(k);
    sources.push(...base.sources.map((s) => ({ ...s, path: `${prefix}${s.path}` })));
    routes.push(...base.routes.map((r) => ({ ...r, path: `${prefix}${r.path}` })));
    claims.push(...base.claims.map((c) => ({ ...c, id: replicaId(c.id, k), url: prefixedUrl(c.url, prefix) })));
  }
  return { sources, claims, routes, hosts: base.hosts };
}

/** One quotecheck run (`--report` too, as a real run writes one) against a fresh server of its own, closed after. */
async function runOnce(w: Workload, name: string, out: string, runCli: RunCli): Promise<CliRun> {
  const server = await startServer({ routes: w.routes, hosts: w.hosts });
  try {
    const claims = join(out, `claims-${name}.json`);
    writeFileSync(claims, JSON.stringify(claimsOnPort(w.claims, server.port)));
    return await runCli(claims, join(out, `answers-${name}.json`), ['--report', join(out, `report-${name}.jsonl`)]);
  } finally {
    await server.close();
  }
}

/** The scale phase's runs: 1x before and after the scaled run (the machine's speed drifts over minutes). */
export interface ScalePhase {
  factor: number;
  base: Workload;
  scaled: Workload;
  oneX: [CliRun, CliRun];
  scaledRun: CliRun;
  /** Wall time of the three runs, their servers included. */
  seconds: number;
}

/** Runs quotecheck on `base` (1x), on `base` `factor` times over, and on `base` again. */
export async function runScalePhase(base: Workload, factor: number, out: string, runCli: RunCli): Promise<ScalePhase> {
  const started = performance.now();
  const scaled = scaleWorkload(base, factor);
  const say = (text: string) => process.stdout.write(`${text}\n`);
  say(
    `scale phase: 1x is ${base.claims.length} claims over ${base.sources.length} sources; ${factor}x is ${scaled.claims.length} claims over ${scaled.sources.length} distinct URLs (the same documents under /r1/ to /r${factor - 1}/), the same ${base.hosts.length} hosts`,
  );
  say('running quotecheck at 1x (before the scaled run)...');
  const before = await runOnce(base, 'scale-1x-before', out, runCli);
  say(`running quotecheck at ${factor}x...`);
  const scaledRun = await runOnce(scaled, `scale-${factor}x`, out, runCli);
  say('running quotecheck at 1x (after the scaled run)...');
  const after = await runOnce(base, 'scale-1x-after', out, runCli);
  return { factor, base, scaled, oneX: [before, after], scaledRun, seconds: (performance.now() - started) / 1000 };
}

/** Ids of the scaled run's claims whose answer is not the 1x answer of the claim they replicate (a missing answer counts). */
export function replicaDisagreements(
  base: Workload,
  factor: number,
  oneX: Record<string, string>,
  scaled: Record<string, string>,
): string[] {
  const found: string[] = [];
  for (let k = 0; k < factor; k++) {
    for (const c of base.claims)
      if (oneX[c.id] === undefined || scaled[replicaId(c.id, k)] !== oneX[c.id]) found.push(replicaId(c.id, k));
  }
  return found;
}

/** One scale's row of results.json: its size, wall time, time per claim, the network-bound ideal and peak memory. */
function scaleRow(w: Workload, runs: readonly CliRun[]) {
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0) / runs.length;
  const ideal = idealSeconds(
    w.sources,
    DEFAULT_OPTIONS.concurrency,
    DEFAULT_OPTIONS.perHost,
    DEFAULT_OPTIONS.backoffMinMs,
  );
  return {
    claims: w.claims.length,
    sources: w.sources.length,
    runs_seconds: runs.map((r) => fixed(r.seconds)),
    wall_seconds: fixed(seconds),
    ms_per_claim: fixed((seconds * 1000) / w.claims.length),
    ideal_seconds: fixed(ideal),
    ratio_vs_ideal: fixed(seconds / ideal),
    // The golden server logs no first request: start-up is left out of this bound (it is never its largest part).
    ...boundFigures(w.sources, runs, {
      concurrency: DEFAULT_OPTIONS.concurrency,
      perHost: DEFAULT_OPTIONS.perHost,
      cores: availableParallelism(),
    }),
    peak_rss_mb: Math.max(...runs.map((r) => r.peakRssMb ?? Infinity)),
  };
}

/** bench/results.json's `scale`: both scales, the per-claim ratio, the targets and the answer checks. */
export function scaleFigures(p: ScalePhase) {
  const oneX = scaleRow(p.base, p.oneX);
  const scaled = scaleRow(p.scaled, [p.scaledRun]);
  const ratio = fixed(scaled.ms_per_claim / oneX.ms_per_claim);
  const reference = p.oneX[0].answers;
  const disagreeing = replicaDisagreements(p.base, p.factor, reference, p.scaledRun.answers);
  const repeatDisagreeing = replicaDisagreements(p.base, 1, reference, p.oneX[1].answers);
  return {
    factor: p.factor,
    one_x_wall: ONE_X_WALL,
    one_x: oneX,
    scaled,
    ms_per_claim_ratio: ratio,
    target_ms_per_claim_ratio: SCALE_TARGET_RATIO,
    ms_per_claim_target_met: ratio <= SCALE_TARGET_RATIO,
    target_peak_rss_mb: SCALE_TARGET_RSS_MB,
    peak_rss_target_met: scaled.peak_rss_mb < SCALE_TARGET_RSS_MB,
    replica_disagreements: disagreeing.length,
    replica_disagreeing_ids: disagreeing.slice(0, 20),
    one_x_runs_disagreements: repeatDisagreeing.length,
    seconds: fixed(p.seconds, 1),
  };
}

export type ScaleFigures = ReturnType<typeof scaleFigures>;

const check = (ok: boolean) => (ok ? 'ok' : 'MISSED');

/** The scale phase's table: one row a scale, then the targets and the answer check. */
export function printScaleTable(f: ScaleFigures): void {
  const head = [
    'scale',
    'claims',
    'sources',
    'wall s',
    'ms/claim',
    'ideal s',
    'x ideal',
    'bound s',
    'x bound',
    'peak MB',
    '',
  ];
  const line = (label: string, r: ScaleFigures['one_x'], note: string) => [
    label,
    String(r.claims),
    String(r.sources),
    r.wall_seconds.toFixed(1),
    r.ms_per_claim.toFixed(2),
    r.ideal_seconds.toFixed(1),
    r.ratio_vs_ideal.toFixed(2),
    `${r.bound_seconds.toFixed(1)} (${r.bound_kind})`,
    r.ratio_to_bound.toFixed(2),
    String(r.peak_rss_mb),
    note,
  ];
  const rows = [
    head,
    line(
      '1x',
      f.one_x,
      `mean of 2 runs (${f.one_x.runs_seconds.map((s) => s.toFixed(1)).join(', ')} s), one before and one after ${f.factor}x`,
    ),
    line(`${f.factor}x`, f.scaled, ''),
  ];
  const w = rows.map((r) => r.map((c) => c.length)).reduce((a, b) => a.map((x, i) => Math.max(x, b[i]!)));
  process.stdout.write('\n');
  for (const r of rows)
    process.stdout.write(
      `${r
        .map((c, i) => (i === 0 || i === r.length - 1 ? c.padEnd(w[i]!) : c.padStart(w[i]!)))
        .join('  ')
        .trimEnd()}\n`,
    );
  const answers =
    f.replica_disagreements === 0 && f.one_x_runs_disagreements === 0
      ? 'ok'
      : `MISMATCH on ${f.replica_disagreements + f.one_x_runs_disagreements}`;
  process.stdout.write(`ms per claim at ${f.factor}x: ${f.ms_per_claim_ratio.toFixed(2)}x of 1x (target <= ${SCALE_TARGET_RATIO}: ${check(f.ms_per_claim_target_met)})
peak memory at ${f.factor}x: ${f.scaled.peak_rss_mb} MB (target < ${SCALE_TARGET_RSS_MB}: ${check(f.peak_rss_target_met)})
every replica's answers equal the 1x answers, claim by claim: ${answers}
scale phase took ${f.seconds.toFixed(1)} s
`);
}

/** Wrong answers fail the bench: every replica must answer as 1x did, and the two 1x runs alike. */
export function scaleFailures(f: ScaleFigures): string[] {
  const found: string[] = [];
  if (f.replica_disagreements > 0)
    found.push(
      `MISMATCH: the ${f.factor}x run differs from the 1x answers on ${f.replica_disagreements} claims: ${f.replica_disagreeing_ids.slice(0, 10).join(', ')}`,
    );
  if (f.one_x_runs_disagreements > 0)
    found.push(`MISMATCH: the two 1x runs differ on ${f.one_x_runs_disagreements} claims`);
  return found;
}
