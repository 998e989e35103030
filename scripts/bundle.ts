// The self-contained builds a task ships (docs/security.md#what-each-side-gets): the oracle's quotecheck and the frozen edition's WARC reader,
// made by esbuild from src/, and the verifier's grader, which is no build at all: src/grader/grade.mjs, a
// hand-written file a benchmark's user can read, copied byte for byte. Each needs only Node.js, so a task's image needs
// nothing of quotecheck's installed. `npm run build` writes them to dist/bundle/; the test suite rebuilds them from src/ first when
// src/ changed (bundlesUpToDate). Builds and installs hold the checkout's build lock (withBuildLock) and replace files by
// renames, so two runs in one checkout never see a build missing or half written.
//
//   node dist/scripts/bundle.js    build dist/bundle/quotecheck/ and (in a checkout) give the golden tasks their oracle and grader
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { create as createTar } from 'tar';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_ENTRIES, BUNDLE_FILES, BUNDLE_FOLDER, TASK_BUILDS } from '../src/task/ship.js';
import { TEMPLATE_FOLDERS } from '../src/task/template-files.js';
import { packageRoot } from '../src/package-root.js';

/** The project's root: this file is scripts/bundle.ts, or dist/scripts/bundle.js once compiled. */
export function projectRoot(): string {
  const root = packageRoot(dirname(fileURLToPath(import.meta.url)));
  if (!root) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
  return root;
}

/**
 * ESM output runs CommonJS dependencies that call require() for Node's own modules: esbuild's shim for that needs a
 * real `require`, which an ES module gets from createRequire. The name is private to the bundle.
 */
const REQUIRE_BANNER =
  "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);";

const COMMON: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // The same bytes from the same sources, wherever they are built: no absolute paths, no source maps, no timestamps.
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  // Whitespace and syntax only: names stay, so a stack trace in a task's log still reads (a third smaller than as is).
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'utf8',
};

/**
 * The command line's code split into chunks, each loaded when first imported: a command parses its own modules and the
 * ones they share, not every command's (the MCP SDK, the task writer, the archive's). The chunks lie flat beside the
 * entries, as the shipped folder's other files, so code in a chunk finds the folder (shippedDir) and the HTML worker
 * (pool.ts) as its own folder; their names carry their content's hash, so a build's entries name only its own chunks.
 * A new build removes the chunks only an older one had: a process of that build still running (an MCP server) that
 * has yet to load one of them can no longer, where the one-file build it replaced was read whole at start.
 */
const CHUNK_NAMES = 'chunk-[hash]';

export interface BundleResult {
  /** dist/bundle/ */
  dir: string;
  /** Every file written (BUNDLE_FILES and the chunks), relative to `dir`, with its size in bytes. */
  files: { path: string; bytes: number }[];
  /** The packages each esbuild build pulled in (from node_modules), for the notices. */
  packages: Record<string, string[]>;
}

function packagesOf(meta: Metafile): string[] {
  const names = new Set<string>();
  for (const input of Object.keys(meta.inputs)) {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) names.add(m[1]!);
  }
  return [...names].sort();
}

