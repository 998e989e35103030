// A dataset on disk, in either layout (Harbor's task.toml, SkillsBench 1.1's task.md): its tasks, their timeouts,
// claims and gold labels.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { readTextFile } from '../messages.js';
import { LAYOUTS, type Layout } from './layout.js';
import { UserError } from '../errors.js';
import type { VerifierMode } from './verifier-mode.js';
import { readRegularFile } from '../grader/grade.mjs';

export interface TaskDir {
  name: string;
  dir: string;
  layout: Layout;
  agentTimeoutSec: number;
  verifierTimeoutSec: number;
  /** The task's own verifier mode, by Harbor's rule (taskVerifierMode); SkillsBench 1.1 tasks are shared. */
  verifierMode: VerifierMode;
  /**
   * The files a separate verifier gets from the agent's container (task.toml's top-level `artifacts`), absolute paths.
   */
  artifacts: string[];
  /** The agent's user ([agent] user), a name or a uid; undefined when the task leaves it to the image (root). */
  agentUser?: string;
  /** The verifier's user ([verifier] user), likewise; undefined: the image's default user. */
  verifierUser?: string;
  /** The agent's container as [environment] (and [agent] network_mode) describe it: what a real engine runs. */
  environment: PhaseEnvironment;
  /** The separate verifier's container ([verifier.environment]); Harbor's defaults when the table is missing. */
  verifierEnvironment: PhaseEnvironment;
  /** [verifier] env: variables test.sh runs with. */
  verifierEnv: Record<string, string>;
  /** [solution] env: variables the oracle's solve.sh runs with. */
  solutionEnv: Record<string, string>;
}

/** Harbor's network modes ([environment] network_mode; the legacy allow_internet = false is no-network). */
type NetworkMode = 'public' | 'no-network' | 'allowlist';

/** A container's settings from task.toml (Harbor's EnvironmentConfig): what a real engine gives it. */
export interface PhaseEnvironment {
  networkMode: NetworkMode;
  cpus?: number;
  memoryMb?: number;
  /** The working folder commands run in; undefined: the image's WORKDIR. */
  workdir?: string;
  /** Variables every command in the container gets ([environment] env). */
  env: Record<string, string>;
  buildTimeoutSec: number;
  /** A prebuilt image ([environment] docker_image): what a harness runs when there is no Dockerfile to build. */
  dockerImage?: string;
}

export class DatasetError extends UserError {
  override readonly name = 'DatasetError';
}

/** Harbor's defaults when a task leaves a timeout out. */
const DEFAULT_AGENT_TIMEOUT_SEC = 600;
const DEFAULT_VERIFIER_TIMEOUT_SEC = 120;

function timeout(toml: Record<string, unknown>, section: string, fallback: number): number {
  const value = (toml[section] as Record<string, unknown> | undefined)?.timeout_sec;
  return typeof value === 'number' && value > 0 ? value : fallback;
}

/**
 * Harbor's rule for a task.toml (its TaskConfig): `[verifier] environment_mode` when it is given; otherwise `separate`
 * when `[verifier.environment]` is there, and `shared` when it is not. A value that is neither mode is `undefined`.
 */
function verifierModeOfConfig(config: Record<string, unknown>): VerifierMode | undefined {
  const verifier = config.verifier;
  if (verifier === undefined || verifier === null || typeof verifier !== 'object') return 'shared';
  const { environment_mode: mode, environment } = verifier as Record<string, unknown>;
  if (mode === 'separate' || mode === 'shared') return mode;
  if (mode !== undefined && mode !== null) return undefined;
  return environment !== undefined && environment !== null ? 'separate' : 'shared';
}

/**
 * A task's verifier mode: a task.md (SkillsBench 1.1) is always shared, its harnesses run verifier/test.sh in the
 * agent's container; a task.toml follows Harbor's rule, and a mode Harbor does not know is a DatasetError.
 */
function modeOf(path: string, layout: Layout, config: Record<string, unknown>): VerifierMode {
  if (layout === 'skillsbench') return 'shared';
  const mode = verifierModeOfConfig(config);
  if (mode === undefined) {
    const given = (config.verifier as Record<string, unknown>).environment_mode;
    throw new DatasetError(
      `${path}: [verifier] environment_mode is ${JSON.stringify(given)}, not "separate" or "shared"`,
    );
  }
  return mode;
}

