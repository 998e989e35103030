// Commands run from small persistent shells: forking a small /bin/sh costs far less CPU per command than forking Node.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism, setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import pLimit from 'p-limit';
import { shellQuote } from '../../sh-quote.js';

interface ShellJob {
  /** The command and its arguments (passed verbatim: each is single-quoted for the shell). */
  argv: string[];
  /** Files the command's standard output and error go to. */
  stdout: string;
  stderr: string;
  /** Largest file the command may write (`ulimit -f`): past it the command gets SIGXFSZ. */
  maxFileBytes: number;
  /** The command is killed (SIGKILL) after this long. */
  timeoutMs: number;
  /** Kills the command when it aborts. */
  signal?: AbortSignal;
}

interface ShellExit {
  /** Exit status as a shell reports it: 0-255, 128 + n when killed by signal n, 127 when not found. */
  status: number;
  /** Set when quotecheck killed the command. */
  stopped?: 'timeout' | 'aborted';
}

/** SIGXFSZ (file size limit exceeded) on Linux, as a shell exit status. */
export const EXIT_FILE_TOO_LARGE = 128 + 25;
export const EXIT_NOT_FOUND = 127;

/**
 * The shells' (and so their commands') scheduling priority, below the run's own (nice 0). pdftotext is
 * batch work with slack; the event loop (every fetch waits on it) and the HTML worker (the
 * longer queue) must not wait for it. Lowering a priority needs no privilege. On the bench (2 cores)
 * the run ends about a second sooner: pdftotext fills the cores the others leave, instead of
 * finishing early and leaving the HTML worker alone on one core at the end.
 */
export const SHELL_NICENESS = 10;

interface Running {
  job: ShellJob;
  pid?: number;
  stopped?: ShellExit['stopped'];
  timer?: NodeJS.Timeout;
  resolve: (exit: ShellExit) => void;
  reject: (err: Error) => void;
}

/**
 * Every shell started in this process, ended (with the command it is running) when the process exits: an idle
 * shell would go by itself at the end of its input, but one waiting for a pdftotext would outlive the run by as long
 * as that takes, and a task's harness counts what the agent phase leaves running.
 */
const started = new Set<Shell>();
let endAtExit = false;

function track(shell: Shell): void {
  started.add(shell);
  if (endAtExit) return;
  endAtExit = true;
  process.on('exit', () => {
    for (const s of started) s.end();
  });
}

/**
 * One /bin/sh reading jobs from its standard input, one at a time. For each it starts the
 * command in the background, says its pid, waits and says its status; quotecheck kills the
 * pid at the time limit or on abort. A shell that dies fails its job; the next job starts a new one.
 */
class Shell {
  private child?: ChildProcess;
  private running?: Running;

  get busy(): boolean {
    return this.running !== undefined;
  }

  run(job: ShellJob): Promise<ShellExit> {
    this.child ??= this.start();
    const child = this.child;
    this.hold(true);
    return new Promise<ShellExit>((resolve, reject) => {
      const running: Running = { job, resolve, reject };
      this.running = running;
      running.timer = setTimeout(() => this.stop(running, 'timeout'), job.timeoutMs);
      const abort = () => this.stop(running, 'aborted');
      job.signal?.addEventListener('abort', abort, { once: true });
      const done = () => job.signal?.removeEventListener('abort', abort);
      running.resolve = (exit) => {
        done();
        resolve(exit);
      };
      running.reject = (err) => {
        done();
        reject(err);
      };
      const blocks = Math.max(1, Math.ceil(job.maxFileBytes / 512));
      const command =
        `(ulimit -f ${blocks}; exec ${job.argv.map(shellQuote).join(' ')}) ` +
        `>${shellQuote(job.stdout)} 2>${shellQuote(job.stderr)} </dev/null &\necho "pid $!"; wait $!; echo "exit $?"\n`;
      child.stdin!.write(command);
    });
  }

  /** Kills the running command and the shell at once (SIGKILL: nothing else can run during a process's exit). */
  end(): void {
    if (this.running) this.kill(this.running);
    try {
      this.child?.kill('SIGKILL');
    } catch {
      // already gone
    }
  }

  private start(): ChildProcess {
    track(this);
    const child = spawn('/bin/sh', [], { stdio: ['pipe', 'pipe', 'ignore'] });
    child.on('error', (err) => this.fail(child, new Error(`cannot run /bin/sh: ${err.message}`)));
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, SHELL_NICENESS);
      } catch {
        // A system that refuses (none known for lowering): the commands run at the run's priority.
      }
    }
    child.on('exit', (code, signal) =>
      this.fail(child, new Error(`the shell running pdftotext exited (${signal ?? code})`)),
    );
    child.stdin!.on('error', () => {}); // a dead shell is reported by 'exit'
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const running = this.running;
      if (!running) return;
      const [what, value] = line.split(' ');
      if (what === 'pid') {
        running.pid = Number(value);
        if (running.stopped) this.kill(running); // stopped before it started
      } else if (what === 'exit') {
        clearTimeout(running.timer);
        this.running = undefined;
        this.hold(false);
        running.resolve({ status: Number(value), ...(running.stopped ? { stopped: running.stopped } : {}) });
      }
    });
    return child;
  }

  private stop(running: Running, why: NonNullable<ShellExit['stopped']>): void {
    if (this.running !== running || running.stopped) return;
    running.stopped = why;
    this.kill(running);
  }

  private kill(running: Running): void {
    if (running.pid === undefined) return;
    try {
      process.kill(running.pid, 'SIGKILL');
    } catch {
      // already gone: its exit line is on the way
    }
  }

  private fail(child: ChildProcess, err: Error): void {
    if (this.child !== child) return;
    this.child = undefined;
    const running = this.running;
    this.running = undefined;
    if (running) {
      clearTimeout(running.timer);
      running.reject(err);
    }
  }

  /** A busy shell keeps the process alive; an idle one does not. */
  private hold(busy: boolean): void {
    const child = this.child;
    if (!child) return;
    for (const handle of [child, child.stdin, child.stdout] as { ref?: () => void; unref?: () => void }[]) {
      if (busy) handle.ref?.();
      else handle.unref?.();
    }
  }
}

/** Shells, one per core (the commands run here are CPU-bound); jobs beyond that wait their turn. */
export class ShellPool {
  private readonly shells: Shell[];
  private readonly limit;

  constructor(size = Math.max(1, availableParallelism())) {
    this.shells = Array.from({ length: size }, () => new Shell());
    this.limit = pLimit(size);
  }

  run(job: ShellJob): Promise<ShellExit> {
    return this.limit(() => {
      if (job.signal?.aborted) return Promise.resolve<ShellExit>({ status: 128 + 9, stopped: 'aborted' });
      return this.shells.find((s) => !s.busy)!.run(job);
    });
  }
}
