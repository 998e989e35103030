// The MCP server: quotecheck's tools registered on the official SDK's McpServer, each call under a time limit and the
// work budget, served over stdio through the size guard (stdout carries only the protocol).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Dispatcher } from 'undici';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../config/defaults.js';
import { thousands } from '../messages.js';
import { BoundedLines, GuardedTransport, MAX_REQUEST_BYTES, MAX_RESPONSE_BYTES } from './bounds.js';
import { SourceCache } from './cache.js';
import { inTurns, WAIT_NOTE_MS, type WorkSettings } from './turns.js';
import { collectSoon } from '../extract/collect.js';
import { useLanes } from './lanes.js';
import { PageWorker } from './page-worker.js';
import { gatedInterceptor, KnownSizes, WORK_MEMORY_PER_BYTE, WorkBudget } from './work.js';
import { SourceTools, ToolInputError, type ToolSettings } from './tools.js';
import {
  checkInput,
  checkOutput,
  readInput,
  readOutput,
  searchInput,
  searchOutput,
  verifyInput,
  verifyOutput,
} from './tool-schemas.js';

type McpSettings = Omit<ToolSettings, 'cache' | 'gate'> & {
  /** Bytes kept for the session: HTTP bodies and extracted sources (`--cache-mb`). */
  cacheBytes: number;
  /** Bytes of pages the calls work on at once (`--work-mb`). */
  workBytes: number;
  /** The longest one tool call may take (`--call-timeout`). */
  callTimeoutMs: number;
  /** With `replay`: the archive's path, for the start-up line. */
  replayPath?: string;
};

/** A record's JSON in the readable part is indented when small, compact when large (a result carries it twice). */
const PRETTY_JSON_CHARS = 64 * 1024;

/** The readable part of a result: a summary line an agent can act on, then the whole record as JSON. */
function ok(summary: string, structured: Record<string, unknown>): CallToolResult {
  const pretty = JSON.stringify(structured, null, 2);
  const json = pretty.length > PRETTY_JSON_CHARS ? JSON.stringify(structured) : pretty;
  return { content: [{ type: 'text', text: `${summary}\n${json}` }], structuredContent: structured };
}

function failed(text: string): CallToolResult {
  return { content: [{ type: 'text', text: text.replace(/\s*\n\s*/g, ' ') }], isError: true };
}

/** Why a call was stopped: its time limit. */
class CallTimeLimit extends Error {
  override readonly name = 'CallTimeLimit';
}

/**
 * Runs one tool call under the session's time limit and the client's cancellation: `work` gets a signal that
 * aborts at either, and the call answers at once then (isError naming the limit) while the work winds down.
 * Any failure becomes a tool result with isError and one line: a bad call never takes the server down.
 */
async function guarded(
  tool: string,
  limitMs: number,
  cancelled: AbortSignal,
  work: (signal: AbortSignal) => Promise<CallToolResult>,
  stoppedNote = '',
): Promise<CallToolResult> {
  const stop = new AbortController();
  const seconds = limitMs / 1000;
  const timer = setTimeout(
    () =>
      stop.abort(
        new CallTimeLimit(
          `${tool}: stopped at the ${thousands(seconds)}-second limit for one call (--call-timeout ` +
            `${seconds})${stoppedNote}`,
        ),
      ),
    limitMs,
  );
  const onCancel = (): void => stop.abort(cancelled.reason);
  cancelled.addEventListener('abort', onCancel, { once: true });
  const stopped = new Promise<CallToolResult>((resolve) => {
    stop.signal.addEventListener(
      'abort',
      () => {
        const reason: unknown = stop.signal.reason;
        resolve(failed(reason instanceof CallTimeLimit ? reason.message : `${tool}: cancelled by the client`));
      },
      { once: true },
    );
  });
  const running = work(stop.signal);
  // Once the call has answered (stopped), whatever its work still throws is of no one's concern.
  running.catch(() => {});
  try {
    return await Promise.race([running, stopped]);
  } catch (err) {
    const message =
      err instanceof ToolInputError
        ? err.message
        : `${tool} failed (a quotecheck bug): ${(err as Error)?.message ?? String(err)}`;
    if (!(err instanceof ToolInputError))
      process.stderr.write(`quotecheck mcp: ${tool}: ${(err as Error)?.stack ?? String(err)}\n`);
    return failed(message);
  } finally {
    clearTimeout(timer);
    cancelled.removeEventListener('abort', onCancel);
  }
}

/** An interceptor that changes nothing: what the gate wraps over a replay. */
const PASS_THROUGH = { interceptor: (): Dispatcher.DispatcherComposeInterceptor => (dispatch) => dispatch };

