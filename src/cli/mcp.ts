// `quotecheck mcp`: the MCP server over stdio (src/mcp/server.ts), with the command's options turned into settings.
import { DEFAULT_CALL_TIMEOUT_SECONDS } from '../mcp/bounds.js';
import { RootFolder } from '../mcp/files.js';
import { serveStdio } from '../mcp/server.js';
import { pipelineLimits, type LimitOptions } from './pipeline-limits.js';
import { cliIo, refuseInput } from './progress.js';

export interface McpCommandOptions extends LimitOptions {
  allowPrivate: boolean;
  /** `--cache-mb`, already in bytes. */
  cacheMb: number;
  /** `--root`: the working directory when not given. */
  root?: string;
  /** `--call-timeout`, in seconds. */
  callTimeout?: number;
}

export async function mcpCommand(o: McpCommandOptions): Promise<number> {
  let root: RootFolder;
  try {
    root = RootFolder.open(o.root ?? cliIo().cwd);
  } catch (err) {
    return refuseInput(err);
  }
  await serveStdio({
    root,
    callTimeoutMs: (o.callTimeout ?? DEFAULT_CALL_TIMEOUT_SECONDS) * 1000,
    allowPrivate: o.allowPrivate,
    ...pipelineLimits(o),
    cacheBytes: o.cacheMb,
  });
  // SIGINT/SIGTERM are a normal end for a server its client stops.
  return 0;
}
