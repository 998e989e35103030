// Running a dataset locally as the harness would: each task's agent, then its own verifier, at its layout's container paths.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import pLimit from 'p-limit';
import { emptyConfusion, parseLabels, grade, type Grade } from './grade.js';
import { parseClaims, type Claim } from '../claims.js';
import { listTasks, readJsonIfAny, readJsonLines, type TaskDir } from './dataset.js';
import { canIsolate, hidingConflict, parseStatus, phaseArgv, VERIFIER_PATH, type Bind, type PhaseSpec, type PhaseStatus } from './isolation.js';
import { CONTAINER_PATHS, TOOL_DIR, WARC_READER_COMMAND, WARC_READER_FILE, shellQuote } from './templates.js';
import { ENV_SKILLS_FOLDER, LAYOUTS, TASK_SKILLS_DIR } from './layout.js';
import { readRegularFile } from './safe-read.js';
import { BUNDLE_FILES, SHIPPED_FOLDER, shippedCli } from './ship.js';
import { MAX_LABELS_BYTES, parseLabelBytes } from './verifier.js';
import {
  archiveAdvice,
  archiveFailure,
  driftedSources,
  sourcesAdvice,
  sourcesFailure,
  sourcesProblem,
  unreadSources,
  type ArchiveFailure,
  type SourcesFailure,
  type UnreadSource,
} from './failures.js';
import { readReportLine, type ReportLine } from '../contract.js';
import { UserError } from '../errors.js';

/**
 * How the phases are kept apart (design.md §6): as root, each in its own mount and PID namespaces with the container
 * paths bind-mounted and the dataset out of reach; otherwise the container paths are given by environment variables.
 */
export type Isolation = 'namespace' | 'paths';

export interface BenchOptions {
  tasksDir: string;
  /** `oracle` (the task's solve.sh), `baseline` (all no_match), or a shell command run in /app. */
  agent: string;
  /** The agent's name in reports and comparisons (bench's --name, else oracle, baseline or agent-N): written into report.json. */
  name?: string;
  jobs?: number;
  outDir: string;
  isolation?: Isolation | 'auto';
  /** Further host folders no phase may see (namespace isolation), besides the dataset and `outDir`: e.g. the folder of several agents' runs. */
  hide?: string[];
  /** A WARC archive every task's quotecheck answers from (QUOTECHECK_REPLAY), with no network. */
  replay?: string;
  /**
   * What to check when the connections to a task's sources failed (e.g. "is the golden server running?"); without it
   * the advice is worked out from where the sources are. Other causes (a refusal, a 404) keep their own question.
   */
  sourcesHint?: string;
  onTaskDone?: (run: TaskRun) => void;
}

/** The nearest span as a report line gives it (contract.ts readReportLine): normalized text, the page's own wording and the diff when present. */
export type NearestEvidence = NonNullable<ReportLine['nearest']>;

/** Where the quote was found, in the page's own wording (the report's TextQuoteSelector, as readReportLine takes it). */
export type MatchSelector = NonNullable<NonNullable<ReportLine['match']>['selector']>;

export type { DiffRun } from '../contract.js';
export { archiveFailure, sourcesFailure, type ArchiveFailure, type CauseGroup, type SourcesFailure, type UnreadSource } from './failures.js';

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
  /** Why today's fetch failed (the report's `fetch_error`), when it did and the report says. */
  fetchError?: string;
  /** The live source against the claim's evidence hash (design.md §8). */
  drift?: string;
  /** Which text decided the label (the report's `as_of`). */
  asOf?: NonNullable<ReportLine['as_of']>;
  /** The oracle's evidence for the claim, on another agent's row when the oracle ran beside it (compare.ts withOracleEvidence). */
  oracle?: OracleEvidence;
}

/** What the oracle's evidence report says of a claim, as its own row carries it. */
export type OracleEvidence = Pick<ClaimRow, 'diagnosis' | 'note' | 'context' | 'selector' | 'nearest' | 'drift' | 'asOf'>;

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
  /** Set when claims needed Wayback captures and every archive request failed. */
  archiveFailed?: ArchiveFailure;
  grade: Grade;
  rows: ClaimRow[];
}

