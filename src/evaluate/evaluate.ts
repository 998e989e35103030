// Running a dataset locally as the harness would: each task's agent in a container like its image's, then its verifier
// in the task's mode (its own container, or the agent's), the reward read as Harbor reads it.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import pLimit from 'p-limit';
import { parseClaims, type Claim } from '../claims/schema.js';
import { listTasks, readJsonIfAny, readJsonLines, type TaskDir } from '../task/task-dir.js';
import { canIsolate, IMAGE_PATH, type PhaseStatus } from './namespace-root.js';
import {
  AGENT_DIR_ENV,
  HARNESS_DIR,
  harborVerifierCommand,
  runContainerTrial,
  taskUser,
  type TrialPlay,
} from './namespace-trial.js';
import type { ContainerResult } from './namespace-container.js';
import { collectArtifacts } from './namespace-container.js';
import { makeTrial, trialArtifacts, type Trial } from './trial.js';
import { engineAnswers } from './engine.js';
import { runEngineTrial, type AgentNetwork } from './engine-trial.js';
import { LAYOUTS } from '../task/layout.js';
import { BUNDLE_FILES, shippedCli } from '../task/ship.js';
import {
  archiveAdvice,
  archiveFailure,
  driftedSources,
  sourcesAdvice,
  sourcesFailure,
  sourcesProblem,
  unreadSources,
} from '../results/failures.js';
import { readReportLine } from '../contract.js';
import { packageRoot } from '../package-root.js';
import { fileURLToPath } from 'node:url';
import type { EvaluationReport, ClaimRow, Isolation, TaskRun, EngineName } from '../results/evaluation-report.js';
import { UserError } from '../errors.js';
import { isEngine, isolationLimits } from '../results/isolations.js';
import { runShape } from '../results/evaluation-report.js';
import {
  emptyConfusion,
  parseLabels,
  grade,
  MAX_LABELS_BYTES,
  parseLabelBytes,
  readRegularFile,
} from '../grader/grade.mjs';
import type { VerifierMode } from '../task/verifier-mode.js';
import { shellQuote } from '../sh-quote.js';
import { CONTAINER_PATHS, TASK_ARCHIVE, TOOL_DIR, WARC_READER_COMMAND, WARC_READER_FILE } from '../task/paths.js';

/**
 * How the phases are kept apart (docs/security.md#trial-isolation): as root, in containers (namespaces, a root made of
 * the image's parts, nothing else of the host); otherwise the container paths are given by environment variables.
 * evaluation-report.ts IsolationSchema.
 */
export type { Isolation };

export interface EvaluationOptions {
  tasksDir: string;
  /** `oracle` (the task's solve.sh), `baseline` (all no_match), or a shell command run in /app. */
  agent: string;
  /**
   * The agent's name in reports and comparisons (evaluate's --name, else oracle, baseline or agent-N): written into
   * report.json.
   */
  name?: string;
  jobs?: number;
  outDir: string;
  isolation?: Isolation | 'auto';
  /**
   * The agent's network on an engine: the task's network_mode (`task`), this machine's (`host`: sources served on its
   * loopback), or `auto`: the host's for a task whose sources are on this machine's loopback, else the task's.
   */
  agentNetwork?: AgentNetwork | 'auto';
  /**
   * The verifier as each task says (`task`, the default: separate or shared by Harbor's rule), or as given for every
   * task.
   */
  verifierMode?: VerifierMode | 'task';
  /**
   * The agent phase as the task's [agent] user (`task`, the default), or as root: a harness that ignores [agent] user.
   */
  agentUser?: 'task' | 'root';
  /** Host variables the agent gets, by name (its API keys); the rest of its environment is the image's. */
  agentEnv?: readonly string[];
  /** A host folder of the agent's own (its program, its files), read-only at /installed-agent in its container. */
  agentDir?: string;
  /** A WARC archive every task's quotecheck answers from (QUOTECHECK_REPLAY), with no network. */
  replay?: string;
  /**
   * What to check when the connections to a task's sources failed (e.g. "is the golden server running?"); without it
   * the advice is worked out from where the sources are. Other causes (a refusal, a 404) keep their own question.
   */
  sourcesHint?: string;
  onTaskDone?: (run: TaskRun) => void;
}