/** What the builds are made of: every file of src/, this script, the lockfile (the dependencies' versions) and Node's major version. */
export function bundleInputsHash(root = projectRoot()): string {
  const hash = createHash('sha256');
  const add = (file: string): void => {
    hash.update(`${relative(root, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  };
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((x, y) =>
      x.name < y.name ? -1 : x.name > y.name ? 1 : 0,
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) add(path);
    }
  };
  walk(join(root, 'src'));
  for (const file of [join(root, 'scripts', 'bundle.ts'), join(root, 'package-lock.json')])
    if (existsSync(file)) add(file);
  hash.update(`node ${process.versions.node.split('.')[0]}`);
  return hash.digest('hex');
}

/** Where buildBundles notes what the builds in `outDir` were made of, and the files it wrote (beside it, so it ships with nothing). */
const stampOf = (outDir: string): string => `${outDir}.inputs`;

/** Whether the builds in `outDir` were made from what `root` holds now (bundleInputsHash), and every file they wrote (the chunks too) is there. */
export function bundlesUpToDate(root = projectRoot(), outDir = join(root, 'dist', BUNDLE_FOLDER)): boolean {
  let lines: string[];
  try {
    lines = readFileSync(stampOf(outDir), 'utf8').trim().split('\n');
  } catch {
    return false;
  }
  if (lines[0] !== bundleInputsHash(root)) return false;
  return [...Object.values(BUNDLE_FILES), ...lines.slice(1)].every((path) => existsSync(join(outDir, path)));
}

/**
 * Builds every shipped file into `outDir` (default dist/bundle/), replacing what was there. The builds are made in a
 * folder of their own beside it, then each file renamed over its old self: the folder is never missing, and a test run
 * or a demo reading it meanwhile (another run in this checkout) gets each file whole, old or new.
 */
export async function buildBundles(
  root = projectRoot(),
  outDir = join(root, 'dist', BUNDLE_FOLDER),
): Promise<BundleResult> {
  const inputs = bundleInputsHash(root);
  mkdirSync(dirname(outDir), { recursive: true });
  const staging = mkdtempSync(join(dirname(outDir), `.${basename(outDir)}-`));
  try {
    const built = await buildInto(root, staging);
    // The chunks first, then the entries that import them: whoever starts a new entry finds its chunks in place.
    const isEntry = (path: string): boolean => !basename(path).startsWith('chunk-');
    const order = [...built.files.filter((f) => !isEntry(f.path)), ...built.files.filter((f) => isEntry(f.path))];
    for (const { path } of order) {
      mkdirSync(dirname(join(outDir, path)), { recursive: true });
      renameSync(join(staging, path), join(outDir, path));
    }
    // Nothing else stays in a build's folder (a file an older build made, an older build's chunks).
    // (A folder that holds what the build wrote, the templates' folders, stays: only what it wrote stays in it.)
    const paths = new Set(built.files.flatMap((f) => ancestors(f.path)));
    for (const folder of new Set(built.files.map((f) => dirname(f.path)).filter((d) => d !== '.')))
      for (const name of readdirSync(join(outDir, folder)))
        if (!paths.has(join(folder, name))) rmSync(join(outDir, folder, name), { recursive: true, force: true });
    const stamp = `${stampOf(outDir)}.${process.pid}.tmp`;
    writeFileSync(stamp, `${[inputs, ...built.files.map((f) => f.path)].join('\n')}\n`);
    renameSync(stamp, stampOf(outDir));
    return { ...built, dir: outDir };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The grader's source, under src/: shipped as it is (BUNDLE_FILES.grader). */
export const GRADER_SOURCE = 'grader/grade.mjs';

/** A path and the folders above it (`a/b/c` gives `a/b/c`, `a/b`, `a`). */
function ancestors(path: string): string[] {
  const out = [path];
  for (let dir = dirname(path); dir !== '.'; dir = dirname(dir)) out.push(dir);
  return out;
}

/**
 * The templates a task's scripts and the audit's attacks are filled in from (src/task/template-files.ts
 * TEMPLATE_FOLDERS), copied as they are beside the grader: `templates/<folder>/<name>` in the command line's build,
 * where the code that fills them in finds them, from a checkout, an installed package or the build itself.
 */
function copyTemplates(root: string, outDir: string): string[] {
  const written: string[] = [];
  for (const [folder, from] of Object.entries(TEMPLATE_FOLDERS)) {
    const to = join(dirname(BUNDLE_FILES.quotecheck), 'templates', folder);
    mkdirSync(join(outDir, to), { recursive: true });
    const names = readdirSync(join(root, 'src', from), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.startsWith('.'))
      .map((e) => relative(join(root, 'src', from), join(e.parentPath, e.name)))
      .sort();
    for (const name of names) {
      mkdirSync(dirname(join(outDir, to, name)), { recursive: true });
      writeFileSync(join(outDir, to, name), readFileSync(join(root, 'src', from, name)));
      written.push(join(to, name));
    }
  }
  return written;
}

/** What a module's static and dynamic imports name (`from '...'`, `import '...'`, `import('...')`). */
export function graderImports(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"]+)\1/g)].map((m) => m[2]!);
}

/**
 * One esbuild build: its entries (output name to source), the folder under dist/bundle/ it writes, the commands of the
 * command line it keeps (COMMAND_MODULES: the others' modules are left out), and whether it is minified whole (names
 * too) or only as to whitespace and syntax (names stay, so a stack trace reads).
 */
interface BuildJob {
  name: string;
  folder: string;
  entries: Record<string, string>;
  splitting: boolean;
  /** The command modules src/cli/main.ts may load in this build; undefined: every one. */
  commands?: readonly string[];
  minify: 'whole' | 'syntax';
}

/**
 * The module each command's action loads (src/cli/main.ts's `await import('./<command>.js')`). A build of a few
 * commands (src/cli/entries/oracle-entry.ts, tool-entry.ts) registers only theirs, yet esbuild still bundles every dynamic
 * import it finds in main.ts, dead or not: the others resolve to an empty module here, so that their code (the MCP SDK
 * in the oracle, the task writer, the audit) is not in the build at all.
 */
function commandsOnly(keep: readonly string[]): Plugin {
  return {
    name: 'commands-only',
    setup(b) {
      b.onResolve({ filter: /^\.\/actions\/[a-z-]+\.js$/ }, (args) =>
        args.kind === 'dynamic-import' &&
        args.importer.endsWith(join('src', 'cli', 'main.ts')) &&
        !keep.includes(args.path)
          ? { path: args.path, namespace: 'left-out-command' }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'left-out-command' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path}: not in this build`)});`,
        loader: 'js',
      }));
    },
  };
}

/** The builds: the whole command line (what the package installs and evaluate runs), and the two a task ships. */
function buildJobs(root: string): BuildJob[] {
  const src = (p: string) => join(root, 'src', p);
  const entry = (file: string) => basename(file, '.mjs');
  const worker = src('extract/worker/html-worker.ts');
  return [
    // The command line and the HTML worker it starts (found beside it), sharing their chunks.
    {
      name: 'quotecheck',
      folder: dirname(BUNDLE_FILES.quotecheck),
      entries: { [entry(BUNDLE_FILES.quotecheck)]: src('cli/entries/entry.ts'), [entry(BUNDLE_FILES.worker)]: worker },
      splitting: true,
      minify: 'syntax',
    },
    // The frozen edition's WARC reader: one file, copied alone into an agent's environment.
    {
      name: 'warc-extract',
      folder: dirname(BUNDLE_FILES.warcExtract),
      entries: { [entry(BUNDLE_FILES.warcExtract)]: src('archive/extract-main.ts') },
      splitting: false,
      minify: 'syntax',
    },
    // The oracle every task ships: `run` alone, minified whole (it is packed, and read by no one).
    {
      name: 'oracle',
      folder: TASK_BUILDS.oracle,
      entries: {
        [entry(BUILD_ENTRIES.cli)]: src('cli/entries/oracle-entry.ts'),
        [entry(BUILD_ENTRIES.worker)]: worker,
      },
      splitting: true,
      commands: ['./actions/run.js'],
      minify: 'whole',
    },
    // The oracle's loader: one small file, beside the pack in every task (what solve.sh starts while it unpacks).
    {
      name: 'oracle-loader',
      folder: '.',
      entries: { [entry(TASK_BUILDS.oracleLoader)]: src('cli/entries/oracle-loader.ts') },
      splitting: false,
      minify: 'syntax',
    },
    // The tool the MCP and skill variants give the agent: run, verify and mcp.
    {
      name: 'tool',
      folder: TASK_BUILDS.tool,
      entries: { [entry(BUILD_ENTRIES.cli)]: src('cli/entries/tool-entry.ts'), [entry(BUILD_ENTRIES.worker)]: worker },
      splitting: true,
      commands: ['./actions/run.js', './actions/verify.js', './actions/mcp.js'],
      minify: 'whole',
    },
  ];
}

/** Runs one build job into `outDir`; the files it wrote, relative to `outDir`, and the packages it pulled in. */
async function runJob(root: string, outDir: string, job: BuildJob): Promise<{ written: string[]; packages: string[] }> {
  const result = await build({
    ...COMMON,
    ...(job.minify === 'whole' ? { minify: true } : {}),
    entryPoints: job.entries,
    outdir: join(outDir, job.folder),
    outExtension: { '.js': '.mjs' },
    splitting: job.splitting,
    chunkNames: CHUNK_NAMES,
    // Every file of a split build gets the banner: each module has its own scope, so each chunk needs its own `require`.
    banner: { js: `#!/usr/bin/env node\n${REQUIRE_BANNER}` },
    plugins: job.commands ? [commandsOnly(job.commands)] : [],
    absWorkingDir: root,
  });
  return {
    written: Object.keys(result.metafile!.outputs).map((output) => relative(outDir, join(root, output))),
    packages: packagesOf(result.metafile!),
  };
}