export interface BenchReport {
  agent: string;
  /** The agent's name as bench gave it (--name, else oracle, baseline or agent-N); absent in reports written before bench named agents. */
  name?: string;
  isolation: Isolation;
  /** What this isolation does not stop, one clause each (absent in reports written before bench said so). */
  isolation_limits?: string[];
  tasks_dir: string;
  mean_reward: number;
  /** Mean of the per-task no_match shares: the baseline's mean reward. */
  baseline_mean_reward: number;
  claims: number;
  correct: number;
  seconds: number;
  confusion: Grade['confusion'];
  diagnoses: Record<string, number>;
  /** Sources read whose live bytes no longer hash to a claim's evidence, from the agent's reports (unread sources are not drifted). */
  drifted_sources: number;
  /** Sources whose live fetch failed (refused, unreachable, an HTTP error...), once each, from the agent's reports. */
  unread_sources?: UnreadSource[];
  /** Claims the agent judged on a Wayback capture. */
  claims_from_captures: number;
  /** What to check, one line each, when something went wrong for a whole task (every source failed, the archive never answered). */
  advice: string[];
  /** Set when rows carry the oracle's evidence: the oracle's run folder, relative to this report's folder. */
  oracle_run?: string;
  tasks: TaskRun[];
}

/** A bench option that cannot work here: said before any task runs. */
export class BenchSetupError extends UserError {
  override readonly name = 'BenchSetupError';
}

/** Bench's own read-only folder in the agent phase: the `quotecheck` command of such a variant (bin/) and the --replay archive (replay/). */
export const BENCH_DIR = '/opt/quotecheck-bench';

/** A reward file holds one number. */
const MAX_REWARD_BYTES = 4096;

/** What namespace isolation still leaves the agent: said in report.json, so no reader takes it for a container. */
const NAMESPACE_LIMITS: readonly string[] = [
  'the agent phase shares the host network, and can read (not write) the host file system outside the dataset and --out folders',
];

/** What `--isolation paths` cannot give: said once on stderr by the CLI and in report.json. */
const PATHS_LIMITS: readonly string[] = [
  "the agent phase can read and write the dataset (tests/, gold.json, solution/) and bench's --out folder",
  'processes the agent leaves running are not stopped before the verifier',
  "the agent phase runs as bench's own user, with its privileges, and sees the whole file system",
  "run bench as root for namespace isolation (its own mount and PID namespaces, Docker's capabilities, the dataset hidden)",
];

/** What an isolation mode does not stop, one clause each (report.json's isolation_limits). */
export function isolationLimits(isolation: Isolation): string[] {
  return [...(isolation === 'namespace' ? NAMESPACE_LIMITS : PATHS_LIMITS)];
}

/** Namespaces when this machine allows them (asked for, or auto); paths otherwise. Asked for namespaces it cannot give, says so. */
export function resolveIsolation(wanted: Isolation | 'auto' = 'auto'): Isolation {
  if (wanted === 'paths') return wanted;
  if (canIsolate()) return 'namespace';
  if (wanted === 'namespace')
    throw new BenchSetupError(
      "--isolation namespace needs root and util-linux's unshare (mount and PID namespaces) and setpriv; use --isolation paths, which says what it cannot stop",
    );
  return 'paths';
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
  if (agent === 'baseline')
    return `${shellQuote(process.execPath)} ${shellQuote(shippedCli())} run --baseline --claims "${app}/claims.json" --out "${app}/answers.json"`;
  return agent;
}

/** The verifier as the harnesses run it: its standard output kept as test-stdout.txt beside the reward. */
function verifierCommand(task: TaskDir, isolation: Isolation): string {
  const logs = isolation === 'namespace' ? CONTAINER_PATHS.verifierLogs.path : `$${CONTAINER_PATHS.verifierLogs.env}`;
  return `bash ${shellQuote(`${phasePaths(task, isolation).verifier}/test.sh`)} > "${logs}/test-stdout.txt"`;
}

