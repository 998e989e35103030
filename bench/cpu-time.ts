// A command's wall time and CPU time (user + system), its threads and its children's included: pdftotext's too, which
// quotecheck runs from shells it never reaps, so no rusage of the command counts them. Sampled from /proc (Linux).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * How often the process tree is sampled. A sample reads a few small /proc files; the command's CPU time after its last
 * sample (at most this long of it) is not counted.
 */
const SAMPLE_MS = 10;
/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux build). */
const TICKS_PER_SECOND = 100;

interface TimedRun {
  seconds: number;
  /** User + system CPU seconds of the command, its threads and its children; undefined without /proc. */
  cpuSeconds?: number;
  stdout: string;
  stderr: string;
}

/** A process's own CPU ticks plus those of the children it has reaped (utime, stime, cutime, cstime), or undefined. */
function ticksOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state is field 3; utime, stime, cutime, cstime are fields 14-17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0);
  } catch {
    return undefined; // gone
  }
}

/** The children a process started from its main thread (quotecheck's shells), or none. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Samples the command and its direct children: each one's latest ticks, own and reaped. A shell's pdftotext is reaped
 * by the shell (its `wait`), so it lands in the shell's reaped ticks; grandchildren are not read, or they would count
 * twice.
 */
class TreeSampler {
  readonly #latest = new Map<number, number>();
  constructor(private readonly root: number) {}

  sample(): void {
    for (const pid of [this.root, ...childrenOf(this.root)]) {
      const ticks = ticksOf(pid);
      if (ticks !== undefined) this.#latest.set(pid, Math.max(ticks, this.#latest.get(pid) ?? 0));
    }
  }

  get cpuSeconds(): number {
    let ticks = 0;
    for (const t of this.#latest.values()) ticks += t;
    return ticks / TICKS_PER_SECOND;
  }
}

/** Runs `cmd` with `args` to its end; rejects when it exits non-zero (its stderr in the message), as execFile does. */
export function runTimed(cmd: string, args: readonly string[]): Promise<TimedRun> {
  const started = performance.now();
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Without /proc (not Linux) nothing is sampled, and the run has no CPU figure rather than a zero.
  const sampler = child.pid === undefined || process.platform !== 'linux' ? undefined : new TreeSampler(child.pid);
  const timer = setInterval(() => sampler?.sample(), SAMPLE_MS);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  return new Promise((resolve, reject) => {
    child.on('error', (e) => {
      clearInterval(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code !== 0) {
        reject(new Error(`${cmd} exited ${code ?? signal}: ${stderr.slice(-2000)}`));
        return;
      }
      resolve({ seconds, cpuSeconds: sampler?.cpuSeconds, stdout, stderr });
    });
  });
}
