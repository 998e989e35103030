// `quotecheck label`'s options and help; its action is src/cli/actions/label.ts, loaded when it runs.
import type { Command } from 'commander';
import { addTableOptions } from './flags.js';
import { described, HELP_CONFIG, type Outcome } from './command.js';

/** `label`: gold labels with their proof, the first step of a benchmark (src/cli/actions/label.ts). */
export function addLabelCommand(program: Command, outcome: Outcome): void {
  const label = program
    .command('label')
    .description(
      'make gold labels by the mechanical rule, with their proof: each claim labelled on its source as read now, ' +
        'with verify_date and evidence.sha256; claims whose source cannot be read are left out. Over a labelled ' +
        "file, says which labels today's sources would change (exit 1 when some would)",
    )
    .configureHelp(HELP_CONFIG)
    .requiredOption(
      '--claims <path>',
      'claims: a JSON array of {id, quote, url}, {"claims": [...]}, or JSON Lines; every other field is kept',
    )
    .addOption(
      described(
        '--out <path>',
        'the labelled claims, JSON Lines (what export and grade --gold read)',
        'none: a labelled --claims is only checked',
      ),
    )
    .option('--force', 'replace --out, --left-out, --record and --report when they exist', false)
    .option(
      '--resume',
      'go on where a stopped run of these claims left off: label only the claims not yet in --out (or left out), ' +
        'appending to --out, --left-out, --record and --report',
      false,
    )
    .option(
      '--keep-unreadable',
      'label claims whose source could not be read no_match, as the bare rule would, instead of leaving them out',
      false,
    )
    .option(
      '--left-out <path>',
      'also write the claims left out, JSON Lines, each with left_out: {cause, kind, reason}',
    )
    .option(
      '--record <file.warc.gz>',
      'keep every HTTP exchange in a WARC 1.1 file; each evidence names the record of its bytes (warc_record_id)',
    )
    .option(
      '--replay <file.warc.gz>',
      "check a labelled --claims against a recorded run's sources, with no network (writes no labels)",
    )
    .option('--report <path>', 'also write the evidence report, one JSON line per claim');
  addTableOptions(label, 'label')
    .option('--quiet', 'no progress output', false)
    .action(async (o) => {
      const { labelCommand } = await import('../actions/label.js');
      // The command line as given: a stopped run prints it back with --resume.
      outcome.code = await labelCommand({ ...o, argv: outcome.argv?.slice(2) });
    });
}
