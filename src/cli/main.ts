// The command line: argument parsing (commander) and dispatch to one module per command.
import { Command, InvalidArgumentError, Option } from 'commander';
import { VERSION, DEFAULT_OPTIONS } from '../check.js';
import { runCommand } from './run.js';
import { gradeCommand } from './grade.js';
import { verifyCommand } from './verify.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number of at least 0');
  return n;
}

function positiveSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a number of seconds above 0');
  return n;
}

function megabytes(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a number of megabytes above 0');
  return Math.round(n * 1024 * 1024);
}

export function buildProgram(): Command {
  const program = new Command('quotecheck')
    .description('Checks quotes against their sources: fetch, extract, normalize, match; labels each claim verbatim or no_match.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    // Usage errors exit 2, like every other bad input; set before the commands so they inherit it.
    .exitOverride((err) => {
      process.exit(err.exitCode === 0 ? 0 : 2);
    });

  program
    .command('run')
    .description('label every claim of a claims file; the answers file is always written')
    .option('--claims <path>', 'claims file (design.md §1)', 'claims.json')
    .option('--out <path>', 'answers file to write', 'answers.json')
    .option('--report <path>', 'also write the evidence report, one JSON line per claim')
    .option('--baseline', 'fetch nothing, answer no_match for every claim (the floor)', false)
    .addOption(new Option('--format <format>', 'answers as {id: label} or [{id, label}]').choices(['map', 'list']).default('map'))
    .addOption(new Option('--html-view <view>', 'which HTML text may match: Readability article, full page, or either').choices(['article', 'full', 'any']).default(DEFAULT_OPTIONS.htmlView))
    .option('--concurrency <n>', 'sources fetched at once', positiveInt, DEFAULT_OPTIONS.concurrency)
    .option('--per-host <n>', 'sources fetched at once from one host', positiveInt, DEFAULT_OPTIONS.perHost)
    .option('--timeout <seconds>', 'limit for one HTTP attempt', positiveSeconds, DEFAULT_OPTIONS.timeoutMs / 1000)
    .option('--retries <n>', 'further attempts on network errors, 408, 425, 429, 5xx', nonNegativeInt, DEFAULT_OPTIONS.retries)
    .option('--deadline <seconds>', 'stop after this long; undecided claims are answered no_match', positiveSeconds)
    .option('--user-agent <string>', 'User-Agent header (default names quotecheck honestly)')
    .option('--max-mb <megabytes>', 'largest body accepted', megabytes)
    .option('--quiet', 'no progress output', false)
    .action(async (o) => {
      process.exitCode = await runCommand({ ...o, maxBytes: o.maxMb });
    });

  program
    .command('verify')
    .description('check one quote against one URL; exit 0 verbatim, 1 no_match, 2 bad input')
    .requiredOption('--url <url>', 'the source URL')
    .requiredOption('--quote <text>', 'the quote ("-" reads it from stdin)')
    .option('--json', 'print one JSON object (the report fields of design.md §2, plus the quote)', false)
    .addOption(new Option('--html-view <view>', 'which HTML text may match').choices(['article', 'full', 'any']).default(DEFAULT_OPTIONS.htmlView))
    .option('--timeout <seconds>', 'limit for one HTTP attempt', positiveSeconds, DEFAULT_OPTIONS.timeoutMs / 1000)
    .option('--retries <n>', 'further attempts on transient failures', nonNegativeInt, DEFAULT_OPTIONS.retries)
    .option('--user-agent <string>', 'User-Agent header')
    .action(async (o) => {
      process.exitCode = await verifyCommand(o);
    });

  program
    .command('grade')
    .description('grade an answers file against gold labels; reward = correct / gold claims')
    .requiredOption('--answers <path>', 'answers file ({id: label} or [{id, label}])')
    .requiredOption('--gold <path>', 'gold labels ({id: label} or [{id, label}])')
    .option('--reward <path>', 'write the reward (a decimal) to this file')
    .action(async (o) => {
      process.exitCode = await gradeCommand(o);
    });

  return program;
}

export async function main(argv: string[]): Promise<void> {
  await buildProgram().parseAsync(argv);
}
