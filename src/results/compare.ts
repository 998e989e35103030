// Comparing agents on one dataset: mean reward and accuracy split by the oracle's diagnosis of each claim, from live or
// finished evaluate runs.
import { existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { readJsonLines } from '../task/task-dir.js';
import { unread } from './failures.js';
import { readTextFile } from '../messages.js';
import type * as z from 'zod';
import { ComparisonFolderSchema, DIAGNOSES, LABELS, readReportLine } from '../contract.js';
import {
  EvaluationReportSchema,
  type EvaluationReport,
  type ClaimRow,
  type OracleEvidence,
  type TaskRun,
  runShape,
} from './evaluation-report.js';
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
class CompareError extends UserError {
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

const pct = (n: number, d: number): string => `${d ? Math.round((100 * n) / d) : 0}%`;

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
export function shownPath(path: string, cwd = process.cwd()): string {
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
function cell(g: GroupScore | undefined): string {
  return g ? `${pct(g.correct, g.claims)} (${g.correct}/${g.claims})` : '-';
}

/** A cell of a missing or invalid column, "2/5", "-" where the agent has no such claims. */
const countCell = (
  g: { claims: number; missing: number; invalid: number } | undefined,
  kind: 'missing' | 'invalid',
): string => (g ? `${g[kind]}/${g.claims}` : '-');

/** The widest a comparison table may be, in columns: a terminal's 100, for six agents with long names and all. */
export const MAX_TABLE_COLUMNS = 100;

/**
 * How the table is laid out: agents named in the header or by a key ([1], [2], ...) with a legend, cells with their
 * counts ("60% (3/5)") or the share alone ("60%"), and each agent's missing and invalid answers in columns of their own
 * or only in its legend line and the sentences. The first that fits MAX_TABLE_COLUMNS is used.
 */
interface Layout {
  keyed: boolean;
  counts: boolean;
  gapColumns: boolean;
}

const LAYOUTS: readonly Layout[] = [
  { keyed: false, counts: true, gapColumns: true },
  { keyed: true, counts: true, gapColumns: true },
  { keyed: true, counts: true, gapColumns: false },
  { keyed: true, counts: false, gapColumns: false },
];

/** One column of the table: its header, and its cells for the totals and for each group. */
interface Column {
  head: string;
  total: (a: AgentScore) => string;
  summary: (a: AgentScore) => string;
  /** A failure-shape share of the agent's (its own column only). */
  shape: (a: AgentScore, key: 'answered' | 'overclaim' | 'missed') => string;
  group: (g: GroupScore | undefined) => string;
  agent: AgentScore;
}

/** An agent's key in a keyed table. */
const agentKey = (i: number): string => `[${i + 1}]`;

/** The columns of a layout: each agent's own, and (when laid out so) its missing and invalid columns beside it. */
function columnsOf(c: Comparison, layout: Layout): Column[] {
  const share = (g: GroupScore | undefined) => (g ? pct(g.correct, g.claims) : '-');
  return c.agents.flatMap((a, i) => {
    const head = layout.keyed ? agentKey(i) : a.label;
    const own: Column = {
      head,
      agent: a,
      total: (x) => x.mean_reward.toFixed(3),
      summary: (x) =>
        layout.counts ? `${pct(x.correct, x.claims)} (${x.correct}/${x.claims})` : pct(x.correct, x.claims),
      shape: (x, key) => (x.shape ? `${Math.round(100 * x.shape[key])}%` : '-'),
      group: layout.counts ? cell : share,
    };
    if (!layout.gapColumns || (a.missing === 0 && a.invalid === 0)) return [own];
    return [
      own,
      ...(['missing', 'invalid'] as const).map(
        (kind): Column => ({
          head: `${head} ${kind}`,
          agent: a,
          total: () => '',
          summary: (x) => countCell(x, kind),
          shape: () => '',
          group: (g) => countCell(g, kind),
        }),
      ),
    ];
  });
}

/** The table's lines in a layout: the header, the totals, the heading of the groups and a row for each group. */
function tableLines(c: Comparison, layout: Layout): { lines: string[]; columns: Column[] } {
  const columns = columnsOf(c, layout);
  const heads = columns.map((col) => col.head);
  const first = Math.max('mean reward'.length, ...c.groups.map((g) => `${g.diagnosis} (${g.claims})`.length));
  const min = layout.counts ? 10 : 5;
  const cols = columns.map((col, i) =>
    Math.max(
      heads[i]!.length,
      min,
      col.summary(col.agent).length,
      ...c.groups.map((g) => col.group(col.agent.by_diagnosis[g.diagnosis]).length),
    ),
  );
  const line = (label: string, cells: string[]) =>
    `${label.padEnd(first)}  ${cells.map((s, i) => s.padStart(cols[i]!)).join('  ')}`.trimEnd();
  const rule = '-'.repeat(first + cols.reduce((n, w) => n + w + 2, 0));
  const lines = [
    line('', heads),
    rule,
    line(
      'mean reward',
      columns.map((col) => col.total(col.agent)),
    ),
    line(
      'claims right',
      columns.map((col) => col.summary(col.agent)),
    ),
    // reward.json's failure shape: how the agent was wrong, not only how often.
    ...(['answered', 'overclaim', 'missed'] as const).map((key) =>
      line(
        key,
        columns.map((col) => col.shape(col.agent, key)),
      ),
    ),
    rule,
    `accuracy by the oracle's diagnosis of each claim (from ${c.oracle}):`,
    ...c.groups.map((g) =>
      line(
        `${g.diagnosis} (${g.claims})`,
        columns.map((col) => col.group(col.agent.by_diagnosis[g.diagnosis])),
      ),
    ),
  ];
  return { lines, columns };
}

/** The widest line of a table, its heading of the groups (prose, which a terminal wraps) aside. */
const tableWidth = (lines: readonly string[]): number =>
  Math.max(...lines.filter((l) => !l.startsWith('accuracy by')).map((l) => l.length));

/**
 * A keyed table's legend: each agent's key, name, totals (counts and, without gap columns, its missing and invalid
 * answers) and command.
 */
function legend(c: Comparison, layout: Layout): string[] {
  return c.agents.map((a, i) => {
    const gaps =
      !layout.gapColumns && (a.missing > 0 || a.invalid > 0)
        ? `, ${a.missing} with no answer, ${a.invalid} invalid`
        : '';
    const command = a.label !== a.agent ? `: ${a.agent}` : '';
    return `${agentKey(i)} ${a.label} (${a.correct}/${a.claims} right${gaps})${command}`;
  });
}

/**
 * The comparison for a terminal: one column per agent, mean reward then accuracy per oracle diagnosis, then the
 * sentences. An agent with missing or invalid answers gets two more columns beside its own, "<name> missing" and
 * "<name> invalid", counting them (its accuracy counts them as not right). When that is wider than
 * MAX_TABLE_COLUMNS (six agents with long names are 270), the agents are keyed [1], [2], ... with a legend under the
 * table, then the missing and invalid columns give way to the legend and the sentences, then the cells to their
 * shares alone (each group's row names its claim count). report.json is the same whatever the table's layout.
 */
export function comparisonTable(c: Comparison): string {
  const tables = LAYOUTS.map((layout) => ({ layout, ...tableLines(c, layout) }));
  const { layout, lines, columns } =
    tables.find((t) => tableWidth(t.lines) <= MAX_TABLE_COLUMNS) ?? tables[tables.length - 1]!;
  const out = [...lines];
  if (layout.keyed) out.push('', ...legend(c, layout));
  out.push('', ...c.sentences);
  if (columns.length > c.agents.length)
    out.push(
      '',
      'missing: claims with no answer; invalid: answers neither verbatim nor no_match (both counted as not right)',
    );
  const named = c.agents.filter((a) => a.label !== a.agent);
  if (!layout.keyed && named.length) out.push('', ...named.map((a) => `${a.label}: ${a.agent}`));
  const advice = c.agents.flatMap((a) => a.advice.map((line) => `${a.label}: ${line}`));
  if (advice.length) out.push('', ...advice);
  return out.join('\n');
}

/** report.json of a comparison: what the comparison was made of, then the comparison. */
export function comparisonJson(c: Comparison): string {
  return `${JSON.stringify({ kind: 'comparison', ...c }, null, 2)}\n`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a JSON file, with errors naming it. */
function readJson(path: string, what: string): unknown {
  const text = readTextFile(
    path,
    (reason, code) =>
      new CompareError(
        `${what}: ${code === 'ENOENT' ? 'no report.json (not a finished evaluate run)' : `report.json: ${reason}`}`,
      ),
  );
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CompareError(`${what}: report.json is not JSON (${(err as Error).message})`);
  }
}

/**
 * A row's diagnosis from the trial's evidence report (trials/<task>/logs/agent/report.jsonl),
 * for report.json files whose rows do not carry it.
 */
function fillFromTrials(dir: string, task: TaskRun): void {
  if (task.rows.every((r) => r.diagnosis !== undefined)) return;
  const path = join(dir, 'trials', task.task, 'logs', 'agent', 'report.jsonl');
  if (!existsSync(path)) return;
  const lines = new Map(readJsonLines(path).map((r) => [String(r.id), r]));
  for (const row of task.rows) {
    const r = readReportLine(lines.get(row.id));
    row.diagnosis ??= r.diagnosis;
    row.drift ??= r.drift;
  }
}

/** The number fields a report must have (the comparison's totals). */
const REPORT_NUMBERS: readonly PropertyKey[] = ['mean_reward', 'claims', 'correct'];

/**
 * What is wrong with a report.json, from the first problem its schema found: the field, in today's words. `v` is the
 * report as read, for the name of the task a bad row is in.
 */
function reportProblem(issue: z.core.$ZodIssue | undefined, v: unknown): string {
  const [field, task, part, row] = issue?.path ?? [];
  if (field === undefined) return 'report.json is not an object';
  if (field === 'agent') return 'report.json has no "agent"';
  if (field === 'name') return 'report.json: "name" is not a string';
  if (REPORT_NUMBERS.includes(field)) return `report.json: "${String(field)}" is not a number`;
  if (field === 'tasks' && typeof task === 'number') {
    if (part === 'rows' && typeof row === 'number') {
      const tasks = isRecord(v) && Array.isArray(v.tasks) ? v.tasks : [];
      const t: unknown = tasks[task];
      return `report.json: task ${isRecord(t) ? String(t.task) : task + 1}, row ${row + 1} has no "id" or "correct"`;
    }
    return `report.json: task ${task + 1} has no "task" name or "rows" list`;
  }
  if (field === 'tasks') return 'report.json has no "tasks" list';
  return `report.json: "${issue?.path.map(String).join('.')}": ${issue?.message}`;
}

/**
 * An evaluation report as read back from report.json, through its schema (evaluation-report.ts EvaluationReportSchema)
 * (it is a file on disk, possibly from another version).
 */
function parseReport(v: unknown, what: string): EvaluationReport {
  const parsed = EvaluationReportSchema.safeParse(v);
  if (!parsed.success) throw new CompareError(`${what}: ${reportProblem(parsed.error.issues[0], v)}`);
  return parsed.data;
}

/** What a run folder holds: one evaluate run, or the runs of a comparison and the oracle run it was split by. */
export interface RunFolder {
  runs: EvaluationRun[];
  /** The oracle run: the folder itself when its agent is the oracle, or the comparison's oracle folder. */
  oracle?: EvaluationRun;
}

/**
 * The finished runs in a folder: an evaluation run (report.json of one agent, rows filled from its
 * trials/ when report.json lacks diagnoses), or a comparison `evaluate --agent A --agent B` wrote
 * (its report.json lists the agents' folders and the oracle's): each of them.
 */
export function readRunFolder(dirArg: string): RunFolder {
  const dir = resolve(dirArg);
  const what = `run ${dirArg}`;
  if (!existsSync(dir)) throw new CompareError(`${what}: no such folder`);
  if (!statSync(dir).isDirectory()) throw new CompareError(`${what}: not a folder`);
  const json = readJson(join(dir, 'report.json'), what);
  if (isRecord(json) && json.kind === 'comparison') {
    const folder = ComparisonFolderSchema.safeParse(json);
    if (!folder.success) {
      const [, agent] = folder.error.issues[0]?.path ?? [];
      throw new CompareError(
        `${what}: report.json: ` +
          `${typeof agent === 'number' ? `agent ${agent + 1} has no "dir"` : 'a comparison without an "agents" list'}`,
      );
    }
    const { agents, oracle } = folder.data;
    const runs = agents.flatMap((a) => readRunFolder(join(dirArg, a.dir)).runs);
    const oracleDir =
      oracle !== undefined && existsSync(join(dir, oracle, 'report.json')) ? join(dirArg, oracle) : undefined;
    return { runs, ...(oracleDir ? { oracle: readRunFolder(oracleDir).runs[0] } : {}) };
  }
  const report = parseReport(json, what);
  for (const t of report.tasks) fillFromTrials(dir, t);
  const run: EvaluationRun = { report, dir: dirArg };
  return { runs: [run], ...(report.agent === 'oracle' ? { oracle: run } : {}) };
}

/** A --name evaluate cannot use: the message names it and says why. */
export class AgentNameError extends UserError {
  override readonly name = 'AgentNameError';
}

/** A name that is one folder on any system: letters, digits, '.', '_', '-', starting with a letter or digit. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** What a comparison's --out holds besides the agents' folders. */
const TAKEN_NAMES = ['report.json', 'report.html'];

/**
 * Each agent's name in `evaluate --agent A --agent B ... [--name N ...]`: the i-th --name names the i-th --agent; the
 * others are named as evaluate always has, oracle and baseline by name, a command agent-N (its position), the same
 * agent twice kept apart. With several agents the name is also its folder under --out. Refused (AgentNameError): a name
 * that is not a safe folder name, more names than agents, two agents of one name (letter case apart, as some file
 * systems have it), and the names oracle and baseline for other agents (the oracle's run, when it is not among them, is
 * oracle/).
 */
export function agentFolders(agents: readonly string[], names: readonly string[] = []): string[] {
  if (names.length > agents.length)
    throw new AgentNameError(
      `--name given ${names.length} times for ${agents.length} ${agents.length === 1 ? 'agent' : 'agents'}: the ` +
        `i-th --name names the i-th --agent`,
    );
  for (const [i, name] of names.entries()) {
    if (!SAFE_NAME.test(name))
      throw new AgentNameError(
        `--name ${JSON.stringify(name)}: not a safe folder name (1 to 64 letters, digits, '.', '_' or '-', ` +
          `starting with a letter or digit)`,
      );
    const lower = name.toLowerCase();
    if (TAKEN_NAMES.includes(lower))
      throw new AgentNameError(`--name ${name}: the comparison's own file is named so; pick another name`);
    if ((lower === 'oracle' || lower === 'baseline') && agents[i] !== lower)
      throw new AgentNameError(
        `--name ${name}: that name is the ${lower} agent's, and --agent number ${i + 1} is not it; pick another name`,
      );
  }
  // Each name used so far (lower case), with the agent it names.
  const used = new Map<string, number>();
  return agents.map((agent, i) => {
    let name = names[i];
    if (name === undefined) {
      name = agent === 'oracle' || agent === 'baseline' ? agent : `agent-${i + 1}`;
      const before = used.get(name.toLowerCase());
      // the same agent twice, both named by default
      if (before !== undefined && before >= names.length) name = `${name}-${i + 1}`;
    }
    const other = used.get(name.toLowerCase());
    if (other !== undefined)
      throw new AgentNameError(
        `--name ${names[i] ?? names[other] ?? name}: agents ${other + 1} and ${i + 1} would both be named ` +
          `${name}${names[i] === undefined ? ` (agent ${i + 1} by default: give it a --name too)` : ''}`,
      );
    used.set(name.toLowerCase(), i);
    return name;
  });
}
