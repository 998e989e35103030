// `quotecheck audit`: the check a dataset author runs before publishing. Every task's oracle must score 1, doing
// nothing 0 and the all-no_match baseline its no_match share; then a cheat suite (attacks.ts), each attack as the
// task's agent user and as root, in each verifier mode, must score no more than doing nothing. Trials run through
// evaluate (local-harness.ts runEvaluation), one task folder at a time, several at once.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import pLimit from 'p-limit';
import { UserError } from '../errors.js';
import { ATTACKS, type Attack, type AttackClass, type AuditUser, type Ceiling } from './attacks.js';
import { listTasks, type TaskDir } from '../task/task-dir.js';
import type { VerifierMode } from '../task/verifier-mode.js';
import { parseDockerfile } from '../evaluate/dockerfile.js';
import { canIsolate } from '../evaluate/namespace-root.js';
import { ENV_SKILLS_FOLDER, LAYOUTS } from '../task/layout.js';
import { HARNESS_DIR } from '../evaluate/namespace-trial.js';
import { resolveIsolation, runEvaluation, type EvaluationOptions } from '../evaluate/evaluate.js';
import { engineAnswers } from '../evaluate/engine.js';
import type { AgentNetwork } from '../evaluate/engine-trial.js';
import { SHIPPED_FOLDER } from '../task/ship.js';
import { kindOf, readRegularFile } from '../grader/grade.mjs';
import type { EvaluationReport, Isolation, TaskRun } from '../results/evaluation-report.js';
import { isEngine } from '../results/isolations.js';
import { TASK_SKILLS_DIR, CONTAINER_PATHS, TOOL_DIR } from '../task/paths.js';
import { NOT_APPLICABLE_MARK, NOTE_MARK, type AttackFacts } from './attack-scripts.js';

/** A reward within this of the expected one is the expected one (rewards are written with 6 decimals). */
const REWARD_EPSILON = 1e-5;

/** Where the answers are when nothing says: what quotecheck's tasks ask for. */
const DEFAULT_ANSWERS = `${CONTAINER_PATHS.app.path}/answers.json`;

/** The longest script a trial's command may be: one argument of `bash -c`, which Linux caps at 128 KiB. */
const MAX_SCRIPT_BYTES = 120_000;

/** The largest file the audit reads to know a task (claims, a verifier file it tests for labels). */
const MAX_FACT_BYTES = 64 * 1024 * 1024;

/** An audit that cannot run here, or with these options: said before any trial runs. */
export class AuditSetupError extends UserError {
  override readonly name = 'AuditSetupError';
}

/**
 * evaluate's options as the audit gives them: the verifier mode and the agent's user (evaluate's interface for them).
 */
export type AuditEvaluationOptions = EvaluationOptions & {
  verifierMode?: 'task' | 'separate' | 'shared';
  agentUser?: 'task' | 'root';
};

/** What runs one trial: evaluate itself, or a stand-in in the unit tests. */
export type TrialRunner = (opts: AuditEvaluationOptions) => Promise<EvaluationReport>;

/** Where the answers path came from. */
export type AnswersSource = 'artifacts' | 'instruction' | 'option' | 'default';

/** A task as the audit knows it: the facts the attacks need, and which modes and users it runs. */
export interface AuditTask {
  name: string;
  dir: string;
  layout: TaskDir['layout'];
  answers: { path: string; from: AnswersSource };
  /**
   * The mode the task declares (Harbor's rule: environment_mode, else separate with a [verifier.environment], else
   * shared).
   */
  declaredMode: VerifierMode;
  /** The modes the audit plays; `forced` when the task does not declare it (separate for a shared task). */
  modes: { mode: VerifierMode; forced: boolean }[];
  /** `[agent] user`; none when the task leaves the agent to the image's default user, root. */
  agentUser?: string;
  claimIds?: string[];
  /** Why the answer-shaped attacks cannot run, when there are no claim ids. */
  claimsNote?: string;
  /** The verifier's files at the paths a harness uploads them to, and those that look like labels. */
  verifierDir: string;
  verifierFiles: string[];
  goldPaths: string[];
  /** What the task gives the agent on purpose (its tool, its skills): the oracle search leaves them alone. */
  toolPaths: string[];
  /** Why the oracle or the baseline check cannot run, when it cannot. */
  oracleNote?: string;
  baselineNote?: string;
  /** The verifier's files but the labels, with its settings: tasks alike in it are alike to the cheat suite. */
  verifierFingerprint: string;
}

export type CheckKind = 'oracle' | 'nothing' | 'baseline' | 'attack';

