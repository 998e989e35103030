// `quotecheck evaluate`: run a Harbor dataset locally (agent, then verifier, per task), print the table, write
// report.json and report.html.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import cliProgress from 'cli-progress';
import { EvaluationSetupError, resolveIsolation, runEvaluation } from '../../evaluate/evaluate.js';
import {
  compareRuns,
  relocate,
  cwdRelativePath,
  withOracleEvidence,
  type EvaluationRun,
} from '../../results/compare.js';
import { comparisonTable } from '../../results/compare-table.js';
import { AgentNameError, agentFolders } from '../../results/run-folders.js';
import { DatasetError, listTasks } from '../../task/task-dir.js';
import { evaluationTable, writeEvaluationReports, writeComparisonReports } from '../../results/report-files.js';
import { cliIo, errorLine, etaText, refuseInput } from '../progress.js';
import { packageRoot } from '../../package-root.js';
import type { VerifierMode } from '../../task/verifier-mode.js';
import type { EvaluationReport, Isolation } from '../../results/evaluation-report.js';
import { isolationLimits, isolationSummary } from '../../results/isolations.js';

interface EvaluateCommandOptions {
  tasks: string;
  /**
   * One agent (today's layout under --out) or several, run one after another, each in its own folder, then compared.
   */
  agent?: string | string[];
  /**
   * The i-th names the i-th agent, in reports, comparisons and (several agents) its folder under --out; default oracle,
   * baseline, agent-N.
   */
  name?: string | string[];
  jobs?: number;
  out: string;
  isolation: Isolation | 'auto';
  /** On an engine, the agent container's network: the task's, the host's, or the host's for loopback sources. */
  agentNetwork?: 'auto' | 'task' | 'host';
  /** The verifier as each task says, or forced: separate (its own container) or shared (the agent's). */
  verifier?: VerifierMode | 'task';
  /** The agent phase as the task's agent user, or as root (a harness that ignores [agent] user). */
  agentUser?: 'task' | 'root';
  /** Host variables the agent gets, by name. */
  agentEnv?: string[];
  /** A folder of the agent's own, read-only at /installed-agent. */
  agentDir?: string;
  replay?: string;
  quiet?: boolean;
}

/**
 * This package's root (package-root.ts), from dist/src/cli/ or src/cli/; this module's folder when there is none. Its
 * golden/ folder exists only in a checkout.
 */
function ownRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return packageRoot(here) ?? here;
}

/** The one line `--isolation paths` gets on stderr: what it does not stop. */
export function pathsWarning(): string {
  return `evaluate: paths isolation (not root): ${isolationLimits('paths').join('; ')}\n`;
}

/** The one line `--isolation namespace` gets on stderr: an emulation, not what a harness runs. */
function namespaceWarning(): string {
  return `evaluate: namespace isolation: ${isolationLimits('namespace').join('; ')}\n`;
}

/** What the golden tasks' sources need: the golden server, which the demo starts itself and `evaluate` does not. */
export const GOLDEN_SERVER_HINT =
  "the golden tasks' sources come from the golden server (127.0.0.1:41733): is it running? Start it with `node " +
  'dist/golden/server.js &` (after `npm run build`)';

/** Whether `tasksDir` is (inside) this repository's golden/ folder, whose sources only the golden server serves. */
export function isGoldenTasks(tasksDir: string, root = ownRoot()): boolean {
  const golden = join(root, 'golden');
  if (!existsSync(join(golden, 'server.ts'))) return false;
  const rel = relative(golden, resolve(tasksDir));
  // Inside golden/ when the relative path neither climbs out (..) nor is absolute (another drive or root).
  return rel === '' || (rel.split(sep)[0] !== '..' && !isAbsolute(rel));
}

export async function evaluateCommand(opts: EvaluateCommandOptions): Promise<number> {
  let total: number;
  // An empty --replay (a default of "$QUOTECHECK_REPLAY, else none" may give one) means none.
  if (opts.replay === '') opts = { ...opts, replay: undefined };
  if (opts.replay && !existsSync(opts.replay)) {
    errorLine(`--replay ${opts.replay}: no such file`);
    return 2;
  }
  try {
    total = listTasks(opts.tasks).length;
  } catch (err) {
    return refuseInput(err, DatasetError);
  }
  const given = typeof opts.agent === 'string' ? [opts.agent] : (opts.agent ?? []);
  const agents = given.length ? given : ['oracle'];
  const empty = agents.findIndex((a) => a.trim() === '');
  if (empty >= 0) {
    errorLine(`--agent number ${empty + 1} is empty (give oracle, baseline or a shell command)`);
    return 2;
  }
  let names: string[];
  try {
    names = agentFolders(agents, typeof opts.name === 'string' ? [opts.name] : (opts.name ?? []));
  } catch (err) {
    return refuseInput(err, AgentNameError);
  }
  const paths = (r: EvaluationReport) => `${isolationSummary(r.isolation)}; ${r.seconds.toFixed(1)} s`;
  try {
    // Decided once for every agent, and said once when it cannot stop what an agent may do.
    const isolation = resolveIsolation(opts.isolation);
    if (isolation === 'paths') cliIo().stderr.write(pathsWarning());
    if (isolation === 'namespace' && !opts.quiet) cliIo().stderr.write(namespaceWarning());
    return await runAgents({ ...opts, isolation }, agents, names, total, paths);
  } catch (err) {
    return refuseInput(err, EvaluationSetupError);
  }
}

