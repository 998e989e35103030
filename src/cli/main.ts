// The whole command line: every command (one file each in commands/, their actions in actions/, loaded when they
// run), as one program (program.ts) and its exit code.
import type { Command } from 'commander';
import { processIo, type CliIo } from './io.js';
import type { AddCommand, Outcome } from './commands/command.js';
import { programOf, runWith } from './program.js';
import { addRunCommand } from './commands/run.js';
import { addLabelCommand } from './commands/label.js';
import { addVerifyCommand } from './commands/verify.js';
import { addMcpCommand } from './commands/mcp.js';
import { addGradeCommand } from './commands/grade.js';
import { addEvaluateCommand, addRenamedBenchCommand } from './commands/evaluate.js';
import { addCompareCommand } from './commands/compare.js';
import { addExportCommand } from './commands/export.js';
import { addAuditCommand } from './commands/audit.js';
import { addWaybackStubCommand } from './commands/wayback-stub.js';

/** Every command, in the order help lists them. */
const EVERY_COMMAND: readonly AddCommand[] = [
  addRunCommand,
  addLabelCommand,
  addVerifyCommand,
  addMcpCommand,
  addGradeCommand,
  (program, outcome, io) => addEvaluateCommand(program, outcome, io.env),
  addRenamedBenchCommand,
  addCompareCommand,
  addExportCommand,
  addAuditCommand,
  addWaybackStubCommand,
];

/** The whole program: every command (programOf). */
export const buildProgram = (io: CliIo = processIo(), outcome: Outcome = { code: 0 }): Command =>
  programOf(io, outcome, EVERY_COMMAND);

/** The whole command line (runProgram with every command: buildProgram). */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> =>
  runWith(argv, io, (outcome) => buildProgram(io, outcome));
