// Shared test helpers: a loopback server per test, a closed port, temp folders, and the CLI as a child process or in-process.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { startServer, type Route, type RunningServer } from '../../golden/server.js';
// In-process runs load src/cli/main.ts (loadCli); child processes run the built CLI (bin/quotecheck.js).
import type { CliIo } from '../../src/cli/io.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'bin', 'quotecheck.js');
export const FIXTURES = join(ROOT, 'test', 'fixtures');

/**
 * The longest a test's cleanup may take. Removing files is slow on a disk mounted with `discard` (this project's CI
 * machine: a few milliseconds a file just written), and a test that builds the golden tasks in every variant leaves
 * about 5,000 of them (each task's shipped quotecheck folder holds its chunks): past vitest's 10 s for a hook.
 */
const CLEANUP_TIMEOUT_MS = 60_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
}, CLEANUP_TIMEOUT_MS);

/** Runs `fn` after this test, with every other cleanup, the last registered first (a client before its server). */
export function afterTest(fn: () => Promise<unknown> | unknown): void {
  cleanups.push(async () => {
    await fn();
  });
}

/** Starts a loopback server for this test; it is closed after the test. */
export async function serve(routes: Route[], hosts?: string[]): Promise<RunningServer> {
  const server = await startServer({ routes, baseDir: FIXTURES, hosts });
  afterTest(() => server.close());
  return server;
}

