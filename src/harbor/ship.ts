// What a task ships of quotecheck (docs/security.md#what-each-side-gets): the self-contained builds in
// dist/bundle/quotecheck/ (made by scripts/bundle.ts), found and copied into a task: the oracle's folder, the
// verifier's grader (no build: its source, src/harbor/grader/grade.mjs, as it is), the frozen WARC reader.
import { copyFileSync, cpSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../package-root.js';
import { UserError } from '../errors.js';

/** dist/<this>/: where `npm run build` writes the builds. */
export const BUNDLE_FOLDER = 'bundle';

/** The files of the shipped folder (`quotecheck/`), each needing only Node.js. */
export const BUNDLE_FILES = {
  /** The command line: `node quotecheck.mjs run ...`. */
  quotecheck: 'quotecheck/quotecheck.mjs',
  /** The HTML worker thread the command line starts, found beside it. */
  worker: 'quotecheck/html-worker.mjs',
  /**
   * The verifier's grader: src/harbor/grader/grade.mjs byte for byte, Node's own modules only, so a verifier trusts
   * nothing but the runtime.
   */
  grader: 'quotecheck/grade.mjs',
  /** A plain WARC reader for the agent of a frozen edition: every recorded response body as a file. */
  warcExtract: 'quotecheck/warc-extract.mjs',
} as const;

/**
 * The shipped folder's name, inside a task's solution/ (oracle/) and, for the variants that give the tool,
 * environment/.
 */
export const SHIPPED_FOLDER = 'quotecheck';

class ShipError extends UserError {
  override readonly name = 'ShipError';
}

/**
 * The folder of builds to ship. Run from a build itself (the module is a `.mjs` file of the folder), that folder;
 * run from dist/ or src/, the package's dist/bundle/quotecheck/.
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

/** Copies the whole shipped folder to `<dir>/quotecheck/` (the oracle's, or the agent's image's with the tool). */
export function installQuotecheck(dir: string): string {
  const to = join(dir, SHIPPED_FOLDER);
  cpSync(shippedDir(), to, { recursive: true });
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
