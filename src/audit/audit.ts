// `quotecheck audit`: the check a dataset author runs before publishing. Every task's oracle must score 1, doing
// nothing 0 and the all-no_match baseline its no_match share; then a cheat suite (attacks.ts), each attack as the
// task's agent user and as root, in each verifier mode, must score no more than doing nothing. The tasks are read
// (facts.ts), the trials planned (plan.ts), run through evaluate (src/evaluate/evaluate.ts runEvaluation), one task
// folder at a time, several at once, and judged (judge.ts); table.ts shows the report.
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import pLimit from 'p-limit';
import { UserError } from '../errors.js';
import { ATTACKS, type AuditUser } from './attacks.js';
import { listTasks } from '../task/task-dir.js';
import type { VerifierMode } from '../task/verifier-mode.js';
import { canIsolate } from '../evaluate/namespace-root.js';
import { resolveIsolation, runEvaluation, type EvaluationOptions } from '../evaluate/evaluate.js';
import { engineAnswers } from '../evaluate/engine.js';
import type { AgentNetwork } from '../evaluate/engine-trial.js';
import type { EvaluationReport, Isolation } from '../results/evaluation-report.js';
import { isEngine } from '../results/isolations.js';
import {
  failureLine,
  judgeOne,
  r3,
  trialEvidence,
  trialName,
  type TrialOutcome,
  type TrialResult,
  type TrialVerdict,
} from './judge.js';
import { auditTask, type AuditTask } from './facts.js';
import { attackWanted, planTrials, sampleTasks, slug, type TrialPlan } from './plan.js';

/** An audit that cannot run here, or with these options: said before any trial runs. */
export class AuditSetupError extends UserError {
  override readonly name = 'AuditSetupError';
}

/**
 * evaluate's options as the audit gives them: the verifier mode and the agent's user (evaluate's interface for them).
 */
type AuditEvaluationOptions = EvaluationOptions & {
  verifierMode?: 'task' | 'separate' | 'shared';
  agentUser?: 'task' | 'root';
};

/** What runs one trial: evaluate itself, or a stand-in in the unit tests. */
export type TrialRunner = (opts: AuditEvaluationOptions) => Promise<EvaluationReport>;

interface AuditOptions {
  dataset: string;
  /**
   * Tasks the cheat suite runs on: a number (evenly spread, distinct verifiers first), 'all', or by default one per
   * distinct verifier.
   */
  sample?: number | 'all';
  /**
   * The verifier modes to play (forced when a task does not declare one); by default each task's own (shared, and
   * separate when declared).
   */
  modes?: readonly VerifierMode[];
  users?: readonly AuditUser[];
  /** Only these attacks (ids, or id prefixes); all by default. */
  attacks?: readonly string[];
  jobs?: number;
  /** Where the trials go (each one's evaluate --out). */
  outDir: string;
  /** The answers path when neither the task's artifacts nor its instruction say. */
  answers?: string;
  sourcesHint?: string;
  /**
   * Where the trials run: a real engine (auto: Docker, else Podman), or evaluate's namespace containers, which only an
   * explicit `namespace` gets: an emulation, whose verdict is no certificate.
   */
  isolation?: Isolation | 'auto';
  /** On an engine, the agent container's network (evaluate's --agent-network). */
  agentNetwork?: AgentNetwork | 'auto';
  onTrialDone?: (t: TrialResult, done: number, total: number) => void;
}

export interface AuditReport {
  dataset: string;
  /** True when every check and attack met its expectation. */
  ok: boolean;
  /** Where the trials ran. */
  isolation: Isolation;
  /** Whether the verdict certifies the dataset: trials on a real engine that built its images (not an emulation). */
  certificate: boolean;
  seconds: number;
  users: AuditUser[];
  /** The tasks the cheat suite ran on. */
  cheat_tasks: string[];
  tasks: AuditTask[];
  trials: TrialResult[];
  counts: Record<TrialVerdict, number>;
  /** One line for each trial that failed its expectation: what, where, as whom, and the reward. */
  failures: string[];
  /** One line for each harness attack that worked in shared mode. */
  harness_only: string[];
}

/**
 * Where an audit's trials run: a real engine; evaluate's namespace containers only when asked for by name (an
 * emulation: the verdict says it certifies nothing); never container paths, where no attack means anything.
 */