/** Runs the agents (one, or several compared) and prints and writes their reports. */
async function runAgents(
  opts: EvaluateCommandOptions,
  agents: string[],
  names: string[],
  total: number,
  paths: (r: EvaluationReport) => string,
): Promise<number> {
  if (agents.length === 1) {
    const report = await runAgent(opts, agents[0]!, names[0]!, opts.out, total, false);
    const written = writeEvaluationReports(report, opts.out);
    cliIo().stdout.write(`${evaluationTable(report)}\n\nagent ${report.agent}; ${paths(report)}\n`);
    cliIo().stdout.write(`wrote ${written.json} and ${written.html}\n`);
    return 0;
  }
  // Several agents: one after another (they would compete for the same cores and sources), each in its own folder,
  // named by its name.
  const runs: EvaluationRun[] = [];
  for (const [i, agent] of agents.entries()) {
    const dir = join(opts.out, names[i]!);
    const report = await runAgent(opts, agent, names[i]!, dir, total, true);
    writeEvaluationReports(report, dir);
    const who = names[i] === agent ? agent : `${names[i]} (${agent})`;
    cliIo().stdout.write(
      `agent ${who}: mean reward ${report.mean_reward.toFixed(3)} (${report.correct}/${report.claims} claims ` +
        `right); ${paths(report)}; report in ${cwdRelativePath(join(dir, 'report.html'))}\n`,
    );
    runs.push({ report, dir: cwdRelativePath(dir) });
  }
  // The diagnoses come from the oracle's evidence reports: run it too when it is not one of the agents.
  const oracleAt = agents.indexOf('oracle');
  let oracle = runs[oracleAt];
  const oracleDir = join(opts.out, oracleAt >= 0 ? names[oracleAt]! : 'oracle');
  if (!oracle) {
    const dir = oracleDir;
    if (!opts.quiet)
      cliIo().stderr.write('evaluate: running the oracle too, for the diagnoses the comparison is split by\n');
    const report = await runAgent(opts, 'oracle', 'oracle', dir, total, true);
    writeEvaluationReports(report, dir);
    cliIo().stdout.write(
      `oracle (run for the diagnoses): mean reward ${report.mean_reward.toFixed(3)}; report in ` +
        `${cwdRelativePath(join(dir, 'report.html'))}\n`,
    );
    oracle = { report, dir: cwdRelativePath(dir) };
  }
  // Each other agent's report again, now with the oracle's evidence beside its own answers (html.ts).
  for (const [i, run] of runs.entries()) {
    const dir = join(opts.out, names[i]!);
    if (run !== oracle)
      writeEvaluationReports(withOracleEvidence(run.report, oracle.report, relative(dir, oracleDir)), dir);
  }
  // Printed with the folders as seen from here; written with them relative to --out, where the page's links start.
  const comparison = compareRuns(runs, oracle);
  const written = writeComparisonReports(relocate(comparison, opts.out), opts.out);
  cliIo().stdout.write(
    `\n${comparisonTable(comparison)}\n\nwrote ${cwdRelativePath(written.json)} and ${cwdRelativePath(written.html)}\n`,
  );
  return 0;
}

/** Runs one agent over the dataset into `outDir`, with progress on stderr (named by its name when several run). */
async function runAgent(
  opts: EvaluateCommandOptions,
  agent: string,
  name: string,
  outDir: string,
  total: number,
  several: boolean,
): Promise<EvaluationReport> {
  const who = several ? `${name}: ` : '';
  const bar =
    !opts.quiet && process.stderr.isTTY
      ? new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: `evaluate ${who.replace(/[{}]/g, '')}|{bar}| {value}/{total} tasks{left} | {task}`,
            hideCursor: true,
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  bar?.start(total, 0, { task: '', left: '' });
  let done = 0;
  const started = Date.now();
  // The time left at the pace of the tasks done so far (trials run `--jobs` at a time).
  const left = (): string => etaText(Date.now() - started, done / total);
  const report = await runEvaluation({
    tasksDir: opts.tasks,
    agent,
    name,
    jobs: opts.jobs,
    outDir,
    isolation: opts.isolation,
    ...(opts.agentNetwork ? { agentNetwork: opts.agentNetwork } : {}),
    replay: opts.replay,
    // A replay needs no server: then the generic advice (is the source in the archive?) is the right one.
    sourcesHint: !opts.replay && isGoldenTasks(opts.tasks) ? GOLDEN_SERVER_HINT : undefined,
    verifierMode: opts.verifier,
    agentUser: opts.agentUser,
    agentEnv: opts.agentEnv,
    agentDir: opts.agentDir,
    onTaskDone: (t) => {
      done++;
      const eta = done < total ? left() : '';
      if (bar) bar.update(done, { task: t.task, left: eta ? ` | ${eta}` : '' });
      else if (!opts.quiet)
        cliIo().stderr.write(
          `evaluate: ${who}${done}/${total} ${t.task} reward ${t.reward.toFixed(3)}${eta ? `, ${eta}` : ''}\n`,
        );
    },
  });
  bar?.stop();
  return report;
}