interface Trial {
  task: TaskDir;
  agent: string;
  root: string;
  app: string;
  verifierLogs: string;
  agentLogs: string;
  /** Host side of BENCH_DIR: bin/quotecheck for a variant with the tool, replay/ for --replay. */
  benchDir: string;
  /** The variant's own quotecheck (environment/quotecheck/), when the task gives the agent the tool. */
  tool?: string;
  /** environment/skills/, which the image has at /skills (the skill variant; quotecheck travels inside it). */
  skills?: string;
  /** environment/warc-extract.mjs, which a frozen task's image has on PATH as warc-extract. */
  warcReader?: string;
  /** The --replay archive, absolute. */
  replay?: string;
  /** Host folders no phase sees (namespace isolation): the dataset, --out. */
  hidden: readonly string[];
}

/** Every container folder a phase may get; those a phase does not get are covered empty. */
function containerDirs(): string[] {
  const layoutDirs = Object.values(LAYOUTS).flatMap((l) => [l.oracle.path, l.verifier.path]);
  return [...new Set([...Object.values(CONTAINER_PATHS).map((c) => c.path), ...layoutDirs, TOOL_DIR, BENCH_DIR, TASK_SKILLS_DIR])];
}

/** The rest of containerDirs(), for PhaseSpec.empty. */
const unbound = (binds: readonly Bind[]): string[] => containerDirs().filter((d) => !binds.some((b) => b.to === d));

/** Where the replay archive is in the agent phase. */
const replayPath = (t: Trial): string => `${BENCH_DIR}/replay/${basename(t.replay!)}`;

/**
 * The agent phase sees /app and /logs/agent, a scratch /logs/verifier (emptied before the verifier), the oracle
 * folder read-only for the oracle only (a harness uploads it only then), and nothing of the tests.
 */
function agentSpec(t: Trial): PhaseSpec {
  const { oracle } = LAYOUTS[t.task.layout];
  const binds: Bind[] = [
    { from: t.app, to: CONTAINER_PATHS.app.path, writable: true },
    { from: t.agentLogs, to: CONTAINER_PATHS.agentLogs.path, writable: true },
    { from: t.verifierLogs, to: CONTAINER_PATHS.verifierLogs.path, writable: true },
  ];
  if (t.agent === 'oracle' && existsSync(join(t.task.dir, oracle.folder)))
    binds.push({ from: join(t.task.dir, oracle.folder), to: oracle.path, writable: false });
  if (t.tool) binds.push({ from: t.tool, to: TOOL_DIR, writable: false });
  if (t.skills) binds.push({ from: t.skills, to: TASK_SKILLS_DIR, writable: false });
  if (t.tool || t.replay || t.warcReader) binds.push({ from: t.benchDir, to: BENCH_DIR, writable: false });
  if (t.replay) binds.push({ from: t.replay, to: replayPath(t), writable: false });
  return { binds, empty: unbound(binds), hidden: t.hidden, command: agentCommand(t.agent, t.task, 'namespace'), cwd: CONTAINER_PATHS.app.path };
}

/** The verifier phase sees /app and its own folder read-only, and the emptied /logs/verifier. */
function verifierSpec(t: Trial): PhaseSpec {
  const { verifier } = LAYOUTS[t.task.layout];
  const binds: Bind[] = [
    { from: t.app, to: CONTAINER_PATHS.app.path, writable: false },
    { from: join(t.task.dir, verifier.folder), to: verifier.path, writable: false },
    { from: t.verifierLogs, to: CONTAINER_PATHS.verifierLogs.path, writable: true },
  ];
  return { binds, empty: unbound(binds), hidden: t.hidden, command: verifierCommand(t.task, 'namespace'), cwd: CONTAINER_PATHS.app.path };
}

interface PhaseResult {
  code: number | null;
  timedOut: boolean;
  /** Namespace isolation only: what the phase's init reported. */
  status?: PhaseStatus;
}

/**
 * Runs one phase with a time limit: in namespace isolation `spec`'s namespaces (the init's status on fd 3), else
 * `command` in the trial's /app. At the limit the whole process group goes; in a namespace that takes the init,
 * and with it every process of the phase.
 */
