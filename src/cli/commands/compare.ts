// `quotecheck compare`'s options and help; its action is src/cli/actions/compare.ts, loaded when it runs.
import type { Command } from 'commander';
import { described, HELP_CONFIG, type Outcome } from './command.js';

/** `compare`: finished evaluate runs side by side (src/cli/actions/compare.ts). */
export function addCompareCommand(program: Command, outcome: Outcome): void {
  program
    .command('compare')
    .description(
      "finished evaluate runs side by side: mean reward and accuracy split by the oracle's diagnosis of each claim",
    )
    .configureHelp(HELP_CONFIG)
    .argument('<run-dir...>', 'evaluate --out folders (one agent each, or a comparison of several)')
    .addOption(
      described(
        '--oracle <dir>',
        "the oracle's run folder, whose evidence reports give each claim's diagnosis",
        'the run whose agent is oracle',
      ),
    )
    .option('--out <dir>', 'also write report.json and report.html into this folder')
    .action(async (runs: string[], o) => {
      const { compareCommand } = await import('../actions/compare.js');
      outcome.code = await compareCommand({ ...o, runs });
    });
}
