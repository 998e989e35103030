// The MCP server: quotecheck's tools registered on the official SDK's McpServer, served over stdio (stdout carries only the protocol).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../defaults.js';
import { SourceCache } from './cache.js';
import {
  SourceTools,
  ToolInputError,
  checkInput,
  checkOutput,
  readInput,
  readOutput,
  searchInput,
  searchOutput,
  verifyInput,
  verifyOutput,
  type ToolSettings,
} from './tools.js';

export type McpSettings = Omit<ToolSettings, 'cache'> & {
  /** Bytes of HTTP responses kept for the session. */
  cacheBytes: number;
};

/** The readable part of a result: a summary line an agent can act on, then the whole record as JSON. */
function ok(summary: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: `${summary}\n${JSON.stringify(structured, null, 2)}` }], structuredContent: structured };
}

/** Any failure becomes a tool result with isError and one line: a bad call never takes the server down. */
async function guarded(tool: string, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (err) {
    const message = err instanceof ToolInputError ? err.message : `${tool} failed (a quotecheck bug): ${(err as Error)?.message ?? String(err)}`;
    if (!(err instanceof ToolInputError)) process.stderr.write(`quotecheck mcp: ${tool}: ${(err as Error)?.stack ?? String(err)}\n`);
    return { content: [{ type: 'text', text: message.replace(/\s*\n\s*/g, ' ') }], isError: true };
  }
}

/** The server with its four tools; `close` ends the session's HTTP connections. */
export function createServer(settings: McpSettings): { server: McpServer; tools: SourceTools } {
  const tools = new SourceTools({ ...settings, cache: new SourceCache(settings.cacheBytes) });
  const server = new McpServer({ name: 'quotecheck', version: VERSION });

  server.registerTool('verify_quote', {
    title: 'Verify a quote against its source',
    description:
      'Fetches the URL, extracts its text as the benchmark\'s labels were made (pdftotext for PDFs; Readability article and full page for HTML) and answers ' +
      'label "verbatim" (the normalized quote is a substring of the normalized text) or "no_match", with a diagnosis of why (extraction_artifact, near_miss, partial, ' +
      'not_found, drifted, paywall, fetch_failed, empty, unsupported) and evidence: the match with context, or the nearest span in the page\'s own wording with a word diff. ' +
      'The same record as `quotecheck verify --json`.',
    inputSchema: verifyInput,
    outputSchema: verifyOutput,
    annotations: { readOnlyHint: true, openWorldHint: true },
  }, (input) => guarded('verify_quote', async () => {
    const r = await tools.verify(input);
    return ok(`${r.label} (diagnosis: ${r.diagnosis})${r.note ? `: ${r.note}` : ''}`, r);
  }));

  server.registerTool('read_source', {
    title: 'Read a source\'s extracted text',
    description:
      'The text quotecheck extracted from a URL (exactly what the label is computed on, before normalization), a page at a time: give offset and length to page; ' +
      'next_offset is where the next page starts (null at the end). Also lists the views the source has (article and full for HTML, text for PDFs and plain text), the charset and the final URL.',
    inputSchema: readInput,
    outputSchema: readOutput,
    annotations: { readOnlyHint: true, openWorldHint: true },
  }, (input) => guarded('read_source', async () => {
    const r = await tools.read(input);
    return ok(`${r.view} view of ${r.final_url}: characters ${r.offset}-${r.offset + r.text.length} of ${r.total_length}${r.next_offset === null ? '' : `; next page at offset ${r.next_offset}`}`, r);
  }));

  server.registerTool('search_source', {
    title: 'Find the passages closest to a phrase',
    description:
      'The passages of a source closest to a phrase, best first, by the alignment the diagnosis uses (edit distance over normalized text): offset and length in the view\'s ' +
      'normalized text, similarity (1 is exact), the passage normalized and in the page\'s own wording. `exact` says whether the normalized phrase occurs as it is.',
    inputSchema: searchInput,
    outputSchema: searchOutput,
    annotations: { readOnlyHint: true, openWorldHint: true },
  }, (input) => guarded('search_source', async () => {
    const r = await tools.search(input);
    const best = r.results[0];
    return ok(`${r.exact ? 'the phrase is in the source' : 'the phrase is not in the source as it is'}; ${r.results.length} passage(s)${best ? `, best similarity ${best.similarity} in the ${best.view} view at offset ${best.offset}` : ''}`, r);
  }));

  server.registerTool('check_claims', {
    title: 'Check a whole claims file',
    description:
      'Runs the whole pipeline on a claims file (a JSON array of {id, quote, url}, as `quotecheck run` reads) and writes the answers file ({id: label}); returns the counts, ' +
      'the diagnoses and each claim\'s label and diagnosis.',
    inputSchema: checkInput,
    outputSchema: checkOutput,
    annotations: { readOnlyHint: false, openWorldHint: true },
  }, (input) => guarded('check_claims', async () => {
    const r = await tools.check(input);
    return ok(`${r.claims} claims: ${r.verbatim} verbatim, ${r.no_match} no_match; answers written to ${r.answers_path}`, r);
  }));

  return { server, tools };
}

/**
 * Serves the tools on stdin/stdout until stdin closes or SIGINT/SIGTERM arrives; resolves then.
 * Nothing but the protocol is written to stdout: messages go to stderr.
 */
export async function serveStdio(settings: McpSettings): Promise<void> {
  const { server, tools } = createServer(settings);
  const transport = new StdioServerTransport();
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
  process.stderr.write(`quotecheck mcp ${VERSION}: serving verify_quote, read_source, search_source, check_claims on stdio${settings.blockPrivate ? '' : ' (private networks allowed)'}\n`);
  await finished;
}
