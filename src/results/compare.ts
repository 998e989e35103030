// Comparing agents on one dataset: mean reward and accuracy split by the oracle's diagnosis of each claim, from live or
// finished evaluate runs.
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { unread } from './failures.js';
import { DIAGNOSES, LABELS } from '../contract.js';
import { type EvaluationReport, type ClaimRow, type OracleEvidence, runShape } from './evaluation-report.js';
import type { LABELS as GRADER_LABELS, FailureShape } from '../grader/grade.mjs';
import { UserError } from '../errors.js';

/**
 * The rows of the comparison, in the order a reader scans them: the contract's order of diagnosis codes (found, then
 * the no_match kinds from "the words are there, mangled" to "nothing like it", then the sources that could not be
 * read). `drifted` is the diagnosis; `source_drifted` overlaps the others (any claim whose source changed since
 * labelling).
 */
const DIAGNOSIS_ORDER = DIAGNOSES;

/** Claims the oracle's report says nothing about (no report, or a claim it did not judge). */
const NO_DIAGNOSIS = 'no_diagnosis';
/**
 * The overlapping row: claims whose source's live bytes no longer hash to the claim's evidence (the oracle's `drift:
 * changed`).
 */
export const SOURCE_DRIFTED = 'source_drifted';

/** How a sentence names a group of claims. */
const GROUP_NAME: Record<string, string> = {
  verbatim: 'verbatim quotes',
  extraction_artifact: 'extraction artifacts',
  near_miss: 'near misses',
  partial: 'partial quotes',
  not_found: 'quotes not found',
  drifted: 'drifted quotes',
  paywall: 'paywalled sources',
  fetch_failed: 'failed fetches',
  empty: 'empty sources',
  unsupported: 'unsupported sources',
  invalid_claim: 'invalid claims',
  stopped: 'claims the run stopped before deciding',
  [NO_DIAGNOSIS]: 'claims without an oracle diagnosis',
  [SOURCE_DRIFTED]: 'claims on drifted sources',
};

/** One agent's answers on one group of claims: claims = correct + wrong + missing + invalid. */
export interface GroupScore {
  claims: number;
  correct: number;
  /** Answered verbatim or no_match, and not the gold label. */
  wrong: number;
  /** Claims the agent gave no answer for (no entry for the id in its answers file). */
  missing: number;
  /** Answers that are neither verbatim nor no_match. */
  invalid: number;
  /** Claims the agent answered `verbatim`. */
  answered_verbatim: number;
  /** correct / claims (missing and invalid answers are never right). */
  accuracy: number;
}

/** One agent in the comparison: its run's totals as the run's report gives them, and its scores by diagnosis. */
export interface AgentScore
  extends Pick<EvaluationReport, 'mean_reward' | 'baseline_mean_reward' | 'claims' | 'correct'> {
  /** oracle, baseline or the shell command, as the run's report gives it. */
  agent: string;
  /**
   * The agent's name in columns and sentences: the name evaluate gave it (report.json's `name`: --name, else oracle,
   * baseline or agent-N, its folder under a comparison's --out); for a report without one, the agent itself when short,
   * else its folder's name. Two runs of one name get their folder after it.
   */
  label: string;
  /** Claims the agent gave no answer for, and answers neither verbatim nor no_match, over the whole run. */
  missing: number;
  invalid: number;
  /** The run's folder (its report.json, report.html and trials/), when known. */
  dir?: string;
  /** Keyed by the oracle's diagnosis (DIAGNOSIS_ORDER, NO_DIAGNOSIS) and SOURCE_DRIFTED; only groups with claims. */
  by_diagnosis: Record<string, GroupScore>;
  /** The run's own advice (e.g. every source of a task failed). */
  advice: string[];
  /**
   * Its report page with the oracle's evidence on its claims, as `compare --out` writes it (relative to the
   * comparison's folder).
   */
  evidence_report?: string;
  /**
   * How it failed, over all its claims (reward.json's fields): answered at all, overclaimed (verbatim on gold
   * no_match), missed (no_match on gold verbatim).
   */
  shape?: Pick<FailureShape, 'answered' | 'overclaim' | 'missed'>;
}

