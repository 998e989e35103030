// A Harbor dataset on disk: its tasks, their timeouts (task.toml), claims and gold labels.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describeFsError } from '../messages.js';

export interface TaskDir {
  name: string;
  dir: string;
  agentTimeoutSec: number;
  verifierTimeoutSec: number;
}

export class DatasetError extends Error {
  override readonly name = 'DatasetError';
}

/** Harbor's defaults when task.toml leaves a timeout out. */
const DEFAULT_AGENT_TIMEOUT_SEC = 600;
const DEFAULT_VERIFIER_TIMEOUT_SEC = 120;

function timeout(toml: Record<string, unknown>, section: string, fallback: number): number {
  const value = (toml[section] as Record<string, unknown> | undefined)?.timeout_sec;
  return typeof value === 'number' && value > 0 ? value : fallback;
}

function readTask(dir: string): TaskDir {
  const tomlPath = join(dir, 'task.toml');
  let toml: Record<string, unknown>;
  try {
    toml = parseToml(readFileSync(tomlPath, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    // A file-system error in words ("permission denied"), a TOML error as smol-toml words its first line.
    const why = (err as NodeJS.ErrnoException).code !== undefined ? describeFsError(err) : (err as Error).message.split('\n')[0];
    throw new DatasetError(`${tomlPath}: ${why}`);
  }
  for (const needed of ['tests/test.sh']) {
    if (!existsSync(join(dir, needed))) throw new DatasetError(`${dir}: missing ${needed}`);
  }
  return {
    name: basename(dir),
    dir,
    agentTimeoutSec: timeout(toml, 'agent', DEFAULT_AGENT_TIMEOUT_SEC),
    verifierTimeoutSec: timeout(toml, 'verifier', DEFAULT_VERIFIER_TIMEOUT_SEC),
  };
}

/** The tasks of a dataset folder (each subfolder with a task.toml), or the folder itself if it is one task. */
export function listTasks(folder: string): TaskDir[] {
  const tasksDir = resolve(folder);
  if (!existsSync(tasksDir)) throw new DatasetError(`${tasksDir}: no such folder`);
  if (!statSync(tasksDir).isDirectory()) throw new DatasetError(`${tasksDir}: not a folder`);
  if (existsSync(join(tasksDir, 'task.toml'))) return [readTask(tasksDir)];
  const tasks = readdirSync(tasksDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(tasksDir, d.name, 'task.toml')))
    .map((d) => readTask(join(tasksDir, d.name)))
    .sort((a, b) => a.name.localeCompare(b.name));
  if (tasks.length === 0) throw new DatasetError(`${tasksDir}: no tasks (folders with a task.toml)`);
  return tasks;
}

/** Reads a JSON file, or undefined when it is missing or unreadable (an agent may write nothing). */
export function readJsonIfAny(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Reads a JSON Lines file into objects, skipping lines that do not parse. */
export function readJsonLines(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}
