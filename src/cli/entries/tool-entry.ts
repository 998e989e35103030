// The tool the MCP and skill variants give the agent (scripts/bundle.ts): the command line with what they name, `run`,
// `verify` and `mcp`; then exit, as the whole program does (src/cli/entries/entry.ts).
import { runProgram } from '../program.js';
import { addMcpCommand } from '../commands/mcp.js';
import { addRunCommand } from '../commands/run.js';
import { addVerifyCommand } from '../commands/verify.js';

process.exit(await runProgram(process.argv, [addRunCommand, addVerifyCommand, addMcpCommand]));