export type { DiffRun } from '../contract.js';
export {
  archiveFailure,
  sourcesFailure,
  type ArchiveFailure,
  type CauseGroup,
  type SourcesFailure,
  type UnreadSource,
} from '../results/failures.js';

/**
 * evaluate's report.json, its tasks and their claims' rows: inferred from their schemas (evaluation-report.ts
 * EvaluationReportSchema), which compare reads it back through.
 */
export type { EvaluationReport, ClaimRow, OracleEvidence, TaskRun } from '../results/evaluation-report.js';

/** An evaluation option that cannot work here: said before any task runs. */
export class EvaluationSetupError extends UserError {
  override readonly name = 'EvaluationSetupError';
}

/** A reward file is a few numbers. */
const MAX_REWARD_BYTES = 4096;

/**
 * The isolation a run gets. auto: Docker when its daemon answers, else Podman, else namespaces (root), else paths. An
 * engine or namespaces asked for that this machine cannot give is said before anything runs.
 */
export function resolveIsolation(wanted: Isolation | 'auto' = 'auto'): Isolation {
  if (wanted === 'paths') return wanted;
  if (isEngine(wanted)) {
    if (engineAnswers(wanted)) return wanted;
    throw new EvaluationSetupError(
      `--isolation ${wanted}: \`${wanted} info\` does not answer here (is ${wanted} installed` +
        `${wanted === 'docker' ? ' and its daemon running' : ''}?)`,
    );
  }
  if (wanted === 'auto') for (const engine of ['docker', 'podman'] as const) if (engineAnswers(engine)) return engine;
  if (canIsolate()) return 'namespace';
  if (wanted === 'namespace')
    throw new EvaluationSetupError(
      "--isolation namespace needs root, util-linux's unshare (mount, PID and network namespaces), setpriv and " +
        'overlayfs; use --isolation paths, which says what it cannot stop',
    );
  return 'paths';
}

/** The agent's command with --isolation paths: the task's own folders, the container paths by variable. */
function pathsAgentCommand(agent: string, task: TaskDir): string {
  if (agent === 'oracle') return `bash ${shellQuote(join(task.dir, LAYOUTS[task.layout].oracle.folder, 'solve.sh'))}`;
  if (agent === 'baseline')
    return (
      `${shellQuote(process.execPath)} ${shellQuote(shippedCli())} run --baseline --claims ` +
      `"$${CONTAINER_PATHS.app.env}/claims.json" --out "$${CONTAINER_PATHS.app.env}/answers.json"`
    );
  return agent;
}

interface PhaseResult {
  code: number | null;
  timedOut: boolean;
  /** Container isolation only: what the container's init reported. */
  status?: PhaseStatus;
}

