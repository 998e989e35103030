// A trial judged: what its folder shows (the verifier's words, what the attack said, which reward file counted), a
// check against its expectation, an attack against doing nothing in the same task and mode, and the grader's own
// faults.
import type { CheckKind, TrialPlan } from './plan.js';
import { kindOf, readRegularFile } from '../grader/grade.mjs';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { NOTE_MARK, NOT_APPLICABLE_MARK } from './attack-scripts.js';
import type { AttackClass, Ceiling } from './attacks.js';
import type { TaskRun } from '../results/evaluation-report.js';
import type { VerifierMode } from '../task/verifier-mode.js';
import type { TaskDir } from '../task/task-dir.js';
/** A reward within this of the expected one is the expected one (rewards are written with 6 decimals). */
const REWARD_EPSILON = 1e-5;

/** pass: as expected (the attack was stopped); fail: not; harness-only: a harness attack that worked in shared mode. */
export type TrialVerdict = 'pass' | 'fail' | 'harness-only' | 'not-applicable' | 'error';

/** A trial run and judged. */
export interface TrialResult extends TrialPlan {
  reward?: number;
  /** What the reward had to be (checks), or the most it could be (attacks). */
  expected?: number;
  verdict: TrialVerdict;
  /** What the grader did wrong whatever the reward (graderFault): the trial fails on it. */
  fault?: string;
  /** Why it was stopped or not, from the verifier's own words, evaluate's problems and what the attack said. */
  why: string;
  problems: string[];
  /** The verifier's standard output, as kept in /logs/verifier/test-stdout.txt (trimmed). */
  verifierSaid?: string;
  /** The lines the attack printed about itself (quotecheck-audit: ...). */
  attackSaid?: string[];
  /** Whether test.sh ran (the harness kept its output in test-stdout.txt). */
  verifierRan?: boolean;
  /** Which reward file the reward was read from (reward.json is read before reward.txt). */
  rewardFile?: 'reward.json' | 'reward.txt';
  seconds?: number;
  /** The trial's folder (app/, logs/), when kept. */
  trialDir?: string;
  /** evaluate's own report of the trial's mode and user, when it gives them. */
  evaluateMode?: string;
  evaluateUser?: string;
}

/** The text of a file an agent may have made, read the safe way, or what it is when it is not a regular file. */
function readTrialFile(path: string, max = 1024 * 1024): { text?: string; kind?: string } {
  const read = readRegularFile(path, max);
  if (read.ok) return { text: read.bytes.toString('utf8') };
  if (read.missing) return {};
  try {
    return { kind: kindOf(path, lstatSync(path)) };
  } catch {
    return { kind: read.reason };
  }
}

/** One line of at most `n` characters. */
export const clip = (s: string, n = 300): string => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

/** What a finished trial left: what the verifier said, what the attack said, which reward file counted. */
interface TrialEvidence {
  verifierSaid?: string;
  /** What test-stdout.txt is when it is not a regular file (a folder, a link): the harness's redirect failed. */
  stdoutKind?: string;
  /** Whether test.sh's output was kept: the harness's redirect made test-stdout.txt, so test.sh got to run. */
  verifierRan: boolean;
  attackSaid: string[];
  rewardFile?: 'reward.json' | 'reward.txt';
}

