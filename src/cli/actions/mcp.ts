// `quotecheck mcp`: the MCP server over stdio (src/mcp/server.ts), with the command's options turned into settings.
import type { ReplayDispatcher } from '../../archive/index.js';
import { replayFromEnv } from '../../config/defaults.js';
import { DEFAULT_CALL_TIMEOUT_SECONDS } from '../../mcp/bounds.js';
import { RootFolder } from '../../mcp/files.js';
import { serveStdio } from '../../mcp/server.js';
import { fetchSettings, type FetchFlags } from '../../config/fetch-options.js';
import { cliIo, refuseInput } from '../progress.js';

/**
 * `mcp`'s options as commander gives them: the table's (src/config/fetch-options.ts; `cacheMb` in megabytes) and its
 * own.
 */
interface McpCommandOptions extends FetchFlags<'mcp'> {
  /** `--root`: the working directory when not given. */
  root?: string;
  /** `--call-timeout`, in seconds. */
  callTimeout?: number;
  /** `--replay`: every fetch answered from this WARC file (default: $QUOTECHECK_REPLAY). */
  replay?: string;
}

/**
 * The archive the tools answer from, when one is given (--replay, else $QUOTECHECK_REPLAY): read whole before the
 * server starts, so a missing or unreadable file is one error line and exit 2, not a session whose every call fails.
 * Its Wayback answers are served whatever --wayback-url says (the base they were recorded from is in the archive).
 */
async function openArchive(o: McpCommandOptions): Promise<{ path: string; replay: ReplayDispatcher } | undefined> {
  const path = o.replay ?? replayFromEnv(cliIo().env);
  if (!path) return undefined;
  const { openReplay } = await import('../../archive/index.js');
  return { path, replay: await openReplay(path, { waybackUrl: o.waybackUrl }) };
}

export async function mcpCommand(o: McpCommandOptions): Promise<number> {
  let root: RootFolder;
  let archive: Awaited<ReturnType<typeof openArchive>>;
  try {
    root = RootFolder.open(o.root ?? cliIo().cwd);
    archive = await openArchive(o);
  } catch (err) {
    return refuseInput(err);
  }
  await serveStdio({
    root,
    callTimeoutMs: (o.callTimeout ?? DEFAULT_CALL_TIMEOUT_SECONDS) * 1000,
    ...fetchSettings('mcp', o),
    ...(archive ? { replay: archive.replay, replayPath: archive.path } : {}),
  });
  // SIGINT/SIGTERM are a normal end for a server its client stops.
  return 0;
}