/** A call's limits: its time, and the work budget it takes its turn in. */
interface CallLimits {
  ms: number;
  work: WorkSettings;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Tells the client, when it asked for progress (a progressToken), why its call is waiting. */
function progressOf(extra: Extra): (message: string) => void {
  const token = extra._meta?.progressToken;
  let sent = 0;
  return (message) => {
    if (token === undefined) return;
    sent++;
    void extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: sent, message } })
      .catch(() => {});
  };
}

/**
 * A call on one page, under its time limit and the client's cancellation (guarded) and in turns under the work budget
 * (turns.ts); a call that waited WAIT_NOTE_MS or more says so on its summary line.
 */
function onePage(
  tool: string,
  limits: CallLimits,
  extra: Extra,
  url: string,
  work: (signal: AbortSignal) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const waits = { ms: 0, onWait: progressOf(extra) };
  return guarded(tool, limits.ms, extra.signal, async (signal) => {
    const result = await inTurns(limits.work, url, signal, waits, work);
    const first = result.content[0];
    if (waits.ms >= WAIT_NOTE_MS && first?.type === 'text') {
      const mb = Math.round(limits.work.budget.maxBytes / (1024 * 1024));
      const note = ` (waited ${(waits.ms / 1000).toFixed(1)} s for the work budget, --work-mb ${mb})`;
      const nl = first.text.indexOf('\n');
      first.text = nl === -1 ? `${first.text}${note}` : `${first.text.slice(0, nl)}${note}${first.text.slice(nl)}`;
    }
    return result;
  });
}

/** The server with its four tools; `close` ends the session's HTTP connections. */
function createServer(settings: McpSettings): { server: McpServer; tools: SourceTools } {
  const cache = new SourceCache(settings.cacheBytes);
  // What the cache keeps gives way to the pages worked on: the memory they take while worked on is not kept too.
  const makeRoom = (inUse: number, url: string | undefined): void => {
    const kept = cache.budget.bytes;
    cache.budget.makeRoom(inUse * WORK_MEMORY_PER_BYTE, url);
    // What was let go (the last page's texts) goes before the next page's work takes its place.
    if (cache.budget.bytes < kept) collectSoon();
  };
  const work: WorkSettings = { budget: new WorkBudget(settings.workBytes, makeRoom), sizes: new KnownSizes() };
  // A replay answers from its archive, not through the cache: the gate goes over it alone.
  const gate = gatedInterceptor(settings.replay ? PASS_THROUGH : cache, work.sizes);
  const tools = new SourceTools({ ...settings, cache, gate, pages: new PageWorker() });
  // Arguments are a few strings and numbers: a call with thousands of members is refused before zod walks it.
  const server = new McpServer({ name: 'quotecheck', version: VERSION }, { maxToolInputElements: 64 });
  const limit: CallLimits = { ms: settings.callTimeoutMs, work };

  registerVerifyQuote(server, tools, limit);
  registerReadSource(server, tools, limit);
  registerSearchSource(server, tools, limit);
  registerCheckClaims(server, tools, limit);

  return { server, tools };
}

/** verify_quote: one quote against its source, with the diagnosis and evidence. */
function registerVerifyQuote(server: McpServer, tools: SourceTools, limit: CallLimits): void {
  server.registerTool(
    'verify_quote',
    {
      title: 'Verify a quote against its source',
      description:
        "Fetches the URL, extracts its text as the benchmark's labels were made (pdftotext for PDFs; Readability " +
        'article and full page for HTML) and answers ' +
        'label "verbatim" (the normalized quote is a substring of the normalized text) or "no_match", with a ' +
        'diagnosis of why (extraction_artifact, near_miss, partial, ' +
        'not_found, drifted, paywall, fetch_failed, empty, unsupported) and evidence: the match with context, or ' +
        "the nearest span in the page's own wording with a word diff. " +
        'The same record as `quotecheck verify --json`.',
      inputSchema: verifyInput,
      outputSchema: verifyOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input, extra) =>
      onePage('verify_quote', limit, extra, input.url, async (signal) => {
        const r = await tools.verify(input, signal);
        return ok(`${r.label} (diagnosis: ${r.diagnosis})${r.note ? `: ${r.note}` : ''}`, r);
      }),
  );
}