function runPhase(t: Trial, run: { spec: PhaseSpec } | { command: string }, env: NodeJS.ProcessEnv, timeoutSec: number, log: string): Promise<PhaseResult> {
  const isolated = 'spec' in run;
  // The init's working folder is /, never a folder it then hides.
  const [cmd, ...args] = isolated ? phaseArgv(run.spec) : ['bash', '-c', run.command];
  return new Promise((resolvePhase) => {
    const child = spawn(cmd!, args, {
      cwd: isolated ? '/' : t.app,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...(isolated ? ['pipe' as const] : [])],
    });
    const chunks: Buffer[] = [];
    let statusText = '';
    child.stdout!.on('data', (d: Buffer) => chunks.push(d));
    child.stderr!.on('data', (d: Buffer) => chunks.push(d));
    (child.stdio[3] as Readable | undefined)?.on('data', (d: Buffer) => (statusText += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL'); // the whole process group: unshare, the init, or bash and what it started
      } catch {
        // already gone
      }
      // Without namespaces a process that left the group may hold the pipes open: stop waiting for them.
      for (const s of child.stdio) s?.destroy();
    }, timeoutSec * 1000);
    const done = (code: number | null) => {
      clearTimeout(timer);
      writeFileSync(join(t.root, log), Buffer.concat(chunks));
      resolvePhase({ code, timedOut, ...(isolated ? { status: parseStatus(statusText) } : {}) });
    };
    child.on('close', (code) => done(code));
    child.on('error', () => done(null));
  });
}

/**
 * The commands a task's image puts on PATH, as bench's own bin/: `quotecheck` (the variant's build of it, as its
 * image links it) and `warc-extract` (a frozen task's reader). Returns the folder as the agent phase sees it.
 */
function writeCommands(t: Trial, isolation: Isolation): string {
  const bin = join(t.benchDir, 'bin');
  mkdirSync(bin, { recursive: true });
  const command = (name: string, script: string): void => {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(script)} "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  };
  if (t.tool) command('quotecheck', join(isolation === 'namespace' ? TOOL_DIR : t.tool, basename(BUNDLE_FILES.quotecheck)));
  if (t.warcReader) {
    // A copy beside the command: the dataset (where the task's own copy is) is hidden from the agent.
    copyFileSync(t.warcReader, join(bin, WARC_READER_FILE));
    command(WARC_READER_COMMAND, join(isolation === 'namespace' ? `${BENCH_DIR}/bin` : bin, WARC_READER_FILE));
  }
  return isolation === 'namespace' ? `${BENCH_DIR}/bin` : bin;
}

/** The agent's environment: bench's own (an agent command needs its keys and tools), with the container paths and the variant's tool. */
function agentEnv(t: Trial, isolation: Isolation): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const c of Object.values(CONTAINER_PATHS)) if ('env' in c) delete env[c.env];
  if (t.tool || t.warcReader) env.PATH = `${writeCommands(t, isolation)}:${env.PATH ?? ''}`;
  if (t.replay) env.QUOTECHECK_REPLAY = isolation === 'namespace' ? replayPath(t) : t.replay;
  if (isolation === 'paths') {
    env[CONTAINER_PATHS.app.env] = t.app;
    env[CONTAINER_PATHS.verifierLogs.env] = t.verifierLogs;
    env[CONTAINER_PATHS.agentLogs.env] = t.agentLogs;
    if (t.agent === 'oracle') env[CONTAINER_PATHS.solution.env] = join(t.task.dir, LAYOUTS[t.task.layout].oracle.folder);
  }
  return env;
}

/** The verifier's environment: a fixed minimum, nothing of bench's (test.sh itself runs its grader under env -i). */
function verifierEnv(t: Trial, isolation: Isolation): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: VERIFIER_PATH, HOME: homedir(), LANG: 'C.UTF-8' };
  if (isolation === 'paths') {
    // The verifier finds its gold file beside itself, wherever its folder is: no variable for it.
    env[CONTAINER_PATHS.app.env] = t.app;
    env[CONTAINER_PATHS.verifierLogs.env] = t.verifierLogs;
  }
  return env;
}

/** "1 process", "2 processes". */
const processes = (n: number): string => `${n} ${n === 1 ? 'process' : 'processes'}`;

