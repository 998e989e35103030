// `quotecheck verify`'s options and help; its action is src/cli/actions/verify.ts, loaded when it runs.
import type { Command } from 'commander';
import { REPLAY_ENV } from '../../config/defaults.js';
import { addTableOptions } from './flags.js';
import { described, HELP_CONFIG, type Outcome } from './command.js';

/** `verify`: one quote against one URL (src/cli/actions/verify.ts). */
export function addVerifyCommand(program: Command, outcome: Outcome): void {
  const verify = program
    .command('verify')
    .description('check one quote against one URL; exit 0 verbatim, 1 no_match, 2 bad input')
    .configureHelp(HELP_CONFIG)
    .requiredOption('--url <url>', 'the source URL')
    .requiredOption('--quote <text>', 'the quote ("-" reads it from stdin)')
    .option(
      '--json',
      'print one JSON object: the evidence report fields (docs/how-it-decides.md, Contracts) plus the quote',
      false,
    );
  addTableOptions(verify, 'verify')
    .addOption(
      described(
        '--as-of <date>',
        'judge the quote as of this ISO date or date-time, as run judges a claim with this verify_date',
        'today',
      ),
    )
    .option(
      '--evidence <sha256>',
      "the sha256 of the source as labelled (a claim's evidence.sha256): a capture hashing to it decides alone",
    )
    .addOption(described('--replay <file.warc.gz>', 'answer from a WARC file, with no network', `$${REPLAY_ENV}`))
    .action(async (o) => {
      const { verifyCommand } = await import('../actions/verify.js');
      outcome.code = await verifyCommand(o);
    });
}
