// A task's variants: what it gives the agent besides the instruction (a skill, quotecheck's MCP server), their tags and
// task.toml settings, and the skill folder shipped in the environment.
import { cpSync, existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../errors.js';
import { ENV_SKILLS_FOLDER } from './layout.js';
import { CONTAINER_PATHS, TASK_SKILLS_DIR } from './paths.js';
import { installTool, SHIPPED_FOLDER } from './ship.js';
import type { McpServerEntry, TaskTomlOptions } from './task-toml.js';

/** A task's variant: what it gives the agent besides the instruction. A plain task gives nothing and never names
 *  quotecheck; the skill and the MCP server each put the shipped quotecheck in the agent's image on purpose, and the
 *  task's tags and instruction say so: such runs measure tool use, not fact-checking. */
export interface TaskVariant {
  /** Ship a skill folder in the environment and point Harbor's `[environment] skills_dir` at it. */
  skill?: boolean;
  /** Declare quotecheck's MCP server (`quotecheck mcp`, stdio) in `[[environment.mcp_servers]]`. */
  mcp?: boolean;
  /** Further `quotecheck mcp` arguments: the golden tasks' sources are on loopback, which the server refuses by
   *  default (`--allow-private`), and the drift task's archive is the Wayback stub (`--wayback-url`). */
  mcpArgs?: readonly string[];
}

/**
 * quotecheck's MCP server, started by the agent's harness inside the container (`quotecheck` is on the image's PATH).
 * Its files are under /app whatever folder the harness starts it in: check_claims reads claims.json and writes
 * answers.json there (the server reads and writes only under its --root).
 */
export const QUOTECHECK_MCP_SERVER: Readonly<McpServerEntry> = Object.freeze({
  name: 'quotecheck',
  transport: 'stdio',
  command: 'quotecheck',
  args: ['mcp', '--root', CONTAINER_PATHS.app.path],
});

/** A skill folder that cannot be shipped: missing, not a folder, without SKILL.md, or in the way of the tool. */
class SkillFolderError extends UserError {
  override readonly name = 'SkillFolderError';
}

/**
 * The skill quotecheck ships (skills/quote-verification/ at the package root), found from this module's place in src/
 * or dist/src/.
 */
export function bundledSkillDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'skills', 'quote-verification');
    if (existsSync(join(candidate, 'SKILL.md'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new SkillFolderError(
        `quotecheck's skill (skills/quote-verification/SKILL.md) is not installed above ` +
          `${fileURLToPath(import.meta.url)}`,
      );
    dir = parent;
  }
}

/** Checks a skill folder (a folder holding SKILL.md) and returns its absolute path; a clear error otherwise. */
export function checkSkillDir(skillDir: string): string {
  const abs = resolve(skillDir);
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    throw new SkillFolderError(`skill folder ${skillDir}: no such folder`);
  }
  if (!isDir)
    throw new SkillFolderError(`skill folder ${skillDir}: not a folder (give the folder that holds SKILL.md)`);
  if (!existsSync(join(abs, 'SKILL.md'))) throw new SkillFolderError(`skill folder ${skillDir}: has no SKILL.md`);
  return abs;
}

/**
 * Copies a skill folder (all of it: SKILL.md and whatever it refers to) into a task's environment/skills/<name>/,
 * the build context the Dockerfile copies to TASK_SKILLS_DIR, with the shipped quotecheck inside it as
 * `<name>/quotecheck/`: the tool travels with the skill, so a harness that strips the skills for a run without them
 * strips the tool too. Returns the skill's name (its folder's name).
 */
export function installSkill(environmentDir: string, skillDir: string): string {
  const src = checkSkillDir(skillDir);
  const name = basename(src);
  if (existsSync(join(src, SHIPPED_FOLDER)))
    throw new SkillFolderError(
      `skill folder ${skillDir}: already has a ${SHIPPED_FOLDER} entry, where the task puts the shipped ` +
        `quotecheck; rename it`,
    );
  const to = join(environmentDir, ENV_SKILLS_FOLDER, name);
  cpSync(src, to, { recursive: true });
  installTool(to);
  return name;
}

/** task.toml options for a variant: the skills folder and the MCP server it declares. */
export function variantTomlOptions(variant: TaskVariant): Pick<TaskTomlOptions, 'skillsDir' | 'mcpServers'> {
  return {
    ...(variant.skill ? { skillsDir: TASK_SKILLS_DIR } : {}),
    ...(variant.mcp
      ? {
          mcpServers: [{ ...QUOTECHECK_MCP_SERVER, args: [...QUOTECHECK_MCP_SERVER.args, ...(variant.mcpArgs ?? [])] }],
        }
      : {}),
  };
}

/**
 * The tag every variant that gives the agent quotecheck carries, so results of tool-use runs are never mistaken for
 * fact-checking.
 */
const TOOL_PROVIDED_TAG = 'quotecheck-provided';

/** Whether a variant puts quotecheck in the agent's image (the skill carries it; the MCP server runs it). */
export const givesTool = (variant: TaskVariant): boolean => variant.skill === true || variant.mcp === true;

/** The tags a variant adds to task.toml's metadata, so a dataset's variants can be told apart in Harbor's results. */
export function variantTags(variant: TaskVariant): string[] {
  return [
    ...(variant.skill ? ['with-skill'] : []),
    ...(variant.mcp ? ['with-mcp'] : []),
    ...(givesTool(variant) ? [TOOL_PROVIDED_TAG] : []),
  ];
}
