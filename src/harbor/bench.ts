// Running a dataset locally as the harness would: each task's agent, then its own verifier, at its layout's container paths.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import pLimit from 'p-limit';
import { emptyConfusion, parseLabels, grade, type Grade } from './grade.js';
import { parseClaims, type Claim } from '../claims.js';
import { listTasks, readJsonIfAny, readJsonLines, type TaskDir } from './dataset.js';
import { CONTAINER_PATHS, shellQuote } from './templates.js';
import { LAYOUTS } from './layout.js';

/** How the container paths are provided: bind mounts in a private mount namespace (root), or environment variables. */
export type Isolation = 'namespace' | 'paths';

export interface BenchOptions {
  tasksDir: string;
  /** `oracle` (the task's solve.sh), `baseline` (all no_match), or a shell command run in /app. */
  agent: string;
  jobs?: number;
  outDir: string;
  /** The quotecheck entry point put on PATH (as in the image). */
  quotecheckBin: string;
  isolation?: Isolation | 'auto';
  /** A WARC archive every task's quotecheck answers from (QUOTECHECK_REPLAY), with no network. */
  replay?: string;
  /**
   * What to check when every source of a task fails (e.g. "is the golden server running?");
   * without it the advice is worked out from where the sources are.
   */
  sourcesHint?: string;
  onTaskDone?: (run: TaskRun) => void;
}

/** One word-level difference run of a nearest span (design.md §2 `nearest.diff`). */
export interface DiffRun {
  op: 'equal' | 'missing' | 'extra';
  text: string;
}

/** The nearest span as the report gives it: normalized text, the page's own wording and the diff when present. */
export interface NearestEvidence {
  text: string;
  raw?: string;
  diff?: DiffRun[];
  similarity: number;
}

/** Where the quote was found, in the page's own wording (the report's TextQuoteSelector). */
export interface MatchSelector {
  exact: string;
  prefix: string;
  suffix: string;
}

/** A task none of whose sources could be fetched: its no_match answers say nothing about its quotes. */
export interface SourcesFailure {
  /** Distinct source URLs. */
  sources: number;
  /** Their hosts (host:port), sorted. */
  hosts: string[];
  /** The most common reason the agent's report gives. */
  reason: string;
}

/** One claim as the report shows it. */
export interface ClaimRow {
  id: string;
  quote: string;
  url: string;
  claim?: string;
  answer?: string;
  gold: string;
  correct: boolean;
  diagnosis?: string;
  note?: string;
  /** The matched context, normalized (what the label was decided on). */
  context?: string;
  /** The match in the page's own wording, when the report has it. */
  selector?: MatchSelector;
  nearest?: NearestEvidence;
  httpStatus?: number;
  /** The live source against the claim's evidence hash (design.md §8). */
  drift?: string;
  /** Which text decided the label (the report's `as_of`). */
  asOf?: { source: string; timestamp: string | null; capture_url: string | null; proof: string | null; date: string | null };
}

export interface TaskRun {
  task: string;
  reward: number;
  claims: number;
  correct: number;
  /** Share of gold no_match labels: what the baseline (all no_match) scores. */
  baseline: number;
  /** @deprecated The same number as `baseline`, under its old name; kept for readers of report.json. */
  floor: number;
  agentExit: number | null;
  verifierExit: number | null;
  seconds: number;
  /** What went wrong, if anything did (timeout, no reward file, ...). */
  problems: string[];
  /** Set when every source the agent reported on failed to fetch. */
  sourcesFailed?: SourcesFailure;
  grade: Grade;
  rows: ClaimRow[];
}

export interface BenchReport {
  agent: string;
  isolation: Isolation;
  tasks_dir: string;
  mean_reward: number;
  /** Mean of the per-task no_match shares: the baseline's mean reward. */
  baseline_mean_reward: number;
  claims: number;
  correct: number;
  seconds: number;
  confusion: Grade['confusion'];
  diagnoses: Record<string, number>;
  /** Sources whose live bytes no longer hash to a claim's evidence (or are gone), from the agent's reports. */
  drifted_sources: number;
  /** Claims the agent judged on a Wayback capture. */
  claims_from_captures: number;
  /** What to check, one line each, when something went wrong for a whole task (every source failed). */
  advice: string[];
  tasks: TaskRun[];
}

