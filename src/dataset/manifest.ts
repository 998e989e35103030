// A dataset's manifest, dataset.toml in Harbor's format (its src/harbor/models/dataset/manifest.py
// DatasetManifest, docs/datasets.md#publish-it): [dataset] name, description, authors and keywords, and one [[tasks]]
// entry per task, named <org>/<task> and pinned by the digest Harbor's publisher computes of the task's folder.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify as stringifyToml } from 'smol-toml';
import { UserError } from '../errors.js';
import { byCodePoint, regularFiles } from '../task/task-image.js';
import { authorEntry } from '../task/layout.js';
import type { Author } from '../task/package-info.js';

/** Harbor's DatasetManifest schema version (its model's default). */
const MANIFEST_SCHEMA_VERSION = '1.0';

/** The files of a task Harbor publishes at its top (its Packager.collect_files: TaskPaths' single files). */
const TOP_FILES = ['task.toml', 'instruction.md', 'README.md', 'trajectory.json'];

/** The folders it publishes whole (environment/, tests/, solution/, and steps/ of a multi-step task). */
const FOLDERS = ['environment', 'tests', 'solution', 'steps'];

/**
 * The names Harbor's publisher leaves out when a task has no .gitignore (its Packager DEFAULT_IGNORES, gitignore
 * patterns: `__pycache__/`, `*.pyc`, `.DS_Store`, `*.swp`, `*.swo`, `*~`), matched as git matches them: a folder
 * named __pycache__ anywhere, a file name anywhere.
 */
function ignoredByDefault(parts: readonly string[]): boolean {
  const name = parts[parts.length - 1]!;
  return (
    parts.slice(0, -1).includes('__pycache__') ||
    name === '.DS_Store' ||
    /\.(?:pyc|swp|swo)$/.test(name) ||
    name.endsWith('~')
  );
}

class ManifestError extends UserError {
  override readonly name = 'ManifestError';
}

/**
 * A task's digest as Harbor's publisher computes it (src/harbor/publisher/packager.py Packager.compute_content_hash,
 * which `harbor add`, `harbor sync` and `harbor publish` use): the files it publishes (task.toml, instruction.md,
 * README.md, trajectory.json when there, and every file under environment/, tests/, solution/ and steps/, less its
 * default ignores), in the order of their '/' paths, each as `<path>\0<sha256 hex of its bytes>\n` into one sha256:
 * `sha256:<hex>`. A task with a .gitignore (whose patterns would replace the defaults) is refused: its digest is left
 * to Harbor. Links are not followed (quotecheck writes none).
 */
export function taskDigest(taskDir: string): string {
  if (existsSync(join(taskDir, '.gitignore')))
    throw new ManifestError(`${taskDir}: has a .gitignore; leave its digest to \`harbor sync\``);
  const files = [
    ...TOP_FILES.filter((f) => existsSync(join(taskDir, f))),
    ...FOLDERS.filter((d) => existsSync(join(taskDir, d))).flatMap((d) =>
      regularFiles(join(taskDir, d), (parts) => ignoredByDefault([d, ...parts])).map((f) => `${d}/${f}`),
    ),
  ].sort(byCodePoint);
  const outer = createHash('sha256');
  for (const rel of files) {
    const inner = createHash('sha256')
      .update(readFileSync(join(taskDir, rel)))
      .digest('hex');
    outer.update(`${rel}\0${inner}\n`);
  }
  return `sha256:${outer.digest('hex')}`;
}

interface DatasetInfo {
  /** `<org>/<name>`: Harbor's ORG_NAME_PATTERN, as a task's (package-info.ts packageName). */
  name: string;
  description: string;
  authors: readonly Author[];
  keywords: readonly string[];
}

/** The file Harbor reads a dataset from, beside its tasks (its DatasetPaths.MANIFEST_FILENAME). */
export const MANIFEST_FILE = 'dataset.toml';

/**
 * dataset.toml: [dataset] first, then the [[tasks]] in the order given (each `<org>/<task>` with its digest), as
 * Harbor's DatasetManifest.to_toml lays it out; its opening comment says what wrote it and how to publish it.
 */
export function datasetToml(info: DatasetInfo, tasks: readonly { name: string; digest: string }[]): string {
  const dataset = {
    name: info.name,
    description: info.description,
    ...(info.authors.length ? { authors: info.authors.map(authorEntry) } : {}),
    ...(info.keywords.length ? { keywords: [...info.keywords] } : {}),
  };
  const header =
    `# Dataset manifest for ${info.name}, written by quotecheck export: every task pinned by the digest Harbor ` +
    `computes of\n# its folder (harbor sync recomputes them after an edit). Publish with: ` +
    'harbor publish <this folder>\n\n';
  return `${header}${stringifyToml({ schema_version: MANIFEST_SCHEMA_VERSION, dataset })}\n${stringifyToml({
    tasks: tasks.map((t) => ({ name: t.name, digest: t.digest })),
  })}`;
}