/** What went wrong in a phase, in the words of TaskRun.problems. */
function phaseProblems(name: 'agent' | 'verifier', r: PhaseResult, timeoutSec: number): string[] {
  if (r.timedOut) return [`${name} stopped at its ${timeoutSec} s timeout`];
  if (r.status && !r.status.ready) return [`bench could not isolate the ${name} phase (exit ${r.code}; see ${name}-output.txt)`];
  const out: string[] = [];
  if (name === 'agent' && r.code !== 0) out.push(`agent exited ${r.code}`);
  const left = r.status?.left ?? 0;
  if (left > 0)
    out.push(`the ${name} left ${processes(left)} running; ${left === 1 ? 'it was' : 'they were'} stopped${name === 'agent' ? ' before the verifier' : ''}`);
  return out;
}

/** The `--wayback-url` the task's solve.sh passes, if it passes one. */
function solveWaybackUrl(task: TaskDir): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(task.dir, LAYOUTS[task.layout].oracle.folder, 'solve.sh'), 'utf8');
  } catch {
    return undefined;
  }
  return /--wayback-url[= ]+'?([^'\s;]+)'?/.exec(text)?.[1];
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
  // The agent owns /logs/agent: readJsonLines reads its report the safe way (a regular file only, never blocking).
  const report = new Map(readJsonLines(join(t.agentLogs, 'report.jsonl')).map((r) => [String(r.id), r]));
  return [...gold].map(([id, goldLabel]) => {
    const c = claims.get(id);
    // The report is the agent's output: each field is taken only when well formed (contract.ts readReportLine).
    const r = readReportLine(report.get(id));
    const answer = answers.get(id);
    return {
      id,
      quote: c?.quote ?? '',
      url: c?.url ?? '',
      claim: c?.claim,
      answer,
      gold: goldLabel,
      correct: answer === goldLabel,
      diagnosis: r.diagnosis,
      note: r.note,
      context: r.match?.context,
      selector: r.match?.selector,
      nearest: r.nearest ?? undefined,
      httpStatus: r.http_status,
      fetchError: r.fetch_error,
      drift: r.drift,
      asOf: r.as_of ?? undefined,
    };
  });
}

/**
 * What the task's image holds in /app: the files its Dockerfile copies there (`COPY claims.json /app/claims.json`,
 * a frozen task's archive), as [environment file, path under /app]. A task without a Dockerfile, or one that copies
 * nothing to /app, gets every environment file but those an image keeps elsewhere.
 */
function appFiles(envDir: string): [string, string][] {
  const elsewhere = new Set(['Dockerfile', SHIPPED_FOLDER, ENV_SKILLS_FOLDER, WARC_READER_FILE]);
  const all = (): [string, string][] =>
    existsSync(envDir)
      ? readdirSync(envDir)
          .filter((f) => !elsewhere.has(f))
          .map((f) => [f, f])
      : [];
  let text: string;
  try {
    text = readFileSync(join(envDir, 'Dockerfile'), 'utf8');
  } catch {
    return all();
  }
  const app = CONTAINER_PATHS.app.path;
  const copies: [string, string][] = [];
  for (const line of text.replace(/\\\r?\n/g, ' ').split('\n')) {
    const words = line.trim().split(/\s+/);
    if (!/^(COPY|ADD)$/i.test(words[0] ?? '')) continue;
    const args = words.slice(1).filter((w) => !w.startsWith('--'));
    const dest = args.pop();
    if (!dest || (dest !== app && !dest.startsWith(`${app}/`))) continue;
    const under = dest.slice(app.length).replace(/^\/+/, '');
    for (const src of args) {
      const rel = src === '.' ? '' : src;
      const into = dest.endsWith('/') || args.length > 1 || src === '.' ? join(under, rel === '' ? '' : basename(rel)) : under;
      copies.push([rel, into]);
    }
  }
  return copies.length ? copies : all();
}

