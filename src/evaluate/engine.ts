// A real OCI engine (Docker or Podman) driven through its command line, as Harbor's docker environment drives Docker:
// which engine answers here, images built once per build context, containers started and removed, commands run in
// them as a user under a time limit, files moved in and out as the engine's tar streams, and what is still running.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { EngineName } from '../results/evaluation-report.js';

/** What every container evaluate starts carries, so that a run's leftovers can be found (`--filter label=...`). */
const CONTAINER_LABEL = 'org.quotecheck.evaluate';

/** How long `info` may take before the engine counts as not answering. */
const PROBE_TIMEOUT_MS = 15_000;

const answers = new Map<EngineName, boolean>();

/**
 * Whether the engine answers here: its command on PATH, and `info` working (Docker's daemon up; Podman's storage and
 * runtime usable). Asked once per process.
 */
export function engineAnswers(name: EngineName): boolean {
  let ok = answers.get(name);
  if (ok === undefined) {
    const probe = spawnSync(name, ['info'], { stdio: 'ignore', timeout: PROBE_TIMEOUT_MS });
    ok = probe.status === 0;
    answers.set(name, ok);
  }
  return ok;
}

/** A command line's end: its exit code (null when killed), whether evaluate killed it at its limit, its output. */
export interface CliResult {
  code: number | null;
  timedOut: boolean;
  /** stdout and stderr as they came (stdout only when it is not sent elsewhere), cut at `maxOutput`. */
  output: Buffer;
}

interface CliOptions {
  timeoutSec?: number;
  /** Fed to the command's stdin (a tar stream for `cp -`). */
  input?: Readable;
  /** Where stdout goes instead of `output` (a tar stream from `cp ... -`). */
  stdout?: Writable;
  /** Variables the command gets beyond evaluate's own (an agent's keys, which `exec -e NAME` passes on by name). */
  env?: NodeJS.ProcessEnv;
  /** The most output kept; the rest is dropped (an agent may print without end). */
  maxOutput?: number;
  /** Kills the command when aborted (a copy past its cap). */
  signal?: AbortSignal;
}

/** Output kept of a command by default: the end of a build log, an agent's last words. */
const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024;

/** Runs the engine's command line to its end, killed at its limit. */
export function engineCli(engine: EngineName, args: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolveCli) => {
    const child = spawn(engine, args, {
      env: { ...process.env, ...opts.env },
      stdio: [opts.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const max = opts.maxOutput ?? DEFAULT_MAX_OUTPUT;
    const chunks: Buffer[] = [];
    let kept = 0;
    const keep = (d: Buffer): void => {
      if (kept >= max) return;
      chunks.push(d.subarray(0, max - kept));
      kept += Math.min(d.length, max - kept);
    };
    if (opts.stdout) child.stdout!.pipe(opts.stdout, { end: false });
    else child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    if (opts.input) {
      child.stdin!.on('error', () => {}); // the command may stop reading early
      opts.input.pipe(child.stdin!);
    }
    let timedOut = false;
    const timer =
      opts.timeoutSec === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, opts.timeoutSec * 1000);
    const stop = (): void => {
      child.kill('SIGKILL');
    };
    opts.signal?.addEventListener('abort', stop);
    let settled = false;
    const done = (code: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', stop);
      resolveCli({ code, timedOut, output: Buffer.concat(chunks) });
    };
    child.on('close', (code) => done(code));
    child.on('error', (err) => {
      keep(Buffer.from(`${engine}: ${err.message}\n`));
      done(null);
    });
  });
}

/** The last lines of a command's output, for a one-line problem. */
export function lastLines(output: Buffer, n = 3): string {
  return output.toString('utf8').trim().split('\n').slice(-n).join(' | ').slice(0, 600);
}

/** Whether the engine holds an image by this name. */
export async function imageExists(engine: EngineName, image: string): Promise<boolean> {
  const r = await engineCli(engine, ['image', 'inspect', '--format', '{{.Id}}', image], { timeoutSec: 60 });
  return r.code === 0;
}

/** How a container is started: its image, its network and its limits (task.toml's [environment]). */
export interface ContainerOptions {
  image: string;
  /** `default`: the engine's own network (Harbor's public); `none`: no network; `host`: this machine's. */
  network: 'default' | 'none' | 'host';
  cpus?: number;
  memoryMb?: number;
  /** Variables every command in it gets ([environment] env). */
  env?: Readonly<Record<string, string>>;
}

/** A started container: its name, by which evaluate runs commands in it and removes it. */
export interface Container {
  engine: EngineName;
  name: string;
  /** Its keep-alive's process id as `top` shows it (Podman: the container's PID 1; Docker: the host's pid of it). */
  keepAlive: ReadonlySet<string>;
}

/**
 * Starts a container that waits (`sleep infinity`, Harbor's keep-alive, as its PID 1) for the commands evaluate runs
 * in it; an error's last lines when it does not start.
 */
