// `quotecheck evaluate`: a dataset run locally as the harness would, task by task, several at once: which isolation
// a run gets, each trial played on it (a real engine: engine-trial.ts; evaluate's namespace containers:
// namespace-trial.ts; container paths: paths-trial.ts), its result read as Harbor reads it (trial-result.ts), and
// the run's report.json.
import { availableParallelism } from 'node:os';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import pLimit from 'p-limit';
import { parseClaims } from '../claims/schema.js';
import { canIsolate } from './namespace-root.js';
import { runContainerTrial, taskUser, type TrialPlay } from './namespace-trial.js';
import { makeTrial, type Trial } from './trial.js';
import { engineAnswers } from './engine.js';
import { runEngineTrial, type AgentNetwork } from './engine-trial.js';
import { LAYOUTS } from '../task/layout.js';
import {
  archiveAdvice,
  archiveFailure,
  driftedSources,
  sourcesAdvice,
  sourcesFailure,
  sourcesProblem,
  unreadSources,
} from '../results/failures.js';
import { packageRoot } from '../package-root.js';
import { fileURLToPath } from 'node:url';
import type { EvaluationReport, Isolation, TaskRun, EngineName } from '../results/evaluation-report.js';
import { UserError } from '../errors.js';
import { isEngine, isolationLimits } from '../results/isolations.js';
import { runShape } from '../results/evaluation-report.js';
import { emptyConfusion, parseLabels, grade } from '../grader/grade.mjs';
import type { VerifierMode } from '../task/verifier-mode.js';
import { TASK_ARCHIVE } from '../task/paths.js';
import { writeCommands } from './trial.js';
import { containerProblems } from './namespace-trial.js';
import { claimRows, readAnswers, readReward, solveWaybackUrl } from './trial-result.js';
import { runPathsTrial } from './paths-trial.js';
import { listTasks, readJsonIfAny, type TaskDir } from '../task/task-dir.js';

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

/** An evaluation option that cannot work here: said before any task runs. */
export class EvaluationSetupError extends UserError {
  override readonly name = 'EvaluationSetupError';
}

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

/** How the trial's verifier runs: as forced, or as the task says. */
const verifierModeOf = (task: TaskDir, wanted: EvaluationOptions['verifierMode']): VerifierMode =>
  wanted === undefined || wanted === 'task' ? task.verifierMode : wanted;

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
