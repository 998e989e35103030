// The shipped build (dist/bundle/quotecheck/, what a task's oracle runs) against the installed CLI (bin/quotecheck.js
// over dist/src/): its size, and the start-up a task pays once per container: the median wall time of a whole
// `run --baseline` of one claim (start, read the claims, write the answers, exit) and of `--version`, runs alternating.
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILES } from '../src/harbor/ship.js';
import { projectRoot } from '../golden/server.js';

/** Runs of each command; the median is reported (start-up is a few hundred milliseconds, and a busy machine adds noise). */
const STARTUP_RUNS = 15;

export interface StartupFigures {
  /** The shipped folder's files and their sizes in bytes (what every task's solution/quotecheck/ holds). */
  bundle_bytes: Record<string, number>;
  bundle_total_mb: number;
  runs: number;
  /** Median seconds of `node <entry> run --baseline` on one claim. */
  run_bundle_seconds: number;
  run_installed_seconds: number;
  /** installed / bundle: above 1, the shipped build starts faster. */
  run_speedup: number;
  version_bundle_seconds: number;
  version_installed_seconds: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

function timeOnce(args: string[]): number {
  const t = performance.now();
  execFileSync(process.execPath, args, { stdio: 'ignore' });
  return (performance.now() - t) / 1000;
}

const round = (x: number, d: number): number => Number(x.toFixed(d));

/** Measures both entries, alternating run by run so that a slow stretch of the machine weighs on both alike. */
export function measureStartup(outDir: string): StartupFigures {
  const root = projectRoot();
  const bundleRoot = join(root, 'dist', 'bundle');
  const bundle = join(bundleRoot, BUNDLE_FILES.quotecheck);
  const installed = join(root, 'bin', 'quotecheck.js');
  mkdirSync(outDir, { recursive: true });
  const claims = join(outDir, 'startup-claims.json');
  writeFileSync(claims, JSON.stringify([{ id: 'a', quote: 'a quote', url: 'http://127.0.0.1:9/a' }]));
  const runArgs = (entry: string) => [entry, 'run', '--baseline', '--quiet', '--claims', claims, '--out', join(outDir, 'startup-answers.json')];
  const times = { runBundle: [] as number[], runInstalled: [] as number[], versionBundle: [] as number[], versionInstalled: [] as number[] };
  // One of each first, unmeasured: the file system cache holds both afterwards, as it does for a task's second start.
  timeOnce(runArgs(bundle));
  timeOnce(runArgs(installed));
  for (let i = 0; i < STARTUP_RUNS; i++) {
    times.runBundle.push(timeOnce(runArgs(bundle)));
    times.runInstalled.push(timeOnce(runArgs(installed)));
    times.versionBundle.push(timeOnce([bundle, '--version']));
    times.versionInstalled.push(timeOnce([installed, '--version']));
  }
  const bytes = Object.fromEntries(Object.values(BUNDLE_FILES).map((f) => [f, statSync(join(bundleRoot, f)).size]));
  const runBundle = median(times.runBundle);
  const runInstalled = median(times.runInstalled);
  return {
    bundle_bytes: bytes,
    bundle_total_mb: round(Object.values(bytes).reduce((a, b) => a + b, 0) / 1e6, 2),
    runs: STARTUP_RUNS,
    run_bundle_seconds: round(runBundle, 3),
    run_installed_seconds: round(runInstalled, 3),
    run_speedup: round(runInstalled / runBundle, 2),
    version_bundle_seconds: round(median(times.versionBundle), 3),
    version_installed_seconds: round(median(times.versionInstalled), 3),
  };
}

/** The table rows, as `npm run bench` prints them. */
export function startupTable(s: StartupFigures): string {
  const ms = (x: number) => `${(x * 1000).toFixed(0)} ms`;
  return [
    `shipped build (a task's solution/quotecheck/): ${s.bundle_total_mb} MB in ${Object.keys(s.bundle_bytes).length} files`,
    `start-up, median of ${s.runs}     shipped build   installed CLI`,
    `  run --baseline, 1 claim      ${ms(s.run_bundle_seconds).padStart(9)}   ${ms(s.run_installed_seconds).padStart(13)}   (${s.run_speedup}x)`,
    `  --version                    ${ms(s.version_bundle_seconds).padStart(9)}   ${ms(s.version_installed_seconds).padStart(13)}`,
  ].join('\n');
}
