// What an export writes beside its tasks once they are whole (docs/datasets.md#publish-it): the prebuilt images each
// task.toml names and the script that builds them, the card (README.md), the licence's text (LICENSE), and Harbor's
// manifest (dataset.toml) with every task's digest, taken last, when nothing in the tasks changes any more.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { plural, readTextFile } from '../messages.js';
import { datasetCard, datasetNumbers, type AuditSummary, type CardContext } from './card.js';
import { ExportError, type ExportResult, type LabelledClaim } from './export.js';
import { LICENSE_FILE, licenseFile } from './license-file.js';
import { datasetToml, MANIFEST_FILE, taskDigest } from './manifest.js';
import type { Author } from './package-info.js';
import type { Layout } from './layout.js';
import { packageName } from './package-info.js';
import { HARBOR_VERSION, whereItRuns, type Network, type NotOn, type TaskShape } from './providers.js';
import {
  BUILD_IMAGES_SCRIPT,
  buildImagesScript,
  DEFAULT_BASE_IMAGE,
  imageRef,
  type ImageOptions,
  type ImageToBuild,
} from './task-image.js';
import { withDockerImages } from './templates.js';

/** The image repositories export --image-repo and --verifier-image-repo name. */
export interface ImageRepositories {
  agent?: string;
  verifier?: string;
}

export interface DatasetFilesOptions {
  /** The tasks' prefix (export --name): with --org, the dataset is `<org>/<prefix>`. */
  prefix: string;
  /** dataset.toml is Harbor's: written for its layout only. */
  layout: Layout;
  org?: string;
  description?: string;
  authors?: readonly Author[];
  keywords?: readonly string[];
  verifier: 'separate' | 'shared';
  networks: { agent: Network; verifier: Network };
  image: ImageOptions;
  repositories: ImageRepositories;
  frozen: boolean;
  archives?: { records: number; bytes: number };
  license?: string;
  audit?: AuditSummary;
  /** The export command, for the card. */
  command: string;
  quotecheckVersion: string;
}

/** What the dataset files say: where the tasks run, and what was written. */
export interface DatasetFiles {
  runsOn: string[];
  notOn: NotOn[];
  /** Prebuilt images the tasks name (none without --image-repo or --verifier-image-repo). */
  images: ImageToBuild[];
  /** dataset.toml was written (with --org, in Harbor's layout). */
  manifest: boolean;
  /** LICENSE was written (with --license): the parts of the expression whose text it could not hold. */
  license?: { missing: string[] };
}

/** The card's file, beside the tasks (Harbor's DatasetPaths.README_FILENAME: its registry shows it). */
export const CARD_FILE = 'README.md';

/**
 * Names each task's prebuilt images in its task.toml ([environment].docker_image, [verifier.environment].docker_image),
 * tagged by its folder's hash (task-image.ts imageRef), and writes build-images.sh beside the tasks. Returns them.
 */
function nameImages(outDir: string, result: ExportResult, repos: ImageRepositories): ImageToBuild[] {
  const images: ImageToBuild[] = [];
  for (const task of result.tasks) {
    const agent = repos.agent ? imageRef(repos.agent, task.name, join(task.dir, 'environment')) : undefined;
    const verifier = repos.verifier ? imageRef(repos.verifier, task.name, join(task.dir, 'tests')) : undefined;
    const toml = join(task.dir, 'task.toml');
    writeFileSync(toml, withDockerImages(readFileSync(toml, 'utf8'), { agent, verifier }));
    if (agent) images.push({ ref: agent, context: `${task.name}/environment` });
    if (verifier) images.push({ ref: verifier, context: `${task.name}/tests` });
  }
  const script = join(outDir, BUILD_IMAGES_SCRIPT);
  writeFileSync(script, buildImagesScript(images, repos.verifier));
  chmodSync(script, 0o755);
  return images;
}

/** The dataset's shape, as the provider table reads it. */
const shapeOf = (o: DatasetFilesOptions): TaskShape => ({
  verifier: o.verifier,
  verifierNetwork: o.networks.verifier,
  agentNetwork: o.networks.agent,
  agentImage: o.repositories.agent !== undefined,
  verifierImage: o.repositories.verifier !== undefined,
});

/**
 * Writes the dataset's own files into `outDir` (the tasks of `result`, made of `tasks`' claims): the prebuilt images'
 * names and build-images.sh (with image repositories), README.md, and dataset.toml (with an org, in Harbor's layout)
 * last, its digests taken of the finished tasks.
 */
