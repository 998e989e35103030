// `npm run bench`: quotecheck at benchmark scale (1,405 claims over 500 sources, loopback with injected latency)
// against the network-bound ideal, a concurrency-1 run and a plain script; CPU per stage; alignment speed;
// a recorded run replayed with no network (docs/sources-change.md#record-and-replay-warc: the same answers); and a drifted variant of the
// workload judged as of the claims' dates against a Wayback stub; then the scale phase (bench/scale.ts):
// the workload at 1x and over 10 times as many distinct sources. `npm run bench -- --scale N` (N an integer >= 2)
// runs only the scale phase, at N, and merges its figures into bench/results.json under `scale`.
// `npm run bench -- --startup` measures only the shipped build (bench/startup.ts): its size and start-up against the
// installed CLI, merged into bench/results.json under `startup`. `npm run bench -- --task-profile [--runs N] [--save]`
// runs only the task profiles (bench/task-profile.ts), N times each (default 5), and with --save merges them under `task_profile`.
// `npm run bench -- --real-pages [--runs N] [--save]` runs only the real-pages profile (bench/real-pages.ts), with and
// without latency, N times each, and with --save merges it under `real_pages`; the whole bench runs it too.
// `npm run bench -- --mcp-load [--runs N] [--save]` drives `quotecheck mcp` under concurrent calls on large pages
// (bench/mcp-load.ts), N times each load (default 2), and with --save merges its figures under `mcp_load`.
// Prints a table and writes bench/results.json; exits 1 when a replay, the drift phase or the scale phase gives
// wrong answers, 2 on a bad argument.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { goldenDir, projectRoot, startServer, type RunningServer } from '../golden/server.js';
import { startWaybackStub } from '../src/wayback/stub/stub.js';
import { DEFAULT_OPTIONS } from '../src/config/defaults.js';
import { RESULTS_FILE, mergeKey, readResults, writeResults } from './results-file.js';
import { medianRun } from './stats.js';
import { runTimed } from './cpu-time.js';
import { measureOracle, type OracleFigures } from './oracle-cost.js';
import {
  realPagesFailures,
  realPagesFigures,
  realPagesRows,
  realPagesWorkloads,
  runRealPagesOnce,
  type RealPagesRuns,
  type RealPagesWorkloads,
} from './real-pages.js';
import { alignBenchmark, type AlignResult } from './align.js';
import { cpuBenchmark, type CpuResult } from './cpu.js';
import { DEFAULT_DRIFT, buildDriftWorkload, type DriftWorkload } from './drift.js';
import { measureStartup, startupFailures, startupTable, type StartupFigures } from './startup.js';
import { mainMcpLoad } from './mcp-load.js';
import {
  DEFAULT_SCALE,
  printScaleTable,
  runScalePhase,
  scaleFailures,
  scaleFigures,
  type ScalePhase,
} from './scale.js';
import { boundText } from './bound.js';
import {
  defaultBound,
  runOnFreshServer,
  runTaskProfilesOnce,
  taskProfileFigures,
  taskProfileRows,
  type TaskRuns,
  type TaskWorkloads,
} from './task-profile.js';
import {
  DEFAULT_WORKLOAD,
  FLAKY_HOST_WORKLOAD,
  TASK_WORKLOAD,
  buildWorkload,
  claimsOnPort,
  describeWorkload,
  idealSeconds,
  type Workload,
} from './workload.js';

const run = promisify(execFile);
/**
 * Runs of each profile at the default concurrency; the median is reported. The machine's speed
 * drifts by a third over minutes (its HTML and PDF stage rates move together), so the runs of the
 * two profiles alternate, and five of each keep one slow stretch from deciding the median.
 */
const QUICK_RUNS = 5;
/** Stands for the server's port in the workload's URLs until each server has one. */
const PORT_PLACEHOLDER = 1;
/** The drift phase's Wayback stub: a loopback host of its own, next to the workload's ten. */
const WAYBACK_HOST = '127.0.0.11';
/**
 * Requests a minute to the Wayback stub. The stub does not firewall, so the drift phase is not held
 * to the real archive's 15 a minute (quotecheck's default); the table says what that would cost.
 */
const STUB_WAYBACK_RATE = 6000;
/** Wall time at most this multiple of the network-bound ideal, on each profile. */
const TARGET_RATIO = 1.15;
/** The Internet Archive's guidance, quotecheck's default --wayback-rate. */
const REAL_WAYBACK_RATE = DEFAULT_OPTIONS.waybackPerMinute;
/** The progress line writer the profile modules take (task-profile.ts, real-pages.ts, oracle-cost.ts). */
const say = (line: string): void => void process.stdout.write(line);

interface PipelineRun {
  seconds: number;
  /** User + system CPU seconds, threads and children (pdftotext) included: bench/cpu-time.ts. */
  cpuSeconds?: number;
  peakRssMb?: number;
  answers: Record<string, string>;
  /** quotecheck's stderr: the summary line and what it wrote. */
  stderr: string;
  /** The run's own clock from its summary line (checking the claims only: no start-up, no archive opening or closing). */
  runSeconds?: number;
}

/**
 * Runs the quotecheck CLI on the workload; wall time from outside, peak memory from its summary line.
 * `wrapper` runs it under another command (`unshare --net`).
 */
