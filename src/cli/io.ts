// Where a command's output goes and what it reads from its surroundings: the process's own streams, or (a command run
// in-process, as the tests run most of them) the writers and values the caller gives for the length of that command.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';

/** An output a command writes text to; `isTTY` as a terminal stream has it. */
export interface CliWriter {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/** A command's surroundings: its outputs, its standard input, environment and working folder. */
export interface CliIo {
  stdout: CliWriter;
  stderr: CliWriter;
  /** The whole standard input, read when a command asks for it (`verify --quote -`). */
  readStdin(): string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The process's own: what `quotecheck` run from a shell uses. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    readStdin: () => readFileSync(0, 'utf8'),
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * The io of the command running in this asynchronous context; held per context, so commands run at once keep theirs.
 */
const current = new AsyncLocalStorage<CliIo>();

/** The running command's io: the one `withIo` set for it, else the process's. */
export function cliIo(): CliIo {
  return current.getStore() ?? processIo();
}

/** Runs `fn` with `io` as its commands' io (everything it starts, timers and callbacks included, sees it). */
export function withIo<T>(io: CliIo, fn: () => T): T {
  return current.run(io, fn);
}
