// `quotecheck run`'s options and help; its action is src/cli/actions/run.ts, loaded when it runs.
import { type Command, Option } from 'commander';
import { CLI_DEFAULTS, REPLAY_ENV } from '../../config/defaults.js';
import { REPORT_ORDERS } from '../../config/settings.js';
import { bytesOf } from '../../config/fetch-options.js';
import { addTableOptions, megabytes, positiveSeconds } from './flags.js';
import { described, HELP_CONFIG, type Outcome } from './command.js';

/** `run`: label every claim of a claims file (src/cli/actions/run.ts). */
export function addRunCommand(program: Command, outcome: Outcome): void {
  const run = program
    .command('run')
    .description(
      'label every claim of a claims file; the answers file is written by every run that gets past input validation',
    )
    .configureHelp(HELP_CONFIG)
    .option(
      '--claims <path>',
      'claims file: a JSON array of {id, quote, url} (docs/how-it-decides.md, Contracts)',
      'claims.json',
    )
    .option('--out <path>', 'answers file to write', 'answers.json')
    .option(
      '--report <path>',
      'also write the evidence report, one JSON line per claim, appended as each claim is decided',
    )
    .addOption(
      new Option(
        '--report-order <order>',
        "the report's line order: as claims are decided, or the claims file's (rewritten once at the end)",
      )
        .choices([...REPORT_ORDERS])
        .default('decision'),
    )
    .option('--baseline', 'fetch nothing, answer no_match for every claim (the baseline every agent must beat)', false)
    .addOption(
      new Option('--format <format>', 'answers as {id: label} (map) or [{id, label}] (list)')
        .choices(['map', 'list'])
        .default('map'),
    );
  addTableOptions(run, 'run')
    .option('--deadline <seconds>', 'stop after this long; undecided claims are answered no_match', positiveSeconds)
    .addOption(
      described('--max-claims-mb <megabytes>', 'largest claims file read', String(CLI_DEFAULTS.maxClaimsMb)).argParser(
        megabytes,
      ),
    )
    .addOption(
      described('--as-of <date>', 'judge every claim as of this ISO date or date-time', "each claim's verify_date"),
    )
    .option('--record <file.warc.gz>', 'keep every HTTP exchange of the run in a WARC 1.1 file')
    .addOption(
      described('--replay <file.warc.gz>', 'answer every fetch from a WARC file, with no network', `$${REPLAY_ENV}`),
    )
    .option('--quiet', 'no progress output', false)
    .action(async (o) => {
      // Each command loads its own modules: `grade` should not pay for the HTTP client and parsers.
      const { runCommand } = await import('../actions/run.js');
      outcome.code = await runCommand({
        ...o,
        maxClaimsBytes: o.maxClaimsMb === undefined ? undefined : bytesOf(o.maxClaimsMb),
      });
    });
}
