// The self-contained builds a task ships (design.md §6), made by esbuild from src/: the oracle's quotecheck, the
// verifier's grader and the frozen edition's WARC reader. Each needs only Node.js, so a task's image needs nothing of
// quotecheck's installed. `npm run build` writes them to dist/bundle/; the test suite rebuilds them from src/ first.
//
//   node dist/scripts/bundle.js    build dist/bundle/quotecheck/ and (in a checkout) give the golden tasks their oracle and grader
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { chmodSync, existsSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_FILES, BUNDLE_FOLDER } from '../src/harbor/ship.js';
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
const REQUIRE_BANNER = "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);";

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

export interface BundleResult {
  /** dist/bundle/ */
  dir: string;
  /** Every file written, relative to `dir`, with its size in bytes. */
  files: { path: string; bytes: number }[];
  /** The packages each build pulled in (from node_modules), for the notices and for the grader's check. */
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

/** Builds every shipped file into `outDir` (default dist/bundle/), replacing what was there. */
export async function buildBundles(root = projectRoot(), outDir = join(root, 'dist', BUNDLE_FOLDER)): Promise<BundleResult> {
  rmSync(outDir, { recursive: true, force: true });
  const src = (p: string) => join(root, 'src', p);
  const entry = (file: string) => basename(file, '.mjs');
  const jobs: { name: string; entries: Record<string, string>; banner: boolean }[] = [
    // The oracle: the command line and the HTML worker it starts (found beside it).
    { name: 'quotecheck', entries: { [entry(BUNDLE_FILES.quotecheck)]: src('cli/entry.ts'), [entry(BUNDLE_FILES.worker)]: src('extract/html-worker.ts') }, banner: true },
    // The verifier's grader: Node's own modules only (checked below).
    { name: 'grader', entries: { [entry(BUNDLE_FILES.grader)]: src('harbor/verifier-main.ts') }, banner: false },
    // The frozen edition's WARC reader.
    { name: 'warc-extract', entries: { [entry(BUNDLE_FILES.warcExtract)]: src('archive/extract-main.ts') }, banner: true },
  ];
  const folder = join(outDir, dirname(BUNDLE_FILES.quotecheck));
  const packages: Record<string, string[]> = {};
  for (const job of jobs) {
    const result = await build({
      ...COMMON,
      entryPoints: job.entries,
      outdir: folder,
      outExtension: { '.js': '.mjs' },
      banner: { js: `#!/usr/bin/env node\n${job.banner ? REQUIRE_BANNER : ''}` },
      absWorkingDir: root,
    });
    packages[job.name] = packagesOf(result.metafile!);
  }
  if (packages.grader!.length) throw new Error(`the grader must need nothing but Node.js, yet it pulled in ${packages.grader!.join(', ')}`);
  const files = Object.values(BUNDLE_FILES).map((path) => {
    const file = join(outDir, path);
    chmodSync(file, 0o755);
    return { path, bytes: statSync(file).size };
  });
  return { dir: outDir, files, packages };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = projectRoot();
  const result = await buildBundles(root);
  for (const f of result.files) process.stdout.write(`${relative(root, join(result.dir, f.path))}  ${(f.bytes / 1024).toFixed(0)} KB\n`);
  // In a checkout, the golden tasks get the oracle and the grader they run (git keeps neither: they are built).
  if (existsSync(join(root, 'golden', 'lib', 'tasks.ts'))) {
    const { installGoldenShipped } = await import('../golden/lib/tasks.js');
    process.stdout.write(`golden tasks: ${installGoldenShipped()} given their oracle and grader\n`);
  }
}