async function runQuotecheck(
  claims: string,
  out: string,
  args: string[],
  wrapper: string[] = [],
): Promise<PipelineRun> {
  const argv = [
    process.execPath,
    join(projectRoot(), 'bin', 'quotecheck.js'),
    'run',
    '--allow-private',
    '--quiet',
    '--claims',
    claims,
    '--out',
    out,
    ...args,
  ];
  const [cmd, ...rest] = [...wrapper, ...argv] as [string, ...string[]];
  const { seconds, cpuSeconds, stderr } = await runTimed(cmd, rest);
  const peak = stderr.match(/peak memory ([\d,]+) MB/);
  const clock = stderr.match(/; ([\d.]+) s; peak memory/);
  return {
    seconds,
    cpuSeconds,
    peakRssMb: peak ? count(peak[1]) : undefined,
    answers: JSON.parse(readFileSync(out, 'utf8')),
    stderr,
    runSeconds: clock ? Number(clock[1]) : undefined,
  };
}

/** A number as quotecheck's summary line writes it ("1,041"); `missing` when there is none. */
function count(text: string | undefined, missing = 0): number {
  return text === undefined ? missing : Number(text.replaceAll(',', ''));
}

/** The Wayback part of a summary line (design: "; wayback L lookups, R requests, C claims judged on captures"); zeros without one. */
function waybackSummary(stderr: string): { lookups: number; requests: number; claimsOnCaptures: number } {
  const m = stderr.match(/wayback ([\d,]+) lookups?, ([\d,]+) requests?, ([\d,]+) claims? judged on captures/);
  return { lookups: count(m?.[1]), requests: count(m?.[2]), claimsOnCaptures: count(m?.[3]) };
}

/** Ids whose answers differ (or are missing from `a`), in `b`'s order. */
function differingIds(a: Record<string, string>, b: Record<string, string>): string[] {
  return Object.keys(b).filter((id) => a[id] !== b[id]);
}

/**
 * Whether the replay can be shut out of the network by the kernel: as root, `unshare --net` gives
 * it a network namespace of its own where not even loopback is up, so any socket attempt fails.
 */
async function netNamespaceWorks(): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  try {
    await run('unshare', ['--net', 'true']);
    return true;
  } catch {
    return false;
  }
}

async function runPlain(claims: string, out: string): Promise<PipelineRun> {
  const t = performance.now();
  const { stderr } = await run(process.execPath, [join(projectRoot(), 'dist', 'bench', 'plain.js'), claims, out], {
    maxBuffer: 1 << 26,
  });
  return { seconds: (performance.now() - t) / 1000, answers: JSON.parse(readFileSync(out, 'utf8')), stderr };
}

function agreement(a: Record<string, string>, b: Record<string, string>): number {
  const ids = Object.keys(b);
  return ids.filter((id) => a[id] === b[id]).length / ids.length;
}

const fmt = (n: number, d = 2) => n.toFixed(d);

/** A web server of the workload and the claims file that points at it. */
interface Web {
  server: RunningServer;
  claims: string;
}

/** The workloads and their servers, started before any run. */
interface Setup {
  out: string;
  sources: string;
  workload: Workload;
  tasks: TaskWorkloads;
  realPages: RealPagesWorkloads;
  serve: (name: string, routes?: Workload['routes'], claimsOf?: readonly { url: string }[]) => Promise<Web>;
  webs: Web[];
  naiveWeb: Web;
  plainWeb: Web;
  recordWeb: Web;
  warc: string;
}

async function setUp(): Promise<Setup> {
  const out = join(projectRoot(), 'bench', 'out');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const sources = join(goldenDir(), 'sources');

  // One server per pipeline, so each meets the same first-request 503s; each has its own claims file (its port).
  const workload = await buildWorkload(sources, PORT_PLACEHOLDER);
  // The drift phase passes its own routes and (dated) claims.
  const serve = async (
    name: string,
    routes = workload.routes,
    claimsOf: readonly { url: string }[] = workload.claims,
  ) => {
    const server = await startServer({ routes, hosts: workload.hosts });
    const claims = join(out, `claims-${name}.json`);
    writeFileSync(claims, JSON.stringify(claimsOnPort(claimsOf, server.port)));
    return { server, claims };
  };
  // The quick runs each start a fresh server of their own (task-profile.ts runOnFreshServer), which logs when the
  // first request came: the bound's start-up.
  const webs = await Promise.all(['naive', 'plain', 'record'].map((name) => serve(name)));
  const [naiveWeb, plainWeb, recordWeb] = webs as [(typeof webs)[number], (typeof webs)[number], (typeof webs)[number]];
  const warc = join(out, 'bench.warc.gz');
  process.stdout.write(`workload: ${describeWorkload(workload, DEFAULT_WORKLOAD)}\n`);
  const tasks = await taskWorkloads(sources);
  const realPages = await realPagesWorkloads(sources, say);
  return { out, sources, workload, tasks, realPages, serve, webs, naiveWeb, plainWeb, recordWeb, warc };
}

/**
 * The task profiles: one benchmark task's worth, where a few asked waits (Retry-After) are the critical path, and the
 * flaky-host workload, where they fall on hosts whose per-host limit paces the run.
 */
