// A finished evaluate run read back from its folder (report.json, else its trials), and the agents' folder names.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readJsonLines } from '../task/task-dir.js';
import { readTextFile } from '../messages.js';
import type * as z from 'zod';
import { ComparisonFolderSchema, readReportLine } from '../contract.js';
import { EvaluationReportSchema, type EvaluationReport, type TaskRun } from './evaluation-report.js';
import { UserError } from '../errors.js';
import { CompareError, type EvaluationRun } from './compare.js';

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
interface RunFolder {
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