/** Harbor's `artifacts`: paths, or tables whose `source` is the path; only absolute ones are kept. */
function artifactPaths(config: Record<string, unknown>): string[] {
  const list = Array.isArray(config.artifacts) ? (config.artifacts as unknown[]) : [];
  return list
    .map((a) =>
      typeof a === 'string'
        ? a
        : typeof a === 'object' && a !== null
          ? (a as Record<string, unknown>).source
          : undefined,
    )
    .filter((a): a is string => typeof a === 'string' && a.startsWith('/'));
}

/** Harbor's build timeout when a task leaves it out (EnvironmentConfig.build_timeout_sec). */
const DEFAULT_BUILD_TIMEOUT_SEC = 600;

const tableOf = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * A table of variables, each value a string; `${NAME}` and `${NAME:-default}` taken from evaluate's environment, as
 * Harbor's resolve_env_vars does.
 */
function envTable(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(tableOf(v)))
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      out[k] = String(value).replace(
        /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
        (_, name: string, fallback?: string) => process.env[name] ?? fallback ?? '',
      );
  return out;
}

const positive = (v: unknown): number | undefined => (typeof v === 'number' && v > 0 ? v : undefined);

/** [environment] (or [verifier.environment]) as a container's settings; a phase's own network_mode wins. */
function phaseEnvironment(table: unknown, phase: unknown): PhaseEnvironment {
  const env = tableOf(table);
  const own = tableOf(phase).network_mode;
  const mode = typeof own === 'string' ? own : env.network_mode;
  const networkMode: NetworkMode =
    mode === 'no-network' || mode === 'allowlist' || mode === 'public'
      ? mode
      : env.allow_internet === false
        ? 'no-network'
        : 'public';
  const cpus = positive(env.cpus);
  const memoryMb = positive(env.memory_mb);
  return {
    networkMode,
    ...(cpus !== undefined ? { cpus } : {}),
    ...(memoryMb !== undefined ? { memoryMb } : {}),
    ...(typeof env.workdir === 'string' && env.workdir.startsWith('/') ? { workdir: env.workdir } : {}),
    env: envTable(env.env),
    buildTimeoutSec: positive(env.build_timeout_sec) ?? DEFAULT_BUILD_TIMEOUT_SEC,
    ...(typeof env.docker_image === 'string' && env.docker_image ? { dockerImage: env.docker_image } : {}),
  };
}

/** A user setting ([agent] user, [verifier] user): a name or a uid, as text. */
const userOf = (v: unknown): string | undefined =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;

/** A parser's error, as the first line of its message. */
const firstLine = (err: unknown): string => (err as Error).message.split('\n')[0]!;

/** Harbor's task.toml, as a table; a file that cannot be read or parsed is a DatasetError naming it. */
function readToml(path: string): Record<string, unknown> {
  const text = readTextFile(path, (reason) => new DatasetError(`${path}: ${reason}`));
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new DatasetError(`${path}: ${firstLine(err)}`);
  }
}

/**
 * The front matter of a SkillsBench 1.1 task.md: the YAML between the opening `---` line and the next one.
 * A task.md without it, or whose front matter is not a mapping, is an error (as it is to the harnesses).
 */