/** The trial's folders, made fresh: /app holds what the task's image would (appFiles). */
function makeTrial(task: TaskDir, agent: string, outDir: string, replay: string | undefined, hidden: readonly string[]): Trial {
  const root = resolve(outDir, 'trials', task.name);
  rmSync(root, { recursive: true, force: true });
  const envDir = join(task.dir, 'environment');
  const tool = join(envDir, SHIPPED_FOLDER);
  const skills = join(envDir, ENV_SKILLS_FOLDER);
  const warcReader = join(envDir, WARC_READER_FILE);
  const t: Trial = {
    task,
    agent,
    root,
    hidden,
    app: join(root, 'app'),
    verifierLogs: join(root, 'logs', 'verifier'),
    agentLogs: join(root, 'logs', 'agent'),
    benchDir: join(root, 'bench'),
    ...(existsSync(join(tool, basename(BUNDLE_FILES.quotecheck))) ? { tool } : {}),
    ...(existsSync(skills) ? { skills } : {}),
    ...(existsSync(warcReader) ? { warcReader } : {}),
    ...(replay ? { replay } : {}),
  };
  for (const d of [t.app, t.verifierLogs, t.agentLogs, t.benchDir]) mkdirSync(d, { recursive: true });
  for (const [from, to] of appFiles(envDir)) {
    const source = join(envDir, from);
    if (existsSync(source)) cpSync(source, join(t.app, to), { recursive: true });
  }
  if (replay) {
    // The mount point the archive is bound onto, inside BENCH_DIR.
    mkdirSync(join(t.benchDir, 'replay'));
    writeFileSync(join(t.benchDir, 'replay', basename(replay)), '');
  }
  return t;
}

/** The reward the verifier wrote, as a regular file in /logs/verifier; anything else scores 0 and says why. */
function readReward(t: Trial, problems: string[]): number {
  const read = readRegularFile(join(t.verifierLogs, 'reward.txt'), MAX_REWARD_BYTES);
  if (!read.ok) {
    problems.push(read.missing ? 'no reward file' : `reward file not read: it ${read.reason}`);
    return 0;
  }
  const text = read.bytes.toString('utf8').trim();
  const reward = Number(text);
  if (text === '' || !Number.isFinite(reward)) {
    problems.push(text === '' ? 'no reward file' : `reward file says ${JSON.stringify(text.slice(0, 40))}`);
    return 0;
  }
  return reward;
}

/** The agent's answers, for the report's rows (the reward is the verifier's alone): read the safe way, they are the agent's. */
function readAnswers(t: Trial, problems: string[]): Map<string, string> {
  const read = readRegularFile(join(t.app, 'answers.json'), MAX_LABELS_BYTES);
  if (!read.ok) {
    problems.push(read.missing ? 'no answers file' : `answers file not read: /app/answers.json ${read.reason}`);
    return new Map();
  }
  try {
    return parseLabelBytes(read.bytes, 'answers file');
  } catch (err) {
    problems.push((err as Error).message);
    return new Map();
  }
}

async function runTask(
  task: TaskDir,
  opts: Required<Pick<BenchOptions, 'agent' | 'outDir'>> & Pick<BenchOptions, 'replay'>,
  isolation: Isolation,
  hidden: readonly string[],
): Promise<TaskRun> {
  const started = performance.now();
  const t = makeTrial(task, opts.agent, opts.outDir, opts.replay ? resolve(opts.replay) : undefined, hidden);
  const isolated = isolation === 'namespace';
  const agent = await runPhase(
    t,
    isolated ? { spec: agentSpec(t) } : { command: agentCommand(opts.agent, task, isolation) },
    agentEnv(t, isolation),
    task.agentTimeoutSec,
    'agent-output.txt',
  );
  const problems = phaseProblems('agent', agent, task.agentTimeoutSec);
  // Harnesses may delete and recreate /logs/verifier just before the verifier: whatever the agent left there is gone.
  rmSync(t.verifierLogs, { recursive: true, force: true });
  mkdirSync(t.verifierLogs, { recursive: true });
  const verifier = await runPhase(
    t,
    isolated ? { spec: verifierSpec(t) } : { command: verifierCommand(task, isolation) },
    verifierEnv(t, isolation),
    task.verifierTimeoutSec,
    'verifier-output.txt',
  );
  problems.push(...phaseProblems('verifier', verifier, task.verifierTimeoutSec));

  const reward = readReward(t, problems);
  const goldFile = `${LAYOUTS[task.layout].verifier.folder}/gold.json`;
  const gold = parseLabels(readJsonIfAny(join(task.dir, goldFile)) ?? {}, `${task.name}/${goldFile}`);
  const answers = readAnswers(t, problems);
  const g = grade(answers, gold);
  const noMatch = [...gold.values()].filter((l) => l === 'no_match').length;
  const rows = claimRows(t, answers, gold);
  const failed = sourcesFailure(rows);
  if (failed) problems.push(sourcesProblem(failed));
  const archiveFound = failed ? undefined : archiveFailure(rows);
  const waybackUrl = archiveFound ? solveWaybackUrl(task) : undefined;
  const archiveFailed = archiveFound ? { ...archiveFound, ...(waybackUrl ? { waybackUrl } : {}) } : undefined;
  if (archiveFailed)
    problems.push(
      `every archive request failed (${archiveFailed.claims} ${archiveFailed.claims === 1 ? 'claim' : 'claims'} needing a Wayback capture got none${waybackUrl ? ` from ${waybackUrl}` : ''})`,
    );
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
    ...(archiveFailed ? { archiveFailed } : {}),
    grade: g,
    rows,
  };
}