/** A temp folder removed after the test; `prefix` starts its name. */
export function tempDir(prefix = 'quotecheck-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The task folders of an exported dataset, by name: its folders, not the files beside them (README.md, dataset.toml). */
export const taskFolders = (dataset: string): string[] =>
  readdirSync(dataset, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

const fileFolders: string[] = [];
afterAll(() => {
  for (const dir of fileFolders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp folder shared by the tests of a file (made in beforeAll): removed after the file's last test and its own afterAll hooks. */
export function fileTempDir(prefix = 'quotecheck-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  fileFolders.push(dir);
  return dir;
}

/** A claims file in a temp folder (removed after the test), and where a run there writes: `content` as it is (text or bytes), anything else as JSON. */
export function claimsRun(content: unknown): { dir: string; claims: string; out: string; report: string } {
  const dir = tempDir();
  const claims = join(dir, 'claims.json');
  writeFileSync(claims, typeof content === 'string' || Buffer.isBuffer(content) ? content : JSON.stringify(content));
  return { dir, claims, out: join(dir, 'answers.json'), report: join(dir, 'report.jsonl') };
}

export function writeJson(path: string, value: unknown): string {
  writeFileSync(path, JSON.stringify(value));
  return path;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (`npm test` builds first); `onSpawn` may signal the child. Stdin: `input`, then closed;
 * with `openStdin`, a pipe that `onSpawn` writes and closes; else none (/dev/null).
 */
export function runCli(
  args: string[],
  opts: {
    cwd?: string;
    input?: string;
    openStdin?: boolean;
    onSpawn?: (child: ChildProcess) => void;
    asUid?: number;
    /** The child's whole environment (default: this process's). */
    env?: NodeJS.ProcessEnv;
  } = {},
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    // `asUid` (root only): the CLI runs as that user (util-linux's setpriv), for what root is never refused; it runs
    // the self-contained build from a folder any user may enter, wherever the checkout is.
    const [cmd, ...argv] =
      opts.asUid === undefined
        ? [process.execPath, CLI, ...args]
        : [
            'setpriv',
            `--reuid=${opts.asUid}`,
            `--regid=${opts.asUid}`,
            '--clear-groups',
            process.execPath,
            buildForAnyUser(),
            ...args,
          ];
    const child = spawn(cmd!, argv, {
      cwd: opts.cwd,
      ...(opts.env ? { env: opts.env } : {}),
      stdio: [opts.input === undefined && !opts.openStdin ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    let stdout = '';
    let stderr = '';
    // stdout and stderr are always piped (stdio above): never null.
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
    opts.onSpawn?.(child);
  });
}

/**
 * The CLI's main from src/, loaded once per test file: the same build of the code as the test's own imports (one
 * build a process). The shipped build is what runCli (a child process) and the bundle tests run.
 */
type CliMain = (argv: string[], io: CliIo) => Promise<number>;
let cliMain: Promise<CliMain> | undefined;
function loadCli(): Promise<CliMain> {
  cliMain ??= import('../../src/cli/main.js').then((m) => m.main);
  return cliMain;
}

/** How many in-process runs are going on now. */
let running = 0;
/** processState() when the first of the in-process runs going on now started. */
let stateBefore = '';

/** The process-wide state a command must leave as it found it: its signal handlers and exit code. */
function processState(): string {
  return JSON.stringify({
    SIGINT: process.listenerCount('SIGINT'),
    SIGTERM: process.listenerCount('SIGTERM'),
    exitCode: process.exitCode ?? null,
  });
}

/**
 * Runs the built CLI's main in this process, with its own io (src/cli/io.ts: main runs the command under withIo, and
 * everything it writes goes through cliIo()): what it prints to stdout and stderr, stdin `input`
 * (else empty, as /dev/null), this process's environment and working folder. The result is runCli's, with no
 * signal; a command that throws (a bug) ends with code 1 and the stack on stderr, as node would. For every command
 * that needs no process of its own: no signal, no other user, no working folder or environment of its own; a
 * command that calls process.exit (a second signal during a run or an export) must stay on runCli. The command must
 * leave no signal handler behind and the exit code alone: the test fails otherwise.
 */
export async function runCliInProcess(args: string[], opts: { input?: string } = {}): Promise<CliResult> {
  const main = await loadCli();
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        stdout += text;
      },
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
      },
    },
    readStdin: () => opts.input ?? '',
    env: { ...process.env },
    cwd: process.cwd(),
  };
  if (running++ === 0) stateBefore = processState();
  let code: number;
  try {
    code = await main([process.execPath, CLI, ...args], io);
  } catch (err) {
    stderr += `${(err as Error)?.stack ?? String(err)}\n`;
    code = 1;
  } finally {
    running--;
  }
  if (running === 0 && processState() !== stateBefore) {
    throw new Error(
      `quotecheck ${args.join(' ')} left the process changed: ${stateBefore} before, ${processState()} after`,
    );
  }
  return { code, signal: null, stdout, stderr };
}

let anyUserBuild: string | undefined;

/**
 * The self-contained build (dist/bundle/quotecheck/, as a task ships it), copied into a folder of its own under the
 * system's temp folder with modes any user may read and run: a checkout under a folder only root may enter (a clone
 * in /root, a 0700 mktemp folder) is out of another user's reach, and the suite must not depend on where it is.
 */
function buildForAnyUser(): string {
  if (anyUserBuild) return anyUserBuild;
  const dir = mkdtempSync(join(tmpdir(), 'quotecheck-any-user-'));
  cpSync(join(ROOT, 'dist', 'bundle', 'quotecheck'), dir, { recursive: true });
  chmodSync(dir, 0o755);
  for (const file of readdirSync(dir)) chmodSync(join(dir, file), 0o644);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  anyUserBuild = join(dir, 'quotecheck.mjs');
  return anyUserBuild;
}

/**
 * Every code point of the BMP (surrogates apart), plane 1 and plane 14 (tags and variation
 * selectors, which casing ignores): where whitespace, quotes, dashes, case-ignorable and
 * compatibility characters live. Planes 2 and 3 are CJK ideographs; the rest is unassigned or private use.
 */
export const CODE_POINTS: readonly number[] = [
  ...Array.from({ length: 0x20000 }, (_, cp) => cp).filter((cp) => cp < 0xd800 || cp > 0xdfff),
  ...Array.from({ length: 0x200 }, (_, i) => 0xe0000 + i),
];

/** A loopback port nothing listens on (taken, then released): a connection to it is refused. */
export async function closedPort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
