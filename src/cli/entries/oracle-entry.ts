// The oracle a task ships (solution/quotecheck.tgz, scripts/bundle.ts): the command line with `run` alone, so that its
// build holds only what a task's solve.sh runs; then exit, as the whole program does (src/cli/entries/entry.ts).
import { runProgram } from '../program.js';
import { addRunCommand } from '../commands/run.js';

process.exit(await runProgram(process.argv, [addRunCommand]));
