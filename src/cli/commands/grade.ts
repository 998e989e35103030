// `quotecheck grade`'s options and help; its action is src/cli/actions/grade.ts, loaded when it runs.
import type { Command } from 'commander';
import { HELP_CONFIG, type Outcome } from './command.js';

/** `grade`: an answers file against gold labels (src/cli/actions/grade.ts). */
export function addGradeCommand(program: Command, outcome: Outcome): void {
  program
    .command('grade')
    .description('grade an answers file against gold labels; reward = correct / gold claims; names the wrong ids')
    .configureHelp(HELP_CONFIG)
    .requiredOption('--answers <path>', 'answers file ({id: label} or [{id, label}])')
    .requiredOption(
      '--gold <path>',
      'gold labels: {id: label}, [{id, label}], or the labelled claims label writes (JSON Lines with a label each)',
    )
    .option('--reward <path>', 'write the reward (a decimal) to this file; missing folders are created')
    .action(async (o) => {
      const { gradeCommand } = await import('../actions/grade.js');
      outcome.code = await gradeCommand(o);
    });
}
