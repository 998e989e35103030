// The audit's trials, planned before any runs: each task's checks (the oracle, doing nothing, the baseline) in each
// mode, then the cheat suite on the sampled tasks, each attack in each mode as each user, or why it cannot be tried.
import { ATTACKS, type Attack, type AttackClass, type AuditUser, type Ceiling } from './attacks.js';
import type { VerifierMode } from '../task/verifier-mode.js';
import type { TaskDir } from '../task/task-dir.js';
import { attackFacts, type AuditTask } from './facts.js';
/** The longest script a trial's command may be: one argument of `bash -c`, which Linux caps at 128 KiB. */
const MAX_SCRIPT_BYTES = 120_000;

export type CheckKind = 'oracle' | 'nothing' | 'baseline' | 'attack';

/** One trial as planned: which task, check or attack, mode and user, and the agent's command. */
export interface TrialPlan {
  task: string;
  kind: CheckKind;
  attack?: string;
  /** The attack's target when it has one a target (a gold path). */
  variant?: string;
  class?: AttackClass;
  ceiling?: Ceiling;
  /** The grader must answer the attack's answers as invalid: a grader failure fails the trial (Attack). */
  graderMustAnswer?: boolean;
  mode: VerifierMode;
  /** Whether the task declares this mode (separate forced on a shared task is not). */
  forcedMode: boolean;
  /** The mode the task declares and its layout (what the "only the harness" advice says to do depends on them). */
  taskMode: VerifierMode;
  layout: TaskDir['layout'];
  user: AuditUser;
  /** `oracle`, `baseline` or the shell script; none when the trial is not applicable. */
  agent?: string;
  /** Why not, when the trial cannot run on this task. */
  notApplicable?: string;
  /** The trial's folder under the audit's output: <task>/<key>. */
  key: string;
}

/** `n` of `list`, evenly spread (the i-th of n at the middle of its share), in the list's order. */
function spread<T>(list: readonly T[], n: number): T[] {
  if (n >= list.length) return [...list];
  return Array.from({ length: n }, (_, i) => list[Math.floor(((i + 0.5) * list.length) / n)]!);
}

/**
 * The tasks the cheat suite runs on. Its attacks do not depend on what a task asks, only on its verifier: by default
 * one task of each distinct verifier (the verifier's files but the labels, and its settings); `n` tasks evenly spread,
 * distinct verifiers first; or all of them.
 */
export function sampleTasks(tasks: readonly AuditTask[], sample: number | 'all' | undefined): AuditTask[] {
  if (sample === 'all') return [...tasks];
  const groups = new Map<string, AuditTask[]>();
  for (const t of tasks) groups.set(t.verifierFingerprint, [...(groups.get(t.verifierFingerprint) ?? []), t]);
  const reps = [...groups.values()].map((g) => g[0]!);
  if (sample === undefined) return reps;
  if (sample <= reps.length) return spread(reps, sample);
  const rest = tasks.filter((t) => !reps.includes(t));
  const chosen = new Set([...reps, ...spread(rest, sample - reps.length)]);
  return tasks.filter((t) => chosen.has(t));
}

/** A folder name from a trial's parts: letters, digits, '.', '_' and '-' only. */
export const slug = (s: string): string => s.replace(/^\/+/, '').replace(/[^A-Za-z0-9._-]+/g, '_');

/** Whether `attack` is one of those asked for (ids or id prefixes; all when none given). */
export function attackWanted(attack: Attack, wanted: readonly string[] | undefined): boolean {
  return !wanted?.length || wanted.some((w) => attack.id.startsWith(w));
}

/** The agent's command of a check. */
const CHECK_AGENTS: Record<Exclude<CheckKind, 'attack'>, string> = {
  oracle: 'oracle',
  nothing: 'true',
  baseline: 'baseline',
};

/** Every trial of the audit, in the order they run: each task's checks, then the cheat suite on the sampled tasks. */
export function planTrials(
  tasks: readonly AuditTask[],
  cheat: readonly AuditTask[],
  opts: { users?: readonly AuditUser[]; attacks?: readonly string[] },
): TrialPlan[] {
  const users = opts.users ?? ['agent', 'root'];
  const plans: TrialPlan[] = [];
  for (const t of tasks) {
    // The checks run as the task's own agent user: what a harness that honours [agent] user does.
    for (const { mode, forced } of t.modes) {
      for (const kind of ['oracle', 'nothing', 'baseline'] as const) {
        const na = kind === 'oracle' ? t.oracleNote : kind === 'baseline' ? t.baselineNote : undefined;
        plans.push({
          task: t.name,
          kind,
          mode,
          forcedMode: forced,
          taskMode: t.declaredMode,
          layout: t.layout,
          user: 'agent',
          key: `${kind}--${mode}`,
          ...(na ? { notApplicable: na } : { agent: CHECK_AGENTS[kind] }),
        });
      }
    }
  }
  const attacks = ATTACKS.filter((a) => attackWanted(a, opts.attacks));
  for (const t of cheat) {
    const facts = attackFacts(t);
    for (const attack of attacks) {
      const trials = attack.plans(facts);
      for (const { mode, forced } of t.modes) {
        if (!attack.modes.includes(mode) || (attack.declaredModeOnly && mode !== t.declaredMode)) continue;
        for (const user of users) {
          for (const p of trials) {
            const variant = 'variant' in p ? p.variant : undefined;
            const base: TrialPlan = {
              task: t.name,
              kind: 'attack',
              attack: attack.id,
              ...(variant ? { variant } : {}),
              class: attack.class,
              ceiling: attack.ceiling,
              ...(attack.graderMustAnswer ? { graderMustAnswer: true } : {}),
              mode,
              forcedMode: forced,
              taskMode: t.declaredMode,
              layout: t.layout,
              user,
              key: `${attack.id}${variant ? `--${slug(variant)}` : ''}--${mode}--${user}`,
            };
            const na =
              'notApplicable' in p
                ? p.notApplicable
                : !attack.users.includes(user)
                  ? 'needs root'
                  : user === 'agent' && t.agentUser === undefined
                    ? "the task sets no [agent] user: its agent runs as the image's default user, root (the root rows)"
                    : Buffer.byteLength(p.script) > MAX_SCRIPT_BYTES
                      ? "the attack's script would not fit in one command line"
                      : undefined;
            // Root-only attacks are left out for the agent's user, not listed as not applicable.
            if (na === 'needs root') continue;
            plans.push(na ? { ...base, notApplicable: na } : { ...base, agent: (p as { script: string }).script });
          }
        }
      }
    }
  }
  return plans;
}