/** Runs one command with --isolation paths: bash in the trial's /app, the whole process group killed at the limit. */
function runPathsPhase(
  t: Trial,
  command: string,
  env: NodeJS.ProcessEnv,
  timeoutSec: number,
  log: string,
): Promise<PhaseResult> {
  return new Promise((resolvePhase) => {
    const child = spawn('bash', ['-c', command], {
      cwd: t.app,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (d: Buffer) => chunks.push(d));
    child.stderr!.on('data', (d: Buffer) => chunks.push(d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      // A process that left the group may hold the pipes open: stop waiting for them.
      for (const s of child.stdio) s?.destroy();
    }, timeoutSec * 1000);
    const done = (code: number | null) => {
      clearTimeout(timer);
      writeFileSync(join(t.root, log), Buffer.concat(chunks));
      resolvePhase({ code, timedOut });
    };
    child.on('close', (code) => done(code));
    child.on('error', () => done(null));
  });
}

/**
 * The commands a task's image puts on PATH, as evaluate's own bin/: `quotecheck` (the variant's build of it, as its
 * image links it) and `warc-extract` (a frozen task's reader). Returns whether there are any.
 */
function writeCommands(t: Trial, isolation: Isolation): boolean {
  if (!t.tool && !t.warcReader) return false;
  const bin = join(t.harnessDir, 'bin');
  mkdirSync(bin, { recursive: true });
  // In a container, the image's Node.js (/usr/local/bin/node, which evaluate puts there when this machine has none).
  const node = isolation === 'namespace' ? '/usr/local/bin/node' : process.execPath;
  const command = (name: string, script: string): void => {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec ${shellQuote(node)} ${shellQuote(script)} "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  };
  const inContainer = isolation === 'namespace';
  if (t.tool) command('quotecheck', join(inContainer ? TOOL_DIR : t.tool, basename(BUNDLE_FILES.quotecheck)));
  if (t.warcReader) {
    // A copy beside the command: the task's own copy is in the dataset.
    copyFileSync(t.warcReader, join(bin, WARC_READER_FILE));
    command(WARC_READER_COMMAND, join(inContainer ? `${HARNESS_DIR}/bin` : bin, WARC_READER_FILE));
  }
  return true;
}

/** The agent's environment with --isolation paths: evaluate's own, with the container paths and the variant's tool. */
function pathsAgentEnv(t: Trial, harnessBin: boolean, agentDir: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (agentDir) env[AGENT_DIR_ENV] = resolve(agentDir);
  for (const c of Object.values(CONTAINER_PATHS)) if ('env' in c) delete env[c.env];
  if (harnessBin) env.PATH = `${join(t.harnessDir, 'bin')}:${env.PATH ?? ''}`;
  if (t.replay) env.QUOTECHECK_REPLAY = t.replay;
  env[CONTAINER_PATHS.app.env] = t.app;
  env[CONTAINER_PATHS.verifierLogs.env] = t.verifierLogs;
  env[CONTAINER_PATHS.agentLogs.env] = t.agentLogs;
  if (t.agent === 'oracle') env[CONTAINER_PATHS.solution.env] = join(t.task.dir, LAYOUTS[t.task.layout].oracle.folder);
  return env;
}

/**
 * The verifier's environment with --isolation paths: a fixed minimum, nothing of evaluate's (test.sh runs its grader
 * under env -i).
 */
function pathsVerifierEnv(app: string, logs: string): NodeJS.ProcessEnv {
  return {
    PATH: IMAGE_PATH,
    HOME: homedir(),
    LANG: 'C.UTF-8',
    [CONTAINER_PATHS.app.env]: app,
    [CONTAINER_PATHS.verifierLogs.env]: logs,
  };
}

/** "1 process", "2 processes". */
const processes = (n: number): string => `${n} ${n === 1 ? 'process' : 'processes'}`;

/** What went wrong in a paths phase, in the words of TaskRun.problems. */
function pathsProblems(name: 'agent' | 'verifier', r: PhaseResult, timeoutSec: number): string[] {
  if (r.timedOut) return [`${name} stopped at its ${timeoutSec} s timeout`];
  return name === 'agent' && r.code !== 0 ? [`agent exited ${r.code}`] : [];
}

/** What went wrong in a trial's containers, in the words of TaskRun.problems. */
function containerProblems(t: Trial, agent: ContainerResult, verifier: ContainerResult, shared: boolean): string[] {
  const out: string[] = [];
  const { status } = agent;
  if (agent.timedOut && status.main === undefined) out.push(`agent stopped at its ${t.task.agentTimeoutSec} s timeout`);
  if (!status.ready)
    out.push(`evaluate could not make the agent's container (exit ${agent.code}; see agent-output.txt)`);
  if (status.mainTimedOut) out.push(`agent stopped at its ${t.task.agentTimeoutSec} s timeout`);
  else if (status.main !== undefined && status.main !== 0) out.push(`agent exited ${status.main}`);
  if (agent.pauseProblem) out.push(`evaluate could not copy between the containers: ${agent.pauseProblem}`);
  const vStatus = shared ? status.after : verifier.status.main;
  if (!shared && !verifier.status.ready)
    out.push(`evaluate could not make the verifier's container (exit ${verifier.code}; see verifier-output.txt)`);
  if (!shared && verifier.pauseProblem)
    out.push(`evaluate could not lay out the verifier's container: ${verifier.pauseProblem}`);
  if ((shared ? status.afterTimedOut : verifier.status.mainTimedOut) || (!shared && verifier.timedOut))
    out.push(`verifier stopped at its ${t.task.verifierTimeoutSec} s timeout`);
  else if (vStatus !== undefined && vStatus !== 0)
    out.push(`the verifier's command failed (exit ${vStatus}: its output could not be kept, or test.sh failed)`);
  const left = (shared ? status.left : agent.status.left) ?? 0;
  if (left > 0)
    out.push(
      shared
        ? `the agent left ${processes(left)} running through the verifier (shared mode: they could act on its files)`
        : `the agent left ${processes(left)} running; ${left === 1 ? 'it was' : 'they were'} stopped before the ` +
            `verifier`,
    );
  const vLeft = shared ? 0 : (verifier.status.left ?? 0);
  if (vLeft > 0)
    out.push(`the verifier left ${processes(vLeft)} running; ${vLeft === 1 ? 'it was' : 'they were'} stopped`);
  return out;
}

/**
 * The reward as Harbor reads it (verifier.py): reward.json when it exists (its numeric fields; `reward` from
 * reward.txt when it has none), else reward.txt. A file that is not a regular one, or a link leading out of the
 * trial's /logs/verifier, scores 0 and says why (Harbor would fail the trial).
 */
function readReward(t: Trial, problems: string[]): { reward: number; fields?: Record<string, number> } {
  const read = (name: string): string | undefined => {
    let path = join(t.verifierLogs, name);
    try {
      // A link the verifier's folder holds is followed as Harbor follows it, but never out of the folder.
      const real = realpathSync(path);
      const rel = relative(realpathSync(t.verifierLogs), real);
      if (rel.startsWith('..') || rel === '' || dirname(rel) !== '.') {
        problems.push(`${name} not read: a link leading out of /logs/verifier`);
        return undefined;
      }
      path = real;
    } catch {
      if (!existsSync(path)) return undefined;
    }
    const r = readRegularFile(path, MAX_REWARD_BYTES);
    if (!r.ok) {
      if (!r.missing) problems.push(`${name} not read: it ${r.reason}`);
      return r.missing ? undefined : '';
    }
    return r.bytes.toString('utf8');
  };
  const json = read('reward.json');
  const txt = (): number | undefined => {
    const text = read('reward.txt')?.trim();
    if (text === undefined) return undefined;
    const n = Number(text);
    if (text === '' || !Number.isFinite(n)) {
      problems.push(`reward.txt says ${JSON.stringify(text.slice(0, 40))}`);
      return 0;
    }
    return n;
  };
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      problems.push('reward.json is not JSON');
      return { reward: 0 };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      problems.push('reward.json is not an object');
      return { reward: 0 };
    }
    const fields = Object.fromEntries(
      Object.entries(parsed).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])),
    );
    const reward = fields.reward ?? txt();
    if (reward === undefined) problems.push('no reward in reward.json or reward.txt');
    return { reward: reward ?? 0, fields };
  }
  const reward = txt();
  if (reward === undefined) problems.push('no reward file');
  return { reward: reward ?? 0 };
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
    const { entries } = parseClaims(
      readJsonIfAny(join(t.task.dir, 'environment', 'claims.json')),
      `${t.task.name}/environment/claims.json`,
    );
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
 * The agent's answers, for the report's rows (the reward is the verifier's alone): read the safe way, they are the
 * agent's.
 */
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

/** How the trial's verifier runs: as forced, or as the task says. */
const verifierModeOf = (task: TaskDir, wanted: EvaluationOptions['verifierMode']): VerifierMode =>
  wanted === undefined || wanted === 'task' ? task.verifierMode : wanted;

/**
 * A trial with --isolation paths: the agent with evaluate's own privileges, then the verifier on the task's folder
 * (separate: on a copy of the artifacts).
 */
async function runPathsTrial(
  t: Trial,
  mode: VerifierMode,
  harnessBin: boolean,
  agentDir: string | undefined,
): Promise<{ agentExit: number | null; verifierExit: number | null; problems: string[] }> {
  const agent = await runPathsPhase(
    t,
    pathsAgentCommand(t.agent, t.task),
    pathsAgentEnv(t, harnessBin, agentDir),
    t.task.agentTimeoutSec,
    'agent-output.txt',
  );
  const problems = pathsProblems('agent', agent, t.task.agentTimeoutSec);
  rmSync(t.verifierLogs, { recursive: true, force: true });
  mkdirSync(t.verifierLogs, { recursive: true });
  let app = t.app;
  if (mode === 'separate') {
    // Only the artifacts in /app can be found here (the trial's /app stands for it); they are copied as in a container.
    const under = (p: string): boolean => p.startsWith(`${CONTAINER_PATHS.app.path}/`);
    const artifacts = trialArtifacts(t).filter(under);
    problems.push(...collectArtifacts(dirname(t.app), artifacts, t.artifactsDir));
    app = join(t.artifactsDir, CONTAINER_PATHS.app.path);
    mkdirSync(app, { recursive: true });
  }
  const tests = join(t.task.dir, LAYOUTS[t.task.layout].verifier.folder);
  const verifier = await runPathsPhase(
    t,
    harborVerifierCommand(shellQuote(tests), `"$${CONTAINER_PATHS.verifierLogs.env}"`),
    pathsVerifierEnv(app, t.verifierLogs),
    t.task.verifierTimeoutSec,
    'verifier-output.txt',
  );
  problems.push(...pathsProblems('verifier', verifier, t.task.verifierTimeoutSec));
  return { agentExit: agent.code, verifierExit: verifier.code, problems };
}

/** What the agent and the verifier did in a trial: their exit codes, what went wrong, as whom the agent ran. */
interface PhasesRun {
  agentExit: number | null;
  verifierExit: number | null;
  problems: string[];
  agentUser: string;
  hostNetwork?: boolean;
}

/**
 * Whether a task's sources are on this machine's loopback (its claims' URLs, its oracle's --wayback-url): an agent in
 * a container of its own network cannot reach them. A frozen task's are in its archive: it needs no network.
 */
function sourcesOnLoopback(task: TaskDir): boolean {
  if (existsSync(join(task.dir, 'environment', TASK_ARCHIVE))) return false;
  const urls: string[] = [];
  try {
    const { entries } = parseClaims(readJsonIfAny(join(task.dir, 'environment', 'claims.json')), task.name);
    for (const e of entries) if (e.kind === 'claim') urls.push(e.url);
  } catch {
    // no claims to read: nothing says the sources are here
  }
  const wayback = solveWaybackUrl(task);
  if (wayback) urls.push(wayback);
  return urls.some((u) => {
    try {
      const host = new URL(u).hostname.replace(/^\[|\]$/g, '');
      return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
    } catch {
      return false;
    }
  });
}

/** A trial on a real engine: its images built, its containers run as Harbor runs them. */
async function runEngine(t: Trial, opts: EvaluationOptions, engine: EngineName, mode: VerifierMode) {
  const asRoot = opts.agentUser === 'root';
  const wanted = opts.agentNetwork ?? 'auto';
  const network = wanted === 'auto' ? (sourcesOnLoopback(t.task) ? 'host' : 'task') : wanted;
  const play: TrialPlay = {
    verifierMode: mode,
    asRoot,
    agentEnv: opts.agentEnv ?? [],
    ...(opts.agentDir ? { agentDir: resolve(opts.agentDir) } : {}),
  };
  const r = await runEngineTrial(t, play, engine, network);
  const agentUser = asRoot ? 'root' : (t.task.agentUser ?? "the image's default user");
  return { ...r, agentUser, ...(network === 'host' ? { hostNetwork: true } : {}) };
}

/** A trial in evaluate's own namespace containers (the emulation) or, without root, by container paths. */
async function runOwnContainers(
  t: Trial,
  opts: EvaluationOptions,
  isolation: 'namespace' | 'paths',
  mode: VerifierMode,
): Promise<PhasesRun> {
  const harnessBin = writeCommands(t, isolation);
  // The image's agent user, read once from its Dockerfile (none: the task leaves the agent to the image's root).
  const user = isolation === 'namespace' ? taskUser(t) : undefined;
  const asRoot = opts.agentUser === 'root' || (isolation === 'namespace' && user === undefined);
  const own = packageRoot(dirname(fileURLToPath(import.meta.url)));
  const play: TrialPlay = {
    verifierMode: mode,
    asRoot,
    ...(user ? { user } : {}),
    agentEnv: opts.agentEnv ?? [],
    ...(opts.agentDir ? { agentDir: resolve(opts.agentDir) } : {}),
    // A network of its own where the task wants none (unless told the host's); else this machine's: the emulation
    // has no network of its own to give, and the sources may be on this machine's loopback.
    network: opts.agentNetwork === 'host' || t.task.environment.networkMode !== 'no-network',
    hide: [resolve(opts.tasksDir), resolve(opts.outDir), ...(own ? [own] : [])],
  };
  const agentUser =
    isolation === 'namespace' ? (asRoot ? 'root' : (user?.name ?? 'root')) : `uid ${process.getuid?.() ?? '?'}`;
  if (isolation === 'namespace') {
    const c = await runContainerTrial(t, play, harnessBin);
    return {
      agentExit: c.agent.status.main ?? null,
      verifierExit: (mode === 'shared' ? c.agent.status.after : c.verifier.status.main) ?? null,
      problems: [...containerProblems(t, c.agent, c.verifier, mode === 'shared'), ...c.notes],
      agentUser,
    };
  }
  return { ...(await runPathsTrial(t, mode, harnessBin, opts.agentDir)), agentUser };
}

async function runTask(task: TaskDir, opts: EvaluationOptions, isolation: Isolation): Promise<TaskRun> {
  const started = performance.now();
  const engine = isEngine(isolation);
  const t = makeTrial(task, opts.agent, opts.outDir, opts.replay ? resolve(opts.replay) : undefined, !engine);
  const mode = verifierModeOf(task, opts.verifierMode);
  const phases = isEngine(isolation)
    ? await runEngine(t, opts, isolation, mode)
    : await runOwnContainers(t, opts, isolation, mode);
  const { agentExit, verifierExit, problems, agentUser } = phases;
  const { reward, fields } = readReward(t, problems);
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
      `every archive request failed (${archiveFailed.claims} ${archiveFailed.claims === 1 ? 'claim' : 'claims'} ` +
        `needing a Wayback capture got none${waybackUrl ? ` from ${waybackUrl}` : ''})`,
    );
  const baseline = gold.size === 0 ? 0 : noMatch / gold.size;
  return {
    task: task.name,
    reward,
    claims: gold.size,
    correct: g.correct,
    baseline,
    floor: baseline,
    agentExit,
    verifierExit,
    verifierMode: mode,
    agentUser,
    ...(fields ? { rewardFields: fields } : {}),
    ...(phases.hostNetwork ? { hostNetwork: true } : {}),
    seconds: (performance.now() - started) / 1000,
    problems,
    ...(failed ? { sourcesFailed: failed } : {}),
    ...(archiveFailed ? { archiveFailed } : {}),
    grade: g,
    rows,
  };
}

