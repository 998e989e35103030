// `quotecheck mcp`: the MCP server over stdio (src/mcp/server.ts), with the command's options turned into settings.
import { serveStdio } from '../mcp/server.js';
import { pipelineLimits, type LimitOptions } from './limits.js';

export interface McpCommandOptions extends LimitOptions {
  allowPrivate: boolean;
  /** `--cache-mb`, already in bytes. */
  cacheMb: number;
}

export async function mcpCommand(o: McpCommandOptions): Promise<number> {
  await serveStdio({
    blockPrivate: !o.allowPrivate,
    ...pipelineLimits(o),
    cacheBytes: o.cacheMb,
  });
  // SIGINT/SIGTERM are a normal end for a server its client stops.
  return 0;
}