async function taskWorkloads(sources: string): Promise<TaskWorkloads> {
  const task = await buildWorkload(sources, PORT_PLACEHOLDER, TASK_WORKLOAD);
  process.stdout.write(`task profile: ${describeWorkload(task, TASK_WORKLOAD)}\n`);
  const flakyHost = await buildWorkload(sources, PORT_PLACEHOLDER, FLAKY_HOST_WORKLOAD);
  process.stdout.write(`flaky-host profile: ${describeWorkload(flakyHost, FLAKY_HOST_WORKLOAD)}\n`);
  return { task, flakyHost };
}

/** The live runs: each profile QUICK_RUNS times, then --record, then concurrency 1 beside the plain script. */
interface ProfileRuns {
  quickRuns: PipelineRun[];
  taskRuns: TaskRuns;
  realPagesRuns: RealPagesRuns;
  naive: PipelineRun;
  plain: PipelineRun;
  recorded: PipelineRun;
}

async function runProfiles(s: Setup): Promise<ProfileRuns> {
  const { out, warc } = s;
  const quickRuns: PipelineRun[] = [];
  const taskRuns: TaskRuns = { task: [], flakyHost: [] };
  const realPagesRuns: RealPagesRuns = { latency: [], noLatency: [] };
  try {
    // Each run against its own server; the profiles alternate; the median of each is reported.
    for (let i = 0; i < QUICK_RUNS; i++) {
      process.stdout.write(`running quotecheck (default concurrency), run ${i + 1} of ${QUICK_RUNS}...\n`);
      const report = ['--report', join(out, 'report.jsonl')];
      quickRuns.push(await runOnFreshServer(s.workload, `quick-${i + 1}`, out, runQuotecheck, report));
      await runTaskProfilesOnce(s.tasks, i + 1, taskRuns, out, runQuotecheck, say);
      await runRealPagesOnce(s.realPages, i + 1, realPagesRuns, out, runQuotecheck, say);
    }
    // Right after the quick runs, in the same conditions and against a fresh server of its own (so
    // its first-request 503s are recorded too): the cost of keeping every exchange in a WARC file.
    process.stdout.write('running quotecheck --record (every exchange kept in a WARC file)...\n');
    const recorded = await runQuotecheck(s.recordWeb.claims, join(out, 'answers-record.json'), ['--record', warc]);
    process.stdout.write(
      'running quotecheck at concurrency 1 and the plain script, side by side (both wait on the network)...\n',
    );
    const [naive, plain] = await Promise.all([
      runQuotecheck(s.naiveWeb.claims, join(out, 'answers-naive.json'), ['--concurrency', '1', '--per-host', '1']),
      runPlain(s.plainWeb.claims, join(out, 'answers-plain.json')),
    ]);
    return { quickRuns, taskRuns, realPagesRuns, naive, plain, recorded };
  } finally {
    await Promise.all(s.webs.map((w) => w.server.close()));
  }
}

/** The recorded run replayed, and how its answers compare. */
interface ReplayPhase {
  replayed: PipelineRun;
  isolated: boolean;
  replayDiff: string[];
  warcRecords: number;
}

async function runReplay(s: Setup, recorded: PipelineRun): Promise<ReplayPhase> {
  // Replay: every server is closed by now. Inside `unshare --net` the kernel refuses any socket, so
  // answers that still come out identical came from the archive alone.
  const isolated = await netNamespaceWorks();
  const network = isolated
    ? 'unshare --net: no network, not even loopback'
    : 'plain: not root or no unshare; only the servers being closed keeps it off the network';
  process.stdout.write(`replaying the recorded run (${network})...\n`);
  const replayed = await runQuotecheck(
    s.recordWeb.claims,
    join(s.out, 'answers-replay.json'),
    ['--replay', s.warc],
    isolated ? ['unshare', '--net', '--'] : [],
  );
  const replayDiff = differingIds(replayed.answers, recorded.answers);
  const warcRecords = count(recorded.stderr.match(/\(([\d,]+) WARC records?\)/)?.[1], NaN);
  return { replayed, isolated, replayDiff, warcRecords };
}

/** The drifted workload judged with --wayback auto and off, and what the Wayback stub saw. */
interface DriftPhase {
  drift: DriftWorkload;
  auto: PipelineRun;
  off: PipelineRun;
  autoWayback: ReturnType<typeof waybackSummary>;
  /** Lookups in the stub's own log: the URLs it was asked CDX queries for. */
  stubLookups: number;
  stubRequests: number;
  captureFetches: number;
  wrongCaptures: number;
  autoDiff: string[];
  offDiff: string[];
  driftedIds: string[];
}

