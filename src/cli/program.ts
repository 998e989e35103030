// A program of some commands, parsed with commander, and its exit code: what the whole command line (main.ts) and
// the builds a task ships (entries/: the oracle's `run` alone, the agent tool's run, verify and mcp) each run with
// their own commands, so that a build holds only the commands it names.
import { Command, CommanderError } from 'commander';
import { VERSION } from '../config/defaults.js';
import { processIo, withIo, type CliIo } from './io.js';
import type { AddCommand, Outcome } from './commands/command.js';

/**
 * A program of some commands (`commands`), printing through `io` (help, version and usage errors included) and leaving
 * each command's exit code in `outcome`. Every exit is a thrown CommanderError (exitOverride): main turns it into the
 * exit code, nothing calls process.exit. The builds a task ships (scripts/bundle.ts) are programs of fewer commands.
 */
export function programOf(io: CliIo, outcome: Outcome, commands: readonly AddCommand[]): Command {
  const program = new Command('quotecheck')
    .description(
      'Checks quotes against their sources: fetch, extract, normalize, match; labels each claim verbatim or no_match.',
    )
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    // One prefix for every message, commander's usage errors included: "quotecheck: error: ...".
    .configureOutput({
      writeOut: (str) => void io.stdout.write(str),
      writeErr: (str) => void io.stderr.write(str),
      outputError: (str, write) => write(`quotecheck: ${str}`),
    })
    // Set before the commands so they inherit it: a usage error, --help or --version throws, and main returns its code.
    .exitOverride();
  for (const add of commands) add(program, outcome, io);
  return program;
}

/** Parses `argv` with the program `make` builds, printing through `io`, and returns the exit code (runProgram). */
export async function runWith(argv: string[], io: CliIo, make: (outcome: Outcome) => Command): Promise<number> {
  const outcome: Outcome = { code: 0, argv };
  return withIo(io, async () => {
    try {
      const program = make(outcome);
      await Promise.all(outcome.loading ?? []);
      await program.parseAsync(argv);
    } catch (err) {
      if (!(err instanceof CommanderError)) throw err;
      // Usage errors exit 2, like every other bad input.
      return err.exitCode === 0 ? 0 : 2;
    }
    return outcome.code;
  });
}

/**
 * Runs the command line `argv` (node's argv: the program and script first) with the program of `commands` and returns
 * its exit code: 0, or the command's own (1 no_match for verify, 2 bad input, 128+n stopped by signal n); usage errors
 * are 2, --help and --version 0. Everything it prints goes through `io` (default: the process's streams), so a caller
 * may run commands in-process; the process itself is never exited.
 */
export const runProgram = (argv: string[], commands: readonly AddCommand[], io: CliIo = processIo()): Promise<number> =>
  runWith(argv, io, (outcome) => programOf(io, outcome, commands));
