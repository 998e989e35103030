// Comparing agents on one dataset: mean reward and accuracy split by the oracle's diagnosis of each claim, from live or finished bench runs.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BenchReport, ClaimRow, TaskRun } from './bench.js';
import { readJsonLines } from './dataset.js';
import { readTextFile } from '../messages.js';

/**
 * The rows of the comparison, in the order a reader scans them: found, then the no_match kinds
 * from "the words are there, mangled" to "nothing like it", then the sources that could not be read.
 * `drifted` is the diagnosis; `source_drifted` overlaps the others (any claim whose source changed since labelling).
 */
export const DIAGNOSIS_ORDER = [
  'verbatim', 'extraction_artifact', 'near_miss', 'partial', 'not_found', 'drifted',
  'paywall', 'fetch_failed', 'empty', 'unsupported', 'invalid_claim',
] as const;

/** Claims the oracle's report says nothing about (no report, or a claim it did not judge). */
export const NO_DIAGNOSIS = 'no_diagnosis';
/** The overlapping row: claims whose source's live bytes no longer hash to the claim's evidence (the oracle's `drift: changed`). */
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
  [NO_DIAGNOSIS]: 'claims without an oracle diagnosis',
  [SOURCE_DRIFTED]: 'claims on drifted sources',
};

/** One agent's answers on one group of claims. */
export interface GroupScore {
  claims: number;
  correct: number;
  /** Claims the agent answered `verbatim`. */
  answered_verbatim: number;
  /** correct / claims. */
  accuracy: number;
}

/** One agent in the comparison: its run's totals as the run's report gives them, and its scores by diagnosis. */
export interface AgentScore extends Pick<BenchReport, 'mean_reward' | 'baseline_mean_reward' | 'claims' | 'correct'> {
  /** oracle, baseline or the shell command, as the run's report gives it. */
  agent: string;
  /** The agent's name in columns and sentences: the agent itself when short, agent-N (its position) for a long command. */
  label: string;
  /** The run's folder (its report.json, report.html and trials/), when known. */
  dir?: string;
  /** Keyed by the oracle's diagnosis (DIAGNOSIS_ORDER, NO_DIAGNOSIS) and SOURCE_DRIFTED; only groups with claims. */
  by_diagnosis: Record<string, GroupScore>;
  /** The run's own advice (e.g. every source of a task failed). */
  advice: string[];
}

export interface Comparison {
  /** Where the diagnoses came from: the oracle run's folder (or its name when it has none). */
  oracle: string;
  /** The groups with claims, in DIAGNOSIS_ORDER, then NO_DIAGNOSIS, then SOURCE_DRIFTED; with the claim count of the first agent's run. */
  groups: { diagnosis: string; claims: number }[];
  agents: AgentScore[];
  /** "baseline answers verbatim on 0% of extraction artifacts (0/3), right on 100%", one per agent and group. */
  sentences: string[];
}

/** A finished bench run: its report and where it lives. */
export interface BenchRun {
  report: BenchReport;
  dir?: string;
}

/** A run folder that cannot be compared: the message names the folder and what is wrong. */
export class CompareError extends Error {}

/** What the oracle said about one claim. */
interface OracleView {
  diagnosis: string;
  drifted: boolean;
}

/** Longest agent name used as its column header; longer ones (and any command with a space) are named agent-N. */
const MAX_LABEL_CHARS = 24;

const claimKey = (task: string, id: string): string => `${task}\u0000${id}`;

/** The oracle's diagnosis of every claim, keyed by task and id. */
function oracleViews(oracle: BenchReport): Map<string, OracleView> {
  const views = new Map<string, OracleView>();
  for (const t of oracle.tasks) {
    for (const row of t.rows) {
      if (row.diagnosis === undefined) continue;
      views.set(claimKey(t.task, row.id), { diagnosis: row.diagnosis, drifted: row.drift === 'changed' });
    }
  }
  return views;
}

const emptyScore = (): GroupScore => ({ claims: 0, correct: 0, answered_verbatim: 0, accuracy: 0 });

function groupOrder(name: string): number {
  const i = (DIAGNOSIS_ORDER as readonly string[]).indexOf(name);
  if (i >= 0) return i;
  if (name === NO_DIAGNOSIS) return DIAGNOSIS_ORDER.length + 1;
  if (name === SOURCE_DRIFTED) return DIAGNOSIS_ORDER.length + 2;
  return DIAGNOSIS_ORDER.length; // a code this version does not know: after the known ones
}