export function writeDatasetFiles(
  outDir: string,
  result: ExportResult,
  tasks: readonly (readonly LabelledClaim[])[],
  o: DatasetFilesOptions,
): DatasetFiles {
  const images = o.repositories.agent || o.repositories.verifier ? nameImages(outDir, result, o.repositories) : [];
  // Harbor reads task.toml: SkillsBench 1.1's task.md runs on its own harnesses, none of Harbor's providers.
  const { runs, not } = o.layout === 'harbor' ? whereItRuns(shapeOf(o)) : { runs: [], not: [] };
  const numbers = datasetNumbers(tasks);
  const name = o.org !== undefined ? packageName(o.org, o.prefix) : undefined;
  const context: CardContext = {
    title: name ?? o.prefix,
    command: o.command,
    quotecheckVersion: o.quotecheckVersion,
    frozen: o.frozen,
    baseImage: o.image.baseImage ?? DEFAULT_BASE_IMAGE,
    aptVersions: o.image.aptVersions ?? {},
    imageRepositories: o.repositories,
    layout: o.layout,
    verifier: o.verifier,
    agentNetwork: o.networks.agent,
    runsOn: runs,
    notOn: not,
    harborVersion: HARBOR_VERSION,
    ...(o.license !== undefined ? { license: o.license } : {}),
    ...(o.audit ? { audit: o.audit } : {}),
    ...(o.archives ? { archives: o.archives } : {}),
  };
  writeFileSync(join(outDir, CARD_FILE), datasetCard(numbers, context));
  const license = o.license !== undefined ? licenseFile(o.license) : undefined;
  if (license) writeFileSync(join(outDir, LICENSE_FILE), license.text);
  const manifest = name !== undefined && o.layout === 'harbor';
  if (manifest) {
    const description =
      o.description ??
      `Quote grounding: ${plural(numbers.claims, 'claim')} in ${plural(numbers.tasks, 'task')}, verbatim or no_match`;
    const info = { name: name!, description, authors: o.authors ?? [], keywords: o.keywords ?? [] };
    const refs = result.tasks.map((t) => ({ name: packageName(o.org!, t.name), digest: taskDigest(t.dir) }));
    writeFileSync(join(outDir, MANIFEST_FILE), datasetToml(info, refs));
  }
  return { runsOn: runs, notOn: not, images, manifest, ...(license ? { license: { missing: license.missing } } : {}) };
}

/**
 * An audit's result (`quotecheck audit --json`) for the card, checked to be of this dataset: its tasks are the
 * export's,
 * by name. An unreadable file, or the audit of other tasks, is an ExportError.
 */
export function readAudit(path: string, taskNames: readonly string[]): AuditSummary {
  const text = readTextFile(path, (reason) => new ExportError(`cannot read --audit ${path}: ${reason}`));
  let report: { ok?: unknown; counts?: unknown; failures?: unknown; harness_only?: unknown; tasks?: unknown };
  try {
    report = JSON.parse(text) as typeof report;
  } catch (err) {
    throw new ExportError(`--audit ${path}: not JSON (${(err as Error).message})`);
  }
  if (typeof report.ok !== 'boolean' || !Array.isArray(report.tasks) || typeof report.counts !== 'object')
    throw new ExportError(`--audit ${path}: not the JSON of quotecheck audit --json (no ok, counts and tasks)`);
  const audited = (report.tasks as { name?: unknown }[]).map((t) => String(t.name)).sort();
  const mine = [...taskNames].sort();
  if (audited.join('\n') !== mine.join('\n'))
    throw new ExportError(
      `--audit ${path}: audits ${plural(audited.length, 'task')} (${audited.slice(0, 3).join(', ')}...), not this ` +
        `export's ${plural(mine.length, 'task')} (${mine.slice(0, 3).join(', ')}...): audit the dataset this export ` +
        'writes (export it, audit it, then export it again with --audit)',
    );
  return {
    ok: report.ok,
    counts: Object.fromEntries(
      Object.entries(report.counts as Record<string, unknown>).filter(([, v]) => typeof v === 'number'),
    ) as Record<string, number>,
    failures: Array.isArray(report.failures) ? report.failures.map(String) : [],
    harnessOnly: Array.isArray(report.harness_only) ? report.harness_only.length : 0,
  };
}