export async function startContainer(
  engine: EngineName,
  o: ContainerOptions,
): Promise<{ container: Container } | { error: string }> {
  const name = `quotecheck-${randomBytes(6).toString('hex')}`;
  const args = ['run', '--detach', '--name', name, '--label', `${CONTAINER_LABEL}=${process.pid}`];
  if (o.network !== 'default') args.push('--network', o.network);
  if (o.cpus !== undefined) args.push('--cpus', String(o.cpus));
  if (o.memoryMb !== undefined) args.push('--memory', `${Math.floor(o.memoryMb)}m`);
  for (const [k, v] of Object.entries(o.env ?? {})) args.push('--env', `${k}=${v}`);
  args.push(o.image, 'sleep', 'infinity');
  const r = await engineCli(engine, args, { timeoutSec: 120 });
  if (r.code !== 0) {
    await removeContainer({ engine, name, keepAlive: new Set() });
    return { error: r.timedOut ? `${engine} run took over 120 s` : lastLines(r.output) };
  }
  if (engine === 'podman') {
    const container = { engine, name, keepAlive: new Set(['1']) };
    track(container);
    return { container };
  }
  const pid = await engineCli(engine, ['inspect', '--format', '{{.State.Pid}}', name], { timeoutSec: 60 });
  const container = { engine, name, keepAlive: new Set([pid.output.toString('utf8').trim()]) };
  track(container);
  return { container };
}

/** The containers started and not yet removed: removed when evaluate exits before it could (a signal, an error). */
const live = new Map<string, EngineName>();
let cleanupOnExit = false;
function track(c: Container): void {
  live.set(c.name, c.engine);
  if (cleanupOnExit) return;
  cleanupOnExit = true;
  process.once('exit', () => {
    for (const [name, engine] of live) spawnSync(engine, ['rm', '--force', name], { stdio: 'ignore', timeout: 30_000 });
  });
}

/** Removes a container and whatever runs in it, at once (no grace: what is left there is the agent's). */
export async function removeContainer(c: Container): Promise<void> {
  live.delete(c.name);
  await engineCli(
    c.engine,
    c.engine === 'podman' ? ['rm', '--force', '--time', '0', c.name] : ['rm', '--force', c.name],
    {
      timeoutSec: 120,
    },
  );
}

/** How a command is run in a container (`exec`): as whom, where, with which variables, for how long. */
interface ExecOptions {
  /** A name or uid the image knows; undefined: the image's default user. */
  user?: string;
  /** Undefined: the image's WORKDIR. */
  cwd?: string;
  env?: Readonly<Record<string, string>>;
  /** Variables passed on by name from evaluate's environment (an agent's keys), never by value on a command line. */
  passEnv?: readonly string[];
  timeoutSec: number;
  maxOutput?: number;
}

/** Runs `bash -c command` in the container, as Harbor's exec does. */
export function execIn(c: Container, command: string, o: ExecOptions): Promise<CliResult> {
  const args = ['exec'];
  if (o.user !== undefined) args.push('--user', o.user);
  if (o.cwd !== undefined) args.push('--workdir', o.cwd);
  for (const [k, v] of Object.entries(o.env ?? {})) args.push('--env', `${k}=${v}`);
  const passed: NodeJS.ProcessEnv = {};
  for (const name of o.passEnv ?? [])
    if (process.env[name] !== undefined) {
      passed[name] = process.env[name];
      args.push('--env', name);
    }
  args.push(c.name, 'bash', '-c', command);
  return engineCli(c.engine, args, {
    timeoutSec: o.timeoutSec,
    env: passed,
    ...(o.maxOutput !== undefined ? { maxOutput: o.maxOutput } : {}),
  });
}

/**
 * A path of the container as the engine's tar stream (`cp CONTAINER:PATH -`): what `docker cp` carries (a link as a
 * link for Docker; Podman resolves the last link inside the container's own root), never a host path.
 */
export function copyOut(
  c: Container,
  path: string,
  sink: Writable,
  timeoutSec: number,
  signal?: AbortSignal,
): Promise<CliResult> {
  return engineCli(c.engine, ['cp', `${c.name}:${path}`, '-'], {
    stdout: sink,
    timeoutSec,
    ...(signal ? { signal } : {}),
  });
}

/** A tar stream unpacked into a folder of the container (`cp - CONTAINER:DIR`), as the engine unpacks it. */
export function copyIn(c: Container, dir: string, tar: Readable, timeoutSec: number): Promise<CliResult> {
  return engineCli(c.engine, ['cp', '-', `${c.name}:${dir}`], { input: tar, timeoutSec });
}

/** A host folder's contents copied into a folder of the container (`cp DIR/. CONTAINER:DIR`), Harbor's upload_dir. */
export function uploadDir(c: Container, from: string, to: string, timeoutSec: number): Promise<CliResult> {
  return engineCli(c.engine, ['cp', `${from}/.`, `${c.name}:${to}`], { timeoutSec });
}

/** A host file copied to a path of the container (`cp FILE CONTAINER:PATH`). */
export function uploadFile(c: Container, from: string, to: string, timeoutSec: number): Promise<CliResult> {
  return engineCli(c.engine, ['cp', from, `${c.name}:${to}`], { timeoutSec });
}

/** A process in a container: its id as the engine shows it and its state letter (Z for a zombie). */
interface ContainerProcess {
  pid: string;
  state: string;
}

/** The processes of a container (`top`), as the engine lists them; undefined when it cannot say. */
export async function containerProcesses(c: Container): Promise<ContainerProcess[] | undefined> {
  const args = c.engine === 'podman' ? ['top', c.name, 'pid', 'state'] : ['top', c.name, '-o', 'pid,stat'];
  const r = await engineCli(c.engine, args, { timeoutSec: 60 });
  if (r.code !== 0) return undefined;
  return r.output
    .toString('utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((w) => w.length >= 2 && /^\d+$/.test(w[0]!))
    .map((w) => ({ pid: w[0]!, state: w[1]! }));
}