function scoreAgent(run: BenchRun, views: Map<string, OracleView>): AgentScore {
  const groups = new Map<string, GroupScore>();
  const add = (name: string, row: ClaimRow) => {
    const g = groups.get(name) ?? emptyScore();
    g.claims++;
    if (row.correct) g.correct++;
    if (row.answer === 'verbatim') g.answered_verbatim++;
    groups.set(name, g);
  };
  for (const t of run.report.tasks) {
    for (const row of t.rows) {
      const view = views.get(claimKey(t.task, row.id));
      add(view?.diagnosis ?? NO_DIAGNOSIS, row);
      if (view?.drifted) add(SOURCE_DRIFTED, row);
    }
  }
  const by = [...groups].sort((a, b) => groupOrder(a[0]) - groupOrder(b[0]));
  for (const [, g] of by) g.accuracy = g.claims ? g.correct / g.claims : 0;
  const r = run.report;
  return {
    agent: r.agent,
    label: r.agent,
    ...(run.dir ? { dir: run.dir } : {}),
    mean_reward: r.mean_reward,
    baseline_mean_reward: r.baseline_mean_reward,
    claims: r.claims,
    correct: r.correct,
    by_diagnosis: Object.fromEntries(by),
    advice: r.advice ?? [],
  };
}

const pct = (n: number, d: number): string => `${d ? Math.round((100 * n) / d) : 0}%`;

/** The group's name in a sentence. */
export function groupName(diagnosis: string): string {
  return GROUP_NAME[diagnosis] ?? `claims diagnosed ${diagnosis}`;
}

/** "baseline answers verbatim on 0% of extraction artifacts (0/3), right on 100% (3/3)". */
function sentence(agent: string, diagnosis: string, g: GroupScore): string {
  return `${agent} answers verbatim on ${pct(g.answered_verbatim, g.claims)} of ${groupName(diagnosis)} (${g.answered_verbatim}/${g.claims}), right on ${pct(g.correct, g.claims)} (${g.correct}/${g.claims})`;
}

/**
 * Scores each run against the oracle's diagnosis of the same claims (matched by task name and
 * claim id). The oracle run may be one of `runs` or a run of its own.
 */
export function compareRuns(runs: readonly BenchRun[], oracle: BenchRun): Comparison {
  const views = oracleViews(oracle.report);
  const agents = runs.map((r) => scoreAgent(r, views));
  // A long command is named by its position (the full command is in the legend); two runs of one agent get their folder after the name.
  agents.forEach((a, i) => {
    if (a.agent.length > MAX_LABEL_CHARS || /\s/.test(a.agent)) a.label = `agent-${i + 1}`;
  });
  const seen = new Map<string, number>();
  for (const a of agents) seen.set(a.label, (seen.get(a.label) ?? 0) + 1);
  agents.forEach((a, i) => {
    if ((seen.get(a.label) ?? 0) > 1) a.label = `${a.label} (${a.dir ?? `run ${i + 1}`})`;
  });
  const names = new Set<string>();
  for (const a of agents) for (const d of Object.keys(a.by_diagnosis)) names.add(d);
  const groups = [...names].sort((a, b) => groupOrder(a) - groupOrder(b)).map((diagnosis) => ({
    diagnosis,
    claims: Math.max(...agents.map((a) => a.by_diagnosis[diagnosis]?.claims ?? 0)),
  }));
  const sentences = agents.flatMap((a) => groups.flatMap(({ diagnosis }) => {
    const g = a.by_diagnosis[diagnosis];
    return g ? [sentence(a.label, diagnosis, g)] : [];
  }));
  return { oracle: oracle.dir ?? oracle.report.agent, groups, agents, sentences };
}

/** "40% (2/5)" for a cell, "-" where the agent has no such claims. */
function cell(g: GroupScore | undefined): string {
  return g ? `${pct(g.correct, g.claims)} (${g.correct}/${g.claims})` : '-';
}

/** The comparison for a terminal: one column per agent, mean reward then accuracy per oracle diagnosis, then the sentences. */
export function comparisonTable(c: Comparison): string {
  const heads = c.agents.map((a) => a.label);
  const first = Math.max('mean reward'.length, ...c.groups.map((g) => g.diagnosis.length + 8));
  const cols = c.agents.map((a, i) => Math.max(heads[i]!.length, 12, ...c.groups.map((g) => cell(a.by_diagnosis[g.diagnosis]).length)));
  const line = (label: string, cells: string[]) => `${label.padEnd(first)}  ${cells.map((s, i) => s.padStart(cols[i]!)).join('  ')}`.trimEnd();
  const rule = '-'.repeat(first + cols.reduce((n, w) => n + w + 2, 0));
  const lines = [
    line('', heads),
    rule,
    line('mean reward', c.agents.map((a) => a.mean_reward.toFixed(3))),
    line('claims right', c.agents.map((a) => `${pct(a.correct, a.claims)} (${a.correct}/${a.claims})`)),
    rule,
    `accuracy by the oracle's diagnosis of each claim (from ${c.oracle}):`,
    ...c.groups.map((g) => line(`${g.diagnosis} (${g.claims})`, c.agents.map((a) => cell(a.by_diagnosis[g.diagnosis])))),
    '',
    ...c.sentences,
  ];
  const named = c.agents.filter((a) => a.label !== a.agent);
  if (named.length) lines.push('', ...named.map((a) => `${a.label}: ${a.agent}`));
  const advice = c.agents.flatMap((a) => a.advice.map((line) => `${a.label}: ${line}`));
  if (advice.length) lines.push('', ...advice);
  return lines.join('\n');
}