export interface Comparison {
  /** Where the diagnoses came from: the oracle run's folder (or its name when it has none). */
  oracle: string;
  /**
   * The groups with claims, in DIAGNOSIS_ORDER, then NO_DIAGNOSIS, then SOURCE_DRIFTED; with the claim count of the
   * first agent's run.
   */
  groups: { diagnosis: string; claims: number }[];
  agents: AgentScore[];
  /** "baseline answers verbatim on 0% of extraction artifacts (0/3), right on 100%", one per agent and group. */
  sentences: string[];
}

/** A finished evaluate run: its report and where it lives. */
export interface EvaluationRun {
  report: EvaluationReport;
  dir?: string;
}

/** A run folder that cannot be compared: the message names the folder and what is wrong. */
export class CompareError extends UserError {
  override readonly name = 'CompareError';
}

/** What the oracle said about one claim. */
interface OracleView {
  diagnosis: string;
  drifted: boolean;
}

/**
 * Longest agent command used as its column header in a report without a name; longer ones (and any command with a
 * space) are named by their folder.
 */
const MAX_LABEL_CHARS = 24;

/**
 * The labels an answer can have (the contract's LABELS); anything else is invalid. The grader tasks ship
 * (grader/grade.mjs) runs without this package's dependencies and keeps its own copy: the same tuple, checked here.
 */
const VALID_ANSWERS: readonly string[] = LABELS satisfies typeof GRADER_LABELS;

/** How a row's answer counts: right (as graded), missing, invalid, or wrong (a valid label, not the gold). */
function answerKind(row: ClaimRow): 'correct' | 'wrong' | 'missing' | 'invalid' {
  if (row.answer === undefined || row.answer === null) return 'missing';
  if (row.correct) return 'correct';
  return VALID_ANSWERS.includes(row.answer) ? 'wrong' : 'invalid';
}

const claimKey = (task: string, id: string): string => `${task}\u0000${id}`;

/** The oracle's diagnosis of every claim, keyed by task and id. */
function oracleViews(oracle: EvaluationReport): Map<string, OracleView> {
  const views = new Map<string, OracleView>();
  for (const t of oracle.tasks) {
    for (const row of t.rows) {
      if (row.diagnosis === undefined) continue;
      // Drift needs bytes that hash otherwise than the evidence: a source the oracle could not read is unread, not
      // drifted.
      views.set(claimKey(t.task, row.id), {
        diagnosis: row.diagnosis,
        drifted: row.drift === 'changed' && !unread(row),
      });
    }
  }
  return views;
}

const emptyScore = (): GroupScore => ({
  claims: 0,
  correct: 0,
  wrong: 0,
  missing: 0,
  invalid: 0,
  answered_verbatim: 0,
  accuracy: 0,
});

function groupOrder(name: string): number {
  const i = (DIAGNOSIS_ORDER as readonly string[]).indexOf(name);
  if (i >= 0) return i;
  if (name === NO_DIAGNOSIS) return DIAGNOSIS_ORDER.length + 1;
  if (name === SOURCE_DRIFTED) return DIAGNOSIS_ORDER.length + 2;
  return DIAGNOSIS_ORDER.length; // a code this version does not know: after the known ones
}