function readFrontMatter(path: string): Record<string, unknown> {
  const text = readTextFile(path, (reason) => new DatasetError(`${path}: ${reason}`));
  const m = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m)
    throw new DatasetError(
      `${path}: no front matter (a task.md opens with a --- line, its YAML settings, then another --- line)`,
    );
  let value: unknown;
  try {
    value = parseYaml(m[1]!);
  } catch (err) {
    throw new DatasetError(`${path}: front matter is not valid YAML: ${firstLine(err)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new DatasetError(`${path}: front matter is not a mapping of settings`);
  return value as Record<string, unknown>;
}

/** A task's layout: task.md wins when a folder has both, as SkillsBench 1.1 harnesses have it. */
function layoutOf(dir: string): Layout | undefined {
  if (existsSync(join(dir, LAYOUTS.skillsbench.definition))) return 'skillsbench';
  if (existsSync(join(dir, LAYOUTS.harbor.definition))) return 'harbor';
  return undefined;
}

/** One task folder of a known layout, read: its timeouts, verifier mode, artifacts and agent user. */
function readTask(dir: string, layout: Layout): TaskDir {
  const spec = LAYOUTS[layout];
  const config =
    layout === 'harbor' ? readToml(join(dir, spec.definition)) : readFrontMatter(join(dir, spec.definition));
  const needed = `${spec.verifier.folder}/test.sh`;
  if (!existsSync(join(dir, needed))) throw new DatasetError(`${dir}: missing ${needed}`);
  const user = userOf(tableOf(config.agent).user);
  const verifierUser = userOf(tableOf(config.verifier).user);
  return {
    name: basename(dir),
    dir,
    layout,
    agentTimeoutSec: timeout(config, 'agent', DEFAULT_AGENT_TIMEOUT_SEC),
    verifierTimeoutSec: timeout(config, 'verifier', DEFAULT_VERIFIER_TIMEOUT_SEC),
    verifierMode: modeOf(join(dir, spec.definition), layout, config),
    artifacts: artifactPaths(config),
    ...(user !== undefined ? { agentUser: user } : {}),
    ...(verifierUser !== undefined ? { verifierUser } : {}),
    environment: phaseEnvironment(config.environment, config.agent),
    verifierEnvironment: phaseEnvironment(tableOf(config.verifier).environment, config.verifier),
    verifierEnv: envTable(tableOf(config.verifier).env),
    solutionEnv: envTable(tableOf(config.solution).env),
  };
}

/**
 * The tasks of a dataset folder (each subfolder with a task.toml or a task.md), or the folder itself if it is one task.
 */
export function listTasks(folder: string): TaskDir[] {
  const tasksDir = resolve(folder);
  if (!existsSync(tasksDir)) throw new DatasetError(`${tasksDir}: no such folder`);
  if (!statSync(tasksDir).isDirectory()) throw new DatasetError(`${tasksDir}: not a folder`);
  const own = layoutOf(tasksDir);
  if (own) return [readTask(tasksDir, own)];
  const tasks = readdirSync(tasksDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => {
      const layout = layoutOf(join(tasksDir, d.name));
      return layout ? [readTask(join(tasksDir, d.name), layout)] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  if (tasks.length === 0) throw new DatasetError(`${tasksDir}: no tasks (folders with a task.toml or a task.md)`);
  return tasks;
}

/**
 * Largest JSON or JSON Lines file read back from a dataset or a run: a claims file's own limit. A run's files were
 * written by the agent under test, so they are read as planted files are (safe-read.ts): a regular file only, never
 * through a link, never blocking on a FIFO.
 */
const MAX_RUN_FILE_BYTES = 64 * 1024 * 1024;

/** The text of a file the agent may have planted, or undefined when it is missing, not a regular file or too large. */
function readPlanted(path: string): string | undefined {
  const read = readRegularFile(path, MAX_RUN_FILE_BYTES);
  return read.ok ? read.bytes.toString('utf8') : undefined;
}

/** Reads a JSON file, or undefined when it is missing or unreadable (an agent may write nothing, or something else). */
export function readJsonIfAny(path: string): unknown {
  const text = readPlanted(path);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads a JSON Lines file into its objects, skipping lines that do not parse or are not objects. */
export function readJsonLines(path: string): Record<string, unknown>[] {
  return (readPlanted(path) ?? '')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        const v: unknown = JSON.parse(l);
        return typeof v === 'object' && v !== null && !Array.isArray(v) ? [v as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
}

/**
 * Where the task in `taskDir` runs its verifier. A task.md (SkillsBench 1.1, which wins when a folder has both, as its
 * harnesses have it) is always `shared`: its harnesses run verifier/test.sh in the agent's container. A task.toml
 * follows Harbor's rule (verifierModeOfConfig). A folder with neither, a task.toml that does not parse, or an
 * environment_mode Harbor does not know is a DatasetError.
 */
export function taskVerifierMode(taskDir: string): VerifierMode {
  const layout = layoutOf(taskDir);
  if (layout === undefined)
    throw new DatasetError(
      `${taskDir}: not a task (no ${LAYOUTS.harbor.definition} or ${LAYOUTS.skillsbench.definition})`,
    );
  if (layout === 'skillsbench') return 'shared';
  const path = join(taskDir, LAYOUTS.harbor.definition);
  return modeOf(path, layout, readToml(path));
}