/** pass: as expected (the attack was stopped); fail: not; harness-only: a harness attack that worked in shared mode. */
export type Verdict = 'pass' | 'fail' | 'harness-only' | 'not-applicable' | 'error';

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

/** A trial run and judged. */
export interface TrialResult extends TrialPlan {
  reward?: number;
  /** What the reward had to be (checks), or the most it could be (attacks). */
  expected?: number;
  verdict: Verdict;
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

export interface AuditOptions {
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
  counts: Record<Verdict, number>;
  /** One line for each trial that failed its expectation: what, where, as whom, and the reward. */
  failures: string[];
  /** One line for each harness attack that worked in shared mode. */
  harness_only: string[];
}

/* ------------------------------------------------------------------ facts */

const table = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const FILE_EXT = /\.(json|jsonl|txt|csv|tsv|ya?ml)$/i;

/**
 * The answers file among a task's artifacts: the one named like answers, else the first file (a folder does not say
 * which file).
 */
export function answersFromArtifacts(artifacts: readonly string[]): string | undefined {
  const files = artifacts.filter((a) => !a.endsWith('/') && FILE_EXT.test(a));
  return files.find((a) => /answer/i.test(a.split('/').pop()!)) ?? files[0];
}

/**
 * The answers path an instruction names: an absolute path named like answers (`/app/answers.json`), else the first
 * absolute file path after "write", "save" or "output" within a sentence.
 */
export function answersFromInstruction(text: string): string | undefined {
  const named = /(?<![\w/.-])(\/(?:[\w.-]+\/)*[\w.-]*answers?[\w.-]*\.(?:json|jsonl|txt|csv|tsv))(?![\w/-])/i.exec(
    text,
  );
  if (named) return named[1];
  const written = /\b(?:write|save|output|store)\b[^.\n]{0,80}?`?(\/(?:[\w.-]+\/)*[\w.-]+\.[A-Za-z]{2,5})`?/i.exec(
    text,
  );
  return written?.[1];
}

/** The instruction's text: instruction.md, or task.md after its front matter. */
function instructionText(task: TaskDir): string {
  const file = task.layout === 'harbor' ? 'instruction.md' : LAYOUTS.skillsbench.definition;
  const read = readRegularFile(join(task.dir, file), MAX_FACT_BYTES);
  if (!read.ok) return '';
  const text = read.bytes.toString('utf8');
  return task.layout === 'harbor' ? text : text.replace(/^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/, '');
}

/** Every file under `dir`, relative to it, sorted (links and special files left out; at most `max`). */
function filesUnder(dir: string, max = 500): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= max) return;
      const sub = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(sub);
      else if (e.isFile()) out.push(sub);
    }
  };
  walk('');
  return out;
}

/** Whether a file's text is a JSON object or array, or JSON Lines of objects: what labels are kept in. */
function looksLikeLabels(whole: string | undefined): boolean {
  const text = whole?.trim();
  if (!text) return false;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null;
  } catch {
    const lines = text.split('\n').filter((l) => l.trim());
    return lines.every((l) => {
      try {
        const v: unknown = JSON.parse(l);
        return typeof v === 'object' && v !== null && !Array.isArray(v);
      } catch {
        return false;
      }
    });
  }
}

/** Files that hold a package's or a tool's settings, not labels. */
const NOT_LABELS = /^(package(-lock)?|tsconfig|jsconfig|\.?eslintrc|biome|deno|composer)\.json$/i;

/**
 * Where a separate verifier's Dockerfile puts the verifier's files: `COPY gold.json /tests/gold.json` gives
 * [gold.json, /tests/gold.json]; `COPY . /tests/` every file under its own name.
 */
export function dockerfileCopies(text: string, files: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (const [op, rest] of parseDockerfile(text)) {
    if (op !== 'COPY' && op !== 'ADD') continue;
    const args = rest.split(/\s+/).filter((w) => !w.startsWith('--'));
    const dest = args.pop();
    if (!dest?.startsWith('/')) continue;
    for (const src of args) {
      const rel = src.replace(/^\.\/?/, '');
      const matched = rel === '' ? files : files.filter((f) => f === rel || f.startsWith(`${rel.replace(/\/$/, '')}/`));
      for (const f of matched) {
        const intoFolder = dest.endsWith('/') || args.length > 1 || rel === '' || f !== rel;
        const under = rel === '' ? f : f === rel ? f.split('/').pop()! : f.slice(rel.replace(/\/$/, '').length + 1);
        out.push([f, intoFolder ? `${dest.replace(/\/$/, '')}/${under}` : dest]);
      }
    }
  }
  return out;
}

/**
 * The claims' ids of environment/claims.json (a JSON array of objects with an id, or {"claims": [...]}), or why none.
 */