async function runDrift(s: Setup, asLabelled: Record<string, string>): Promise<DriftPhase> {
  const { out } = s;
  // Drift: the same workload with a seeded 8% of its sources changed since the claims' verify_date.
  // At full latency (the same 50-400 ms as above): two more runs of ~13 s.
  const drift = buildDriftWorkload(s.workload);
  const [autoWeb, offWeb] = await Promise.all([
    s.serve('drift-auto', drift.routes, drift.claims),
    s.serve('drift-off', drift.routes, drift.claims),
  ]);
  const wayback = await startWaybackStub({ captures: drift.captures(autoWeb.server.port), host: WAYBACK_HOST });
  let auto: PipelineRun;
  let off: PipelineRun;
  try {
    process.stdout.write(
      `drifted workload: ${drift.drifted.length} sources serve another document today; running --wayback auto against the stub at ${wayback.origin}...\n`,
    );
    auto = await runQuotecheck(autoWeb.claims, join(out, 'answers-drift-auto.json'), [
      '--wayback',
      'auto',
      '--wayback-url',
      wayback.origin,
      '--wayback-rate',
      String(STUB_WAYBACK_RATE),
      '--report',
      join(out, 'report-drift-auto.jsonl'),
    ]);
    process.stdout.write('running --wayback off on the drifted workload...\n');
    off = await runQuotecheck(offWeb.claims, join(out, 'answers-drift-off.json'), ['--wayback', 'off']);
  } finally {
    await Promise.all([autoWeb.server.close(), offWeb.server.close(), wayback.close()]);
  }
  // The stub's own log: every request it received; a lookup is a CDX query for one URL (a second
  // query for the same URL, "the earliest after the date", belongs to the same lookup).
  const cdxUrls = new Set(
    wayback.requests
      .filter((r) => r.path.startsWith('/cdx/search/cdx'))
      .map((r) => new URL(r.path, wayback.origin).searchParams.get('url')),
  );
  // Which captures were fetched (`/web/{timestamp}id_/...`): a client that chose right fetched only the originals.
  const captureFetches = wayback.requests.filter((r) => r.path.startsWith('/web/'));
  const wrongCaptures = captureFetches.filter((r) => !r.path.startsWith(`/web/${drift.stamps.original}id_/`));
  return {
    drift,
    auto,
    off,
    autoWayback: waybackSummary(auto.stderr),
    stubLookups: cdxUrls.size,
    stubRequests: wayback.requests.length,
    captureFetches: captureFetches.length,
    wrongCaptures: wrongCaptures.length,
    autoDiff: differingIds(auto.answers, asLabelled),
    offDiff: differingIds(off.answers, asLabelled),
    driftedIds: [...drift.driftedClaimIds],
  };
}

/** Everything measured, phase by phase, that the figures and the printed table are made from. */
interface Measured extends Setup, ProfileRuns, ReplayPhase {
  quick: PipelineRun;
  bySpeed: PipelineRun[];
  cpu: CpuResult;
  align: AlignResult;
  asLabelled: Record<string, string>;
  driftPhase: DriftPhase;
  scalePhase: ScalePhase;
  startup: StartupFigures;
  oracle: OracleFigures;
  idealQuick: number;
  idealNaive: number;
}

/** bench/results.json's record: what keeping every exchange in a WARC file costs. */
function recordFigures(m: Measured) {
  const { recorded, quick } = m;
  return {
    seconds: Number(fmt(recorded.seconds)),
    overhead_vs_quick: Number(fmt(recorded.seconds / quick.seconds - 1, 3)),
    // Wall time beyond the run's own clock, less what a quick run spends there (start-up, exit):
    // the time spent finishing the archive after the last claim was decided.
    closing_seconds: Number(
      fmt(recorded.seconds - (recorded.runSeconds ?? NaN) - (quick.seconds - (quick.runSeconds ?? NaN))),
    ),
    run_seconds: recorded.runSeconds ?? null,
    peak_rss_mb: recorded.peakRssMb ?? null,
    archive_mb: Number(fmt(statSync(m.warc).size / 1e6)),
    warc_records: m.warcRecords,
    agreement_with_quick: Number(fmt(agreement(recorded.answers, quick.answers), 3)),
  };
}

/** bench/results.json's replay: the recorded run answered from its archive. */
function replayFigures(m: Measured) {
  const { replayed, quick } = m;
  return {
    seconds: Number(fmt(replayed.seconds)),
    speedup_vs_quick: Number(fmt(quick.seconds / replayed.seconds)),
    // The run's own clock starts after the archive is read: the rest of the wall time is start-up and reading it.
    run_seconds: replayed.runSeconds ?? null,
    network_isolated: m.isolated,
    identical_answers: m.replayDiff.length === 0,
    differing_ids: m.replayDiff.slice(0, 20),
    peak_rss_mb: replayed.peakRssMb ?? null,
  };
}

/** bench/results.json's drift: the drifted workload judged as of its date, and what the Wayback Machine was asked. */
function driftFigures(m: Measured) {
  const { drift, auto, off, autoWayback, autoDiff, offDiff, driftedIds } = m.driftPhase;
  const { asLabelled } = m;
  return {
    verify_date: DEFAULT_DRIFT.verifyDate,
    drifted_sources: drift.drifted.length,
    drifted_claims: driftedIds.length,
    drifted_verbatim_as_labelled: driftedIds.filter((id) => asLabelled[id] === 'verbatim').length,
    wayback_rate_per_minute: STUB_WAYBACK_RATE,
    auto_seconds: Number(fmt(auto.seconds)),
    off_seconds: Number(fmt(off.seconds)),
    auto_agreement: Number(fmt(agreement(auto.answers, asLabelled), 3)),
    auto_differing_ids: autoDiff.slice(0, 20),
    off_agreement: Number(fmt(agreement(off.answers, asLabelled), 3)),
    off_lost_verbatim: offDiff.filter((id) => asLabelled[id] === 'verbatim').length,
    off_differing_outside_drift: offDiff.filter((id) => !drift.driftedClaimIds.has(id)).length,
    wayback_lookups: autoWayback.lookups,
    wayback_requests: autoWayback.requests,
    claims_judged_on_captures: autoWayback.claimsOnCaptures,
    stub_lookups: m.driftPhase.stubLookups,
    stub_requests: m.driftPhase.stubRequests,
    capture_fetches: m.driftPhase.captureFetches,
    capture_fetches_not_original: m.driftPhase.wrongCaptures,
    requests_per_drifted_source: Number(fmt(autoWayback.requests / drift.drifted.length)),
    requests_per_capture_claim: Number(fmt(autoWayback.requests / Math.max(1, autoWayback.claimsOnCaptures))),
    real_archive_seconds: Math.round(autoWayback.requests * (60 / REAL_WAYBACK_RATE)),
  };
}

