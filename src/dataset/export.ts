// The benchmark builder's side: labelled claims in, a Harbor dataset out (tasks of at most N claims, as even as their
// sources allow).
import { existsSync, readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { isTaskName, TASK_NAME_RULE, type LabelledClaim } from './labelled.js';
import { ExportError } from './export-error.js';
import { plural } from '../messages.js';
import type { Layout } from '../task/layout.js';
import type { ImageOptions } from '../task/task-image.js';
import { verifierModeProblem, writeTaskFolder } from '../task/task-writer.js';
import { balancedPartition } from './balance.js';
import { packageName, type Author, type TaskPackage } from '../task/package-info.js';
import { refusedHost } from '../fetch/address.js';
import type { VerifierMode } from '../task/verifier-mode.js';
import { CONTAINER_PATHS, TASK_ARCHIVE } from '../task/paths.js';
import type { TaskNetworks } from '../task/task-toml.js';
import { instruction } from '../task/instruction.js';
import { bundledSkillDir, checkSkillDir, type TaskVariant } from '../task/variant.js';

/**
 * Tasks as the labelled file names them (`readLabelled`'s `taskField`): one per name, in the order names first appear.
 */
export function tasksByName(claims: readonly LabelledClaim[]): { names: string[]; tasks: LabelledClaim[][] } {
  const byName = new Map<string, LabelledClaim[]>();
  for (const c of claims) {
    const name = c.task ?? '';
    const list = byName.get(name);
    if (list) list.push(c);
    else byName.set(name, [c]);
  }
  return { names: [...byName.keys()], tasks: [...byName.values()] };
}

/**
 * Splits claims into tasks of at most `perTask` claims (a source cited by more claims is a task alone), as even as the
 * sources allow (src/dataset/balance.ts): claims citing the same source (the same URL once its fragment is dropped)
 * always land in the same task, so no source is fetched by two tasks; as few tasks as fit, and no tail task (a claim
 * or two beside tasks of ten) where an exchange of sources between tasks would even them out: 21 claims over 7
 * sources with --per-task 10 are three tasks of 7 when the sources' sizes allow it. Input order is kept within a
 * task (its claims in the file's order) but not across tasks: a task takes sources from anywhere in the file; tasks
 * are numbered by where their first claim is in it.
 */
export function planTasks(claims: readonly LabelledClaim[], perTask: number): LabelledClaim[][] {
  const groups = new Map<string, LabelledClaim[]>();
  for (const c of claims) {
    const g = groups.get(c.claim.fetchUrl);
    if (g) g.push(c);
    else groups.set(c.claim.fetchUrl, [c]);
  }
  const list = [...groups.values()];
  return balancedPartition(
    list.map((g) => g.length),
    perTask,
  ).map((task) => task.flatMap((g) => list[g]!));
}

/** The least, median and greatest of some numbers (the median of an even count is the mean of the middle two). */
interface Spread {
  min: number;
  median: number;
  max: number;
}

function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { min: sorted[0] ?? 0, median: median || 0, max: sorted[sorted.length - 1] ?? 0 };
}

/** A dataset's task sizes and no_match shares, and its tasks whose claims all carry one label. */
interface TaskSpread {
  sizes: Spread;
  /** Each task's share of gold no_match labels: its baseline's reward. */
  noMatch: Spread;
  /** Tasks (by index) whose claims are all `label`: the baseline scores 1 (no_match) or 0 (verbatim) on them. */
  oneLabel: { task: number; label: LabelledClaim['label']; claims: number }[];
}

export function taskSpread(tasks: readonly (readonly LabelledClaim[])[]): TaskSpread {
  const shares = tasks.map((t) => t.filter((c) => c.label === 'no_match').length / t.length);
  return {
    sizes: spreadOf(tasks.map((t) => t.length)),
    noMatch: spreadOf(shares),
    oneLabel: tasks.flatMap((t, task) =>
      shares[task] === 0 || shares[task] === 1 ? [{ task, label: t[0]!.label, claims: t.length }] : [],
    ),
  };
}

export interface ExportResult {
  tasks: { name: string; claims: number; sources: number; dir: string; urls: string[] }[];
}