/**
 * Packs a build's folder (`outDir/<folder>/`) into `outDir/<pack>` as tar and gzip, the same bytes from the same files
 * wherever it is made: the files in name order, mode 0755, no owner, every time the epoch.
 */
async function pack(outDir: string, folder: string, packName: string): Promise<void> {
  const dir = join(outDir, folder);
  const names = readdirSync(dir).sort();
  await createTar(
    {
      file: join(outDir, packName),
      cwd: dir,
      gzip: { level: 9 },
      portable: true,
      mtime: new Date(0),
      noDirRecurse: true,
    },
    names,
  );
}

async function buildInto(root: string, outDir: string): Promise<BundleResult> {
  const packages: Record<string, string[]> = {};
  const written: string[] = [];
  for (const job of buildJobs(root)) {
    const r = await runJob(root, outDir, job);
    packages[job.name] = r.packages;
    written.push(...r.written);
  }
  // The verifier's grader: its source as it is (readable, commented), which must import Node's own modules only.
  const grader = readFileSync(join(root, 'src', GRADER_SOURCE), 'utf8');
  const imports = graderImports(grader).filter((m) => !m.startsWith('node:'));
  if (imports.length)
    throw new Error(
      `the grader (src/${GRADER_SOURCE}) must need nothing but Node.js, yet it imports ${imports.join(', ')}`,
    );
  writeFileSync(join(outDir, BUNDLE_FILES.grader), grader);
  written.push(BUNDLE_FILES.grader);
  written.push(...copyTemplates(root, outDir));
  const missing = Object.values(BUNDLE_FILES).filter((path) => !written.includes(path));
  if (missing.length) throw new Error(`the builds did not write ${missing.join(', ')}`);
  for (const path of written) chmodSync(join(outDir, path), 0o755);
  // The oracle as every task holds it: its folder packed (after the modes are set: they are packed too).
  await pack(outDir, TASK_BUILDS.oracle, TASK_BUILDS.oraclePack);
  written.push(TASK_BUILDS.oraclePack);
  const files = written.sort().map((path) => ({ path, bytes: statSync(join(outDir, path)).size }));
  return { dir: outDir, files, packages };
}