/** bench/results.json: the figures in the order the file has always had them. */
function figures(m: Measured) {
  const { workload, quick, quickRuns, naive, plain, cpu, idealQuick, idealNaive } = m;
  return {
    machine: { cpus: availableParallelism(), model: cpus()[0]?.model ?? 'unknown', node: process.version },
    workload: {
      claims: workload.claims.length,
      sources: workload.sources.length,
      pdf_sources: workload.sources.filter((s) => s.kind === 'pdf').length,
    },
    quotecheck_seconds: Number(fmt(quick.seconds)),
    quotecheck_runs_seconds: quickRuns.map((r) => Number(fmt(r.seconds))),
    ideal_seconds: Number(fmt(idealQuick)),
    ratio_vs_ideal: Number(fmt(quick.seconds / idealQuick)),
    ...defaultBound(workload, quickRuns),
    naive_seconds: Number(fmt(naive.seconds)),
    naive_ideal_seconds: Number(fmt(idealNaive)),
    ratio_vs_naive: Number(fmt(naive.seconds / quick.seconds)),
    plain_seconds: Number(fmt(plain.seconds)),
    ratio_plain_vs_quotecheck: Number(fmt(plain.seconds / quick.seconds)),
    plain_agreement: Number(fmt(agreement(plain.answers, quick.answers), 3)),
    naive_agreement: Number(fmt(agreement(naive.answers, quick.answers), 3)),
    runs_agreement: Number(fmt(Math.min(...quickRuns.map((r) => agreement(r.answers, quick.answers))), 3)),
    html_mb_per_s: cpu.html_mb_per_s,
    html_cold_mb_per_s: cpu.html_cold_mb_per_s,
    pdf_mb_per_s: cpu.pdf_mb_per_s,
    match_ms_p50: cpu.match_ms_p50,
    match_ms_p90: cpu.match_ms_p90,
    peak_rss_mb: Math.max(...quickRuns.map((r) => r.peakRssMb ?? Infinity)),
    task_profile: taskProfileFigures(m.tasks, m.taskRuns, TARGET_RATIO),
    real_pages: realPagesFigures(m.realPages, m.realPagesRuns, m.oracle),
    align: m.align,
    record: recordFigures(m),
    replay: replayFigures(m),
    drift: driftFigures(m),
    scale: scaleFigures(m.scalePhase),
    startup: m.startup,
    bench_seconds: 0,
  };
}

type Results = ReturnType<typeof figures>;

const check = (ok: boolean) => (ok ? 'ok' : 'MISSED');
const signed = (pct: number) => `${pct >= 0 ? '+' : ''}${fmt(pct, 1)}`;

