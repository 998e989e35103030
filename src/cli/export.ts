// `quotecheck export`: labelled claims (JSON Lines) to a dataset in Harbor's layout or SkillsBench 1.1's.
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { describeFsError, plural } from '../messages.js';
import { checkOutputPath, writableFolder as writable } from '../outputs.js';
import {
  ExportError,
  TASK_NAME_RULE,
  defaultPrefix,
  isTaskName,
  planTasks,
  privateSourceProblem,
  readLabelled,
  taskSpread,
  type DatasetOptions,
  type LabelledClaim,
  tasksByName,
  writeDataset,
} from '../harbor/export.js';
import { readRecordedRuns, writeTaskArchives } from '../harbor/recorded-runs.js';
import type { Disagreement } from '../harbor/frozen-check.js';
import type { Layout } from '../harbor/layout.js';
import { checkKeywords, checkOrg, packageName, parseAuthor } from '../harbor/package-info.js';
import { TASK_SKILLS_DIR, bundledSkillDir, checkSkillDir, type VerifierMode } from '../harbor/templates.js';
import { verifierModeProblem } from '../harbor/task-writer.js';
import { UserError } from '../errors.js';
import { SIGNAL_EXIT, errorLine, messageLine, outputLine, refuseInput } from './progress.js';

export interface ExportCommandOptions {
  labelled: string;
  out: string;
  perTask: number;
  name?: string;
  /**
   * Recorded runs (WARC, `label --record`) of these claims, one per batch: each task ships its own sources from the
   * one that holds each claim's record, and replays them.
   */
  warc?: string[];
  /** Ship a skill in every task (Harbor's skills_dir): `true` for quotecheck's own, or a skill folder. */
  withSkill?: boolean | string;
  /** Declare quotecheck's MCP server (`quotecheck mcp`) in every task's task.toml. */
  withMcp?: boolean;
  /** The sources are on a private network: the oracle (and the MCP server) get --allow-private. */
  allowPrivate?: boolean;
  /** A frozen edition is written even where its oracle would answer a claim otherwise than its label. */
  allowDisagreement?: boolean;
  /** Harbor's layout (SkillsBench 1.0) or SkillsBench 1.1's task.md. */
  layout?: Layout;
  /** A field of the labelled claims that names each claim's task: tasks as the file has them, not by size. */
  taskField?: string;
  /** The registry org: task.toml's [task] name is `<org>/<task>`. */
  org?: string;
  /** `--author` (repeatable): "Name <email>" or "Name". */
  author?: string[];
  /** `--keyword` (repeatable). */
  keyword?: string[];
  /** [task] description of every task. */
  description?: string;
  /** [metadata] difficulty. */
  difficulty?: string;
  /**
   * `--verifier`: where each task's verifier runs (default: separate in Harbor's layout, shared in SkillsBench 1.1's).
   */
  verifier?: VerifierMode;
}

/** What --org and the options that fill [task] give the dataset, checked before anything is read. */
type PackageOptions = Pick<DatasetOptions, 'org' | 'authors' | 'keywords' | 'description'>;

/**
 * --org, --author, --keyword and --description, checked: the org by Harbor's name rule (with --name, whose tasks'
 * `<org>/<task>` must keep it), each author as "Name <email>". The other three fill [task], which Harbor reads only
 * with its name: given without --org they are refused, rather than left out of a dataset that looks as if it had them.
 */
function packageOptions(opts: ExportCommandOptions): PackageOptions {
  if (opts.org === undefined) {
    const given = [
      ...(opts.author?.length ? ['--author'] : []),
      ...(opts.keyword?.length ? ['--keyword'] : []),
      ...(opts.description !== undefined ? ['--description'] : []),
    ];
    if (given.length) {
      throw new ExportError(
        `${given.join(', ')} fill${given.length === 1 ? 's' : ''} task.toml's [task] table, which Harbor reads ` +
          `only with a name: ` +
          'give --org <org> too (the tasks are then named <org>/<task>)',
      );
    }
    return {};
  }
  const org = checkOrg(opts.org);
  if (opts.name !== undefined) packageName(org, opts.name);
  if (opts.description !== undefined && opts.description.trim() === '')
    throw new ExportError('--description: an empty description');
  return {
    org,
    authors: (opts.author ?? []).map(parseAuthor),
    keywords: checkKeywords(opts.keyword ?? []),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
  };
}