function scoreAgent(run: EvaluationRun, views: Map<string, OracleView>): AgentScore {
  const groups = new Map<string, GroupScore>();
  const total = emptyScore();
  const add = (g: GroupScore, row: ClaimRow) => {
    g.claims++;
    g[answerKind(row)]++;
    if (row.answer === 'verbatim') g.answered_verbatim++;
  };
  const addTo = (name: string, row: ClaimRow) => {
    const g = groups.get(name) ?? emptyScore();
    add(g, row);
    groups.set(name, g);
  };
  for (const t of run.report.tasks) {
    for (const row of t.rows) {
      const view = views.get(claimKey(t.task, row.id));
      add(total, row);
      addTo(view?.diagnosis ?? NO_DIAGNOSIS, row);
      if (view?.drifted) addTo(SOURCE_DRIFTED, row);
    }
  }
  const by = [...groups].sort((a, b) => groupOrder(a[0]) - groupOrder(b[0]));
  for (const [, g] of by) g.accuracy = g.claims ? g.correct / g.claims : 0;
  const r = run.report;
  return {
    agent: r.agent,
    label: r.name ?? r.agent,
    missing: total.missing,
    invalid: total.invalid,
    ...(run.dir ? { dir: run.dir } : {}),
    mean_reward: r.mean_reward,
    baseline_mean_reward: r.baseline_mean_reward,
    claims: r.claims,
    correct: r.correct,
    by_diagnosis: Object.fromEntries(by),
    advice: r.advice ?? [],
    ...(r.confusion ? { shape: runShape(r) } : {}),
  };
}

export const pct = (n: number, d: number): string => `${d ? Math.round((100 * n) / d) : 0}%`;

/** The group's name in a sentence. */
export function groupName(diagnosis: string): string {
  return GROUP_NAME[diagnosis] ?? `claims diagnosed ${diagnosis}`;
}

/**
 * "baseline answers verbatim on 0% of extraction artifacts (0/3), right on 100% (3/3)". Claims the agent did not
 * answer, or answered with a label other than verbatim or no_match, get sentences of their own: the first sentence
 * then speaks of the claims it answered ("... of the extraction artifacts it answered (1/2), right on 50% of them
 * (1/2)"), and is left out when it answered none.
 */
function sentences(agent: string, diagnosis: string, g: GroupScore): string[] {
  const name = groupName(diagnosis);
  if (g.missing === 0 && g.invalid === 0) {
    return [
      `${agent} answers verbatim on ${pct(g.answered_verbatim, g.claims)} of ${name} ` +
        `(${g.answered_verbatim}/${g.claims}), right on ${pct(g.correct, g.claims)} (${g.correct}/${g.claims})`,
    ];
  }
  const answered = g.claims - g.missing - g.invalid;
  const out: string[] = [];
  if (answered > 0)
    out.push(
      `${agent} answers verbatim on ${pct(g.answered_verbatim, answered)} of the ${name} it answered ` +
        `(${g.answered_verbatim}/${answered}), right on ${pct(g.correct, answered)} of them (${g.correct}/${answered})`,
    );
  if (g.missing > 0)
    out.push(`${agent} gives no answer for ${pct(g.missing, g.claims)} of ${name} (${g.missing}/${g.claims})`);
  if (g.invalid > 0)
    out.push(
      `${agent} gives an invalid answer (neither verbatim nor no_match) for ${pct(g.invalid, g.claims)} of ${name} ` +
        `(${g.invalid}/${g.claims})`,
    );
  return out;
}

/**
 * Scores each run against the oracle's diagnosis of the same claims (matched by task name and
 * claim id). The oracle run may be one of `runs` or a run of its own.
 */
export function compareRuns(runs: readonly EvaluationRun[], oracle: EvaluationRun): Comparison {
  const views = oracleViews(oracle.report);
  const agents = runs.map((r) => scoreAgent(r, views));
  // A report without a name (written before evaluate named agents) whose command is long: its folder's name, else its
  // position (the full command is in the legend). Two runs of one name get their folder after it.
  agents.forEach((a, i) => {
    if (runs[i]!.report.name === undefined && (a.agent.length > MAX_LABEL_CHARS || /\s/.test(a.agent)))
      a.label = folderName(a.dir) ?? `agent-${i + 1}`;
  });
  const seen = new Map<string, number>();
  for (const a of agents) seen.set(a.label, (seen.get(a.label) ?? 0) + 1);
  agents.forEach((a, i) => {
    if ((seen.get(a.label) ?? 0) > 1) a.label = `${a.label} (${a.dir ?? `run ${i + 1}`})`;
  });
  const names = new Set<string>();
  for (const a of agents) for (const d of Object.keys(a.by_diagnosis)) names.add(d);
  const groups = [...names]
    .sort((a, b) => groupOrder(a) - groupOrder(b))
    .map((diagnosis) => ({
      diagnosis,
      claims: Math.max(...agents.map((a) => a.by_diagnosis[diagnosis]?.claims ?? 0)),
    }));
  const said = agents.flatMap((a) =>
    groups.flatMap(({ diagnosis }) => {
      const g = a.by_diagnosis[diagnosis];
      return g ? sentences(a.label, diagnosis, g) : [];
    }),
  );
  return { oracle: oracle.dir ?? oracle.report.agent, groups, agents, sentences: said };
}