/** The table of pipelines: wall time, the network-bound ideal, and what each run shows. */
function printTable(m: Measured, results: Results): void {
  const {
    quick,
    bySpeed,
    naive,
    plain,
    recorded,
    replayed,
    isolated,
    replayDiff,
    warcRecords,
    idealQuick,
    idealNaive,
  } = m;
  const { auto, off, autoDiff } = m.driftPhase;
  const rows: [string, string, string, string][] = [
    ['pipeline', 'wall s', 'ideal s', 'notes'],
    [
      `quotecheck, concurrency ${DEFAULT_OPTIONS.concurrency}, ${DEFAULT_OPTIONS.perHost} per host`,
      fmt(quick.seconds, 1),
      fmt(idealQuick, 1),
      `median of ${QUICK_RUNS} runs (${bySpeed.map((r) => fmt(r.seconds, 1)).join(', ')} s): ${boundText(results)}; ratio to the ideal ${fmt(results.ratio_vs_ideal)} (target <= ${TARGET_RATIO}: ${check(results.ratio_vs_ideal <= TARGET_RATIO)}); peak ${results.peak_rss_mb} MB (target < 600: ${check(results.peak_rss_mb < 600)}); the runs agree on ${fmt(results.runs_agreement * 100, 1)}% of answers`,
    ],
    ...taskProfileRows(results.task_profile, TARGET_RATIO),
    ...realPagesRows(results.real_pages),
    [
      'quotecheck, concurrency 1',
      fmt(naive.seconds, 1),
      fmt(idealNaive, 1),
      `${fmt(results.ratio_vs_naive, 1)}x slower than the default; same answers on ${fmt(results.naive_agreement * 100, 1)}%`,
    ],
    [
      'plain script: sequential fetch, pdftotext, tag strip, includes',
      fmt(plain.seconds, 1),
      fmt(idealNaive, 1),
      `${fmt(results.ratio_plain_vs_quotecheck, 1)}x slower; agrees with quotecheck on ${fmt(results.plain_agreement * 100, 1)}% of claims`,
    ],
    [
      'quotecheck --record bench.warc.gz',
      fmt(recorded.seconds, 1),
      fmt(idealQuick, 1),
      `${signed(results.record.overhead_vs_quick * 100)}% vs the median (${fmt(results.record.closing_seconds, 1)} s of it finishing the archive after the last claim); peak ${results.record.peak_rss_mb} MB; archive ${fmt(results.record.archive_mb, 1)} MB, ${warcRecords} WARC records; same answers as the median on ${fmt(results.record.agreement_with_quick * 100, 1)}%`,
    ],
    [
      `quotecheck --replay (${isolated ? 'in unshare --net' : 'NOT isolated'})`,
      fmt(replayed.seconds, 1),
      '-',
      `speed-up over the live median ${fmt(results.replay.speedup_vs_quick)}x (own clock ${results.replay.run_seconds} s vs ${quick.runSeconds} s live; peak ${results.replay.peak_rss_mb} MB); answers identical to the recorded run: ${replayDiff.length === 0 ? 'ok' : `MISMATCH on ${replayDiff.length}`}${isolated ? '' : ' (run plainly: not root or unshare --net failed; servers closed)'}`,
    ],
    [
      'drifted workload, --wayback auto',
      fmt(auto.seconds, 1),
      fmt(idealQuick, 1),
      `agrees with the as-labelled answers on ${fmt(results.drift.auto_agreement * 100, 1)}% (must be 100: ${autoDiff.length === 0 ? 'ok' : 'MISMATCH'}); ${signed((auto.seconds / off.seconds - 1) * 100)}% vs off`,
    ],
    [
      'drifted workload, --wayback off',
      fmt(off.seconds, 1),
      fmt(idealQuick, 1),
      `agrees on ${fmt(results.drift.off_agreement * 100, 1)}%: ${results.drift.off_lost_verbatim} of the ${results.drift.drifted_verbatim_as_labelled} verbatim claims on drifted sources lost`,
    ],
  ];
  const w = rows.map((r) => r.map((c) => c.length)).reduce((a, b) => a.map((x, i) => Math.max(x, b[i]!)));
  process.stdout.write('\n');
  for (const r of rows)
    process.stdout.write(`${r[0].padEnd(w[0]!)}  ${r[1].padStart(w[1]!)}  ${r[2].padStart(w[2]!)}  ${r[3]}\n`);
}

