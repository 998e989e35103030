// What a task ships of quotecheck (docs/security.md#what-each-side-gets): the builds in dist/bundle/ (made by
// scripts/bundle.ts), found and copied into a task: the oracle's (`run` alone, packed, and its loader) in its solution
// folder, the agent's tool (run, verify, mcp) for the variants that give it, the verifier's grader (no build: its
// source, src/grader/grade.mjs, as it is), the frozen WARC reader.
import { copyFileSync, cpSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../package-root.js';
import { UserError } from '../errors.js';

/** dist/<this>/: where `npm run build` writes the builds. */
export const BUNDLE_FOLDER = 'bundle';

/** The files of the whole command line's build (`quotecheck/`), each needing only Node.js. */
export const BUNDLE_FILES = {
  /** The command line: `node quotecheck.mjs run ...`. */
  quotecheck: 'quotecheck/quotecheck.mjs',
  /** The HTML worker thread the command line starts, found beside it. */
  worker: 'quotecheck/html-worker.mjs',
  /**
   * The verifier's grader: src/grader/grade.mjs byte for byte, Node's own modules only, so a verifier trusts
   * nothing but the runtime.
   */
  grader: 'quotecheck/grade.mjs',
  /** A plain WARC reader for the agent of a frozen edition: every recorded response body as a file. */
  warcExtract: 'quotecheck/warc-extract.mjs',
} as const;

/**
 * The builds a task ships beside the whole command line's, in dist/bundle/ (scripts/bundle.ts): each a program of a
 * few commands only (src/cli/main.ts runProgram), tree-shaken and minified, with its HTML worker beside it.
 */
export const TASK_BUILDS = {
  /** The oracle's: `run` alone (src/cli/entries/oracle-entry.ts), as a folder. */
  oracle: 'oracle',
  /** The same folder packed (tar, gzip), as every task's oracle folder holds it: ORACLE_PACK. */
  oraclePack: 'oracle.tgz',
  /** What solve.sh runs: it waits for the pack to be unpacked, then runs it (src/cli/entries/oracle-loader.ts). */
  oracleLoader: 'oracle-loader.mjs',
  /** The tool the MCP and skill variants give the agent: run, verify and mcp (src/cli/entries/tool-entry.ts). */
  tool: 'tool',
} as const;

/** Inside each build's folder: the command line and its HTML worker (and the chunks they load). */
export const BUILD_ENTRIES = { cli: 'quotecheck.mjs', worker: 'html-worker.mjs' } as const;

/**
 * The shipped folder's name, inside a task's environment/ for the MCP variant and a skill's folder for the skill
 * variant: the tool build.
 */
export const SHIPPED_FOLDER = 'quotecheck';

/** The packed oracle in a task's oracle folder (solution/, oracle/): solve.sh unpacks it, and its loader runs it. */
export const ORACLE_PACK = 'quotecheck.tgz';

/** The oracle's loader beside it, which solve.sh starts with Node.js while the pack is unpacked. */
export const ORACLE_LOADER = 'quotecheck.mjs';

class ShipError extends UserError {
  override readonly name = 'ShipError';
}

/**
 * The folder of the whole command line's build. Run from a build itself (the module is a `.mjs` file of the folder),
 * that folder; run from dist/ or src/, the package's dist/bundle/quotecheck/.
 */
export function shippedDir(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.mjs')) return dirname(here);
  const root = packageRoot(dirname(here));
  if (!root) throw new ShipError(`no package.json above ${here}: cannot find quotecheck's self-contained build`);
  const cli = join(root, 'dist', BUNDLE_FOLDER, BUNDLE_FILES.quotecheck);
  if (!existsSync(cli))
    throw new ShipError(`quotecheck's self-contained build is missing (${cli}): run \`npm run build\` first`);
  return dirname(cli);
}

/** The shipped command line, by absolute path: what evaluate's baseline and a command-line agent run with `node`. */
export const shippedCli = (): string => join(shippedDir(), basename(BUNDLE_FILES.quotecheck));

/** A file of the shipped folder by its BUNDLE_FILES path. */
const shippedFile = (path: string): string => join(shippedDir(), path.slice(SHIPPED_FOLDER.length + 1));

/** A task build (TASK_BUILDS) beside the whole command line's; missing, a ShipError saying how to make it. */
function taskBuild(name: string): string {
  const path = join(dirname(shippedDir()), name);
  if (!existsSync(path))
    throw new ShipError(`quotecheck's task build ${name} is missing (${path}): run \`npm run build\` first`);
  return path;
}

/** Copies the packed oracle and its loader to `<oracleDir>/quotecheck.tgz` and `<oracleDir>/quotecheck.mjs`. */
export function installOracle(oracleDir: string): void {
  copyFileSync(taskBuild(TASK_BUILDS.oraclePack), join(oracleDir, ORACLE_PACK));
  copyFileSync(taskBuild(TASK_BUILDS.oracleLoader), join(oracleDir, ORACLE_LOADER));
}

/** Copies the agent's tool (the tool build) to `<dir>/quotecheck/`: the MCP variant's environment, a skill's folder. */
export function installTool(dir: string): string {
  const to = join(dir, SHIPPED_FOLDER);
  cpSync(taskBuild(TASK_BUILDS.tool), to, { recursive: true });
  return to;
}

/** Copies the grader to `<verifierDir>/grade.mjs`. */
export function installGrader(verifierDir: string): string {
  const to = join(verifierDir, 'grade.mjs');
  copyFileSync(shippedFile(BUNDLE_FILES.grader), to);
  return to;
}

/** Copies the WARC reader to `<environmentDir>/warc-extract.mjs`. */
export function installWarcReader(environmentDir: string): string {
  const to = join(environmentDir, 'warc-extract.mjs');
  copyFileSync(shippedFile(BUNDLE_FILES.warcExtract), to);
  return to;
}