/** What a build lock file holds: who holds it, and since when. */
interface LockOwner {
  pid: number;
  host: string;
  since: number;
}

/** A lock held longer than this is taken as left behind whoever holds it (a build takes a minute or two). */
const LOCK_STALE_MS = 30 * 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why the lock `text` (its file's content, modified `mtimeMs`) was left behind, or null while its holder may still run. */
function staleLock(text: string, mtimeMs: number): string | null {
  let owner: LockOwner | undefined;
  try {
    owner = JSON.parse(text) as LockOwner;
  } catch {
    // Written by open and write, not at once: half written for a moment, for good only when its writer died.
    return Date.now() - mtimeMs > 10_000 ? 'unreadable' : null;
  }
  if (owner.host === hostname() && !alive(owner.pid)) return `process ${owner.pid} has ended`;
  if (Date.now() - owner.since > LOCK_STALE_MS) return `held since ${new Date(owner.since).toISOString()}`;
  return null;
}

/**
 * Runs `fn` holding the checkout's build lock (dist/.build.lock, made with O_EXCL), so that two test runs starting at
 * once in one checkout, or a test run and `npm run build`, build and install one after the other: the second then finds
 * everything up to date and writes nothing. A lock whose process has ended (on this machine), or held for more than
 * LOCK_STALE_MS, is taken over. The lock is inside the checkout: two checkouts share nothing.
 */
export async function withBuildLock<T>(
  root: string,
  fn: () => Promise<T> | T,
  say: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<T> {
  const lock = join(root, 'dist', '.build.lock');
  mkdirSync(dirname(lock), { recursive: true });
  let mine = '';
  let waiting = false;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(lock, 'wx', 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (fd !== undefined) {
      mine = JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now() } satisfies LockOwner);
      writeFileSync(fd, mine);
      closeSync(fd);
      break;
    }
    let text: string;
    let mtimeMs: number;
    try {
      text = readFileSync(lock, 'utf8');
      mtimeMs = statSync(lock).mtimeMs;
    } catch {
      continue; // released meanwhile: try again at once
    }
    const stale = staleLock(text, mtimeMs);
    if (stale) {
      // Only the lock judged stale: another process may have taken it over and made its own meanwhile.
      try {
        if (readFileSync(lock, 'utf8') === text) unlinkSync(lock);
      } catch {
        // gone already
      }
      say(`build lock ${lock} was left behind (${stale}): taken over`);
      continue;
    }
    if (!waiting) say(`waiting for the build lock ${lock} (another build or test run in this checkout: ${text})`);
    waiting = true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  try {
    return await fn();
  } finally {
    try {
      if (readFileSync(lock, 'utf8') === mine) unlinkSync(lock);
    } catch {
      // gone: not ours to remove
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = projectRoot();
  await withBuildLock(root, async () => {
    const result = await buildBundles(root);
    for (const f of result.files)
      process.stdout.write(`${relative(root, join(result.dir, f.path))}  ${(f.bytes / 1024).toFixed(0)} KB\n`);
    // In a checkout, the golden tasks get the oracle and the grader they run (git keeps neither: they are built).
    if (existsSync(join(root, 'golden', 'lib', 'tasks.ts'))) {
      const { installGoldenShipped } = await import('../golden/lib/tasks.js');
      process.stdout.write(`golden tasks: ${installGoldenShipped()} given their oracle and grader\n`);
    }
  });
}
