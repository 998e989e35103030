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
import type { Disagreement, FrozenCheckOptions } from '../harbor/frozen-check.js';
import { CARD_FILE, readAudit, writeDatasetFiles, type DatasetFiles } from '../harbor/dataset-files.js';
import { LICENSE_FILE } from '../harbor/license-file.js';
import { MANIFEST_FILE } from '../harbor/manifest.js';
import { HARBOR_VERSION } from '../harbor/providers.js';
import type { Archive } from '../archive/index.js';
import { readRecordedRuns, writeTaskArchives } from '../harbor/recorded-runs.js';
import type { Layout } from '../harbor/layout.js';
import { BUILD_IMAGES_SCRIPT } from '../harbor/task-image.js';
import { VERSION } from '../defaults.js';
import { commandLine, whereOptions, type ExportCommandOptions, type WhereOptions } from './export-where.js';
import { checkKeywords, checkOrg, packageName, parseAuthor } from '../harbor/package-info.js';
import { TASK_SKILLS_DIR, bundledSkillDir, checkSkillDir } from '../harbor/templates.js';
import { verifierModeProblem } from '../harbor/task-writer.js';
import { UserError } from '../errors.js';
import { SIGNAL_EXIT, errorLine, messageLine, outputLine, refuseInput } from './progress.js';

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

/** What an export is made of, read and checked before anything is written. */
interface ExportPlan {
  pkg: ReturnType<typeof packageOptions>;
  skillDir: string | undefined;
  where: WhereOptions;
  claims: LabelledClaim[];
  tasks: LabelledClaim[][];
  names?: string[];
  archive?: Archive[];
  prefix: string;
}

/** Reads and checks what the export is made of: the options, the labelled claims and their tasks, the archive. */
async function planExport(opts: ExportCommandOptions): Promise<ExportPlan> {
  const { pkg, skillDir, where } = checkExportOptions(opts);
  const claims = readLabelled(opts.labelled, { taskField: opts.taskField });
  const named = opts.taskField !== undefined ? tasksByName(claims) : undefined;
  const tasks = named?.tasks ?? planTasks(claims, opts.perTask);
  // Sources the tasks' oracle would refuse are found before anything is read or written (writeDataset checks again).
  const refused = privateSourceProblem(claims, { allowPrivate: opts.allowPrivate, frozen: !!opts.warc?.length });
  if (refused) throw new ExportError(refused);
  const archive = opts.warc?.length ? await readRecordedRuns(opts.warc) : undefined;
  return {
    pkg,
    skillDir,
    where,
    claims,
    tasks,
    ...(named ? { names: named.names } : {}),
    ...(archive ? { archive } : {}),
    prefix: opts.name ?? defaultPrefix(opts.labelled),
  };
}

/** What was written into the staging folder. */
interface Staged {
  result: ReturnType<typeof writeDataset>;
  written?: Awaited<ReturnType<typeof writeTaskArchives>>;
  disagreements: Disagreement[];
  files: DatasetFiles;
}

/**
 * Writes the dataset into `dir` (the staging folder): the tasks, a frozen edition's archives (then its check: each
 * task's oracle on its archive, and the labels' pdftotext), and the dataset's own files last.
 */
async function writeStaged(opts: ExportCommandOptions, plan: ExportPlan, dir: string, signal: AbortSignal) {
  const layout = opts.layout ?? 'harbor';
  const result = writeDataset(dir, plan.tasks, plan.prefix, {
    frozen: plan.archive !== undefined,
    allowPrivate: opts.allowPrivate === true,
    variant: { skill: plan.skillDir !== undefined, mcp: opts.withMcp === true },
    skillDir: plan.skillDir,
    layout,
    taskNames: plan.names,
    ...plan.pkg,
    ...(opts.difficulty !== undefined ? { difficulty: opts.difficulty } : {}),
    ...(opts.verifier !== undefined ? { verifierMode: opts.verifier } : {}),
    image: plan.where.image,
    networks: plan.where.networks,
  });
  // The audit is of this very dataset, by its tasks' names: a mismatch leaves nothing behind.
  const audit = opts.audit
    ? readAudit(
        opts.audit,
        result.tasks.map((t) => t.name),
      )
    : undefined;
  let written: Staged['written'];
  let disagreements: Disagreement[] = [];
  if (plan.archive) {
    // A task whose source is not in the archive is found here, after every task folder is written: so nothing stays.
    written = await writeTaskArchives(result, plan.archive, plan.tasks);
    // A frozen edition is kept only when its oracle, replaying each task's own archive, gives every label.
    disagreements = await checkFrozen(opts, plan, result, { layout, workDir: dir, signal });
  }
  const files = writeDatasetFiles(dir, result, plan.tasks, {
    prefix: plan.prefix,
    layout,
    ...plan.pkg,
    verifier: plan.where.verifier,
    networks: plan.where.networks,
    image: plan.where.image,
    repositories: plan.where.repositories,
    frozen: plan.archive !== undefined,
    ...(written ? { archives: written } : {}),
    ...(plan.where.license !== undefined ? { license: plan.where.license } : {}),
    ...(audit ? { audit } : {}),
    command: commandLine(opts),
    quotecheckVersion: VERSION,
  });
  return { result, written, disagreements, files } satisfies Staged;
}

