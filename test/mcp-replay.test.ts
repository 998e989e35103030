// Issue 33: `quotecheck mcp --replay` answers every fetch from a WARC file (Wayback lookups and captures included) with no
// network, and a frozen edition's --with-mcp declares it on the task's own archive, so the tool reads what the
// instruction says the task has. Driven through the MCP SDK's own client, as test/mcp.test.ts drives the server.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { startWaybackStub } from '../src/wayback/stub/stub.js';
import { CLI, afterTest, runCli, runCliInProcess, serve, tempDir, writeJson } from './support/helpers.js';
import { checkTaskFolder } from './support/harbor-helpers.js';

const html = { 'content-type': 'text/html; charset=utf-8' };
const page = (body: string): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Budget</title></head><body><article>${body}</article></body></html>`;
/** The budget page as labelled (the Wayback capture) and as it is today (a sentence added after the date). */
const THEN = page('<p>The committee approved the budget on Tuesday after a long debate.</p>');
const NOW = page(
  '<p>The committee approved the budget on Tuesday after a long debate.</p><p>The mayor called the vote a turning point.</p>',
);
const EVIDENCE = createHash('sha256').update(THEN).digest('hex');
const DATE = '2024-05-01';
const ADDED = 'The mayor called the vote a turning point';
const KEPT = 'approved the budget on Tuesday after a long debate';
/** In neither text: its claim makes the run look the capture up (--wayback auto), which then decides every claim of the page. */
const NEVER = 'the budget was rejected by a wide margin';
const FERRY = 'The ferry timetable changes on the first Monday of March.';

async function connect(args: string[], cwd?: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...args],
    stderr: 'pipe',
    ...(cwd ? { cwd } : {}),
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += String(d)));
  const client = new Client({ name: 'quotecheck-replay-test', version: '1.0.0' });
  await client.connect(transport);
  afterTest(() => client.close().catch(() => {}));
  return { client, stderr: () => stderr };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent as Record<string, any>;
}

/**
 * Sources on loopback (the budget page, changed since its date; a ferry page answering 503 once, then 200), the Wayback
 * stub holding the budget page as labelled, and a run of their claims recorded; `requests()` counts what reached
 * the servers since.
 */
async function recorded() {
  const dir = tempDir();
  const server = await serve([
    { path: '/budget', body: NOW, headers: html },
    {
      path: '/ferry',
      body: `<html><body><p>${FERRY}</p></body></html>`,
      headers: html,
      failFirst: { count: 1, status: 503 },
    },
  ]);
  const budget = `${server.origin}/budget`;
  const ferry = `${server.origin}/ferry`;
  const archive = await startWaybackStub({
    host: '127.0.0.4',
    captures: [{ url: budget, timestamp: '20240415090000', body: THEN, headers: html }],
  });
  afterTest(() => archive.close());
  const dated = { verify_date: DATE, evidence: { sha256: EVIDENCE } };
  const rows = [
    { id: 'added', quote: ADDED, url: budget, ...dated, label: 'no_match' },
    { id: 'kept', quote: KEPT, url: budget, ...dated, label: 'verbatim' },
    { id: 'never', quote: NEVER, url: budget, ...dated, label: 'no_match' },
    { id: 'ferry', quote: 'changes on the first Monday of March', url: ferry, label: 'verbatim' },
  ];
  const claims = writeJson(
    join(dir, 'claims.json'),
    rows.map(({ label: _l, ...c }) => c),
  );
  const warc = join(dir, 'run.warc.gz');
  const rec = await runCliInProcess([
    'run',
    '--allow-private',
    '--quiet',
    '--claims',
    claims,
    '--out',
    join(dir, 'answers.json'),
    '--record',
    warc,
    '--wayback-url',
    archive.origin,
    '--wayback-rate',
    '6000',
  ]);
  expect(rec.code, rec.stderr).toBe(0);
  expect(JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8'))).toEqual({
    added: 'no_match',
    kept: 'verbatim',
    never: 'no_match',
    ferry: 'verbatim',
  });
  const labelled = join(dir, 'labelled.jsonl');
  writeFileSync(labelled, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const seen = server.hits('/budget') + server.hits('/ferry') + archive.requests.length;
  return {
    dir,
    budget,
    ferry,
    warc,
    claims,
    labelled,
    requests: () => server.hits('/budget') + server.hits('/ferry') + archive.requests.length - seen,
  };
}

describe('quotecheck mcp --replay', () => {
  it('every tool answers from the archive, Wayback captures included, and nothing reaches the network', async () => {
    const { dir, budget, ferry, warc, requests } = await recorded();
    // No --allow-private and no --wayback-url: a replay reaches no network, and the archive names its Wayback Machine.
    const { client, stderr } = await connect(['mcp', '--replay', warc, '--root', dir]);
    expect(stderr()).toMatch(
      new RegExp(`every source from ${warc.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, no network`),
    );
    // As of its date (strict: the capture is looked up though the quote is in today's text), the quote added since is
    // judged on the recorded capture that hashes to the evidence.
    const added = await call(client, 'verify_quote', {
      url: budget,
      quote: ADDED,
      as_of: DATE,
      evidence: EVIDENCE,
      wayback: 'strict',
    });
    expect(added).toMatchObject({
      label: 'no_match',
      as_of: { source: 'replay', proof: 'sha256', capture_url: expect.stringContaining('20240415090000') },
    });
    expect(
      (await call(client, 'verify_quote', { url: budget, quote: KEPT, as_of: DATE, evidence: EVIDENCE })).label,
    ).toBe('verbatim');
    // The recorded 503 then 200 replays in order: the tool's retry gets the page.
    const read = await call(client, 'read_source', { url: ferry });
    expect(read.text).toContain(FERRY);
    expect(read.http_status).toBe(200);
    const found = await call(client, 'search_source', { url: budget, query: 'a turning point' });
    expect(found.exact).toBe(true);
    const checked = await call(client, 'check_claims', {
      claims_path: 'claims.json',
      answers_path: 'mcp-answers.json',
    });
    expect(checked).toMatchObject({ claims: 4, verbatim: 2, no_match: 2 });
    expect(JSON.parse(readFileSync(join(dir, 'mcp-answers.json'), 'utf8'))).toEqual({
      added: 'no_match',
      kept: 'verbatim',
      never: 'no_match',
      ferry: 'verbatim',
    });
    expect(requests()).toBe(0);
    // A URL the archive lacks is an error naming it, never a fetch.
    const missing = (await client.callTool({
      name: 'read_source',
      arguments: { url: `${budget}-elsewhere` },
    })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(requests()).toBe(0);
  }, 60_000);

  it('an archive that cannot be read is one line and exit 2, before the server starts', async () => {
    const dir = tempDir();
    const r = await runCli(['mcp', '--replay', join(dir, 'none.warc.gz')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `quotecheck: error: cannot read the archive ${join(dir, 'none.warc.gz')}: no such file or folder\n`,
    );
    writeFileSync(join(dir, 'junk.warc.gz'), 'junk');
    expect((await runCli(['mcp', '--replay', join(dir, 'junk.warc.gz')])).stderr).toMatch(
      /^quotecheck: error: .*junk\.warc\.gz is not a WARC file/,
    );
  });
});

describe('export --warc --with-mcp: the MCP server the task declares reads the task archive', () => {
  it('task.toml declares --replay /app/sources.warc.gz; the server started with those arguments answers from it, with no network', async () => {
    const { dir, budget, labelled, warc, requests } = await recorded();
    const out = join(dir, 'frozen');
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      out,
      '--warc',
      warc,
      '--with-mcp',
      '--name',
      'f',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const task = join(out, 'f-001');
    const config = parseToml(readFileSync(join(task, 'task.toml'), 'utf8')) as {
      environment: { mcp_servers: { args: string[] }[] };
    };
    const args = config.environment.mcp_servers[0]!.args;
    expect(args).toEqual(['mcp', '--root', '/app', '--replay', '/app/sources.warc.gz']);
    checkTaskFolder(task, { mcp: true });
    // The image's quotecheck command reads the archive too, and the instruction says so.
    expect(readFileSync(join(task, 'environment', 'Dockerfile'), 'utf8')).toMatch(
      /^ENV QUOTECHECK_REPLAY=\/app\/sources\.warc\.gz$/m,
    );
    expect(readFileSync(join(task, 'instruction.md'), 'utf8')).toMatch(
      /Here it reads every source from `\/app\/sources\.warc\.gz`, never the live web\./,
    );
    // The server as the harness starts it, /app being a copy of the task's: the claims and the archive the image copies there.
    const app = join(dir, 'app');
    mkdirSync(app);
    for (const f of ['claims.json', 'sources.warc.gz']) copyFileSync(join(task, 'environment', f), join(app, f));
    const { client } = await connect(args.map((a) => a.replace(/^\/app/, app)));
    const added = await call(client, 'verify_quote', {
      url: budget,
      quote: ADDED,
      as_of: DATE,
      evidence: EVIDENCE,
      wayback: 'strict',
    });
    expect(added).toMatchObject({ label: 'no_match', as_of: { source: 'replay', proof: 'sha256' } });
    const checked = await call(client, 'check_claims', { claims_path: 'claims.json' });
    expect(checked).toMatchObject({ claims: 4, verbatim: 2, no_match: 2 });
    expect(requests()).toBe(0);
  }, 60_000);
});