/** read_source: a source's extracted text, a page at a time. */
function registerReadSource(server: McpServer, tools: SourceTools, limit: CallLimits): void {
  server.registerTool(
    'read_source',
    {
      title: "Read a source's extracted text",
      description:
        'The text quotecheck extracted from a URL (exactly what the label is computed on, before normalization), a ' +
        'page at a time: give offset and length to page; ' +
        'next_offset is where the next page starts (null at the end). Also lists the views the source has (article ' +
        'and full for HTML, text for PDFs and plain text), the charset and the final URL.',
      inputSchema: readInput,
      outputSchema: readOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input, extra) =>
      onePage('read_source', limit, extra, input.url, async (signal) => {
        const r = await tools.read(input, signal);
        return ok(
          `${r.view} view of ${r.final_url}: characters ${r.offset}-${r.offset + r.text.length} of ` +
            `${r.total_length}${r.next_offset === null ? '' : `; next page at offset ${r.next_offset}`}`,
          r,
        );
      }),
  );
}

/** search_source: the passages of a source closest to a phrase. */
function registerSearchSource(server: McpServer, tools: SourceTools, limit: CallLimits): void {
  server.registerTool(
    'search_source',
    {
      title: 'Find the passages closest to a phrase',
      description:
        'The passages of a source closest to a phrase, best first, by the alignment the diagnosis uses (edit ' +
        "distance over normalized text): offset and length in the view's " +
        "normalized text, similarity (1 is exact), the passage normalized and in the page's own wording. `exact` " +
        'says whether the normalized phrase occurs as it is.',
      inputSchema: searchInput,
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input, extra) =>
      onePage('search_source', limit, extra, input.url, async (signal) => {
        const r = await tools.search(input, signal);
        const best = r.results[0];
        const where = best
          ? `, best similarity ${best.similarity} in the ${best.view} view at offset ${best.offset}`
          : '';
        return ok(
          `${r.exact ? 'the phrase is in the source' : 'the phrase is not in the source as it is'}; ` +
            `${r.results.length} passage(s)${where}`,
          r,
        );
      }),
  );
}

/** check_claims: a whole claims file run, its answers file written. */
function registerCheckClaims(server: McpServer, tools: SourceTools, limit: CallLimits): void {
  server.registerTool(
    'check_claims',
    {
      title: 'Check a whole claims file',
      description:
        'Runs the whole pipeline on a claims file (a JSON array of {id, quote, url}, as `quotecheck run` reads) ' +
        'and writes the answers file ({id: label}); returns the counts, ' +
        "the diagnoses and each claim's label and diagnosis.",
      inputSchema: checkInput,
      outputSchema: checkOutput,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    (input, extra) =>
      guarded(
        'check_claims',
        limit.ms,
        extra.signal,
        async (signal) => {
          const r = await tools.check(input, signal);
          return ok(
            `${r.claims} claims: ${r.verbatim} verbatim, ${r.no_match} no_match; answers written to ${r.answers_path}`,
            r,
          );
        },
        '; the answers file holds the claims decided by then, the others no_match',
      ),
  );
}

/**
 * Serves the tools on stdin/stdout until stdin closes or SIGINT/SIGTERM arrives; resolves then.
 * Nothing but the protocol is written to stdout: messages go to stderr. Requests are read a line at a
 * time up to MAX_REQUEST_BYTES (a longer one is answered with an error, the session goes on), and every
 * result passes the guard that holds it under MAX_RESPONSE_BYTES (src/mcp/bounds.ts).
 */
export async function serveStdio(settings: McpSettings): Promise<void> {
  const { server, tools } = createServer(settings);
  useLanes();
  let transport!: GuardedTransport;
  const lines = new BoundedLines(MAX_REQUEST_BYTES, (bytes, id) =>
    transport.refuseOversize(bytes, id, MAX_REQUEST_BYTES),
  );
  process.stdin.pipe(lines);
  // The SDK's reader gets whole lines only, each under the cap: its own limit (which would end the session) is never
  // reached.
  transport = new GuardedTransport(
    new StdioServerTransport(lines, process.stdout, { maxBufferSize: MAX_REQUEST_BYTES + 1024 * 1024 }),
    MAX_RESPONSE_BYTES,
  );
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    void Promise.allSettled([server.close(), tools.close()]).then(() => finish());
  };
  process.stdin.once('end', shutdown);
  process.stdin.once('close', shutdown);
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  transport.onclose = shutdown;
  await server.connect(transport);
  // A replay reaches no network, so the network rule has nothing to allow: the line says where the sources come from.
  const from = settings.replay
    ? ` (every source from ${settings.replayPath ?? 'a WARC archive'}, no network)`
    : settings.allowPrivate
      ? ' (private networks allowed)'
      : '';
  process.stderr.write(
    `quotecheck mcp ${VERSION}: serving verify_quote, read_source, search_source, check_claims on stdio${from}\n`,
  );
  await finished;
}