/** Whether bind mounts in a private mount namespace are possible here (root and util-linux unshare). */
export function canUseNamespaces(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = spawnSync('unshare', ['--mount', '--propagation', 'private', 'true'], { stdio: 'ignore' });
  return probe.status === 0;
}

/** Where a trial's oracle and verifier folders are, as its phases see them: the layout's container paths, or the task's own folders. */
function phasePaths(task: TaskDir, isolation: Isolation): { oracle: string; verifier: string } {
  const { oracle, verifier } = LAYOUTS[task.layout];
  return isolation === 'namespace'
    ? { oracle: oracle.path, verifier: verifier.path }
    : { oracle: join(task.dir, oracle.folder), verifier: join(task.dir, verifier.folder) };
}

function agentCommand(agent: string, task: TaskDir, isolation: Isolation): string {
  const app = isolation === 'namespace' ? CONTAINER_PATHS.app.path : `$${CONTAINER_PATHS.app.env}`;
  if (agent === 'oracle') return `bash ${shellQuote(`${phasePaths(task, isolation).oracle}/solve.sh`)}`;
  if (agent === 'baseline') return `quotecheck run --baseline --claims "${app}/claims.json" --out "${app}/answers.json"`;
  return agent;
}

/** The verifier as the harnesses run it: its standard output kept as test-stdout.txt beside the reward. */
function verifierCommand(task: TaskDir, isolation: Isolation): string {
  const logs = isolation === 'namespace' ? CONTAINER_PATHS.verifierLogs.path : `$${CONTAINER_PATHS.verifierLogs.env}`;
  return `bash ${shellQuote(`${phasePaths(task, isolation).verifier}/test.sh`)} > "${logs}/test-stdout.txt"`;
}

interface Trial {
  task: TaskDir;
  root: string;
  app: string;
  verifierLogs: string;
  agentLogs: string;
}

/** The folders a trial mounts, host side -> container side, at the paths of the task's layout. */
function mounts(t: Trial): [string, string][] {
  const { oracle, verifier } = LAYOUTS[t.task.layout];
  const list: [string, string][] = [[t.app, CONTAINER_PATHS.app.path], [join(t.task.dir, verifier.folder), verifier.path]];
  if (existsSync(join(t.task.dir, oracle.folder))) list.push([join(t.task.dir, oracle.folder), oracle.path]);
  list.push([t.verifierLogs, CONTAINER_PATHS.verifierLogs.path], [t.agentLogs, CONTAINER_PATHS.agentLogs.path]);
  return list;
}

/**
 * Runs one phase (agent or verifier) with a time limit. In a namespace, the trial's folders
 * are bind-mounted at the container paths first, visible to this phase only; otherwise the
 * scripts find them through environment variables.
 */
function runPhase(t: Trial, isolation: Isolation, command: string, env: NodeJS.ProcessEnv, timeoutSec: number, log: string): Promise<{ code: number | null; timedOut: boolean }> {
  let argv: string[];
  let cwd: string;
  if (isolation === 'namespace') {
    const setup = mounts(t).map(([from, to]) => `mount --bind ${shellQuote(from)} ${shellQuote(to)}`).join(' && ');
    argv = ['unshare', '--mount', '--propagation', 'private', 'bash', '-c', `${setup} && cd ${CONTAINER_PATHS.app.path} && ${command}`];
    cwd = t.root;
  } else {
    argv = ['bash', '-c', command];
    cwd = t.app;
  }
  return new Promise((resolvePhase) => {
    const out = join(t.root, log);
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.on('data', (d: Buffer) => chunks.push(d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL'); // the whole process group: bash and what it started
      } catch {
        // already gone
      }
    }, timeoutSec * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      writeFileSync(out, Buffer.concat(chunks));
      resolvePhase({ code, timedOut });
    });
    child.on('error', () => {
      clearTimeout(timer);
      resolvePhase({ code: null, timedOut });
    });
  });
}

