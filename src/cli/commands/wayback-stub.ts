// `quotecheck wayback-stub`'s options and help; its action is src/cli/actions/wayback-stub.ts.
import type { Command } from 'commander';
import { nonNegativeInt } from './flags.js';
import { HELP_CONFIG, type Outcome } from './command.js';

/**
 * `wayback-stub`: the loopback Wayback stub, served from a captures file or folder (src/cli/actions/wayback-stub.ts).
 */
export function addWaybackStubCommand(program: Command, outcome: Outcome): void {
  program
    .command('wayback-stub')
    .description(
      'serve the loopback Wayback stub (the CDX lookups quotecheck sends, and raw captures) from captures on disk, ' +
        'until Ctrl-C, to try dated claims (drift) offline: point `run --allow-private --wayback-url` at the ' +
        'origin it prints',
    )
    .configureHelp(HELP_CONFIG)
    .requiredOption(
      '--captures <dir|file>',
      'a JSON array (or JSON Lines) of captures {url, timestamp (14 digits), status?, headers?, body? or file? ' +
        '(relative to it)}, or a folder holding captures.json',
    )
    .option('--host <address>', 'the loopback address to listen on (127.x.y.z, ::1, localhost)', '127.0.0.4')
    .option('--port <n>', 'the port to listen on (0: a free one, printed)', nonNegativeInt, 0)
    .action(async (o) => {
      const { waybackStubCommand } = await import('../actions/wayback-stub.js');
      outcome.code = await waybackStubCommand(o);
    });
}