/**
 * A frozen edition's check (src/harbor/frozen-check.ts): each task's oracle on its own archive, and the pdftotext the
 * PDF labels were made with against the one the image pins and the one the check ran. Either refuses the export, unless
 * --allow-disagreement; the disagreements are returned for the summary. Without a pin, a warning says which to pin.
 */
async function checkFrozen(
  opts: ExportCommandOptions,
  plan: ExportPlan,
  result: ReturnType<typeof writeDataset>,
  check: FrozenCheckOptions,
): Promise<Disagreement[]> {
  const { describeDisagreements, frozenDisagreements, labelPdftotextVersions, pdftotextProblems } = await import(
    '../harbor/frozen-check.js'
  );
  const disagreements = await frozenDisagreements(result.tasks, plan.tasks, check);
  const pinned = plan.where.image.aptVersions?.['poppler-utils'];
  const problems = [
    ...(disagreements.length ? [describeDisagreements(disagreements)] : []),
    ...pdftotextProblems(plan.tasks, pinned),
  ];
  if (problems.length && !opts.allowDisagreement)
    throw new ExportError(
      `${problems.join('; ')}; record the run again, fix those labels, or pass --allow-disagreement to write ` +
        'them anyway',
    );
  const versions = labelPdftotextVersions(plan.tasks);
  if (pinned === undefined && versions.length)
    messageLine(
      `warning: the PDF labels were made with pdftotext ${versions.join(', ')}, and the image installs whatever ` +
        'poppler-utils Debian has the day it is built: pin it (--apt-version poppler-utils=<its Debian version>) so ' +
        'that the frozen edition gives the same text in any year',
    );
  return disagreements;
}

export async function exportCommand(opts: ExportCommandOptions): Promise<number> {
  try {
    const plan = await planExport(opts);
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
    let done: Staged;
    try {
      staged = new StagedOutput(opts.out);
      done = await writeStaged(opts, plan, staged.dir, checking.signal);
      await signalPoint();
      staged.commit();
    } finally {
      staged?.discard();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
    const { result, written, disagreements, files } = done;
    outputLine(
      wroteLine(opts, {
        result,
        claims: plan.claims.length,
        written,
        disagreements: disagreements.length,
        skillDir: plan.skillDir,
        org: plan.pkg.org,
      }),
    );
    reportSpread(
      plan.tasks,
      result.tasks.map((t) => t.name),
    );
    reportWhere(files, plan.where, opts.layout ?? 'harbor');
    return 0;
  } catch (err) {
    return exportFailed(err, opts.out);
  }
}

/**
 * Where the dataset runs, on stdout: Harbor's providers it runs on, and the others with why not; what the dataset's
 * own files are. On stderr, what a publisher must know: the verifier images hold the gold.
 */
function reportWhere(files: DatasetFiles, where: WhereOptions, layout: Layout): void {
  if (layout === 'harbor')
    outputLine(`runs on Harbor ${HARBOR_VERSION}'s providers: ${files.runsOn.join(', ') || 'none'}`);
  else outputLine("runs on SkillsBench 1.1's harnesses (task.md: EvalScope, AgentCompass), not on Harbor's providers");
  if (files.notOn.length) outputLine(`not on:\n${files.notOn.map((p) => `  ${p.name}: ${p.fix}`).join('\n')}`);
  outputLine(
    `beside the tasks: ${CARD_FILE} (the card)${files.license ? `, ${LICENSE_FILE} (${where.license}'s text)` : ''}` +
      (files.manifest ? `, ${MANIFEST_FILE} (every task's digest)` : '') +
      (files.images.length
        ? `, ${BUILD_IMAGES_SCRIPT} (builds and pushes ${plural(files.images.length, 'image')})`
        : ''),
  );
  for (const part of files.license?.missing ?? []) messageLine(`warning: ${LICENSE_FILE} lacks ${part}`);
  if (where.repositories.verifier !== undefined)
    messageLine(
      `warning: the verifier images (${where.repositories.verifier}) hold the gold labels: push them where the ` +
        "harness can pull them and the agent cannot (a private registry whose credentials never reach the agent's " +
        'container); an agent that pulls one reads every answer',
    );
}

/**
 * The options checked before the claims and the archive are read (the --out folder, the name, the package options, the
 * verifier, the skill folder): a mistake in one costs nothing. Returns the package options and the skill folder.
 */
function checkExportOptions(opts: ExportCommandOptions): {
  pkg: ReturnType<typeof packageOptions>;
  skillDir: string | undefined;
  where: WhereOptions;
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
  // So are the images, networks and licence.
  return { pkg, skillDir, where: whereOptions(opts) };
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