/** Runs every task of the dataset (several at a time) and gathers rewards, answers and evidence. */
export async function runEvaluation(opts: EvaluationOptions): Promise<EvaluationReport> {
  const started = performance.now();
  const tasks = listTasks(opts.tasksDir);
  const isolation = resolveIsolation(opts.isolation);
  mkdirSync(opts.outDir, { recursive: true });
  // The trials hold what agents made, as root in namespace isolation: a set-user-ID copy of a shell, a device node.
  // Only evaluate's own user may enter them, so no other user of this machine can run or open what an agent left.
  const trials = join(opts.outDir, 'trials');
  mkdirSync(trials, { recursive: true });
  chmodSync(trials, 0o700);
  const limit = pLimit(opts.jobs ?? availableParallelism());
  const runs = await Promise.all(
    tasks.map((task) =>
      limit(async () => {
        const run = await runTask(task, opts, isolation);
        opts.onTaskDone?.(run);
        return run;
      }),
    ),
  );

  const confusion = emptyConfusion();
  const diagnoses: Record<string, number> = {};
  for (const r of runs) {
    for (const g of ['verbatim', 'no_match'] as const)
      for (const a of ['verbatim', 'no_match', 'missing', 'invalid'] as const)
        confusion[g][a] += r.grade.confusion[g][a];
    for (const row of r.rows) if (row.diagnosis) diagnoses[row.diagnosis] = (diagnoses[row.diagnosis] ?? 0) + 1;
  }
  const rows = runs.flatMap((r) => r.rows);
  const claims = runs.reduce((n, r) => n + r.claims, 0);
  const correct = runs.reduce((n, r) => n + r.correct, 0);
  const mean = (f: (r: TaskRun) => number) => (runs.length ? runs.reduce((n, r) => n + f(r), 0) / runs.length : 0);
  return {
    agent: opts.agent,
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    isolation,
    isolation_limits: isolationLimits(isolation, runs.filter((r) => r.hostNetwork).length),
    tasks_dir: resolve(opts.tasksDir),
    mean_reward: mean((r) => r.reward),
    baseline_mean_reward: mean((r) => r.baseline),
    claims,
    correct,
    seconds: (performance.now() - started) / 1000,
    confusion,
    failure_shape: runShape({ claims, correct, confusion }),
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