export interface DatasetOptions {
  /** A frozen edition: each task ships its own sources as environment/sources.warc.gz, and its oracle replays them. */
  frozen?: boolean;
  /**
   * The Wayback Machine the oracle asks, when not https://web.archive.org; a frozen edition's replay needs none (its
   * WARC names the base).
   */
  waybackUrl?: string;
  /**
   * The sources are on a private network (tests, an intranet): the oracle's run and the tasks' MCP server get
   * --allow-private.
   */
  allowPrivate?: boolean;
  /** What each task gives the agent besides the instruction: the skill, the MCP server, both or neither. */
  variant?: TaskVariant;
  /** With `variant.skill`: the skill folder to ship (default: quotecheck's own skills/quote-verification/). */
  skillDir?: string;
  /** The folder layout: Harbor's (default) or SkillsBench 1.1's task.md. */
  layout?: Layout;
  /** The tasks' folder names, one per task (default: the prefix and the task's number). */
  taskNames?: readonly string[];
  /**
   * The registry org (export --org): each task's [task] name is `<org>/<task>` (Harbor's rule), with `description`,
   * `authors` and `keywords` beside it. Without it no task has a [task] table: it runs, but cannot be published.
   */
  org?: string;
  /** [task] description of every task (default: how many quotes it checks). */
  description?: string;
  authors?: readonly Author[];
  keywords?: readonly string[];
  /** [metadata] difficulty (none written when not given). */
  difficulty?: string;
  /**
   * Where each task's verifier runs: `separate` (Harbor's layout's default: an image of its own, built from tests/,
   * which gets only /app/answers.json) or `shared` (in the agent's container; SkillsBench 1.1's layout has only this).
   */
  verifierMode?: VerifierMode;
  /** What both images are built from beyond the task's files (export --base-image, --apt-version). */
  image?: ImageOptions;
  /** The networks each task asks for (export --agent-network, --verifier-network; templates.ts TASK_NETWORKS). */
  networks?: Partial<TaskNetworks>;
}

/** What every task of a dataset shares: its prefix, layout, variant and options. */
interface TaskPlan {
  prefix: string;
  layout: Layout;
  variant: TaskVariant;
  skillDir?: string;
  opts: DatasetOptions;
}

/** Task timeouts, the same in both layouts (Harbor's defaults for this kind of task). */
const AGENT_TIMEOUT_SEC = 600;
const VERIFIER_TIMEOUT_SEC = 120;

/**
 * What quotecheck is told in a task (the oracle's `run`, the MCP server): a Wayback Machine that is not
 * https://web.archive.org (the Wayback stub) in a plain edition, and --allow-private for sources on a private network.
 * A frozen edition's replay answers archive requests from the base its WARC recorded: it is told no --wayback-url.
 */
function toolArgs(opts: DatasetOptions): string[] {
  return [
    ...(opts.allowPrivate ? ['--allow-private'] : []),
    ...(opts.waybackUrl && !opts.frozen ? ['--wayback-url', opts.waybackUrl] : []),
  ];
}

/**
 * A task's [task] table: `<org>/<task>` and what the options give, the description by default how many quotes it
 * checks.
 */
function taskPackage(name: string, claims: number, opts: DatasetOptions): TaskPackage {
  return {
    name: packageName(opts.org!, name),
    description: opts.description ?? `Check ${plural(claims, 'quote')} against their sources: verbatim or no_match`,
    authors: opts.authors ?? [],
    keywords: opts.keywords ?? [],
  };
}

/** One task's folder: definition, environment (Dockerfile, claims, what the variant gives), oracle and verifier. */
function writeTask(dir: string, name: string, claims: readonly LabelledClaim[], plan: TaskPlan): void {
  const asOf = claims.some((c) => c.claim.verifyDate !== undefined || c.claim.evidenceSha256 !== undefined);
  writeTaskFolder(dir, {
    name,
    layout: plan.layout,
    claims: claims.map((c) => c.public),
    gold: Object.fromEntries(claims.map((c) => [c.claim.id, c.label])),
    instruction: instruction(
      claims.length,
      claims.map((c) => c.claim.id),
      undefined,
      {
        asOf,
        archive: plan.opts.frozen,
        waybackUrl: plan.opts.waybackUrl,
        variant: plan.variant,
        ...(plan.skillDir ? { skillName: basename(plan.skillDir) } : {}),
      },
    ),
    config: {
      ...(plan.opts.org !== undefined ? { package: taskPackage(name, claims.length, plan.opts) } : {}),
      ...(plan.opts.difficulty !== undefined ? { difficulty: plan.opts.difficulty } : {}),
      tags: ['quote-verification', plan.prefix, ...(plan.opts.frozen ? ['frozen'] : [])],
      agentTimeoutSec: AGENT_TIMEOUT_SEC,
      verifierTimeoutSec: VERIFIER_TIMEOUT_SEC,
    },
    variant: plan.variant,
    skillDir: plan.skillDir,
    frozen: plan.opts.frozen,
    solve: { replay: plan.opts.frozen, runArgs: toolArgs(plan.opts) },
    ...(plan.opts.verifierMode !== undefined ? { verifierMode: plan.opts.verifierMode } : {}),
    ...(plan.opts.image ? { image: plan.opts.image } : {}),
    ...(plan.opts.networks ? { networks: plan.opts.networks } : {}),
  });
}