/** What identifies a claim across runs: its task and id, and the quote, URL and gold label a dataset gives it. */
interface ClaimIdentity {
  task: string;
  quote: string;
  url: string;
  gold: string;
}

function claimIdentities(report: EvaluationReport): Map<string, ClaimIdentity> {
  const claims = new Map<string, ClaimIdentity>();
  for (const t of report.tasks)
    for (const r of t.rows)
      claims.set(claimKey(t.task, r.id), { task: t.task, quote: r.quote ?? '', url: r.url ?? '', gold: r.gold });
  return claims;
}

/** A run as a message names it: its folder, else its agent. */
const runName = (run: EvaluationRun): string => run.dir ?? run.report.agent;

/** "14 claims (tasks drift, fetch-faults, ...)": how many, and the first tasks they are in. */
function claimCount(ids: readonly ClaimIdentity[]): string {
  const tasks = [...new Set(ids.map((c) => c.task))];
  const shown = `${tasks.slice(0, 3).join(', ')}${tasks.length > 3 ? `, and ${tasks.length - 3} more` : ''}`;
  return `${ids.length} ${ids.length === 1 ? 'claim' : 'claims'} (${tasks.length === 1 ? 'task' : 'tasks'} ${shown})`;
}

/**
 * Claims in both runs whose quote, URL or gold label differ (an empty quote or URL: a row written without its claim,
 * not a difference).
 */
function changedClaims(a: Map<string, ClaimIdentity>, b: Map<string, ClaimIdentity>): ClaimIdentity[] {
  const differ = (x: string, y: string) => x !== '' && y !== '' && x !== y;
  return [...a].flatMap(([key, c]) => {
    const o = b.get(key);
    return o && (differ(c.quote, o.quote) || differ(c.url, o.url) || c.gold !== o.gold) ? [c] : [];
  });
}

/** "(A ran /data/one, B ran /data/two)" when the runs name different datasets. */
function datasets(a: EvaluationRun, b: EvaluationRun): string {
  const [x, y] = [a.report.tasks_dir, b.report.tasks_dir];
  return x && y && x !== y ? ` (${runName(a)} ran ${x}, ${runName(b)} ran ${y})` : '';
}

/**
 * Refuses (CompareError) runs that are not of the same claims, instead of filing the claims one run lacks under
 * no_diagnosis and comparing mean rewards over different claims: every agent's claim must be in the oracle's run (which
 * may hold more: it only lends its diagnoses), and the agents' runs must hold the same claims, each with the same
 * quote, URL and gold label. A comparison of the claims two runs share would be a different number from either run's
 * reward, under the same heading; a run of a subset is compared by running the others on that subset.
 */
