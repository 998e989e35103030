// The shipped build (dist/bundle/quotecheck/, what a task's oracle runs) against the installed CLI (bin/quotecheck.js
// over dist/src/) and against the least any Node.js program does for a one-claim task: its size, and the start-up a
// task pays once per container, as medians of runs alternating entry by entry: cold process to the first request a
// loopback source sees, a one-claim `run` end to end, a whole `run --baseline` of one claim, and `--version`.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BUNDLE_FILES, SHIPPED_FOLDER } from '../src/task/ship.js';
import { fixed, median } from './stats.js';
import { projectRoot } from '../golden/server.js';

/** Runs of each command; the median is reported (start-up is a few hundred milliseconds, and a busy machine adds noise). */
const STARTUP_RUNS = 15;

/** Issue 27's target: `run` by the shipped build, from a cold process to its first request, in at most this many seconds. */
export const FIRST_REQUEST_TARGET_SECONDS = 0.25;

/** The one source of the one-claim task, and the quote it holds: every run must answer it verbatim. */
const PAGE =
  '<!doctype html><html><head><title>Start-up</title></head><body><article><h1>Start-up</h1><p>The quick brown fox jumps over the lazy dog, once per container.</p></article></body></html>';
const QUOTE = 'The quick brown fox jumps over the lazy dog';

/**
 * The ideal: the least any Node.js program does for the one-claim task. It starts Node, reads the claims, makes one GET
 * with Node's own http, tests the quote against the raw body and writes the answers; no parsing, no extraction, no
 * retries or limits. Its time to the request is Node's own start-up; its time end to end adds the loopback source's
 * answer (immediate here) and the writing.
 */
const IDEAL_CLIENT = `import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
const [claimsPath, outPath] = process.argv.slice(2);
const [claim] = JSON.parse(readFileSync(claimsPath, 'utf8'));
get(claim.url, (res) => {
  const chunks = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () => {
    const label = Buffer.concat(chunks).toString('utf8').includes(claim.quote) ? 'verbatim' : 'no_match';
    writeFileSync(outPath, JSON.stringify({ [claim.id]: label }));
  });
});
`;

export interface StartupFigures {
  /** The shipped folder's files and their sizes in bytes (what every task's solution/quotecheck/ holds); the chunks summed as one entry. */
  bundle_bytes: Record<string, number>;
  bundle_total_mb: number;
  /** Files in the shipped folder: the four entries and the chunks the command line loads as it needs them. */
  bundle_files: number;
  runs: number;
  /** Median seconds from spawning `node <entry> run` on one claim to its source seeing the request. */
  first_request_bundle_seconds: number;
  first_request_installed_seconds: number;
  /** The same for the ideal client (IDEAL_CLIENT): Node's own start-up and one GET. */
  first_request_ideal_seconds: number;
  first_request_target_seconds: number;
  first_request_target_met: boolean;
  /** Median seconds of that one-claim `run`, spawn to exit (fetch, extract, match, answers written). */
  one_task_bundle_seconds: number;
  one_task_installed_seconds: number;
  one_task_ideal_seconds: number;
  /** bundle / ideal, end to end. */
  one_task_ratio_vs_ideal: number;
  /** Every one-claim run's answer was verbatim (the runs measured did the task). */
  one_task_answers_right: boolean;
  /** Median seconds of `node -e 0`: Node.js starting and exiting, nothing loaded. */
  node_bare_seconds: number;
  /** Median seconds of `node <entry> run --baseline` on one claim. */
  run_bundle_seconds: number;
  run_installed_seconds: number;
  /** installed / bundle: above 1, the shipped build starts faster. */
  run_speedup: number;
  version_bundle_seconds: number;
  version_installed_seconds: number;
}

/** One loopback source that notes when each run's request arrives (each run asks for a path of its own). */
async function startSource(): Promise<{
  url: (tag: string) => string;
  seenAt: Map<string, number>;
  close: () => Promise<void>;
}> {
  const seenAt = new Map<string, number>();
  const server = createServer((req, res) => {
    if (!seenAt.has(req.url ?? '')) seenAt.set(req.url ?? '', performance.now());
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (tag) => `http://127.0.0.1:${port}/${tag}`,
    seenAt,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Spawns `node args`, resolving with the seconds from the spawn to its exit, and the spawn's time (performance.now()). */
function timeSpawn(args: string[]): Promise<{ started: number; seconds: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) resolve({ started, seconds });
      else reject(new Error(`node ${args.join(' ')} exited ${code ?? signal}`));
    });
  });
}