/** A staging folder's name ends so: `.partial-<pid>-<8 hex digits>`. */
const STAGING = /\.partial-\d+-[0-9a-f]{8}$/;

/**
 * Where an export is written until it is whole (issue 25): a hidden folder beside --out
 * (`.<name>.partial-<pid>-<hex>`), renamed to --out at the end; a failure or a stop removes it, and the folders made
 * for it, so nothing is left. An existing (empty) --out is replaced by that rename (rename(2) replaces an empty
 * folder), keeping its mode. Where that cannot work (its parent is not writable, or --out is a mount point: another
 * file system), the staging folder is inside --out (`.partial-<pid>-<hex>`) and its task folders are moved up at the
 * end.
 */
class StagedOutput {
  /** Where the dataset is written until `commit`. */
  readonly dir: string;
  readonly #out: string;
  readonly #inside: boolean;
  /** The first folder made for --out's parent (mkdir -p), removed again by `discard` when it is empty. */
  readonly #made: string | undefined;
  #settled = false;

  constructor(out: string) {
    this.#out = resolve(out);
    const parent = dirname(this.#out);
    const tag = `.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
    const existing = existsSync(this.#out) ? statSync(this.#out) : undefined;
    this.#inside =
      existing !== undefined && (parent === this.#out || !writable(parent) || statSync(parent).dev !== existing.dev);
    this.#made = existing ? undefined : mkdirSync(parent, { recursive: true });
    this.dir = this.#inside ? join(this.#out, tag) : join(parent, `.${basename(this.#out)}${tag}`);
    try {
      mkdirSync(this.dir);
      if (existing && !this.#inside) chmodSync(this.dir, existing.mode & 0o7777);
    } catch (err) {
      this.discard();
      throw err;
    }
  }

  /** Puts the dataset at --out: one rename, or (staged inside --out) one per task folder, undone if one fails. */
  commit(): void {
    if (!this.#inside) {
      renameSync(this.dir, this.#out);
    } else {
      const moved: string[] = [];
      try {
        for (const entry of readdirSync(this.dir)) {
          renameSync(join(this.dir, entry), join(this.#out, entry));
          moved.push(entry);
        }
      } catch (err) {
        for (const entry of moved) renameSync(join(this.#out, entry), join(this.dir, entry));
        throw err;
      }
      rmdirSync(this.dir);
    }
    this.#settled = true;
  }

  /** Removes what the export wrote (a no-op once committed): the staging folder, then the empty folders made for it. */
  discard(): void {
    if (this.#settled) return;
    this.#settled = true;
    rmSync(this.dir, { recursive: true, force: true });
    if (this.#made === undefined) return;
    for (let dir = dirname(this.#out); ; dir = dirname(dir)) {
      try {
        rmdirSync(dir);
      } catch {
        return;
      }
      if (dir === this.#made) return;
    }
  }
}

/** Tasks a warning names; the rest are counted. */
const NAMED_TASKS = 5;

/** A number as the tables print rewards: three decimals. */
const share = (x: number): string => x.toFixed(3);
/** A count that may be a median of two (9.5). */
const count = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/**
 * How even the tasks are, on stdout: claims per task and each task's no_match share (its baseline's reward), least,
 * median and greatest; and on stderr a warning naming the tasks whose claims all carry one label, where the baseline
 * scores 1 (all no_match) or 0 (all verbatim): such a task measures nothing the others do not, and pulls the mean.
 */
function reportSpread(tasks: readonly (readonly LabelledClaim[])[], names: readonly string[]): void {
  const { sizes, noMatch, oneLabel } = taskSpread(tasks);
  outputLine(
    `claims per task: min ${count(sizes.min)}, median ${count(sizes.median)}, max ${count(sizes.max)}; ` +
      `no_match share per task: min ${share(noMatch.min)}, median ${share(noMatch.median)}, max ${share(noMatch.max)}`,
  );
  if (oneLabel.length === 0) return;
  const named = oneLabel
    .slice(0, NAMED_TASKS)
    .map((t) => `${names[t.task]} (${plural(t.claims, 'claim')}, all ${t.label})`);
  const more = oneLabel.length > NAMED_TASKS ? `, and ${oneLabel.length - NAMED_TASKS} more` : '';
  const one = oneLabel.length === 1;
  messageLine(
    `warning: ${plural(oneLabel.length, 'task')} ${one ? 'has' : 'have'} claims of one label only, so the baseline ` +
      `(no_match for every claim) ` +
      `scores 1 or 0 on ${one ? 'it' : 'them'}: ${named.join(', ')}${more}`,
  );
}

/**
 * One turn of the event loop with a poll in it: a SIGINT/SIGTERM that came during synchronous writing is handled here.
 */
const signalPoint = (): Promise<void> => new Promise((done) => setImmediate(() => setImmediate(done)));

/** A size as people read it: KB under a megabyte ("40 KB", not "0.0 MB"). */
function size(bytes: number): string {
  return bytes < 1e6 ? `${Math.max(1, Math.round(bytes / 1e3))} KB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

export async function exportCommand(opts: ExportCommandOptions): Promise<number> {
  try {
    const { pkg, skillDir } = checkExportOptions(opts);
    const claims = readLabelled(opts.labelled, { taskField: opts.taskField });
    const named = opts.taskField !== undefined ? tasksByName(claims) : undefined;
    const tasks = named?.tasks ?? planTasks(claims, opts.perTask);
    // Sources the tasks' oracle would refuse are found before anything is read or written (writeDataset checks again).
    const refused = privateSourceProblem(claims, { allowPrivate: opts.allowPrivate, frozen: !!opts.warc?.length });
    if (refused) throw new ExportError(refused);
    const archive = opts.warc?.length ? await readRecordedRuns(opts.warc) : undefined;
    // All or nothing: the dataset is written into a staging folder and put at --out only when it is whole.
    // The handlers come first: a signal just after the staging folder is made must not leave it behind.
    let staged: StagedOutput | undefined;
    // Stops the frozen check's oracles (killed at once, with what they started) before their folders are removed.
    const checking = new AbortController();
    const stop = (signal: NodeJS.Signals): void => {
      checking.abort(new ExportError(`stopped by ${signal}`));
      staged?.discard();
      errorLine(`export stopped by ${signal}; nothing was written to ${opts.out}`);
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    let result;
    let written;
    let disagreements: Disagreement[] = [];
    try {
      staged = new StagedOutput(opts.out);
      result = writeDataset(staged.dir, tasks, opts.name ?? defaultPrefix(opts.labelled), {
        frozen: archive !== undefined,
        allowPrivate: opts.allowPrivate === true,
        variant: { skill: skillDir !== undefined, mcp: opts.withMcp === true },
        skillDir,
        layout: opts.layout ?? 'harbor',
        taskNames: named?.names,
        ...pkg,
        ...(opts.difficulty !== undefined ? { difficulty: opts.difficulty } : {}),
        ...(opts.verifier !== undefined ? { verifierMode: opts.verifier } : {}),
      });
      // A task whose source is not in the archive is found here, after every task folder is written: so nothing stays.
      if (archive) written = await writeTaskArchives(result, archive, tasks);
      // A frozen edition is kept only when its oracle, replaying each task's own archive, gives every label.
      if (archive) {
        const { describeDisagreements, frozenDisagreements } = await import('../harbor/frozen-check.js');
        const check = { layout: opts.layout ?? 'harbor', workDir: staged.dir, signal: checking.signal };
        disagreements = await frozenDisagreements(result.tasks, tasks, check);
        if (disagreements.length > 0 && !opts.allowDisagreement) {
          throw new ExportError(
            `${describeDisagreements(disagreements)}; record the run again, fix those labels, or pass ` +
              `--allow-disagreement to write them anyway`,
          );
        }
      }
      await signalPoint();
      staged.commit();
    } finally {
      staged?.discard();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
    outputLine(
      wroteLine(opts, {
        result,
        claims: claims.length,
        written,
        disagreements: disagreements.length,
        skillDir,
        org: pkg.org,
      }),
    );
    reportSpread(
      tasks,
      result.tasks.map((t) => t.name),
    );
    return 0;
  } catch (err) {
    return exportFailed(err, opts.out);
  }
}

/**
 * The options checked before the claims and the archive are read (the --out folder, the name, the package options, the
 * verifier, the skill folder): a mistake in one costs nothing. Returns the package options and the skill folder.
 */
function checkExportOptions(opts: ExportCommandOptions): {
  pkg: ReturnType<typeof packageOptions>;
  skillDir: string | undefined;
} {
  // The dataset folder is checked before the claims and the archive are read: a bad --out costs nothing.
  checkOutputPath(opts.out, '--out', { folder: true, createFolders: true });
  const present = existsSync(opts.out) ? readdirSync(opts.out) : [];
  if (present.length > 0 && present.every((e) => STAGING.test(e)))
    throw new ExportError(
      `--out ${opts.out}: holds ${present[0]}, left by an export that was killed; remove it, or choose a new folder`,
    );
  if (present.length > 0) throw new ExportError(`--out ${opts.out}: exists and is not empty; choose a new folder`);
  // So is the name: it becomes folder names inside --out (`--name ../../x` must not write outside it).
  if (opts.name !== undefined && !isTaskName(opts.name))
    throw new ExportError(
      `--name ${JSON.stringify(opts.name)}: must be ${TASK_NAME_RULE} (at most 128): it names the task folders`,
    );
  // So are the package options: a bad --org or --author is found before anything is read.
  const pkg = packageOptions(opts);
  // So is a verifier the layout cannot have (SkillsBench 1.1's harnesses run it in the agent's container).
  const modeProblem = verifierModeProblem(opts.layout ?? 'harbor', opts.verifier);
  if (modeProblem) throw new ExportError(modeProblem);
  // So is the skill folder: a typo in --with-skill is found before anything is read or written.
  const skillDir =
    opts.withSkill === undefined || opts.withSkill === false
      ? undefined
      : checkSkillDir(opts.withSkill === true ? bundledSkillDir() : opts.withSkill);
  return { pkg, skillDir };
}

/** What an export wrote, for its last line. */
interface Wrote {
  result: ReturnType<typeof writeDataset>;
  claims: number;
  written: Awaited<ReturnType<typeof writeTaskArchives>> | undefined;
  disagreements: number;
  skillDir: string | undefined;
  org: string | undefined;
}

/**
 * The line an export ends with: the tasks, claims and sources written, the frozen edition, what the tasks ship, their
 * names.
 */
function wroteLine(opts: ExportCommandOptions, w: Wrote): string {
  const { result, written, skillDir } = w;
  const sources = result.tasks.reduce((n, t) => n + t.sources, 0);
  const differ = w.disagreements
    ? `, ${plural(w.disagreements, 'claim')} the frozen oracle answers otherwise than labelled (--allow-disagreement)`
    : '';
  const frozen = written
    ? `; a frozen edition: each task's sources from ${opts.warc!.join(' and ')} (${written.records} records, ` +
      `${size(written.bytes)} in all) in environment/sources.warc.gz${differ}`
    : '';
  const ships = [
    ...(skillDir ? [`the skill ${skillDir} (skills_dir ${TASK_SKILLS_DIR}, quotecheck inside it)`] : []),
    ...(opts.withMcp ? ['the MCP server `quotecheck mcp`'] : []),
  ];
  // Tasks that give the agent quotecheck are tool-use tasks: their tags and instruction say so, and so does this line.
  const shipped = ships.length
    ? `; every task ships ${ships.join(' and ')} to the agent, so these tasks measure tool use, not fact-checking`
    : '';
  // Without an org the tasks have no [task] name: they run, but Harbor's registry will not take them; the line says so.
  const naming =
    w.org !== undefined
      ? `; named ${w.org}/<task>`
      : "; no --org, so no [task] name: the tasks run, but Harbor's registry cannot publish them";
  return (
    `wrote ${plural(result.tasks.length, 'task')} (${plural(w.claims, 'claim')}, ` +
    `${plural(sources, 'source')}) to ${opts.out}${frozen}${shipped}${naming}`
  );
}

/**
 * How an export that failed ends: a user error's line, or one line for a write that failed half-way; anything else is
 * thrown on.
 */
function exportFailed(err: unknown, out: string): number {
  if (err instanceof UserError) return refuseInput(err);
  // A write that fails half-way (a full disk, a folder made read-only): one line, not a stack trace.
  if ((err as NodeJS.ErrnoException).code !== undefined && (err as NodeJS.ErrnoException).syscall !== undefined) {
    // A failed copy names its source in `path` and the file it was writing in `dest`: name the one written.
    const at = (err as NodeJS.ErrnoException & { dest?: string }).dest ?? (err as NodeJS.ErrnoException).path ?? out;
    errorLine(`writing the dataset to ${out} failed: ${describeFsError(err)} (${at}); nothing was left behind`);
    return 2;
  }
  throw err;
}