export function checkSameClaims(runs: readonly EvaluationRun[], oracle: EvaluationRun): void {
  const diagnosed = claimIdentities(oracle.report);
  for (const run of runs) {
    if (run.report === oracle.report) continue;
    const own = claimIdentities(run.report);
    const unknown = [...own].filter(([key]) => !diagnosed.has(key)).map(([, c]) => c);
    const changed = changedClaims(own, diagnosed);
    if (unknown.length === 0 && changed.length === 0) continue;
    const what = [
      ...(unknown.length
        ? [`${claimCount(unknown)} of ${runName(run)} ${unknown.length === 1 ? 'is' : 'are'} not in it`]
        : []),
      ...(changed.length
        ? [`${claimCount(changed)} ${changed.length === 1 ? 'has' : 'have'} another quote, URL or gold label there`]
        : []),
    ].join(', and ');
    throw new CompareError(
      `the oracle's run ${runName(oracle)} is not of the claims of ${runName(run)}: ` +
        `${what}${datasets(run, oracle)}; its diagnoses cannot split them: pass --oracle with an oracle run of the ` +
        `same dataset`,
    );
  }
  const [first, ...others] = runs;
  if (!first) return;
  const base = claimIdentities(first.report);
  for (const run of others) {
    const own = claimIdentities(run.report);
    const onlyFirst = [...base].filter(([key]) => !own.has(key)).map(([, c]) => c);
    const onlyOwn = [...own].filter(([key]) => !base.has(key)).map(([, c]) => c);
    const changed = changedClaims(own, base);
    if (onlyFirst.length === 0 && onlyOwn.length === 0 && changed.length === 0) continue;
    const what = [
      ...(onlyFirst.length ? [`${claimCount(onlyFirst)} only in ${runName(first)}`] : []),
      ...(onlyOwn.length ? [`${claimCount(onlyOwn)} only in ${runName(run)}`] : []),
      ...(changed.length ? [`${claimCount(changed)} with another quote, URL or gold label`] : []),
    ].join('; ');
    throw new CompareError(
      `runs ${runName(first)} and ${runName(run)} are not of the same claims: ${what}${datasets(first, run)}; ` +
        `compare runs of one dataset (evaluate --tasks DIR with the same DIR)`,
    );
  }
}

/** The oracle's evidence on a row, the fields it has. */
function evidenceOf(row: ClaimRow): OracleEvidence {
  const { diagnosis, note, context, selector, nearest, drift, asOf } = row;
  return Object.fromEntries(
    Object.entries({ diagnosis, note, context, selector, nearest, drift, asOf }).filter(([, v]) => v !== undefined),
  );
}

/**
 * An agent's report with the oracle's evidence on each of its rows (matched by task and claim id) and the oracle's run
 * folder relative to the report's own: its page then shows, on a claim the agent reported nothing on or answered
 * wrongly, what the oracle found, marked as the oracle's (html.ts).
 */
export function withOracleEvidence(
  report: EvaluationReport,
  oracle: EvaluationReport,
  oracleRun: string,
): EvaluationReport {
  const diagnosed = new Map<string, ClaimRow>();
  for (const t of oracle.tasks)
    for (const r of t.rows) if (r.diagnosis !== undefined) diagnosed.set(claimKey(t.task, r.id), r);
  const tasks = report.tasks.map((t) => ({
    ...t,
    rows: t.rows.map((r) => {
      const o = diagnosed.get(claimKey(t.task, r.id));
      return o ? { ...r, oracle: evidenceOf(o) } : r;
    }),
  }));
  return { ...report, oracle_run: oracleRun, tasks };
}

/** A folder's own name ("agent-2" of "evaluate-out/agent-2"), when it has one. */
function folderName(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  const name = basename(resolve(dir));
  return name === '' ? undefined : name;
}

/**
 * A path as a command prints it: relative to the working folder when it lies inside it ("evaluate-out/oracle", "."),
 * absolute otherwise ("/tmp/runs/oracle", never "../../tmp/runs/oracle").
 */
export function cwdRelativePath(path: string, cwd = process.cwd()): string {
  const abs = resolve(cwd, path);
  const rel = relative(cwd, abs);
  if (rel === '') return '.';
  return rel.split(sep)[0] === '..' || isAbsolute(rel) ? abs : rel;
}

/**
 * The comparison with its folders (each agent's and the oracle's, which must be paths) given relative to `base`, where
 * its report.json and report.html are written, so the page's links work wherever the folder is opened; names unchanged.
 */
export function relocate(c: Comparison, base: string): Comparison {
  const rel = (dir: string) => relative(resolve(base), resolve(dir)) || '.';
  return {
    ...c,
    oracle: rel(c.oracle),
    agents: c.agents.map((a) => (a.dir === undefined ? a : { ...a, dir: rel(a.dir) })),
  };
}

/** "40% (2/5)" for a cell, "-" where the agent has no such claims. */