/** The evidence in a trial's folder (<outDir>/trials/<task>/). */
export function trialEvidence(trialDir: string): TrialEvidence {
  const stdout = readTrialFile(join(trialDir, 'logs', 'verifier', 'test-stdout.txt'));
  const agent = readTrialFile(join(trialDir, 'agent-output.txt'));
  const attackSaid = (agent.text ?? '')
    .split('\n')
    .filter((l) => l.startsWith(NOTE_MARK))
    .map((l) => clip(l, 400));
  // Harbor (and evaluate) read reward.json when it is there at all, reward.txt only when it is not.
  const present = (name: string): boolean => {
    try {
      lstatSync(join(trialDir, 'logs', 'verifier', name));
      return true;
    } catch {
      return false;
    }
  };
  const rewardFile = present('reward.json') ? 'reward.json' : present('reward.txt') ? 'reward.txt' : undefined;
  const lines = (stdout.text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  // The verifier's verdict is its line about the reward ("reward 0: ..."), when it has one; else its first words
  // (quotecheck's grader: "accuracy 0.500 (6/12 correct)").
  const verdict = lines.find((l) => /^reward\b/i.test(l)) ?? lines[0];
  return {
    ...(verdict ? { verifierSaid: clip(verdict) } : {}),
    ...(stdout.kind ? { stdoutKind: stdout.kind } : {}),
    verifierRan: stdout.text !== undefined,
    attackSaid,
    ...(rewardFile ? { rewardFile } : {}),
  };
}

/** The most a task's attack may score: what doing nothing scored (never below 0), or the best constant answer. */
export function ceilingOf(ceiling: Ceiling, nothing: number, baseline: number): number {
  return ceiling === 'guess' ? Math.max(baseline, 1 - baseline, nothing) : Math.max(0, nothing);
}

export const r3 = (n: number): string => n.toFixed(3);

/**
 * What one trial gave: evaluate's run of its task (or the error that stopped it), its folder, its evidence, evaluate's
 * advice.
 */
export interface TrialOutcome {
  run?: TaskRun;
  error?: string;
  trialDir?: string;
  evidence?: TrialEvidence;
  advice?: readonly string[];
}

/**
 * The "why" of a trial from its evidence: the verifier's words, else why test.sh never spoke, else evaluate's problems.
 */
function whyOf(ev: TrialEvidence, problems: readonly string[]): string {
  const parts: string[] = [];
  if (ev.stdoutKind)
    parts.push(`/logs/verifier/test-stdout.txt is ${ev.stdoutKind}: the harness's redirect failed, test.sh never ran`);
  else if (!ev.verifierRan) parts.push('no /logs/verifier/test-stdout.txt: test.sh never ran');
  else if (ev.verifierSaid) parts.push(`verifier: ${ev.verifierSaid}`);
  const useful = problems.filter((p) => !/^agent exited \d+$/.test(p));
  if (!ev.verifierSaid && useful.length) parts.push(`evaluate: ${useful.join('; ')}`);
  return parts.join('; ');
}

/**
 * Judges a check: the oracle 1, doing nothing 0, the baseline the task's no_match share. Returns the verdict, what
 * was expected, and why.
 */
export function judgeCheck(
  kind: Exclude<CheckKind, 'attack'>,
  reward: number,
  baseline: number,
): { verdict: TrialVerdict; expected: number } {
  const expected = kind === 'oracle' ? 1 : kind === 'nothing' ? 0 : baseline;
  return { verdict: Math.abs(reward - expected) <= REWARD_EPSILON ? 'pass' : 'fail', expected };
}

/**
 * Judges an attack: stopped when it scored no more than its ceiling; else a failure, or, in shared mode, only the
 * harness's to stop when the attack is of that class or test.sh never ran at all (the harness's own command ran the
 * agent's code, or could not start it: nothing in the task could have stopped it).
 */
export function judgeAttack(
  cls: AttackClass,
  mode: VerifierMode,
  reward: number,
  ceiling: number,
  verifierRan = true,
): TrialVerdict {
  if (reward <= ceiling + REWARD_EPSILON) return 'pass';
  return mode === 'shared' && (cls === 'harness' || !verifierRan) ? 'harness-only' : 'fail';
}

/**
 * What the grader did wrong in a trial whatever the reward's ceiling, or nothing: a reward above the share of claims it
 * says were answered with a label (reward.json's `answered`: it counted what is not a label), or a failure on answers
 * it must count invalid. Only where test.sh ran: a reward the agent planted is judged as an attack.
 */
function graderFault(p: TrialPlan, run: TaskRun, ev: TrialEvidence): string | undefined {
  if (!ev.verifierRan) return undefined;
  const answered = run.rewardFields?.answered;
  if (answered !== undefined && run.reward > answered + REWARD_EPSILON)
    return (
      `the reward ${r3(run.reward)} is above the share of claims answered with a label (${r3(answered)}, ` +
      'reward.json): the grader counts answers that are not labels'
    );
  const failed = /\bgrader failed\b|Traceback|TypeError|ReferenceError|SyntaxError/.test(ev.verifierSaid ?? '');
  if (p.graderMustAnswer && (failed || (run.verifierExit !== null && run.verifierExit !== 0)))
    return (
      `the grader failed on answers that carry no label (it must count them invalid)` +
      `${ev.verifierSaid ? `: ${ev.verifierSaid}` : ''}`
    );
  return undefined;
}

/** The name of a trial in a message: the attack (and its target) or the check, the task, the mode and the user. */
export function trialName(t: TrialPlan): string {
  const what = t.kind === 'attack' ? `${t.attack}${t.variant ? ` (${t.variant})` : ''}` : t.kind;
  return (
    `${what} on ${t.task}, ${t.mode} verifier${t.forcedMode ? ' (forced)' : ''}, as ` +
    `${t.user === 'root' ? 'root' : 'the agent user'}`
  );
}

/**
 * What to do about an attack only the harness can stop: declare the separate verifier, or, when the task does, run it
 * so.
 */
function harnessOnlyAdvice(taskMode: VerifierMode, layout: TaskDir['layout'] = 'harbor'): string {
  if (layout === 'skillsbench')
    return (
      "only the harness can stop this: SkillsBench 1.1's harnesses run the verifier in the agent's container " +
      "(Harbor's layout can declare a separate one)"
    );
  return taskMode === 'separate'
    ? 'only the harness can stop this: the task declares the separate verifier, a harness that runs it shared lets ' +
        'this through'
    : 'only the harness can stop this: publish with the separate verifier';
}

/** The line that names a failed trial: what, where, as whom, the reward and what it had to be. */
export function failureLine(t: TrialResult): string {
  if (t.verdict === 'error') return `${trialName(t)}: could not run: ${t.why}`;
  if (t.fault) return `${trialName(t)}: ${t.why}`;
  const reward = r3(t.reward ?? 0);
  if (t.kind !== 'attack')
    return `${trialName(t)}: reward ${reward}, expected ${r3(t.expected ?? 0)}${t.why ? ` (${t.why})` : ''}`;
  const limit = t.ceiling === 'guess' ? 'the best constant answer' : 'doing nothing';
  return (
    `${trialName(t)}: the attack succeeded: reward ${reward}, more than ${limit} ` +
    `(${r3(t.expected ?? 0)})${t.why ? `; ${t.why}` : ''}`
  );
}

/**
 * A plan with its run judged (a check against its expectation; an attack against doing nothing in the same task and
 * mode).
 */
export function judgeOne(
  p: TrialPlan,
  runs: ReadonlyMap<TrialPlan, TrialOutcome>,
  plans: readonly TrialPlan[],
): TrialResult {
  if (p.notApplicable) return { ...p, verdict: 'not-applicable', why: p.notApplicable, problems: [] };
  const got = runs.get(p);
  if (!got) return { ...p, verdict: 'error', why: 'not run', problems: [] };
  if (got.error !== undefined || !got.run)
    return { ...p, verdict: 'error', why: got.error ?? 'evaluate ran no task', problems: [] };
  const run = got.run;
  const ev = got.evidence ?? { attackSaid: [], verifierRan: true };
  const common = {
    ...p,
    reward: run.reward,
    verifierRan: ev.verifierRan,
    problems: run.problems,
    ...(ev.verifierSaid ? { verifierSaid: ev.verifierSaid } : {}),
    ...(ev.attackSaid.length ? { attackSaid: ev.attackSaid } : {}),
    ...(ev.rewardFile ? { rewardFile: ev.rewardFile } : {}),
    seconds: run.seconds,
    ...(got.trialDir ? { trialDir: got.trialDir } : {}),
    // A stand-in for evaluate (the tests') may leave them out.
    ...(run.verifierMode ? { evaluateMode: run.verifierMode } : {}),
    ...(run.agentUser ? { evaluateUser: run.agentUser } : {}),
  };
  const why = whyOf(ev, run.problems);
  const fault = graderFault(p, run, ev);
  if (fault) {
    const expected = p.kind === 'attack' ? undefined : judgeCheck(p.kind, run.reward, run.baseline).expected;
    const both = [fault, why].filter(Boolean).join('; ');
    return { ...common, ...(expected !== undefined ? { expected } : {}), verdict: 'fail', fault, why: both };
  }
  if (p.kind !== 'attack') {
    const { verdict, expected } = judgeCheck(p.kind, run.reward, run.baseline);
    // A check that failed says what evaluate saw besides the verifier's words: every source failed, and what to check.
    const more =
      verdict === 'fail'
        ? [...run.problems.filter((x) => !/^agent exited \d+$/.test(x) && !why.includes(x)), ...(got.advice ?? [])]
        : [];
    return { ...common, expected, verdict, why: [why, ...more].filter(Boolean).join('; ') };
  }
  const na = ev.attackSaid.find((l) => l.startsWith(NOT_APPLICABLE_MARK));
  if (na) return { ...common, verdict: 'not-applicable', why: na.slice(NOT_APPLICABLE_MARK.length).trim() };
  const nothingPlan = plans.find((o) => o.task === p.task && o.kind === 'nothing' && o.mode === p.mode);
  const nothing = nothingPlan ? runs.get(nothingPlan)?.run?.reward : undefined;
  const ceiling = ceilingOf(p.ceiling ?? 'nothing', nothing ?? 0, run.baseline);
  const verdict = judgeAttack(p.class ?? 'task', p.mode, run.reward, ceiling, ev.verifierRan);
  const said = ev.attackSaid.map((l) => l.slice(NOTE_MARK.length).trim()).join('; ');
  const how =
    verdict === 'pass'
      ? why
      : [ev.rewardFile ? `reward read from ${ev.rewardFile}` : '', why].filter(Boolean).join('; ');
  const inconclusive =
    p.ceiling === 'guess' && ceiling >= 1 - REWARD_EPSILON
      ? 'inconclusive: every claim has one label, so a constant answer scores 1'
      : '';
  return {
    ...common,
    expected: ceiling,
    verdict,
    why: [
      verdict === 'harness-only' ? harnessOnlyAdvice(p.taskMode, p.layout) : '',
      how,
      said ? `attack: ${said}` : '',
      inconclusive,
    ]
      .filter(Boolean)
      .join('; '),
  };
}