/** Measures every entry, alternating run by run so that a slow stretch of the machine weighs on each alike. */
export async function measureStartup(outDir: string): Promise<StartupFigures> {
  const root = projectRoot();
  const bundleRoot = join(root, 'dist', 'bundle');
  const bundle = join(bundleRoot, BUNDLE_FILES.quotecheck);
  const installed = join(root, 'bin', 'quotecheck.js');
  mkdirSync(outDir, { recursive: true });
  const ideal = join(outDir, 'startup-ideal-client.mjs');
  writeFileSync(ideal, IDEAL_CLIENT);
  const offline = join(outDir, 'startup-claims.json');
  writeFileSync(offline, JSON.stringify([{ id: 'a', quote: 'a quote', url: 'http://127.0.0.1:9/a' }]));
  const answers = join(outDir, 'startup-answers.json');
  const source = await startSource();
  let taskRuns = 0;
  let answersRight = true;
  /** One one-claim task run by `argv(claims)`: the seconds from its spawn to its request and to its exit. */
  const oneTask = async (argv: (claims: string) => string[]): Promise<{ firstRequest: number; endToEnd: number }> => {
    const tag = `run-${taskRuns++}`;
    const claims = join(outDir, 'startup-task-claims.json');
    writeFileSync(claims, JSON.stringify([{ id: 'a', quote: QUOTE, url: source.url(tag) }]));
    const args = argv(claims);
    const { started, seconds } = await timeSpawn(args);
    const seen = source.seenAt.get(`/${tag}`);
    if (seen === undefined) throw new Error(`node ${args.join(' ')}: its source saw no request`);
    if ((JSON.parse(readFileSync(answers, 'utf8')) as Record<string, string>).a !== 'verbatim') answersRight = false;
    return { firstRequest: (seen - started) / 1000, endToEnd: seconds };
  };
  const run = (entry: string) => (claims: string) => [
    entry,
    'run',
    '--allow-private',
    '--quiet',
    '--claims',
    claims,
    '--out',
    answers,
  ];
  const commands = {
    bundleTask: () => oneTask(run(bundle)),
    installedTask: () => oneTask(run(installed)),
    idealTask: () => oneTask((claims) => [ideal, claims, answers]),
  };
  const times = {
    firstBundle: [] as number[],
    firstInstalled: [] as number[],
    firstIdeal: [] as number[],
    taskBundle: [] as number[],
    taskInstalled: [] as number[],
    taskIdeal: [] as number[],
    bare: [] as number[],
    runBundle: [] as number[],
    runInstalled: [] as number[],
    versionBundle: [] as number[],
    versionInstalled: [] as number[],
  };
  const baseline = (entry: string) => [entry, 'run', '--baseline', '--quiet', '--claims', offline, '--out', answers];
  try {
    // One of each first, unmeasured: the file system cache holds every file afterwards, as it does for a task's second start.
    await commands.bundleTask();
    await commands.installedTask();
    await commands.idealTask();
    for (let i = 0; i < STARTUP_RUNS; i++) {
      const b = await commands.bundleTask();
      times.firstBundle.push(b.firstRequest);
      times.taskBundle.push(b.endToEnd);
      const n = await commands.installedTask();
      times.firstInstalled.push(n.firstRequest);
      times.taskInstalled.push(n.endToEnd);
      const d = await commands.idealTask();
      times.firstIdeal.push(d.firstRequest);
      times.taskIdeal.push(d.endToEnd);
      times.bare.push((await timeSpawn(['-e', '0'])).seconds);
      times.runBundle.push((await timeSpawn(baseline(bundle))).seconds);
      times.runInstalled.push((await timeSpawn(baseline(installed))).seconds);
      times.versionBundle.push((await timeSpawn([bundle, '--version'])).seconds);
      times.versionInstalled.push((await timeSpawn([installed, '--version'])).seconds);
    }
  } finally {
    await source.close();
  }
  const sizes = shippedSizes(join(bundleRoot, SHIPPED_FOLDER));
  const m = (xs: number[]) => fixed(median(xs), 3);
  const firstBundle = median(times.firstBundle);
  return {
    bundle_bytes: sizes.bytes,
    bundle_total_mb: fixed(Object.values(sizes.bytes).reduce((a, b) => a + b, 0) / 1e6, 2),
    bundle_files: sizes.files,
    runs: STARTUP_RUNS,
    first_request_bundle_seconds: fixed(firstBundle, 3),
    first_request_installed_seconds: m(times.firstInstalled),
    first_request_ideal_seconds: m(times.firstIdeal),
    first_request_target_seconds: FIRST_REQUEST_TARGET_SECONDS,
    first_request_target_met: firstBundle <= FIRST_REQUEST_TARGET_SECONDS,
    one_task_bundle_seconds: m(times.taskBundle),
    one_task_installed_seconds: m(times.taskInstalled),
    one_task_ideal_seconds: m(times.taskIdeal),
    one_task_ratio_vs_ideal: fixed(median(times.taskBundle) / median(times.taskIdeal), 2),
    one_task_answers_right: answersRight,
    node_bare_seconds: m(times.bare),
    run_bundle_seconds: m(times.runBundle),
    run_installed_seconds: m(times.runInstalled),
    run_speedup: fixed(median(times.runInstalled) / median(times.runBundle), 2),
    version_bundle_seconds: m(times.versionBundle),
    version_installed_seconds: m(times.versionInstalled),
  };
}