/**
 * The host folders hidden from every phase: the dataset and the output (and any the caller adds), as real paths
 * (mount points are). None may hold a container path, or hiding it would hide the trial's own folders.
 */
function hiddenFolders(opts: BenchOptions): string[] {
  const hidden = [opts.tasksDir, opts.outDir, ...(opts.hide ?? [])].map((d) => realpathSync(d));
  const conflict = hidingConflict(hidden, containerDirs());
  if (conflict) throw new BenchSetupError(conflict);
  return hidden;
}

/** Runs every task of the dataset (several at a time) and gathers rewards, answers and evidence. */
export async function runBench(opts: BenchOptions): Promise<BenchReport> {
  const started = performance.now();
  const tasks = listTasks(opts.tasksDir);
  const isolation = resolveIsolation(opts.isolation);
  mkdirSync(opts.outDir, { recursive: true });
  // The trials hold what agents made, as root in namespace isolation: a set-user-ID copy of a shell, a device node.
  // Only bench's own user may enter them, so no other user of this machine can run or open what an agent left.
  const trials = join(opts.outDir, 'trials');
  mkdirSync(trials, { recursive: true });
  chmodSync(trials, 0o700);
  let hidden: string[] = [];
  if (isolation === 'namespace') {
    hidden = hiddenFolders(opts);
    // Mount points for the binds; each phase's mounts live in its own namespace.
    for (const path of containerDirs()) mkdirSync(path, { recursive: true });
  }
  const limit = pLimit(opts.jobs ?? availableParallelism());
  const runs = await Promise.all(
    tasks.map((task) =>
      limit(async () => {
        const run = await runTask(task, { agent: opts.agent, outDir: opts.outDir, replay: opts.replay }, isolation, hidden);
        opts.onTaskDone?.(run);
        return run;
      }),
    ),
  );

  const confusion = emptyConfusion();
  const diagnoses: Record<string, number> = {};
  for (const r of runs) {
    for (const g of ['verbatim', 'no_match'] as const)
      for (const a of ['verbatim', 'no_match', 'missing', 'invalid'] as const) confusion[g][a] += r.grade.confusion[g][a];
    for (const row of r.rows) if (row.diagnosis) diagnoses[row.diagnosis] = (diagnoses[row.diagnosis] ?? 0) + 1;
  }
  const rows = runs.flatMap((r) => r.rows);
  const mean = (f: (r: TaskRun) => number) => (runs.length ? runs.reduce((n, r) => n + f(r), 0) / runs.length : 0);
  return {
    agent: opts.agent,
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    isolation,
    isolation_limits: isolationLimits(isolation),
    tasks_dir: resolve(opts.tasksDir),
    mean_reward: mean((r) => r.reward),
    baseline_mean_reward: mean((r) => r.baseline),
    claims: runs.reduce((n, r) => n + r.claims, 0),
    correct: runs.reduce((n, r) => n + r.correct, 0),
    seconds: (performance.now() - started) / 1000,
    confusion,
    diagnoses,
    drifted_sources: driftedSources(rows),
    unread_sources: unreadSources(runs),
    claims_from_captures: rows.filter((row) => row.asOf?.capture_url).length,
    advice: [
      ...sourcesAdvice(
        runs.filter((r) => r.sourcesFailed),
        runs.length,
        opts,
      ),
      ...archiveAdvice(
        runs.filter((r) => r.archiveFailed),
        runs.length,
      ),
    ],
    tasks: runs,
  };
}