function claimIdsOf(task: TaskDir): { ids?: string[]; note?: string } {
  const read = readRegularFile(join(task.dir, 'environment', 'claims.json'), MAX_FACT_BYTES);
  if (!read.ok) return { note: "the task's environment has no claims.json with claim ids to answer" };
  let value: unknown;
  try {
    value = JSON.parse(read.bytes.toString('utf8'));
  } catch {
    return { note: "the task's environment/claims.json is not JSON" };
  }
  const list = Array.isArray(value) ? value : table(value)?.claims;
  const ids = Array.isArray(list)
    ? list.flatMap((c) => {
        const id = table(c)?.id;
        return typeof id === 'string' || typeof id === 'number' ? [String(id)] : [];
      })
    : [];
  if (!ids.length) return { note: "the task's environment/claims.json names no claim ids" };
  if (JSON.stringify(ids).length > 40_000)
    return { note: 'the task has too many claims to write their answers into a command line' };
  return { ids };
}

function sha256(parts: readonly (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
}

/**
 * A verifier folder's files (filesUnder), each read once up to the cap for all the audit asks of it: the Dockerfile's
 * copies, the labels' test and the fingerprint.
 */
function verifierFiles(dir: string): {
  rels: string[];
  textOf: (rel: string) => string | undefined;
  bytesOf: (rel: string) => Buffer;
} {
  const rels = filesUnder(dir);
  const read = new Map(rels.map((r) => [r, readRegularFile(join(dir, r), MAX_FACT_BYTES)]));
  const got = (r: string) => read.get(r) ?? readRegularFile(join(dir, r), MAX_FACT_BYTES);
  return {
    rels,
    textOf: (r) => {
      const file = got(r);
      return file.ok ? file.bytes.toString('utf8') : undefined;
    },
    // A file over the cap is no label file: it is read whole for the fingerprint only.
    bytesOf: (r) => {
      const file = got(r);
      return file.ok ? file.bytes : readFileSync(join(dir, r));
    },
  };
}

/** What the audit needs to know of a task, read from its folder. */
export function auditTask(task: TaskDir, opts: { answers?: string; modes?: readonly VerifierMode[] } = {}): AuditTask {
  const spec = LAYOUTS[task.layout];
  const verifierHost = join(task.dir, spec.verifier.folder);
  const { rels, textOf, bytesOf } = verifierFiles(verifierHost);
  // Where a harness uploads each file: the layout's folder; a separate verifier's Dockerfile may put some elsewhere
  // too.
  const at = new Map<string, string[]>(rels.map((r) => [r, [`${spec.verifier.path}/${r}`]]));
  const dockerfile = textOf('Dockerfile');
  if (dockerfile !== undefined) for (const [rel, dest] of dockerfileCopies(dockerfile, rels)) at.get(rel)?.push(dest);
  const uploaded = (rel: string): string[] => [...new Set(at.get(rel) ?? [])];
  const labelFiles = rels.filter(
    (r) => r !== 'Dockerfile' && !NOT_LABELS.test(r.split('/').pop()!) && looksLikeLabels(textOf(r)),
  );
  const named = (r: string) => /gold|label|expected|answer|truth|solution/i.test(r);
  const gold = [...labelFiles.filter(named), ...labelFiles.filter((r) => !named(r))].slice(0, 4);

  const artifact = answersFromArtifacts(task.artifacts);
  const mentioned = artifact ? undefined : answersFromInstruction(instructionText(task));
  const answers = artifact
    ? { path: artifact, from: 'artifacts' as const }
    : mentioned
      ? { path: mentioned, from: 'instruction' as const }
      : opts.answers
        ? { path: opts.answers, from: 'option' as const }
        : { path: DEFAULT_ANSWERS, from: 'default' as const };

  const declared = task.verifierMode;
  const modes = (opts.modes ?? (declared === 'separate' ? ['separate', 'shared'] : ['shared'])).map((mode) => ({
    mode,
    forced: mode === 'separate' && declared !== 'separate',
  }));
  const claims = claimIdsOf(task);
  const env = join(task.dir, 'environment');
  const toolPaths = [
    HARNESS_DIR,
    ...(existsSync(join(env, SHIPPED_FOLDER)) ? [TOOL_DIR] : []),
    ...(existsSync(join(env, ENV_SKILLS_FOLDER)) ? [TASK_SKILLS_DIR] : []),
  ];
  const hasSolve = existsSync(join(task.dir, spec.oracle.folder, 'solve.sh'));
  const hasGold = existsSync(join(verifierHost, 'gold.json'));
  const baselineNote = !claims.ids
    ? `${claims.note}: the baseline (quotecheck run --baseline on /app/claims.json) cannot answer it`
    : !hasGold
      ? `no ${spec.verifier.folder}/gold.json: the baseline's expected reward (the no_match share) is not known`
      : answers.path !== DEFAULT_ANSWERS
        ? `the task grades ${answers.path}; the baseline writes ${DEFAULT_ANSWERS}`
        : undefined;
  const fingerprint = sha256([
    task.layout,
    declared,
    task.agentUser ?? '',
    answers.path,
    ...rels.filter((r) => !labelFiles.includes(r)).flatMap((r) => [r, bytesOf(r)]),
  ]);
  return {
    name: task.name,
    dir: task.dir,
    layout: task.layout,
    answers,
    declaredMode: declared,
    modes,
    ...(task.agentUser !== undefined ? { agentUser: task.agentUser } : {}),
    ...(claims.ids ? { claimIds: claims.ids } : { claimsNote: claims.note }),
    verifierDir: spec.verifier.path,
    verifierFiles: rels.filter((r) => r !== 'Dockerfile').flatMap(uploaded),
    goldPaths: [...new Set(gold.flatMap(uploaded))],
    toolPaths,
    ...(hasSolve ? {} : { oracleNote: `no ${spec.oracle.folder}/solve.sh` }),
    ...(baselineNote ? { baselineNote } : {}),
    verifierFingerprint: fingerprint,
  };
}

/** The attacks' view of a task. */
export function attackFacts(t: AuditTask): AttackFacts {
  return {
    answers: t.answers.path,
    verifierDir: t.verifierDir,
    verifierFiles: t.verifierFiles,
    goldPaths: t.goldPaths,
    ...(t.claimIds ? { claimIds: t.claimIds } : {}),
    ...(t.claimsNote ? { claimsNote: t.claimsNote } : {}),
    toolPaths: t.toolPaths,
  };
}

/* ------------------------------------------------------------------ plan */

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
const slug = (s: string): string => s.replace(/^\/+/, '').replace(/[^A-Za-z0-9._-]+/g, '_');

/** Whether `attack` is one of those asked for (ids or id prefixes; all when none given). */
function attackWanted(attack: Attack, wanted: readonly string[] | undefined): boolean {
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
  opts: Pick<AuditOptions, 'users' | 'attacks'>,
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

/* ------------------------------------------------------------------ judge */

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
const clip = (s: string, n = 300): string => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

/** What a finished trial left: what the verifier said, what the attack said, which reward file counted. */
export interface TrialEvidence {
  verifierSaid?: string;
  /** What test-stdout.txt is when it is not a regular file (a folder, a link): the harness's redirect failed. */
  stdoutKind?: string;
  /** Whether test.sh's output was kept: the harness's redirect made test-stdout.txt, so test.sh got to run. */
  verifierRan: boolean;
  attackSaid: string[];
  rewardFile?: 'reward.json' | 'reward.txt';
}

/** The evidence in a trial's folder (<outDir>/trials/<task>/). */
function trialEvidence(trialDir: string): TrialEvidence {
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

const r3 = (n: number): string => n.toFixed(3);

/**
 * What one trial gave: evaluate's run of its task (or the error that stopped it), its folder, its evidence, evaluate's
 * advice.
 */
interface TrialOutcome {
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
): { verdict: Verdict; expected: number } {
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
): Verdict {
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
function trialName(t: TrialPlan): string {
  const what = t.kind === 'attack' ? `${t.attack}${t.variant ? ` (${t.variant})` : ''}` : t.kind;
  return (
    `${what} on ${t.task}, ${t.mode} verifier${t.forcedMode ? ' (forced)' : ''}, as ` +
    `${t.user === 'root' ? 'root' : 'the agent user'}`
  );
}

/* ------------------------------------------------------------------ run */

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
  const counts: Record<Verdict, number> = { pass: 0, fail: 0, 'harness-only': 0, 'not-applicable': 0, error: 0 };
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
function judgeOne(p: TrialPlan, runs: ReadonlyMap<TrialPlan, TrialOutcome>, plans: readonly TrialPlan[]): TrialResult {
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

/* ------------------------------------------------------------------ output */

const VERDICT_WORDS: Record<Verdict, string> = {
  pass: 'ok',
  fail: 'FAILED',
  'harness-only': 'harness only',
  'not-applicable': 'n/a',
  error: 'ERROR',
};

/** The word a trial's verdict is shown with: an attack that was stopped says so. */
function verdictWord(t: Pick<TrialResult, 'kind' | 'verdict'>): string {
  return t.kind === 'attack' && t.verdict === 'pass' ? 'stopped' : VERDICT_WORDS[t.verdict];
}

/** Columns padded to their widest cell (the last left as is). */
function columns(rows: readonly string[][], right: ReadonlySet<number> = new Set()): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, i) =>
        i === r.length - 1 ? cell : right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd(),
  );
}

/** The report as text: the checks of every task, the cheat suite's table (attack × mode × user), and what failed. */
export function auditTable(r: AuditReport, opts: { width?: number } = {}): string {
  const whyWidth = opts.width ?? 110;
  const lines: string[] = [];
  const checks = r.trials.filter((t) => t.kind !== 'attack');
  lines.push(`Checks: every task, as its agent user (${r.tasks.length} ${r.tasks.length === 1 ? 'task' : 'tasks'})`);
  lines.push(
    ...columns(
      [
        ['task', 'mode', 'check', 'reward', 'expected', 'verdict', 'why'],
        ...checks.map((t) => [
          t.task,
          `${t.mode}${t.forcedMode ? '*' : ''}`,
          t.kind,
          t.reward === undefined ? '-' : r3(t.reward),
          t.expected === undefined ? '-' : r3(t.expected),
          verdictWord(t),
          t.verdict === 'pass' ? '' : clip(t.why, whyWidth),
        ]),
      ],
      new Set([3, 4]),
    ),
  );
  for (const task of r.cheat_tasks) {
    const attacks = r.trials.filter((t) => t.kind === 'attack' && t.task === task);
    if (!attacks.length) continue;
    lines.push(
      '',
      `Cheat suite on ${task} (reward: at most what doing nothing scores; * a mode the task does not declare)`,
    );
    lines.push(
      ...columns(
        [
          ['attack', 'class', 'mode', 'user', 'reward', 'verdict', 'why'],
          ...attacks.map((t) => [
            `${t.attack}${t.variant ? ` ${t.variant}` : ''}`,
            t.class ?? '',
            `${t.mode}${t.forcedMode ? '*' : ''}`,
            t.user,
            t.reward === undefined ? '-' : r3(t.reward),
            verdictWord(t),
            clip(t.why, whyWidth),
          ]),
        ],
        new Set([4]),
      ),
    );
  }
  const c = r.counts;
  lines.push(
    '',
    `${r.trials.length} trials in ${r.seconds.toFixed(1)} s: ${c.pass} as expected, ${c.fail} failed, ` +
      `${c['harness-only']} only the harness can stop, ${c['not-applicable']} not applicable, ${c.error} could not run`,
  );
  if (r.harness_only.length) {
    lines.push(
      '',
      r.trials.some((t) => t.verdict === 'harness-only' && t.taskMode === 'shared' && t.layout === 'harbor')
        ? `Only the harness can stop these (${r.harness_only.length}), in shared mode: publish with the separate ` +
            `verifier ([verifier] environment_mode = "separate" in task.toml), and run agents as the [agent] user:`
        : r.trials.some((t) => t.verdict === 'harness-only' && t.layout === 'skillsbench')
          ? `Only the harness can stop these (${r.harness_only.length}), in shared mode, which SkillsBench 1.1's ` +
            `harnesses always play: Harbor's layout with the separate verifier stops them, and so does running ` +
            `agents as the [agent] user for those that need root:`
          : `Only the harness can stop these (${r.harness_only.length}), in shared mode: the tasks declare the ` +
            `separate verifier, which stops them; a harness that ignores it (or [agent] user) lets them through:`,
      ...r.harness_only.map((l) => `  ${l}`),
    );
  }
  if (r.failures.length) lines.push('', `FAILED (${r.failures.length}):`, ...r.failures.map((l) => `  ${l}`));
  else
    lines.push(
      '',
      `audit passed: every check met its expectation and every attack a task must stop was stopped${
        r.certificate
          ? ` (on ${r.isolation === 'docker' ? 'Docker' : 'Podman'}, the task's images built)`
          : `; emulated on ${r.isolation} containers, not a certificate: no image was built`
      }`,
    );
  return lines.join('\n');
}

/** The report as JSON for CI: everything, with paths relative to `base` when given. */
export function auditJson(r: AuditReport, base?: string): string {
  const trials = r.trials.map((t) => (base && t.trialDir ? { ...t, trialDir: relative(base, t.trialDir) } : t));
  // A task's claim ids are what the attacks wrote; the report says how many.
  const tasks = r.tasks.map(({ claimIds, ...t }) => ({ ...t, ...(claimIds ? { claims: claimIds.length } : {}) }));
  return `${JSON.stringify({ ...r, tasks, trials }, null, 2)}\n`;
}