/** Below the table: each stage's CPU cost, the drift phase's Wayback traffic, and the machine. */
function printDetails(m: Measured, results: Results): void {
  const { cpu, align, workload } = m;
  const { auto } = m.driftPhase;
  const d = results.drift;
  process.stdout.write(`
stage costs (one thread)
  HTML extraction (htmlparser2 + Readability)       ${fmt(cpu.html_mb_per_s)} MB/s per core over ${cpu.html_mb} MB, warm (target >= 5: ${check(cpu.html_mb_per_s >= 5)}); first pass, cold: ${fmt(cpu.html_cold_mb_per_s)} MB/s
  PDF extraction (pdftotext)                         ${fmt(cpu.pdf_mb_per_s)} MB/s over ${cpu.pdf_mb} MB
  matching + diagnosis per claim                     p50 ${fmt(cpu.match_ms_p50)} ms, p90 ${fmt(cpu.match_ms_p90)} ms over ${cpu.claims_timed} claims (target p50 < 5: ${check(cpu.match_ms_p50 < 5)})
  alignment, ${align.quote_chars}-char quote in ${align.text_mb} MB             median ${align.align_ms_p50} ms, slowest ${align.align_ms_max} ms

drift (verify_date ${d.verify_date}; evidence = sha256 of the original bytes; Wayback stub at ${STUB_WAYBACK_RATE}/min: it does not firewall)
  drifted                                            ${d.drifted_sources} of ${workload.sources.length} sources (seeded), ${d.drifted_claims} claims citing them, ${d.drifted_verbatim_as_labelled} of those verbatim as labelled
  Wayback lookups / requests, quotecheck's summary   ${d.wayback_lookups} / ${d.wayback_requests}; ${d.claims_judged_on_captures} claims judged on captures
  Wayback lookups / requests, the stub's log         ${d.stub_lookups} / ${d.stub_requests} (the same: ${check(d.stub_lookups === d.wayback_lookups && d.stub_requests === d.wayback_requests)}); ${d.capture_fetches} captures fetched, ${d.capture_fetches_not_original} of them not the original (302 or after the date)
  requests per drifted source / per capture claim    ${fmt(d.requests_per_drifted_source)} / ${fmt(d.requests_per_capture_claim)}
  ${`at the real archive's ${REAL_WAYBACK_RATE} requests a minute`.padEnd(51)}${d.wayback_requests} requests x ${fmt(60 / REAL_WAYBACK_RATE, 0)} s = ${d.real_archive_seconds} s (${fmt(d.real_archive_seconds / 60, 1)} min) of pacing, vs ${fmt(auto.seconds, 1)} s here

machine: ${results.machine.cpus} cores (${results.machine.model}), Node ${results.machine.node}; bench took ${results.bench_seconds} s
`);
}

/**
 * Wrong answers fail the bench: a replay must give the recorded run's answers (docs/sources-change.md#record-and-replay-warc), and
 * judging as of the date must give the as-labelled answers on every claim.
 */
function failures(m: Measured, results: Results): string[] {
  const { replayDiff } = m;
  const { autoDiff } = m.driftPhase;
  const d = results.drift;
  const found: string[] = [];
  if (replayDiff.length > 0)
    found.push(
      `MISMATCH: the replay differs from the recorded run on ${replayDiff.length} claims: ${replayDiff.slice(0, 10).join(', ')}`,
    );
  if (autoDiff.length > 0)
    found.push(
      `MISMATCH: --wayback auto differs from the as-labelled answers on ${autoDiff.length} claims: ${autoDiff.slice(0, 10).join(', ')}`,
    );
  if (d.stub_lookups !== d.wayback_lookups || d.stub_requests !== d.wayback_requests) {
    found.push(
      `MISMATCH: Wayback counts: summary ${d.wayback_lookups} lookups / ${d.wayback_requests} requests, the stub saw ${d.stub_lookups} / ${d.stub_requests}`,
    );
  }
  return [
    ...found,
    ...realPagesFailures(results.real_pages),
    ...scaleFailures(results.scale),
    ...startupFailures(results.startup),
  ];
}

/** Every phase in turn, in the order that keeps each measurement's conditions (see each phase). */
async function measure(): Promise<Measured> {
  const setup = await setUp();
  const profiles = await runProfiles(setup);
  // Right after the profiles, in the same conditions: a task's oracle, the shipped build cold on ten claims.
  const oracle = await measureOracle(setup.realPages.plain, setup.out, say);
  const { median: quick, bySpeed } = medianRun(profiles.quickRuns);
  process.stdout.write('measuring CPU per stage...\n');
  const cpu = await cpuBenchmark(setup.sources, setup.workload);
  const align = alignBenchmark(join(setup.sources, 'pdf'));
  const replay = await runReplay(setup, profiles.recorded);
  const asLabelled = quick.answers;
  const driftPhase = await runDrift(setup, asLabelled);
  // Last, each run against a fresh server: 1x, 10x, 1x.
  const scalePhase = await runScalePhase(setup.workload, DEFAULT_SCALE, setup.out, runQuotecheck);
  process.stdout.write("measuring the shipped build's start-up...\n");
  const startup = await measureStartup(setup.out);
  const ideal = (sources: Workload['sources'], concurrency: number, perHost: number) =>
    idealSeconds(sources, concurrency, perHost, DEFAULT_OPTIONS.backoffMinMs);
  return {
    ...setup,
    ...profiles,
    ...replay,
    quick,
    bySpeed,
    cpu,
    align,
    asLabelled,
    driftPhase,
    scalePhase,
    startup,
    oracle,
    idealQuick: ideal(setup.workload.sources, DEFAULT_OPTIONS.concurrency, DEFAULT_OPTIONS.perHost),
    idealNaive: ideal(setup.workload.sources, 1, 1),
  };
}

/**
 * The command line: nothing (the whole bench), `--scale N` (only the scale phase), `--startup` (only the shipped
 * build's), or one profile alone, `--task-profile`, `--real-pages` or `--mcp-load`, with `--runs N` and `--save`; a
 * bad one exits 2 with one line.
 */
/** Runs of each MCP load with `--mcp-load` alone, unless `--runs` says otherwise. */
const MCP_LOAD_RUNS = 2;

function benchArgs(argv: string[]): {
  scale?: number;
  startup?: boolean;
  taskProfile?: { runs: number; save: boolean };
  realPages?: { runs: number; save: boolean };
  mcpLoad?: { runs: number; save: boolean };
} {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        scale: { type: 'string' },
        startup: { type: 'boolean' },
        'task-profile': { type: 'boolean' },
        'real-pages': { type: 'boolean' },
        'mcp-load': { type: 'boolean' },
        runs: { type: 'string' },
        save: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.startup) return { startup: true };
    if (values['task-profile'] || values['real-pages'] || values['mcp-load']) {
      // The MCP load runs for minutes a time: two of each load by default, the profiles QUICK_RUNS.
      const runs = values.runs ?? String(values['mcp-load'] ? MCP_LOAD_RUNS : QUICK_RUNS);
      if (!/^\d+$/.test(runs.trim()) || Number(runs) < 1)
        throw new Error(`--runs must be an integer >= 1, got ${JSON.stringify(values.runs)}`);
      const only = { runs: Number(runs), save: values.save === true };
      if (values['mcp-load']) return { mcpLoad: only };
      return values['real-pages'] ? { realPages: only } : { taskProfile: only };
    }
    if (values.scale === undefined) return {};
    if (!/^\d+$/.test(values.scale.trim()) || Number(values.scale) < 2)
      throw new Error(`--scale must be an integer >= 2, got ${JSON.stringify(values.scale)}`);
    return { scale: Number(values.scale) };
  } catch (err) {
    process.stderr.write(
      `bench: ${(err as Error).message.split('\n')[0]} (usage: npm run bench [-- --scale N | --startup | ` +
        '--task-profile [--runs N] [--save] | --real-pages [--runs N] [--save] | --mcp-load [--runs N] [--save]])\n',
    );
    process.exit(2);
  }
}

/** `--scale N`: only the scale phase, at N, its figures merged into bench/results.json. */
async function mainScale(factor: number): Promise<void> {
  const out = join(projectRoot(), 'bench', 'out');
  mkdirSync(out, { recursive: true });
  const workload = await buildWorkload(join(goldenDir(), 'sources'), PORT_PLACEHOLDER);
  const scale = scaleFigures(await runScalePhase(workload, factor, out, runQuotecheck));
  printScaleTable(scale);
  writeResults(mergeKey('scale', scale));
  process.stdout.write(`wrote the scale figures into ${RESULTS_FILE}\n`);
  const found = scaleFailures(scale);
  for (const f of found) process.stdout.write(`${f}\n`);
  if (found.length > 0) process.exitCode = 1;
}

async function main(): Promise<void> {
  const started = performance.now();
  const m = await measure();
  const results = figures(m);
  results.bench_seconds = Number(fmt((performance.now() - started) / 1000, 1));
  printTable(m, results);
  printDetails(m, results);
  printScaleTable(results.scale);
  process.stdout.write(`\n${startupTable(results.startup)}\n`);
  // Figures measured apart are kept as they were: long_pages (bench/long-pages.ts --save: minutes of heap probes) and
  // mcp_load (--mcp-load --save: the MCP server under load).
  const { long_pages, mcp_load } = readResults();
  writeResults({
    ...results,
    ...(long_pages === undefined ? {} : { long_pages }),
    ...(mcp_load === undefined ? {} : { mcp_load }),
  });
  process.stdout.write(`wrote ${RESULTS_FILE}\n`);
  const found = failures(m, results);
  for (const f of found) process.stdout.write(`${f}\n`);
  if (found.length > 0) process.exitCode = 1;
}

/** `--startup`: only the shipped build's size and start-up (against the installed CLI and the ideal), merged into bench/results.json. */
async function mainStartup(): Promise<void> {
  const startup = await measureStartup(join(projectRoot(), 'bench', 'out'));
  process.stdout.write(`${startupTable(startup)}\n`);
  writeResults(mergeKey('startup', startup));
  process.stdout.write(`wrote the start-up figures into ${RESULTS_FILE}\n`);
  const found = startupFailures(startup);
  for (const f of found) process.stdout.write(`${f}\n`);
  if (found.length > 0) process.exitCode = 1;
}

/** `--task-profile`: only the task profiles, `runs` times each, alternating; their rows printed, merged into bench/results.json with --save. */
async function mainTaskProfile(runs: number, save: boolean): Promise<void> {
  const out = join(projectRoot(), 'bench', 'out');
  mkdirSync(out, { recursive: true });
  const tasks = await taskWorkloads(join(goldenDir(), 'sources'));
  const taskRuns: TaskRuns = { task: [], flakyHost: [] };
  for (let i = 1; i <= runs; i++) await runTaskProfilesOnce(tasks, i, taskRuns, out, runQuotecheck, say);
  const figures = taskProfileFigures(tasks, taskRuns, TARGET_RATIO);
  for (const r of taskProfileRows(figures, TARGET_RATIO))
    process.stdout.write(`${r[0]}  ${r[1]} s  ideal ${r[2]} s  ${r[3]}\n`);
  if (!save) return;
  writeResults(mergeKey('task_profile', figures));
  process.stdout.write(`wrote the task profiles' figures into ${RESULTS_FILE}\n`);
}

/**
 * `--real-pages`: only the real-pages profile, `runs` times each way, alternating, and a task's oracle; merged into
 * bench/results.json with --save.
 */
async function mainRealPages(runs: number, save: boolean): Promise<void> {
  const out = join(projectRoot(), 'bench', 'out');
  mkdirSync(out, { recursive: true });
  const w = await realPagesWorkloads(join(goldenDir(), 'sources'), say);
  const realRuns: RealPagesRuns = { latency: [], noLatency: [] };
  for (let i = 1; i <= runs; i++) await runRealPagesOnce(w, i, realRuns, out, runQuotecheck, say);
  const figures = realPagesFigures(w, realRuns, await measureOracle(w.plain, out, say));
  for (const r of realPagesRows(figures)) say(`${r[0]}  ${r[1]} s  ideal ${r[2]} s  ${r[3]}\n`);
  const found = realPagesFailures(figures);
  for (const f of found) say(`${f}\n`);
  if (found.length > 0) process.exitCode = 1;
  if (!save) return;
  writeResults(mergeKey('real_pages', figures));
  say(`wrote the real-pages figures into ${RESULTS_FILE}\n`);
}

const args = benchArgs(process.argv.slice(2));
if (args.startup) await mainStartup();
else if (args.realPages) await mainRealPages(args.realPages.runs, args.realPages.save);
else if (args.taskProfile) await mainTaskProfile(args.taskProfile.runs, args.taskProfile.save);
else if (args.mcpLoad) await mainMcpLoad(args.mcpLoad.runs, args.mcpLoad.save);
else await (args.scale === undefined ? main() : mainScale(args.scale));
