// `quotecheck mcp`: the MCP server over stdio (src/mcp/server.ts), with the command's options turned into settings.
import { serveStdio } from '../mcp/server.js';

export interface McpCommandOptions {
  allowPrivate: boolean;
  timeout: number;
  retries: number;
  sourceBudget: number;
  extractTimeout: number;
  waybackUrl: string;
  waybackRate: number;
  /** `--cache-mb`, already in bytes. */
  cacheMb: number;
}

export async function mcpCommand(o: McpCommandOptions): Promise<number> {
  await serveStdio({
    blockPrivate: !o.allowPrivate,
    timeoutMs: o.timeout * 1000,
    retries: o.retries,
    sourceBudgetMs: o.sourceBudget * 1000,
    extractTimeoutMs: o.extractTimeout * 1000,
    waybackUrl: o.waybackUrl,
    waybackPerMinute: o.waybackRate,
    cacheBytes: o.cacheMb,
  });
  // SIGINT/SIGTERM are a normal end for a server its client stops.
  return 0;
}
