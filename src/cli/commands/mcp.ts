// `quotecheck mcp`'s options and help (the tools it serves); its action is src/cli/actions/mcp.ts.
import type { Command } from 'commander';
import { MCP_DEFAULTS, REPLAY_ENV } from '../../config/defaults.js';
import { addTableOptions, positiveSeconds } from './flags.js';
import { described, HELP_CONFIG, type Outcome } from './command.js';

/**
 * The tools `mcp` serves and their inputs, for its --help (the schemas themselves are in src/mcp/tools.ts; a test holds
 * the two alike).
 */
const MCP_TOOLS_HELP = `
Tools (inputs; ? marks an optional one):
  verify_quote   url, quote, html_view?, as_of?, evidence?, wayback?
                 the verify --json record: label, diagnosis and evidence, judged as run judges a claim
  read_source    url, view?, offset?, length?
                 the extracted text a page at a time (what the label is computed on)
  search_source  url, query, max_results?
                 the passages closest to a phrase, best first
  check_claims   claims_path, answers_path?
                 the whole pipeline on a claims file under --root; writes the answers there
`;

/** `mcp`: the tools served to an agent over stdio (src/cli/actions/mcp.ts). */
export function addMcpCommand(program: Command, outcome: Outcome): void {
  const mcp = program
    .command('mcp')
    .description(
      'serve verify_quote, read_source, search_source and check_claims to an agent over MCP (stdio); ends when ' +
        'stdin closes',
    )
    .configureHelp(HELP_CONFIG);
  addTableOptions(mcp, 'mcp')
    .addOption(
      described(
        '--root <dir>',
        'the folder check_claims reads claims from and writes answers to: paths are resolved there, nothing ' +
          'outside it is opened',
        'the working directory',
      ),
    )
    .addOption(
      described(
        '--call-timeout <seconds>',
        'the longest one tool call may take; a call stopped there answers an error naming the limit',
        String(MCP_DEFAULTS.callTimeoutSeconds),
      ).argParser(positiveSeconds),
    )
    .addOption(
      described(
        '--replay <file.warc.gz>',
        'answer every fetch, Wayback lookups and captures too, from a WARC file, with no network',
        `$${REPLAY_ENV}`,
      ),
    )
    .addHelpText('after', MCP_TOOLS_HELP)
    .action(async (o) => {
      const { mcpCommand } = await import('../actions/mcp.js');
      outcome.code = await mcpCommand(o);
    });
}
