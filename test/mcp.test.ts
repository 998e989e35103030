// `quotecheck mcp` driven by the MCP SDK's own Client over stdio: the tools listed, each called against loopback sources, bad inputs, a hanging source, a clean exit.
import { readFileSync, realpathSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startWaybackStub } from '../src/wayback/stub/stub.js';
import { CLI, FIXTURES, runCli, serve, tempDir, writeJson } from './support/helpers.js';

const ARTICLE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Council</title></head><body>
<nav>Home | News | Sport</nav>
<article><h1>Council votes on the budget</h1>
<p>Members said the vote was close, and the Mayor’s office welcomed it on Tuesday evening after a long debate.</p>
<p>The budget now goes to the regional assembly, which meets again in the spring to review the figures.</p>
<p>Opposition members said the vote was rushed and promised to raise the matter again at the next meeting.</p>
</article></body></html>`;

/** Short limits so the hanging source fails in about a second. */
const FAST = ['--timeout', '1', '--retries', '0', '--source-budget', '2', '--extract-timeout', '10'];

const clients: Client[] = [];
afterEach(async () => {
  while (clients.length)
    await clients
      .pop()!
      .close()
      .catch(() => {});
});

async function connect(
  args: string[] = ['--allow-private', ...FAST],
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += String(d)));
  const client = new Client({ name: 'quotecheck-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

async function sources() {
  return serve([
    { path: '/article.html', body: ARTICLE, headers: { 'content-type': 'text/html; charset=utf-8' } },
    { path: '/paper.pdf', file: 'tracemonkey-p1.pdf', headers: { 'content-type': 'application/pdf' } },
    { path: '/gone', status: 404, body: 'not here', headers: { 'content-type': 'text/plain' } },
    { path: '/hang', hang: true },
  ]);
}

describe('quotecheck mcp', () => {
  it('lists the four tools, each with input and output schemas', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['check_claims', 'read_source', 'search_source', 'verify_quote']);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(t.description!.length).toBeGreaterThan(40);
    }
    const verify = tools.find((t) => t.name === 'verify_quote')!;
    expect(verify.inputSchema.required).toEqual(['url', 'quote']);
    expect(Object.keys(verify.inputSchema.properties!)).toEqual([
      'url',
      'quote',
      'html_view',
      'as_of',
      'evidence',
      'wayback',
    ]);
    // The caps are in the schemas a client reads, so a model can know them before it calls.
    expect(verify.inputSchema.properties).toMatchObject({ url: { maxLength: 8192 }, quote: { maxLength: 20_000 } });
    expect(tools.find((t) => t.name === 'search_source')!.inputSchema.properties).toMatchObject({
      query: { maxLength: 1000 },
    });
    expect(tools.find((t) => t.name === 'check_claims')!.inputSchema.properties).toMatchObject({
      claims_path: { maxLength: 4096 },
      answers_path: { maxLength: 4096 },
    });
  });

  it('verify_quote answers the verify --json record, and a misquote with its diff; the source is fetched once per session', async () => {
    const server = await sources();
    const { client } = await connect();
    const url = `${server.origin}/article.html`;
    const hit = await call(client, 'verify_quote', { url, quote: "the Mayor's office welcomed it on Tuesday evening" });
    expect(hit.isError).toBeFalsy();
    const rec = hit.structuredContent as Record<string, any>;
    expect(rec).toMatchObject({
      label: 'verbatim',
      diagnosis: 'verbatim',
      url,
      http_status: 200,
      quote: "the Mayor's office welcomed it on Tuesday evening",
    });
    expect(rec.match.view).toBe('article');
    expect(text(hit)).toMatch(/^verbatim \(diagnosis: verbatim\)/);
    // The text part carries the same record for clients that show only text.
    expect(JSON.parse(text(hit).slice(text(hit).indexOf('\n') + 1))).toEqual(rec);

    const miss = await call(client, 'verify_quote', {
      url,
      quote: 'Members said the vote was very close, and the Mayor’s office opposed it',
      html_view: 'article',
    });
    const m = miss.structuredContent as Record<string, any>;
    expect(m.label).toBe('no_match');
    expect(m.diagnosis).toBe('near_miss');
    expect(m.nearest.raw).toContain('welcomed');
    expect(m.nearest.diff).toContainEqual({ op: 'missing', text: 'opposed' });

    await call(client, 'read_source', { url });
    await call(client, 'search_source', { url, query: 'the vote was rushed' });
    expect(server.hits('/article.html')).toBe(1);
  });

  it("verify_quote with as_of and wayback always judges the quote on the Wayback capture of that date when today's page lacks it (as run --wayback always)", async () => {
    const server = await sources();
    const url = `${server.origin}/article.html`;
    const then = ARTICLE.replace('welcomed it', 'opposed it');
    const wayback = await startWaybackStub({
      captures: [
        { url, timestamp: '20240301120000', body: then, headers: { 'content-type': 'text/html; charset=utf-8' } },
      ],
    });
    try {
      const { client } = await connect([
        '--allow-private',
        ...FAST,
        '--wayback-url',
        wayback.origin,
        '--wayback-rate',
        '600',
      ]);
      const quote = 'the Mayor’s office opposed it on Tuesday evening';
      const today = (await call(client, 'verify_quote', { url, quote })).structuredContent as Record<string, any>;
      expect(today.label).toBe('no_match');
      // As run judges a claim with this date and no evidence: today's text, and the note says how to consult the archive.
      const dated = (await call(client, 'verify_quote', { url, quote, as_of: '2024-06-01' }))
        .structuredContent as Record<string, any>;
      expect(dated).toMatchObject({ label: 'no_match', as_of: { source: 'live' } });
      expect(dated.note).toContain('mode always (--wayback always) judges on the capture nearest 2024-06-01');
      const r = await call(client, 'verify_quote', { url, quote, as_of: '2024-06-01', wayback: 'always' });
      const asOf = r.structuredContent as Record<string, any>;
      expect(asOf).toMatchObject({
        label: 'verbatim',
        as_of: { source: 'wayback', timestamp: '2024-03-01T12:00:00Z' },
      });
      expect(asOf.as_of.capture_url).toContain('20240301120000');
    } finally {
      await wayback.close();
    }
  });

  it('read_source pages through a PDF exactly as pdftotext extracts it', async () => {
    const server = await sources();
    const { client } = await connect();
    const url = `${server.origin}/paper.pdf`;
    const first = await call(client, 'read_source', { url, length: 500 });
    expect(first.isError).toBeFalsy();
    const p1 = first.structuredContent as Record<string, any>;
    expect(p1).toMatchObject({
      view: 'text',
      offset: 0,
      next_offset: 500,
      final_url: url,
      http_status: 200,
      charset: null,
    });
    expect(p1.views).toEqual([{ name: 'text', extractor: 'pdftotext', length: p1.total_length }]);
    expect(p1.text).toMatch(/^Trace-based Just-in-Time Type Specialization/);
    expect(p1.text).toHaveLength(500);
    const pages: string[] = [p1.text];
    let next: number | null = p1.next_offset;
    while (next !== null) {
      const page = (await call(client, 'read_source', { url, offset: next, length: 4000 })).structuredContent as Record<
        string,
        any
      >;
      pages.push(page.text);
      next = page.next_offset;
    }
    const { execFileSync } = await import('node:child_process');
    const direct = execFileSync(
      'pdftotext',
      ['-enc', 'UTF-8', join(import.meta.dirname, 'fixtures', 'tracemonkey-p1.pdf'), '-'],
      { encoding: 'utf8' },
    );
    expect(pages.join('')).toBe(direct);
    expect(server.hits('/paper.pdf')).toBe(1);

    const html = (await call(client, 'read_source', { url: `${server.origin}/article.html`, view: 'full' }))
      .structuredContent as Record<string, any>;
    expect(html.views.map((v: { name: string }) => v.name)).toEqual(['article', 'full']);
    expect(html.text).toContain('Home | News | Sport');
    expect(html).toMatchObject({ charset: 'UTF-8', charset_source: 'http', next_offset: null });
  });

  it('search_source finds the closest passages, best first, with offsets the report uses', async () => {
    const server = await sources();
    const { client } = await connect();
    const url = `${server.origin}/article.html`;
    const r = await call(client, 'search_source', { url, query: 'members said the vote was hurried', max_results: 3 });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as Record<string, any>;
    expect(s.exact).toBe(false);
    expect(s.results.length).toBeGreaterThanOrEqual(2);
    expect(s.results.length).toBeLessThanOrEqual(3);
    const sims = s.results.map((x: { similarity: number }) => x.similarity);
    expect([...sims].sort((a, b) => b - a)).toEqual(sims);
    // Two different passages say "members said the vote was": both are found, not the same one twice.
    const passages = s.results
      .filter((x: { view: string }) => x.view === 'article')
      .map((x: { text: string }) => x.text);
    expect(passages.some((p: string) => p.includes('close'))).toBe(true);
    expect(passages.some((p: string) => p.includes('rushed'))).toBe(true);
    // The article's passages are in the full page too; each is listed once.
    const texts = s.results.map((x: { text: string }) => x.text);
    expect(new Set(texts).size).toBe(texts.length);
    const best = s.results[0];
    expect(best.similarity).toBeLessThan(1);
    // The offset indexes the view's normalized text, as a report's nearest.offset does.
    const exact = (await call(client, 'search_source', { url, query: 'Opposition members said', max_results: 1 }))
      .structuredContent as Record<string, any>;
    expect(exact.exact).toBe(true);
    // The passage is the sentence around the span; the span is where the phrase itself sits.
    const hit = exact.results[0];
    expect(hit).toMatchObject({
      similarity: 1,
      text: 'opposition members said the vote was rushed and promised to raise the matter again at the next meeting.',
      raw: 'Opposition members said the vote was rushed and promised to raise the matter again at the next meeting.',
    });
    expect(hit.text.slice(hit.span_offset - hit.offset, hit.span_offset - hit.offset + hit.span_length)).toBe(
      'opposition members said',
    );
  });

  it('search_source on a real page: each passage whole sentences around its place, as many distinct passages as asked for when the page has them', async () => {
    // The New York Times page of the shared corpus (test/fixtures/corpus), where a phrase that occurs once gave one clipped span.
    const page = gunzipSync(
      readFileSync(
        join(FIXTURES, 'corpus', '702d1da63b8e064cb70617620e45c2d116b4912c9bc9d518dcf5ce54bb8057ed.html.gz'),
      ),
    );
    const server = await serve([
      { path: '/trade-war.html', body: page, headers: { 'content-type': 'text/html; charset=utf-8' } },
    ]);
    const { client } = await connect();
    const url = `${server.origin}/trade-war.html`;
    type Found = {
      view: string;
      offset: number;
      length: number;
      span_offset: number;
      span_length: number;
      similarity: number;
      text: string;
      raw: string;
    };
    const search = async (query: string, max: number) => {
      const r = await call(client, 'search_source', { url, query, max_results: max });
      expect(r.isError, text(r)).toBeFalsy();
      return r.structuredContent as { results: Found[]; note: string | null };
    };
    const two = await search('Tell them to buy larger tractors', 2);
    expect(two.results).toHaveLength(2);
    const [best, next] = two.results as [Found, Found];
    expect(best.similarity).toBe(1);
    // Whole sentences: the one that holds the phrase, and the short ones beside it.
    expect(best.raw).toBe(
      'They said, ‘The farmers can’t handle it.’ I said, ‘Tell them to buy larger tractors. It’s very simple.’”',
    );
    expect(best.text.slice(best.span_offset - best.offset, best.span_offset - best.offset + best.span_length)).toBe(
      "'tell them to buy larger tractors.",
    );
    expect(next.text).not.toBe(best.text);
    expect(next.similarity).toBeLessThan(1);
    expect(next.raw).toMatch(/^[A-Z“].*[.”]$/);
    for (const query of [
      'Tell them to buy larger tractors',
      'It’s very simple.',
      'the uncertainty is weighing on the economy',
    ]) {
      const five = (await search(query, 5)).results;
      expect(five.length, query).toBeGreaterThanOrEqual(2);
      expect(new Set(five.map((p) => p.text)).size, query).toBe(five.length);
      for (const p of five) {
        expect(p.length, `${query}: ${p.raw}`).toBeGreaterThanOrEqual(60);
        expect(p.span_offset).toBeGreaterThanOrEqual(p.offset);
        expect(p.span_offset + p.span_length).toBeLessThanOrEqual(p.offset + p.length);
        // No two passages of the article and full views are the same place.
        for (const q of five)
          if (q !== p) expect(q.text.includes(p.text) || p.text.includes(q.text), `${p.raw} / ${q.raw}`).toBe(false);
      }
    }
    // A page with fewer passages than asked for says so.
    const none = await search('zzqx wvvy', 3);
    expect(none.results).toEqual([]);
    expect(none.note).toBe('no passage(s) of this source come close to the query or share a word with it');
  });

  it('check_claims runs the pipeline on a claims file under its root and writes the answers there', async () => {
    const server = await sources();
    const dir = realpathSync(tempDir());
    const { client } = await connect(['--allow-private', ...FAST, '--root', dir]);
    writeJson(join(dir, 'claims.json'), [
      { id: 'a', quote: 'The budget now goes to the regional assembly', url: `${server.origin}/article.html` },
      { id: 'b', quote: 'The budget was rejected outright by the assembly', url: `${server.origin}/article.html` },
      { id: 'c', quote: 'anything', url: `${server.origin}/gone` },
    ]);
    // Paths are relative to the root (an absolute path inside it is the same file).
    const r = await call(client, 'check_claims', { claims_path: 'claims.json' });
    expect(r.isError, text(r)).toBeFalsy();
    const s = r.structuredContent as Record<string, any>;
    expect(s).toMatchObject({
      answers_path: join(dir, 'answers.json'),
      claims: 3,
      verbatim: 1,
      no_match: 2,
      listed: 3,
    });
    expect(s.results.map((x: { id: string; diagnosis: string }) => [x.id, x.diagnosis])).toEqual([
      ['a', 'verbatim'],
      ['b', expect.any(String)],
      ['c', 'fetch_failed'],
    ]);
    expect(JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8'))).toEqual({
      a: 'verbatim',
      b: 'no_match',
      c: 'no_match',
    });
    const other = join(dir, 'out.json');
    await call(client, 'check_claims', { claims_path: join(dir, 'claims.json'), answers_path: 'out.json' });
    expect(JSON.parse(readFileSync(other, 'utf8'))).toEqual({ a: 'verbatim', b: 'no_match', c: 'no_match' });
    // The second run answered from the session's cache (a 404 is final, so it is kept too).
    expect(server.hits('/article.html')).toBe(1);
    expect(server.hits('/gone')).toBe(1);
  });

  it('bad inputs are tool errors with one clear line, and the server keeps serving', async () => {
    const server = await sources();
    const dir = realpathSync(tempDir());
    const { client, stderr } = await connect(['--allow-private', ...FAST, '--root', dir]);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['verify_quote', { url: 'ftp://example.com/x', quote: 'words' }, /http/],
      ['verify_quote', { url: `${server.origin}/article.html`, quote: '   ' }, /quote/],
      ['verify_quote', { url: `${server.origin}/article.html`, quote: 'words', as_of: 'last tuesday' }, /^as_of: /],
      ['verify_quote', { url: `${server.origin}/article.html` }, /quote/],
      ['read_source', { url: 'file:///etc/passwd' }, /^url: only http and https URLs are read, not file:/],
      ['read_source', { url: 'not a url' }, /^url: not a URL/],
      [
        'read_source',
        { url: `${server.origin}/article.html`, view: 'text' },
        /^view: text is not a view of this source; it has article, full/,
      ],
      [
        'read_source',
        { url: `${server.origin}/article.html`, offset: 10_000_000 },
        /^offset: 10000000 is past the end/,
      ],
      ['read_source', { url: `${server.origin}/article.html`, length: 0 }, /length/],
      ['read_source', { url: `${server.origin}/gone` }, /^cannot read .*\/gone: .*404/],
      ['search_source', { url: `${server.origin}/article.html`, query: ' \n ' }, /^query: nothing left/],
      ['search_source', { url: `${server.origin}/article.html`, query: 'x', max_results: 500 }, /max_results/],
      ['check_claims', { claims_path: 'missing.json' }, /^claims_path "missing\.json": no such file$/],
      ['check_claims', { claims_path: join(dir, 'missing.json') }, /^claims_path ".*missing\.json": no such file$/],
      [
        'check_claims',
        { claims_path: writeJson(join(dir, 'c.json'), [{ id: 'a', quote: 'q', url: 'http://x/' }]), answers_path: dir },
        /^answers_path .*: is a folder/,
      ],
      [
        'check_claims',
        { claims_path: 'c.json', answers_path: join(dir, 'c.json') },
        /^answers_path ".*c\.json": is the claims file/,
      ],
    ];
    for (const [name, args, expected] of cases) {
      const r = await call(client, name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(text(r), `${name} ${JSON.stringify(args)}`).toMatch(expected);
      expect(text(r)).not.toContain('\n');
      expect(r.structuredContent).toBeUndefined();
    }
    // Nothing above was a crash: the session still answers.
    const still = await call(client, 'verify_quote', {
      url: `${server.origin}/article.html`,
      quote: 'Opposition members said',
    });
    expect((still.structuredContent as Record<string, any>).label).toBe('verbatim');
    expect(stderr()).not.toMatch(/a quotecheck bug/);
  });

  it("every input bound of every tool is refused in the project's words: the field, then what is wrong and what to give, never zod's text", async () => {
    const { client } = await connect();
    const url = 'http://127.0.0.1:9/page';
    const base: Record<string, Record<string, unknown>> = {
      verify_quote: { url, quote: 'words' },
      read_source: { url },
      search_source: { url, query: 'words' },
      check_claims: { claims_path: 'claims.json' },
    };
    const give = {
      url: "give the source's http(s) URL",
      quote: 'give the passage claimed to occur in the source',
      query: 'give the phrase to look for',
      claims_path: "give the path of a claims file under the server's root folder",
      answers_path: 'give a file path under the root folder, or leave it out for answers.json beside the claims',
      as_of: 'give an ISO date or date-time, or leave it out',
      evidence: "give the source's sha256 as labelled (64 hex digits), or leave it out",
    };
    /** Each string field's bounds: missing (when required), not text, empty (when required), over its cap. */
    const strings: [string, string[], keyof typeof give, number, boolean][] = [
      ['url', ['verify_quote', 'read_source', 'search_source'], 'url', 8192, true],
      ['quote', ['verify_quote'], 'quote', 20_000, true],
      ['query', ['search_source'], 'query', 1000, true],
      ['claims_path', ['check_claims'], 'claims_path', 4096, true],
      ['answers_path', ['check_claims'], 'answers_path', 4096, false],
      ['as_of', ['verify_quote'], 'as_of', 64, false],
      ['evidence', ['verify_quote'], 'evidence', 128, false],
    ];
    const cases: [string, Record<string, unknown>, string][] = [];
    for (const [field, tools, what, cap, required] of strings) {
      for (const tool of tools) {
        const without = { ...base[tool] };
        delete without[field];
        if (required) cases.push([tool, without, `${field}: missing; ${give[what]}`]);
        cases.push([tool, { ...without, [field]: 42 }, `${field}: the number 42, not text; ${give[what]}`]);
        cases.push([tool, { ...without, [field]: ['a'] }, `${field}: a list, not text; ${give[what]}`]);
        if (required) cases.push([tool, { ...without, [field]: '' }, `${field}: empty; ${give[what]}`]);
        cases.push([
          tool,
          { ...without, [field]: 'x'.repeat(cap + 1) },
          `${field}: ${(cap + 1).toLocaleString('en-US')} characters, over the ${cap.toLocaleString('en-US')}-character cap`,
        ]);
      }
    }
    /** Each whole-number field's bounds: text, a fraction, below and above its range. */
    const numbers: [string, string, number, number | undefined][] = [
      ['read_source', 'offset', 0, undefined],
      ['read_source', 'length', 1, 100_000],
      ['search_source', 'max_results', 1, 20],
    ];
    for (const [tool, field, min, max] of numbers) {
      const range = `give a whole number from ${min}${max === undefined ? ' up' : ` to ${max.toLocaleString('en-US')}`}`;
      cases.push([tool, { ...base[tool], [field]: '3' }, `${field}: text, not a number; ${range}`]);
      cases.push([tool, { ...base[tool], [field]: 2.5 }, `${field}: 2.5 is not a whole number; ${range}`]);
      cases.push([tool, { ...base[tool], [field]: min - 1 }, `${field}: ${min - 1} is out of range; ${range}`]);
      if (max !== undefined)
        cases.push([tool, { ...base[tool], [field]: max + 1 }, `${field}: ${max + 1} is out of range; ${range}`]);
    }
    /** Each field that takes one of a few words. */
    const choices: [string, string, string][] = [
      ['verify_quote', 'html_view', 'article, full, any'],
      ['verify_quote', 'wayback', 'off, auto, always, strict'],
      ['read_source', 'view', 'article, full, text'],
    ];
    for (const [tool, field, values] of choices) {
      cases.push([tool, { ...base[tool], [field]: 'both' }, `${field}: "both" is not one of ${values}`]);
      cases.push([tool, { ...base[tool], [field]: 1 }, `${field}: the number 1 is not one of ${values}`]);
    }
    // Two wrong fields: both named, in one line.
    cases.push(['verify_quote', { url: '', quote: '' }, `url: empty; ${give.url}; quote: empty; ${give.quote}`]);
    // More members than the server reads (the SDK's cap before any schema).
    cases.push([
      'verify_quote',
      { ...base.verify_quote, extra: Array.from({ length: 100 }, (_, i) => i) },
      'verify_quote: the arguments hold more than 64 values in all (members and list items); the tool takes a few named strings and numbers',
    ]);
    for (const [tool, args, message] of cases) {
      const r = await call(client, tool, args);
      const said = text(r);
      expect([r.isError, said], `${tool} ${JSON.stringify(args).slice(0, 200)}`).toEqual([true, message]);
      expect(said).not.toMatch(/Too (small|big)|Invalid (input|option)|expected|received|>=|<=|MCP error/);
    }
  });

  it('refuses private-network URLs unless --allow-private, as docs/real-web.md#the-network-rule-global-addresses-only says', async () => {
    const server = await sources();
    const { client } = await connect(FAST);
    const r = await call(client, 'read_source', { url: `${server.origin}/article.html` });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(
      /^cannot read .*: refused: 127\.0\.0\.1 is loopback \(127\.0\.0\.0\/8\): not a global address; pass --allow-private/,
    );
    // verify_quote too answers a refusal as an error, never as a no_match a model could take for an answer.
    const v = await call(client, 'verify_quote', {
      url: `${server.origin}/article.html`,
      quote: 'Opposition members said',
    });
    expect(v.isError).toBe(true);
    expect(v.structuredContent).toBeUndefined();
    expect(text(v)).toMatch(/^refused: 127\.0\.0\.1 is loopback .*--allow-private/);
    expect(server.hits('/article.html')).toBe(0);
  });

  it('the cache keeps no retryable answer and stays within --cache-mb', async () => {
    const server = await serve([
      {
        path: '/flaky.html',
        body: ARTICLE,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        failFirst: { count: 1, status: 503 },
      },
      {
        path: '/article.html',
        body: `${ARTICLE}<!--${'x'.repeat(1500)}-->`,
        headers: { 'content-type': 'text/html; charset=utf-8' },
      },
      {
        path: '/other.html',
        body: `${ARTICLE}<!--${'y'.repeat(1500)}-->`,
        headers: { 'content-type': 'text/html; charset=utf-8' },
      },
    ]);
    const quote = 'Opposition members said';
    const { client } = await connect(['--allow-private', ...FAST]);
    const flaky = `${server.origin}/flaky.html`;
    expect((await call(client, 'verify_quote', { url: flaky, quote })).structuredContent).toMatchObject({
      diagnosis: 'fetch_failed',
      http_status: 503,
    });
    // A 503 is worth asking again: it was not kept, and the page it hid is answered now, then kept.
    expect((await call(client, 'verify_quote', { url: flaky, quote })).structuredContent).toMatchObject({
      label: 'verbatim',
    });
    await call(client, 'verify_quote', { url: flaky, quote });
    expect(server.hits('/flaky.html')).toBe(2);

    // Room for one page (each is about 2.1 KB): the second source pushes the first out.
    const { client: small } = await connect(['--allow-private', ...FAST, '--cache-mb', '0.003']);
    for (const path of ['/article.html', '/other.html', '/article.html'])
      await call(small, 'verify_quote', { url: `${server.origin}${path}`, quote });
    expect(server.hits('/article.html')).toBe(2);
    expect(server.hits('/other.html')).toBe(1);
  });

  it('a source that hangs fails within the limits, and is not cached', async () => {
    const server = await sources();
    const { client } = await connect();
    const url = `${server.origin}/hang`;
    const t0 = Date.now();
    const v = (await call(client, 'verify_quote', { url, quote: 'anything at all' })).structuredContent as Record<
      string,
      any
    >;
    expect(v).toMatchObject({ label: 'no_match', diagnosis: 'fetch_failed' });
    const r = await call(client, 'read_source', { url });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^cannot read .*\/hang: /);
    expect(Date.now() - t0).toBeLessThan(8_000);
    expect(server.hits('/hang')).toBe(2);
  });

  it('stdout carries only the protocol, and closing stdin ends the server with exit 0', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const { code, stdout, stderr } = await runCli(['mcp'], {
      openStdin: true,
      onSpawn: (child) => {
        child.stdin!.write(`${JSON.stringify(init)}\n`);
        // Once the answer is out, closing stdin is all that ends the server.
        let answer = '';
        child.stdout!.on('data', (d) => {
          answer += d;
          if (answer.includes('\n')) child.stdin!.end();
        });
      },
    });
    expect(code, stderr).toBe(0);
    for (const line of stdout.split('\n').filter(Boolean)) expect(JSON.parse(line).jsonrpc).toBe('2.0');
    expect(JSON.parse(stdout.split('\n')[0]!).result.serverInfo.name).toBe('quotecheck');
    expect(stderr).toMatch(/quotecheck mcp .*serving verify_quote/);
  });

  it('SIGINT ends the server cleanly', async () => {
    // Stdin stays open: the signal, not the end of input, ends the server.
    const r = await runCli(['mcp'], {
      openStdin: true,
      onSpawn: (child) => {
        let stderr = '';
        child.stderr!.on('data', (d) => {
          stderr += d;
          if (stderr.includes('serving')) child.kill('SIGINT');
        });
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/serving/);
  });
});