/** A `quotecheck` command on PATH that runs this quotecheck, as the image has it. */
function makeShim(dir: string, quotecheckBin: string): string {
  mkdirSync(dir, { recursive: true });
  const shim = join(dir, 'quotecheck');
  writeFileSync(shim, `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(resolve(quotecheckBin))} "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const DIFF_OPS: ReadonlySet<string> = new Set(['equal', 'missing', 'extra']);

/** The report's TextQuoteSelector, if well formed: the report is the agent's output, so nothing is assumed. */
function parseSelector(v: unknown): MatchSelector | undefined {
  if (!isRecord(v) || typeof v.exact !== 'string' || v.exact === '') return undefined;
  return { exact: v.exact, prefix: typeof v.prefix === 'string' ? v.prefix : '', suffix: typeof v.suffix === 'string' ? v.suffix : '' };
}

/** The report's nearest span; `raw` and `diff` only when well formed (older reports have neither). */
function parseNearest(v: unknown): NearestEvidence | undefined {
  if (!isRecord(v) || typeof v.text !== 'string' || typeof v.similarity !== 'number') return undefined;
  const out: NearestEvidence = { text: v.text, similarity: v.similarity };
  if (typeof v.raw === 'string' && v.raw !== '') out.raw = v.raw;
  if (Array.isArray(v.diff) && v.diff.length > 0 && v.diff.every((d) => isRecord(d) && typeof d.op === 'string' && DIFF_OPS.has(d.op) && typeof d.text === 'string')) {
    out.diff = (v.diff as DiffRun[]).map((d) => ({ op: d.op, text: d.text }));
  }
  return out;
}

/** host:port of a URL, or the URL itself when it does not parse. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * Every source failed to fetch: the agent's report says fetch_failed for every claim it judged
 * (claims rejected as invalid aside). Undefined when the report is missing or anything was fetched.
 */
export function sourcesFailure(rows: readonly ClaimRow[]): SourcesFailure | undefined {
  const judged = rows.filter((r) => r.diagnosis !== undefined && r.diagnosis !== 'invalid_claim');
  if (judged.length === 0 || judged.some((r) => r.diagnosis !== 'fetch_failed')) return undefined;
  const reasons = new Map<string, number>();
  for (const r of judged) if (r.note) reasons.set(r.note, (reasons.get(r.note) ?? 0) + 1);
  const reason = [...reasons].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'no reason given';
  return {
    sources: new Set(judged.map((r) => r.url.replace(/#.*$/, ''))).size,
    hosts: [...new Set(judged.map((r) => hostOf(r.url)))].sort(),
    reason,
  };
}

/** Loopback hosts (127/8, localhost, ::1): sources a local server must be serving. */
function isLoopback(host: string): boolean {
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return /^127\./.test(name) || name === 'localhost' || name === '::1';
}

/** The one thing to check when every source of some task failed. */
function sourcesAdvice(failed: readonly TaskRun[], total: number, opts: Pick<BenchOptions, 'sourcesHint' | 'replay'>): string[] {
  if (failed.length === 0) return [];
  const hosts = [...new Set(failed.flatMap((t) => t.sourcesFailed!.hosts))].sort();
  const names = failed.map((t) => t.task);
  const which = failed.length === total
    ? (total === 1 ? `task ${names[0]}` : `all ${total} tasks`)
    : `${failed.length} of ${total} tasks (${names.join(', ')})`;
  const check = opts.sourcesHint
    ?? (opts.replay ? `do the sources appear in the archive ${opts.replay}? (a replay answers only what was recorded)`
      : hosts.every(isLoopback) ? `they are on loopback (${hosts.join(', ')}): is the server that serves them running?`
        : `can this machine reach ${hosts.slice(0, 3).join(', ')}${hosts.length > 3 ? ', ...' : ''}? (DNS, proxy, firewall)`);
  return [`every source failed in ${which}, so ${failed.length === 1 ? 'its' : 'their'} no_match answers say nothing about the quotes: ${failed[0]!.sourcesFailed!.reason}. Check: ${check}`];
}

function claimRows(t: Trial, answers: Map<string, string>, gold: Map<string, string>): ClaimRow[] {
  // The task's claims as quotecheck reads them (aliases and all); a file it cannot read gives bare rows.
  let claims = new Map<string, Claim>();
  try {
    const { entries } = parseClaims(readJsonIfAny(join(t.task.dir, 'environment', 'claims.json')), `${t.task.name}/environment/claims.json`);
    claims = new Map(entries.filter((e): e is Claim => e.kind === 'claim').map((c) => [c.id, c]));
  } catch {
    // rows still show id, answer and gold
  }
  const report = new Map(readJsonLines(join(t.agentLogs, 'report.jsonl')).map((r) => [String(r.id), r]));
  return [...gold].map(([id, goldLabel]) => {
    const c = claims.get(id);
    const r = report.get(id);
    const match = r?.match as { context?: unknown; selector?: unknown } | null | undefined;
    const answer = answers.get(id);
    return {
      id,
      quote: c?.quote ?? '',
      url: c?.url ?? '',
      claim: c?.claim,
      answer,
      gold: goldLabel,
      correct: answer === goldLabel,
      diagnosis: typeof r?.diagnosis === 'string' ? r.diagnosis : undefined,
      note: typeof r?.note === 'string' ? r.note : undefined,
      context: typeof match?.context === 'string' ? match.context : undefined,
      selector: parseSelector(match?.selector),
      nearest: parseNearest(r?.nearest),
      httpStatus: typeof r?.http_status === 'number' ? r.http_status : undefined,
      drift: typeof r?.drift === 'string' ? r.drift : undefined,
      asOf: (r?.as_of as ClaimRow['asOf'] | null | undefined) ?? undefined,
    };
  });
}

async function runTask(task: TaskDir, opts: Required<Pick<BenchOptions, 'agent' | 'outDir'>> & Pick<BenchOptions, 'replay'>, isolation: Isolation, shimDir: string): Promise<TaskRun> {
  const started = performance.now();
  const root = resolve(opts.outDir, 'trials', task.name);
  rmSync(root, { recursive: true, force: true });
  const t: Trial = { task, root, app: join(root, 'app'), verifierLogs: join(root, 'logs', 'verifier'), agentLogs: join(root, 'logs', 'agent') };
  for (const d of [t.app, t.verifierLogs, t.agentLogs]) mkdirSync(d, { recursive: true });
  // What the task's image would hold in /app: the environment folder's files (claims.json), not its Dockerfile.
  const envDir = join(task.dir, 'environment');
  if (existsSync(envDir)) {
    for (const f of readdirSync(envDir)) if (f !== 'Dockerfile') cpSync(join(envDir, f), join(t.app, f), { recursive: true });
  }
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${shimDir}:${process.env.PATH ?? ''}` };
  if (opts.replay) env.QUOTECHECK_REPLAY = resolve(opts.replay);
  if (isolation === 'paths') {
    // The verifier finds its gold file beside itself, wherever its folder is: no variable for it.
    env[CONTAINER_PATHS.app.env] = t.app;
    env[CONTAINER_PATHS.solution.env] = join(task.dir, LAYOUTS[task.layout].oracle.folder);
    env[CONTAINER_PATHS.verifierLogs.env] = t.verifierLogs;
    env[CONTAINER_PATHS.agentLogs.env] = t.agentLogs;
  }
  const problems: string[] = [];
  const agent = await runPhase(t, isolation, agentCommand(opts.agent, task, isolation), env, task.agentTimeoutSec, 'agent-output.txt');
  if (agent.timedOut) problems.push(`agent stopped at its ${task.agentTimeoutSec} s timeout`);
  else if (agent.code !== 0) problems.push(`agent exited ${agent.code}`);
  // Harnesses may delete and recreate /logs/verifier just before the verifier: whatever the agent left there is gone.
  rmSync(t.verifierLogs, { recursive: true, force: true });
  mkdirSync(t.verifierLogs, { recursive: true });
  const verifier = await runPhase(t, isolation, verifierCommand(task, isolation), env, task.verifierTimeoutSec, 'verifier-output.txt');
  if (verifier.timedOut) problems.push(`verifier stopped at its ${task.verifierTimeoutSec} s timeout`);

  const rewardText = existsSync(join(t.verifierLogs, 'reward.txt')) ? readFileSync(join(t.verifierLogs, 'reward.txt'), 'utf8').trim() : '';
  let reward = Number(rewardText);
  if (rewardText === '' || !Number.isFinite(reward)) {
    problems.push(rewardText === '' ? 'no reward file' : `reward file says ${JSON.stringify(rewardText.slice(0, 40))}`);
    reward = 0;
  }
  const goldFile = `${LAYOUTS[task.layout].verifier.folder}/gold.json`;
  const gold = parseLabels(readJsonIfAny(join(task.dir, goldFile)) ?? {}, `${task.name}/${goldFile}`);
  const answersJson = readJsonIfAny(join(t.app, 'answers.json'));
  if (answersJson === undefined) problems.push('no answers file');
  let answers = new Map<string, string>();
  try {
    answers = answersJson === undefined ? answers : parseLabels(answersJson, 'answers');
  } catch (err) {
    problems.push((err as Error).message);
  }
  const g = grade(answers, gold);
  const noMatch = [...gold.values()].filter((l) => l === 'no_match').length;
  const rows = claimRows(t, answers, gold);
  const failed = sourcesFailure(rows);
  if (failed) problems.push(`every source failed (${failed.sources} ${failed.sources === 1 ? 'source' : 'sources'} on ${failed.hosts.join(', ')})`);
  const baseline = gold.size === 0 ? 0 : noMatch / gold.size;
  return {
    task: task.name,
    reward,
    claims: gold.size,
    correct: g.correct,
    baseline,
    floor: baseline,
    agentExit: agent.code,
    verifierExit: verifier.code,
    seconds: (performance.now() - started) / 1000,
    problems,
    ...(failed ? { sourcesFailed: failed } : {}),
    grade: g,
    rows,
  };
}