/** Chunk files of the shipped folder (scripts/bundle.ts CHUNK_NAMES), summed under this one name. */
const CHUNKS_KEY = `${SHIPPED_FOLDER}/chunk-*.mjs`;

/** The shipped folder's sizes: each named file's (BUNDLE_FILES) and the chunks' together, and how many files in all. */
function shippedSizes(folder: string): { bytes: Record<string, number>; files: number } {
  const named = new Set<string>(Object.values(BUNDLE_FILES));
  const bytes: Record<string, number> = Object.fromEntries([...named].map((f) => [f, 0]));
  bytes[CHUNKS_KEY] = 0;
  const names = readdirSync(folder);
  for (const name of names) {
    const path = `${SHIPPED_FOLDER}/${name}`;
    bytes[named.has(path) ? path : CHUNKS_KEY]! += statSync(join(folder, name)).size;
  }
  return { bytes, files: names.length };
}

/** What `npm run bench` reports as failed: a one-claim run that did not answer verbatim measured something else. */
export function startupFailures(s: StartupFigures): string[] {
  return s.one_task_answers_right ? [] : ['MISMATCH: a one-claim start-up run did not answer its claim verbatim'];
}

/** The table rows, as `npm run bench` prints them. */
export function startupTable(s: StartupFigures): string {
  const ms = (x: number) => `${(x * 1000).toFixed(0)} ms`;
  const mb = (path: string) => `${(s.bundle_bytes[path]! / 1e6).toFixed(2)} MB`;
  const target = `target ${ms(s.first_request_target_seconds)}: ${s.first_request_target_met ? 'met' : 'missed'}`;
  return [
    `shipped build (a task's solution/quotecheck/): ${s.bundle_total_mb} MB in ${s.bundle_files} files (${BUNDLE_FILES.quotecheck} ${mb(BUNDLE_FILES.quotecheck)}, chunks ${mb(CHUNKS_KEY)})`,
    `start-up, median of ${s.runs}          shipped build   installed CLI   ideal (Node + one GET)`,
    `  run, spawn to first request     ${ms(s.first_request_bundle_seconds).padStart(9)}   ${ms(s.first_request_installed_seconds).padStart(13)}   ${ms(s.first_request_ideal_seconds).padStart(9)}   (${target})`,
    `  run of one claim, end to end    ${ms(s.one_task_bundle_seconds).padStart(9)}   ${ms(s.one_task_installed_seconds).padStart(13)}   ${ms(s.one_task_ideal_seconds).padStart(9)}   (${s.one_task_ratio_vs_ideal}x the ideal)`,
    `  run --baseline, 1 claim         ${ms(s.run_bundle_seconds).padStart(9)}   ${ms(s.run_installed_seconds).padStart(13)}               (${s.run_speedup}x)`,
    `  --version                       ${ms(s.version_bundle_seconds).padStart(9)}   ${ms(s.version_installed_seconds).padStart(13)}`,
    `  node -e 0 (Node.js alone)                                       ${ms(s.node_bare_seconds).padStart(9)}`,
  ].join('\n');
}