/** Claims a refusal names; the rest are counted. */
const NAMED_CLAIMS = 3;

/**
 * Why the dataset cannot be written as asked: claims whose sources the network rule refuses by their host alone (an IP
 * literal on a private network, IPv4 inside IPv6 included, or localhost; src/fetch/address.ts), which the task's
 * oracle (solve.sh's `run`) and MCP server would refuse too unless the dataset is exported with --allow-private. The
 * first few claims are named, then counted. A frozen edition is exempt: its oracle and MCP server replay its archive
 * and reach no network, so no rule applies (and its check replays every task, which would find a refused source).
 */
export function privateSourceProblem(
  claims: readonly LabelledClaim[],
  opts: Pick<DatasetOptions, 'allowPrivate' | 'frozen'>,
): string | undefined {
  if (opts.allowPrivate || opts.frozen) return undefined;
  const refused = claims.flatMap((c) => {
    const why = refusedHost(c.claim.fetchUrl);
    return why ? [`${JSON.stringify(c.claim.id)} (${c.claim.fetchUrl}: ${why})`] : [];
  });
  if (refused.length === 0) return undefined;
  const one = refused.length === 1;
  const more = refused.length > NAMED_CLAIMS ? `, and ${refused.length - NAMED_CLAIMS} more` : '';
  return (
    `${plural(refused.length, 'claim')} ` +
    `${one ? 'cites a source on a private network' : 'cite sources on private networks'}, which the tasks' oracle ` +
    `would refuse: ${refused.slice(0, NAMED_CLAIMS).join(', ')}${more}; if the tasks are meant to reach ` +
    `${one ? 'it' : 'them'} (tests, an intranet), ` +
    `pass --allow-private (it goes into solve.sh's run and the MCP server's arguments)`
  );
}

/** Writes the dataset: one folder per task, in Harbor's layout or SkillsBench 1.1's. */
export function writeDataset(
  outDir: string,
  tasks: LabelledClaim[][],
  prefix: string,
  opts: DatasetOptions = {},
): ExportResult {
  const refused =
    privateSourceProblem(tasks.flat(), opts) ?? verifierModeProblem(opts.layout ?? 'harbor', opts.verifierMode);
  if (refused) throw new ExportError(refused);
  if (existsSync(outDir) && readdirSync(outDir).length > 0)
    throw new ExportError(`${outDir}: exists and is not empty; choose a new folder`);
  if (!isTaskName(prefix))
    throw new ExportError(
      `task name prefix ${JSON.stringify(prefix)} must be ${TASK_NAME_RULE} (at most 128): it names the task folders`,
    );
  const given = opts.variant ?? {};
  // The MCP server gets what solve.sh's run gets: the Wayback stub, and the private network the sources are on;
  // in a frozen edition, the task's own archive to answer from (solve.sh's run gets it by QUOTECHECK_REPLAY), so
  // that its tools read the sources the instruction says the task has, not today's web.
  const extra = [
    ...toolArgs(opts),
    ...(opts.frozen ? ['--replay', `${CONTAINER_PATHS.app.path}/${TASK_ARCHIVE}`] : []),
  ];
  const variant: TaskVariant =
    given.mcp && extra.length ? { ...given, mcpArgs: [...(given.mcpArgs ?? []), ...extra] } : given;
  // The skill folder is checked before any task is written: a bad one costs nothing.
  const skillDir = variant.skill ? checkSkillDir(opts.skillDir ?? bundledSkillDir()) : undefined;
  const plan: TaskPlan = { prefix, layout: opts.layout ?? 'harbor', variant, skillDir, opts };
  const width = Math.max(3, String(tasks.length).length);
  const names = tasks.map((_, i) => opts.taskNames?.[i] ?? `${prefix}-${String(i + 1).padStart(width, '0')}`);
  // Every <org>/<task> is checked before the first task is written (a task name with '..' breaks Harbor's rule).
  if (opts.org !== undefined) for (const name of names) packageName(opts.org, name);
  const result: ExportResult = { tasks: [] };
  tasks.forEach((claims, i) => {
    const name = names[i]!;
    const dir = join(outDir, name);
    writeTask(dir, name, claims, plan);
    const urls = [...new Set(claims.map((c) => c.claim.fetchUrl))];
    result.tasks.push({ name, claims: claims.length, sources: urls.length, dir, urls });
  });
  return result;
}

/** Task-name prefix from the labelled file's name ("skbench.jsonl" -> "skbench"), safe for folder names. */
export function defaultPrefix(labelledPath: string): string {
  return (
    basename(labelledPath, extname(labelledPath))
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'task'
  );
}
