// Running one evaluate container (isolation.ts makes its root) with a time limit, pausing where the harness copies
// files in or out, and those copies: Harbor's upload of tests/ and its handoff of the declared artifacts.
import { spawn } from 'node:child_process';
import { lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyInto, copyOutOf } from './beneath.js';
import type { Readable, Writable } from 'node:stream';
import {
  containerArgv,
  IMAGE_PATH,
  parseStatus,
  atPause,
  type ContainerSpec,
  type PhaseStatus,
} from './namespace-root.js';

export interface ContainerResult {
  /** unshare's exit code (null when killed). */
  code: number | null;
  /** Set when evaluate killed the container at its limit (the commands' own limits are in `status`). */
  timedOut: boolean;
  status: PhaseStatus;
  /** What the pause's copy said went wrong, if anything. */
  pauseProblem?: string;
}

interface RunContainerOptions {
  /** The whole container's limit: its commands' own limits, the set-up and the grace included. */
  limitSec: number;
  /** Where its output (set-up errors, the commands' output) is kept. */
  log: string;
  /** Variables the init gets from evaluate (an agent's keys, passed on by name). */
  passEnv?: readonly string[];
  /** At the pause: `root` is the container's root as the host reaches it (/proc/PID/root of its init). */
  onPause?: (root: string) => void;
}

/** The init of a container: the only child of the unshare that forked it. */
function initPid(unshare: number): number | undefined {
  try {
    const pid = Number(readFileSync(`/proc/${unshare}/task/${unshare}/children`, 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Runs a container to its end; at its pause, `onPause` copies files and the init goes on. */
export function runContainer(spec: ContainerSpec, opts: RunContainerOptions): Promise<ContainerResult> {
  const env: NodeJS.ProcessEnv = { PATH: IMAGE_PATH };
  for (const name of opts.passEnv ?? []) if (process.env[name] !== undefined) env[name] = process.env[name];
  const [cmd, ...args] = containerArgv(spec);
  return new Promise((resolveRun) => {
    // The init's working folder is /, never a folder of the host it could keep open.
    const child = spawn(cmd!, args, { cwd: '/', env, detached: true, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let statusText = '';
    let paused = false;
    let pauseProblem: string | undefined;
    child.stdout!.on('data', (d: Buffer) => chunks.push(d));
    child.stderr!.on('data', (d: Buffer) => chunks.push(d));
    const stdin = child.stdin as Writable;
    stdin.on('error', () => {}); // the init may be gone before it reads
    (child.stdio[3] as Readable).on('data', (d: Buffer) => {
      statusText += d.toString();
      if (paused || !atPause(statusText)) return;
      paused = true;
      const init = initPid(child.pid!);
      try {
        if (init === undefined) throw new Error("the container's init is gone");
        opts.onPause?.(`/proc/${init}/root`);
      } catch (err) {
        pauseProblem = (err as Error).message;
      }
      stdin.end('go\n');
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL'); // unshare and the init: the PID namespace goes with the init
      } catch {
        // already gone
      }
    }, opts.limitSec * 1000);
    const done = (code: number | null): void => {
      clearTimeout(timer);
      writeFileSync(opts.log, Buffer.concat(chunks));
      resolveRun({ code, timedOut, status: parseStatus(statusText), ...(pauseProblem ? { pauseProblem } : {}) });
    };
    child.on('close', (code) => done(code));
    child.on('error', () => done(null));
  });
}

/**
 * Largest artifact copied out of an agent's container: an answers file is kilobytes; a larger one is cut here, and the
 * grader refuses it anyway.
 */
const MAX_ARTIFACT_BYTES = 256 * 1024 * 1024;

/**
 * The declared artifacts out of an agent's container (at its pause) into `staging`, each at its own path, through one
 * descriptor never following a link (beneath.ts); a line each for what was not copied.
 */
export function collectArtifacts(root: string, artifacts: readonly string[], staging: string): string[] {
  const notes: string[] = [];
  for (const path of artifacts) {
    try {
      copyOutOf(root, path, join(staging, path), MAX_ARTIFACT_BYTES);
    } catch (err) {
      if (!(err as { missing?: boolean }).missing) notes.push(`artifact ${path} not copied: ${(err as Error).message}`);
    }
  }
  return notes;
}

/** What `collectArtifacts` staged, into a fresh verifier container's root (at its pause), each at its own path. */
export function restoreArtifacts(staging: string, artifacts: readonly string[], root: string): void {
  for (const path of artifacts)
    if (lstatSync(join(staging, path), { throwIfNoEntry: false })) copyInto(join(staging, path), root, path);
}