export function auditIsolation(wanted: Isolation | 'auto' = 'auto'): Isolation {
  if (wanted === 'paths')
    throw new AuditSetupError(
      'audit cannot run with --isolation paths: no trial would be a container (the agent could read the dataset, ' +
        'its processes would outlive it), so no attack would mean anything',
    );
  if (wanted === 'namespace' && !canIsolate())
    throw new AuditSetupError(
      "--isolation namespace needs root, util-linux's unshare (mount, PID and network namespaces), setpriv and " +
        'overlayfs',
    );
  if (wanted === 'namespace') return wanted;
  if (isEngine(wanted)) return resolveIsolation(wanted);
  for (const engine of ['docker', 'podman'] as const) if (engineAnswers(engine)) return engine;
  throw new AuditSetupError(
    'audit certifies a dataset only on a real container engine, which builds its images as a harness does, and ' +
      "none answers here (`docker info`, `podman info`). `--isolation namespace` runs it on evaluate's own " +
      "containers instead: an emulation (no image built, the system folders are this machine's) whose verdict " +
      'says it is not a certificate',
  );
}

/** One planned trial through evaluate (or the runner given), into `trialOut`: its run and evidence, or its error. */
async function runTrial(
  p: TrialPlan,
  task: AuditTask,
  trialOut: string,
  isolation: Isolation,
  opts: AuditOptions,
  runner: TrialRunner,
): Promise<TrialOutcome> {
  try {
    const report = await runner({
      tasksDir: task.dir,
      agent: p.agent!,
      name: p.kind === 'attack' ? p.attack : p.kind,
      jobs: 1,
      outDir: trialOut,
      isolation,
      ...(opts.agentNetwork ? { agentNetwork: opts.agentNetwork } : {}),
      verifierMode: p.mode,
      agentUser: p.user === 'root' ? 'root' : 'task',
      ...(opts.sourcesHint ? { sourcesHint: opts.sourcesHint } : {}),
    });
    const trialDir = join(trialOut, 'trials', task.name);
    return { run: report.tasks[0], trialDir, evidence: trialEvidence(trialDir), advice: report.advice };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Runs the audit: every task's checks and the cheat suite, `jobs` trials at a time. */
export async function runAudit(
  opts: AuditOptions,
  runner: TrialRunner = runEvaluation as TrialRunner,
): Promise<AuditReport> {
  const started = performance.now();
  const isolation =
    runner === (runEvaluation as TrialRunner)
      ? auditIsolation(opts.isolation)
      : opts.isolation === undefined || opts.isolation === 'auto'
        ? 'namespace'
        : opts.isolation;
  const dataset = resolve(opts.dataset);
  const tasks = listTasks(dataset).map((t) => auditTask(t, { answers: opts.answers, modes: opts.modes }));
  const cheat = sampleTasks(tasks, opts.sample);
  const unknown = (opts.attacks ?? []).filter((w) => !ATTACKS.some((a) => attackWanted(a, [w])));
  if (unknown.length)
    throw new AuditSetupError(
      `no attack named ${unknown.map((u) => JSON.stringify(u)).join(', ')} (see quotecheck audit --help)`,
    );
  const users = [...(opts.users ?? ['agent', 'root'])];
  const plans = planTrials(tasks, cheat, { users, attacks: opts.attacks });
  const outDir = resolve(opts.outDir);
  mkdirSync(outDir, { recursive: true });
  const byName = new Map(tasks.map((t) => [t.name, t]));

  const limit = pLimit(opts.jobs ?? availableParallelism());
  let done = 0;
  const runs = new Map<TrialPlan, TrialOutcome>();
  await Promise.all(
    plans.map((p) =>
      limit(async () => {
        if (p.agent !== undefined)
          runs.set(
            p,
            await runTrial(p, byName.get(p.task)!, join(outDir, slug(p.task), p.key), isolation, opts, runner),
          );
        done++;
        opts.onTrialDone?.(judgeOne(p, runs, plans), done, plans.length);
      }),
    ),
  );

  const trials = plans.map((p) => judgeOne(p, runs, plans));
  const counts: Record<TrialVerdict, number> = { pass: 0, fail: 0, 'harness-only': 0, 'not-applicable': 0, error: 0 };
  for (const t of trials) counts[t.verdict]++;
  const failures = trials.filter((t) => t.verdict === 'fail' || t.verdict === 'error').map(failureLine);
  const harnessOnly = trials
    .filter((t) => t.verdict === 'harness-only')
    .map((t) => `${trialName(t)}: reward ${r3(t.reward ?? 0)}`);
  return {
    dataset,
    ok: failures.length === 0,
    isolation,
    certificate: isEngine(isolation),
    seconds: (performance.now() - started) / 1000,
    users,
    cheat_tasks: cheat.map((t) => t.name),
    tasks,
    trials,
    counts,
    failures,
    harness_only: harnessOnly,
  };
}
