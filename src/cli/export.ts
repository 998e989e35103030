// `quotecheck export`: labelled claims (JSON Lines) to a dataset in Harbor's layout or SkillsBench 1.1's.
import { existsSync, readdirSync } from 'node:fs';
import { describeFsError, plural } from '../messages.js';
import { OutputPathError, checkOutputPath } from '../outputs.js';
import { ExportError, TASK_NAME_RULE, defaultPrefix, isTaskName, planTasks, readLabelled, readRecordedRun, tasksByName, waybackBases, writeDataset, writeTaskArchives } from '../harbor/export.js';
import type { Layout } from '../harbor/layout.js';
import { TASK_SKILLS_DIR, TemplateError, bundledSkillDir, checkSkillDir } from '../harbor/templates.js';
import { DEFAULT_OPTIONS } from '../defaults.js';
import { errorLine } from './progress.js';

export interface ExportCommandOptions {
  labelled: string;
  out: string;
  perTask: number;
  name?: string;
  /** A recorded run (WARC) of these claims: each task ships its own sources and replays them. */
  warc?: string;
  /** Ship a skill in every task (Harbor's skills_dir): `true` for quotecheck's own, or a skill folder. */
  withSkill?: boolean | string;
  /** Declare quotecheck's MCP server (`quotecheck mcp`) in every task's task.toml. */
  withMcp?: boolean;
  /** The sources are on a private network: the oracle (and the MCP server) get --allow-private. */
  allowPrivate?: boolean;
  /** Harbor's layout (SkillsBench 1.0) or SkillsBench 1.1's task.md. */
  layout?: Layout;
  /** A field of the labelled claims that names each claim's task: tasks as the file has them, not by size. */
  taskField?: string;
}

export async function exportCommand(opts: ExportCommandOptions): Promise<number> {
  try {
    // The dataset folder is checked before the claims and the archive are read: a bad --out costs nothing.
    checkOutputPath(opts.out, '--out', { folder: true, createFolders: true });
    if (existsSync(opts.out) && readdirSync(opts.out).length > 0) throw new ExportError(`--out ${opts.out}: exists and is not empty; choose a new folder`);
    // So is the name: it becomes folder names inside --out (`--name ../../x` must not write outside it).
    if (opts.name !== undefined && !isTaskName(opts.name)) throw new ExportError(`--name ${JSON.stringify(opts.name)}: must be ${TASK_NAME_RULE} (at most 128): it names the task folders`);
    // So is the skill folder: a typo in --with-skill is found before anything is read or written.
    const skillDir = opts.withSkill === undefined || opts.withSkill === false ? undefined : checkSkillDir(opts.withSkill === true ? bundledSkillDir() : opts.withSkill);
    const claims = readLabelled(opts.labelled, { taskField: opts.taskField });
    const named = opts.taskField !== undefined ? tasksByName(claims) : undefined;
    const tasks = named?.tasks ?? planTasks(claims, opts.perTask);
    const archive = opts.warc ? await readRecordedRun(opts.warc) : undefined;
    // The oracle must ask the archive the recording asked, or its replayed lookups are not in the file.
    const bases = archive ? waybackBases(archive) : [];
    const waybackUrl = bases.length === 1 && bases[0] !== DEFAULT_OPTIONS.waybackUrl ? bases[0] : undefined;
    const result = writeDataset(opts.out, tasks, opts.name ?? defaultPrefix(opts.labelled), {
      frozen: archive !== undefined,
      waybackUrl,
      allowPrivate: opts.allowPrivate === true,
      variant: { skill: skillDir !== undefined, mcp: opts.withMcp === true },
      skillDir,
      layout: opts.layout ?? 'harbor',
      taskNames: named?.names,
    });
    const sources = result.tasks.reduce((n, t) => n + t.sources, 0);
    let frozen = '';
    if (archive) {
      const written = await writeTaskArchives(result, archive);
      frozen = `; a frozen edition: each task's sources from ${opts.warc} (${written.records} records, ${(written.bytes / 1e6).toFixed(1)} MB in all) in environment/sources.warc.gz`;
    }
    const ships = [
      ...(skillDir ? [`the skill ${skillDir} (skills_dir ${TASK_SKILLS_DIR}, quotecheck inside it)`] : []),
      ...(opts.withMcp ? ['the MCP server `quotecheck mcp`'] : []),
    ];
    // Tasks that give the agent quotecheck are tool-use tasks: their tags and instruction say so, and so does this line.
    const shipped = ships.length ? `; every task ships ${ships.join(' and ')} to the agent, so these tasks measure tool use, not fact-checking` : '';
    process.stdout.write(`wrote ${plural(result.tasks.length, 'task')} (${plural(claims.length, 'claim')}, ${plural(sources, 'source')}) to ${opts.out}${frozen}${shipped}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ExportError || err instanceof OutputPathError || err instanceof TemplateError) {
      errorLine(err.message);
      return 2;
    }
    // A write that fails half-way (a full disk, a folder made read-only): one line, not a stack trace.
    if ((err as NodeJS.ErrnoException).code !== undefined && (err as NodeJS.ErrnoException).syscall !== undefined) {
      errorLine(`writing the dataset to ${opts.out} failed: ${describeFsError(err)} (${(err as NodeJS.ErrnoException).path ?? opts.out})`);
      return 2;
    }
    throw err;
  }
}
