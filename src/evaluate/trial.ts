// An evaluation trial's folders on the host: /app as the task's image holds it, the logs, the staging of artifacts, and
// the empty mount points of its containers.
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { TaskDir } from '../task/task-dir.js';
import { copiesInto, everyFile, readDockerfile, type Dockerfile } from './dockerfile.js';
import { ENV_SKILLS_FOLDER } from '../task/layout.js';
import { BUNDLE_FILES, SHIPPED_FOLDER } from '../task/ship.js';
import { CONTAINER_PATHS, TOOL_DIR, WARC_READER_COMMAND, WARC_READER_FILE } from '../task/paths.js';
import type { Isolation } from '../results/evaluation-report.js';
import { shellQuote } from '../sh-quote.js';

/**
 * The harness's own read-only folder in the agent phase: the `quotecheck` command of a variant (bin/), the baseline's
 * quotecheck (baseline/), the --replay archive (replay/).
 */
export const HARNESS_DIR = '/opt/quotecheck-harness';

export interface Trial {
  task: TaskDir;
  agent: string;
  /** environment/Dockerfile's instructions, read once: /app's files, the agent's user and its environment. */
  image: Dockerfile;
  root: string;
  app: string;
  verifierLogs: string;
  agentLogs: string;
  /** Host side of the agent's evaluate folder: bin/quotecheck for a variant with the tool, replay/ for --replay. */
  harnessDir: string;
  /** Empty host folders a container mounts its own root and copy-on-write layers on (in its namespace only). */
  rootMount: string;
  layerMount: string;
  /**
   * Where the declared artifacts wait between the agent's container and a separate verifier's, each at its own path.
   */
  artifactsDir: string;
  /** The variant's own quotecheck (environment/quotecheck/), when the task gives the agent the tool. */
  tool?: string;
  /** environment/skills/, which the image has at /skills (the skill variant; quotecheck travels inside it). */
  skills?: string;
  /** environment/warc-extract.mjs, which a frozen task's image has on PATH as warc-extract. */
  warcReader?: string;
  /** The --replay archive, absolute. */
  replay?: string;
}

/**
 * What crosses from the agent's container to a separate verifier's: the task's declared artifacts, else
 * /app/answers.json (what quotecheck's tasks grade).
 */
export function trialArtifacts(t: Trial): readonly string[] {
  return t.task.artifacts.length ? t.task.artifacts : [`${CONTAINER_PATHS.app.path}/answers.json`];
}

/**
 * What the task's image holds in /app: the files its Dockerfile copies there (`COPY claims.json /app/claims.json`,
 * a frozen task's archive), as [environment file, path under /app]. A task without a Dockerfile, or one that copies
 * nothing to /app, gets every environment file but those an image keeps elsewhere.
 */
function appFiles(envDir: string, image: Dockerfile): [string, string][] {
  const copies = copiesInto(image, CONTAINER_PATHS.app.path);
  return copies.length
    ? copies
    : everyFile(envDir, new Set(['Dockerfile', SHIPPED_FOLDER, ENV_SKILLS_FOLDER, WARC_READER_FILE]));
}

/**
 * The trial's folders, made fresh: /app holds what the task's image would (appFiles) when evaluate plays the image
 * (`playImage`); on a real engine the image itself holds it, and /app here gets what the containers give back.
 */
export function makeTrial(
  task: TaskDir,
  agent: string,
  outDir: string,
  replay: string | undefined,
  playImage = true,
): Trial {
  const root = resolve(outDir, 'trials', task.name);
  rmSync(root, { recursive: true, force: true });
  const envDir = join(task.dir, 'environment');
  const tool = join(envDir, SHIPPED_FOLDER);
  const skills = join(envDir, ENV_SKILLS_FOLDER);
  const warcReader = join(envDir, WARC_READER_FILE);
  const t: Trial = {
    task,
    agent,
    image: readDockerfile(join(envDir, 'Dockerfile')),
    root,
    app: join(root, 'app'),
    verifierLogs: join(root, 'logs', 'verifier'),
    agentLogs: join(root, 'logs', 'agent'),
    harnessDir: join(root, 'evaluate'),
    rootMount: join(root, 'container', 'root'),
    layerMount: join(root, 'container', 'layers'),
    artifactsDir: join(root, 'artifacts'),
    ...(existsSync(join(tool, basename(BUNDLE_FILES.quotecheck))) ? { tool } : {}),
    ...(existsSync(skills) ? { skills } : {}),
    ...(existsSync(warcReader) ? { warcReader } : {}),
    ...(replay ? { replay } : {}),
  };
  for (const d of [t.app, t.verifierLogs, t.agentLogs, t.harnessDir, t.rootMount, t.layerMount, t.artifactsDir])
    mkdirSync(d, { recursive: true });
  if (playImage)
    for (const [from, to] of appFiles(envDir, t.image)) {
      const source = join(envDir, from);
      if (existsSync(source)) cpSync(source, join(t.app, to), { recursive: true });
    }
  // The mount point of the baseline's quotecheck, inside the evaluate folder.
  if (agent === 'baseline') mkdirSync(join(t.harnessDir, 'baseline'));
  if (replay) {
    // The mount point the archive is bound onto, inside the evaluate folder.
    mkdirSync(join(t.harnessDir, 'replay'));
    writeFileSync(join(t.harnessDir, 'replay', basename(replay)), '');
  }
  return t;
}
/**
 * The commands a task's image puts on PATH, as evaluate's own bin/: `quotecheck` (the variant's build of it, as its
 * image links it) and `warc-extract` (a frozen task's reader). Returns whether there are any.
 */
export function writeCommands(t: Trial, isolation: Isolation): boolean {
  if (!t.tool && !t.warcReader) return false;
  const bin = join(t.harnessDir, 'bin');
  mkdirSync(bin, { recursive: true });
  // In a container, the image's Node.js (/usr/local/bin/node, which evaluate puts there when this machine has none).
  const node = isolation === 'namespace' ? '/usr/local/bin/node' : process.execPath;
  const command = (name: string, script: string): void => {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec ${shellQuote(node)} ${shellQuote(script)} "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  };
  const inContainer = isolation === 'namespace';
  if (t.tool) command('quotecheck', join(inContainer ? TOOL_DIR : t.tool, basename(BUNDLE_FILES.quotecheck)));
  if (t.warcReader) {
    // A copy beside the command: the task's own copy is in the dataset.
    copyFileSync(t.warcReader, join(bin, WARC_READER_FILE));
    command(WARC_READER_COMMAND, join(inContainer ? `${HARNESS_DIR}/bin` : bin, WARC_READER_FILE));
  }
  return true;
}