/** Runs every task of the dataset (several at a time) and gathers rewards, answers and evidence. */
export async function runBench(opts: BenchOptions): Promise<BenchReport> {
  const started = performance.now();
  const tasks = listTasks(opts.tasksDir);
  const isolation: Isolation = opts.isolation === 'namespace' || opts.isolation === 'paths'
    ? opts.isolation
    : canUseNamespaces() ? 'namespace' : 'paths';
  if (isolation === 'namespace') {
    // Mount points for the bind mounts; each trial's mounts live in its own namespace.
    const layoutPaths = Object.values(LAYOUTS).flatMap((l) => [l.oracle.path, l.verifier.path]);
    for (const path of [...Object.values(CONTAINER_PATHS).map((c) => c.path), ...layoutPaths]) mkdirSync(path, { recursive: true });
  }
  mkdirSync(opts.outDir, { recursive: true });
  const shimDir = makeShim(resolve(opts.outDir, 'bin'), opts.quotecheckBin); // absolute: phases run in /app
  const limit = pLimit(opts.jobs ?? availableParallelism());
  const runs = await Promise.all(tasks.map((task) => limit(async () => {
    const run = await runTask(task, { agent: opts.agent, outDir: opts.outDir, replay: opts.replay }, isolation, shimDir);
    opts.onTaskDone?.(run);
    return run;
  })));

  const confusion = emptyConfusion();
  const diagnoses: Record<string, number> = {};
  for (const r of runs) {
    for (const g of ['verbatim', 'no_match'] as const) for (const a of ['verbatim', 'no_match', 'missing', 'invalid'] as const) confusion[g][a] += r.grade.confusion[g][a];
    for (const row of r.rows) if (row.diagnosis) diagnoses[row.diagnosis] = (diagnoses[row.diagnosis] ?? 0) + 1;
  }
  const rows = runs.flatMap((r) => r.rows);
  const drifted = new Set(rows.filter((row) => row.drift === 'changed').map((row) => row.url.replace(/#.*$/, '')));
  const mean = (f: (r: TaskRun) => number) => (runs.length ? runs.reduce((n, r) => n + f(r), 0) / runs.length : 0);
  return {
    agent: opts.agent,
    isolation,
    tasks_dir: resolve(opts.tasksDir),
    mean_reward: mean((r) => r.reward),
    baseline_mean_reward: mean((r) => r.baseline),
    claims: runs.reduce((n, r) => n + r.claims, 0),
    correct: runs.reduce((n, r) => n + r.correct, 0),
    seconds: (performance.now() - started) / 1000,
    confusion,
    diagnoses,
    drifted_sources: drifted.size,
    claims_from_captures: rows.filter((row) => row.asOf?.capture_url).length,
    advice: sourcesAdvice(runs.filter((r) => r.sourcesFailed), runs.length, opts),
    tasks: runs,
  };
}