/** report.json of a comparison: what the comparison was made of, then the comparison. */
export function comparisonJson(c: Comparison): string {
  return `${JSON.stringify({ kind: 'comparison', ...c }, null, 2)}\n`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a JSON file, with errors naming it. */
function readJson(path: string, what: string): unknown {
  const text = readTextFile(path, (reason, code) => new CompareError(`${what}: ${code === 'ENOENT' ? 'no report.json (not a finished bench run)' : `report.json: ${reason}`}`));
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
    const r = lines.get(row.id);
    if (row.diagnosis === undefined && typeof r?.diagnosis === 'string') row.diagnosis = r.diagnosis;
    if (row.drift === undefined && typeof r?.drift === 'string') row.drift = r.drift;
  }
}

/** A bench report as read back from report.json, checked field by field (it is a file on disk, possibly from another version). */
function parseReport(v: unknown, what: string): BenchReport {
  if (!isRecord(v)) throw new CompareError(`${what}: report.json is not an object`);
  for (const f of ['agent'] as const) if (typeof v[f] !== 'string') throw new CompareError(`${what}: report.json has no "${f}"`);
  for (const f of ['mean_reward', 'claims', 'correct'] as const) if (typeof v[f] !== 'number') throw new CompareError(`${what}: report.json: "${f}" is not a number`);
  if (!Array.isArray(v.tasks)) throw new CompareError(`${what}: report.json has no "tasks" list`);
  v.tasks.forEach((t, i) => {
    if (!isRecord(t) || typeof t.task !== 'string' || !Array.isArray(t.rows)) throw new CompareError(`${what}: report.json: task ${i + 1} has no "task" name or "rows" list`);
    t.rows.forEach((r, j) => {
      if (!isRecord(r) || typeof r.id !== 'string' || typeof r.correct !== 'boolean') throw new CompareError(`${what}: report.json: task ${t.task}, row ${j + 1} has no "id" or "correct"`);
    });
  });
  return { baseline_mean_reward: 0, advice: [], ...v } as unknown as BenchReport;
}

/** What a run folder holds: one bench run, or the runs of a comparison and the oracle run it was split by. */
export interface RunFolder {
  runs: BenchRun[];
  /** The oracle run: the folder itself when its agent is the oracle, or the comparison's oracle folder. */
  oracle?: BenchRun;
}

/**
 * The finished runs in a folder: a bench run (report.json of one agent, rows filled from its
 * trials/ when report.json lacks diagnoses), or a comparison `bench --agent A --agent B` wrote
 * (its report.json lists the agents' folders and the oracle's): each of them.
 */
export function readRunFolder(dirArg: string): RunFolder {
  const dir = resolve(dirArg);
  const what = `run ${dirArg}`;
  if (!existsSync(dir)) throw new CompareError(`${what}: no such folder`);
  if (!statSync(dir).isDirectory()) throw new CompareError(`${what}: not a folder`);
  const json = readJson(join(dir, 'report.json'), what);
  if (isRecord(json) && json.kind === 'comparison') {
    if (!Array.isArray(json.agents)) throw new CompareError(`${what}: report.json: a comparison without an "agents" list`);
    const runs = json.agents.flatMap((a, i) => {
      if (!isRecord(a) || typeof a.dir !== 'string') throw new CompareError(`${what}: report.json: agent ${i + 1} has no "dir"`);
      return readRunFolder(join(dirArg, a.dir)).runs;
    });
    const oracleDir = typeof json.oracle === 'string' && existsSync(join(dir, json.oracle, 'report.json')) ? join(dirArg, json.oracle) : undefined;
    return { runs, ...(oracleDir ? { oracle: readRunFolder(oracleDir).runs[0] } : {}) };
  }
  const report = parseReport(json, what);
  for (const t of report.tasks) fillFromTrials(dir, t);
  const run: BenchRun = { report, dir: dirArg };
  return { runs: [run], ...(report.agent === 'oracle' ? { oracle: run } : {}) };
}

/** The folder each agent of `bench --agent A --agent B ...` runs in, under --out: its name for oracle and baseline, agent-N (its position) for a command. */
export function agentFolders(agents: readonly string[]): string[] {
  const used = new Set<string>();
  return agents.map((agent, i) => {
    let name = agent === 'oracle' || agent === 'baseline' ? agent : `agent-${i + 1}`;
    if (used.has(name)) name = `${name}-${i + 1}`; // the same agent twice
    used.add(name);
    return name;
  });
}
