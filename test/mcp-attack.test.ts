// `quotecheck mcp` attacked as a steered model would, through the MCP SDK's own client: files outside the root, special files, hostile names, oversized inputs, many large pages, slow calls; each refused or bounded in one line, and the server still serving.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CLAIMS_BYTES } from '../src/claims/claims-file.js';
import {
  BoundedLines,
  DEFAULT_CALL_TIMEOUT_SECONDS,
  GuardedTransport,
  MAX_CLAIMS_PER_CALL,
  MAX_PATH_CHARS,
  MAX_QUOTE_CHARS,
  MAX_REQUEST_BYTES,
  MAX_RESPONSE_BYTES,
  MAX_URL_CHARS,
  PART_BYTES,
} from '../src/mcp/bounds.js';
import { CLI, runCliInProcess, serve, tempDir } from './support/helpers.js';

const PAGE =
  'Members said the vote was close, and the Mayor’s office welcomed it on Tuesday evening after a long debate.\n';
const FAST = ['--timeout', '2', '--retries', '0', '--source-budget', '4', '--extract-timeout', '10'];

interface Session {
  client: Client;
  pid: number;
  stderr: () => string;
}

const clients: Client[] = [];
afterEach(async () => {
  while (clients.length)
    await clients
      .pop()!
      .close()
      .catch(() => {});
});

async function connect(args: string[]): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--allow-private', ...FAST, ...args],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += String(d)));
  const client = new Client({ name: 'quotecheck-attack', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, pid: transport.pid!, stderr: () => stderr };
}

/** A tool call that must answer within `timeoutMs` (the SDK client's default would wait a minute). */
async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  timeoutMs = 10_000,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs })) as CallToolResult;
}

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

function bytesOf(r: CallToolResult): number {
  return Buffer.byteLength(JSON.stringify(r));
}

/** Refused: isError, one line matching `reason`, no structured content, a small response. */
function expectRefused(r: CallToolResult, reason: RegExp, what = ''): void {
  expect(r.isError, `${what}: ${text(r)}`).toBe(true);
  expect(text(r), what).toMatch(reason);
  expect(text(r), what).not.toMatch(/[\r\n\u2028\u2029]/);
  expect(r.structuredContent, what).toBeUndefined();
  expect(bytesOf(r), what).toBeLessThan(8 * 1024);
}

/** The server still answers: a quote on the loopback page is verbatim, quickly. */
async function stillServes(s: Session, origin: string): Promise<void> {
  const t0 = Date.now();
  const r = await call(
    s.client,
    'verify_quote',
    { url: `${origin}/page.txt`, quote: 'the Mayor’s office welcomed it' },
    5_000,
  );
  expect(r.isError, text(r)).toBeFalsy();
  expect((r.structuredContent as { label: string }).label).toBe('verbatim');
  expect(Date.now() - t0).toBeLessThan(3_000);
}

async function pageServer() {
  return serve([
    { path: '/page.txt', body: PAGE, headers: { 'content-type': 'text/plain; charset=utf-8' } },
    { path: '/hang', hang: true },
  ]);
}

function claimsJson(origin: string, n = 2): string {
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      id: `c${i}`,
      quote: i % 2 ? 'the vote was lost' : 'the vote was close',
      url: `${origin}/page.txt`,
    })),
  );
}

function vmKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]);
}

describe('quotecheck mcp under attack: files', () => {
  it('reads and writes only regular files under its root; everything else is refused unopened, in one line, and the server goes on', async () => {
    const server = await pageServer();
    const root = realpathSync(tempDir());
    const outside = realpathSync(tempDir());
    writeFileSync(join(root, 'claims.json'), claimsJson(server.origin));
    writeFileSync(join(outside, 'secret.json'), claimsJson(server.origin));
    writeFileSync(join(outside, 'victim.txt'), 'precious\n');
    mkdirSync(join(root, 'sub'));
    execFileSync('mkfifo', [join(root, 'fifo')]);
    symlinkSync(join(outside, 'secret.json'), join(root, 'out-link.json'));
    symlinkSync(join(outside, 'victim.txt'), join(root, 'victim-link.json'));
    symlinkSync(join(root, 'fifo'), join(root, 'fifo-link.json'));
    symlinkSync(outside, join(root, 'out-dir'));
    linkSync(join(root, 'claims.json'), join(root, 'claims-hardlink.json'));
    symlinkSync('loop-b', join(root, 'loop-a'));
    symlinkSync('loop-a', join(root, 'loop-b'));
    writeFileSync(join(root, 'nested.json'), `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const s = await connect(['--root', root]);
    const before = readdirSync(root).sort();

    const cases: [Record<string, unknown>, RegExp][] = [
      [{ claims_path: 'fifo' }, /^claims_path "fifo": is a named pipe \(FIFO\); give a regular file$/],
      [{ claims_path: 'fifo-link.json' }, /^claims_path "fifo-link\.json": is a named pipe \(FIFO\)/],
      [
        { claims_path: 'claims.json', answers_path: 'fifo' },
        /^answers_path "fifo": is a named pipe \(FIFO\); answers are written only as a new or regular file$/,
      ],
      [{ claims_path: '/proc/self/fd/0' }, /^claims_path "\/proc\/self\/fd\/0": is outside the root folder /],
      [{ claims_path: '/dev/stdin' }, /^claims_path "\/dev\/stdin": is outside the root folder /],
      [
        { claims_path: 'claims.json', answers_path: '/dev/stdout' },
        /^answers_path "\/dev\/stdout": is outside the root folder /,
      ],
      [
        { claims_path: 'out-link.json' },
        /^claims_path "out-link\.json": leads outside the root folder .* \(through a symbolic link, to ".*secret\.json"\)$/,
      ],
      [{ claims_path: 'out-dir/secret.json' }, /^claims_path "out-dir\/secret\.json": leads outside the root folder/],
      [
        { claims_path: 'claims.json', answers_path: 'out-dir/answers.json' },
        /^answers_path "out-dir\/answers\.json": leads outside the root folder/,
      ],
      [
        { claims_path: 'claims.json', answers_path: 'victim-link.json' },
        /^answers_path "victim-link\.json": is a symbolic link \(to .*victim\.txt\); answers are written only as a new or regular file$/,
      ],
      [
        { claims_path: '../secret.json' },
        /^claims_path "\.\.\/secret\.json": "\.\." is not allowed; give a path under the root folder /,
      ],
      [{ claims_path: 'sub/../../etc/passwd' }, /^claims_path "sub\/\.\.\/\.\.\/etc\/passwd": "\.\." is not allowed/],
      [
        { claims_path: 'claims.json', answers_path: `${root}/../answers.json` },
        /^answers_path ".*\/\.\.\/answers\.json": "\.\." is not allowed/,
      ],
      [{ claims_path: join(outside, 'secret.json') }, /^claims_path ".*secret\.json": is outside the root folder /],
      [{ claims_path: '/etc/passwd' }, /^claims_path "\/etc\/passwd": is outside the root folder /],
      [
        { claims_path: 'claims.json', answers_path: 'a\u001b[31m\nb.json' },
        /^answers_path "a\\u001b\[31m\\nb\.json": contains the control character U\+001B; give a plain path$/,
      ],
      [
        { claims_path: 'claims.json', answers_path: 'answers\u202Enosj.txt' },
        /^answers_path "answers\\u202enosj\.txt": contains the bidirectional control U\+202E; give a plain path$/,
      ],
      [{ claims_path: 'claims.json', answers_path: 'x\u0085.json' }, /contains the control character U\+0085/],
      [
        { claims_path: 'claims.json\u0000.txt' },
        /^claims_path "claims\.json\\u0000\.txt": contains a NUL byte; give a plain path$/,
      ],
      [{ claims_path: 'sub' }, /^claims_path "sub": is a folder; give a regular file$/],
      [{ claims_path: 'claims.json', answers_path: 'sub' }, /^answers_path "sub": is a folder; give a file name$/],
      [{ claims_path: 'claims.json', answers_path: '.' }, /^answers_path "\.": is a folder/],
      [
        { claims_path: 'claims.json', answers_path: 'claims.json' },
        /^answers_path "claims\.json": is the claims file; give another file$/,
      ],
      // A hard link is the same file: the answers would overwrite the claims.
      [
        { claims_path: 'claims.json', answers_path: 'claims-hardlink.json' },
        /^answers_path "claims-hardlink\.json": is the claims file/,
      ],
      [
        { claims_path: 'claims.json', answers_path: 'nofolder/answers.json' },
        /^answers_path "nofolder\/answers\.json": no such folder$/,
      ],
      [{ claims_path: 'loop-a' }, /^claims_path "loop-a": too many symbolic links$/],
      [
        { claims_path: 'claims.json', answers_path: `${'n'.repeat(300)}.json` },
        /^answers_path "n+… \[305 characters, sha256 [0-9a-f]{64}\]": file name too long$/,
      ],
      [
        { claims_path: 'nested.json' },
        /^claims_path "nested\.json": JSON nested more than 1000 levels deep \(at line 1, column 1001\)/,
      ],
      [
        { claims_path: `${'a/'.repeat(2040)}c.json` },
        /^claims_path "a\/a\/a.*… \[4,086 characters, sha256 [0-9a-f]{64}\]": no such file$/,
      ],
      [{ claims_path: 'a/'.repeat(100_000) }, /^claims_path: 200,000 characters, over the 4,096-character cap$/],
    ];
    for (const [args, reason] of cases) {
      const t0 = Date.now();
      const r = await call(s.client, 'check_claims', args, 5_000);
      expectRefused(r, reason, JSON.stringify(args).slice(0, 200));
      expect(Date.now() - t0, JSON.stringify(args).slice(0, 200)).toBeLessThan(2_000);
    }
    // Nothing was created or replaced: no stray name in the root, the outside files as they were.
    expect(readdirSync(root).sort()).toEqual(before);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('precious\n');
    expect(existsSync(join(outside, 'answers.json'))).toBe(false);
    await stillServes(s, server.origin);

    // What the rules allow: a symbolic link inside the root, an absolute path inside it, answers in a subfolder,
    // a deep folder (300 levels).
    symlinkSync('claims.json', join(root, 'in-link.json'));
    const ok = await call(s.client, 'check_claims', {
      claims_path: 'in-link.json',
      answers_path: join(root, 'sub', 'answers.json'),
    });
    expect(ok.isError, text(ok)).toBeFalsy();
    expect(JSON.parse(readFileSync(join(root, 'sub', 'answers.json'), 'utf8'))).toEqual({
      c0: 'verbatim',
      c1: 'no_match',
    });
    const deep = join(root, ...Array.from({ length: 300 }, () => 'd'));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'claims.json'), claimsJson(server.origin));
    const deepOk = await call(s.client, 'check_claims', { claims_path: `${'d/'.repeat(300)}claims.json` });
    expect(deepOk.isError, text(deepOk)).toBeFalsy();
    expect(JSON.parse(readFileSync(join(deep, 'answers.json'), 'utf8'))).toEqual({ c0: 'verbatim', c1: 'no_match' });
    expect(s.stderr()).not.toMatch(/a quotecheck bug/);
  });

  it('a hard link in the root to a file outside it: read (a name in the root), and written over only by replacing the name', async () => {
    const server = await pageServer();
    const root = realpathSync(tempDir());
    const outside = realpathSync(tempDir());
    writeFileSync(join(outside, 'claims.json'), claimsJson(server.origin));
    writeFileSync(join(outside, 'victim.json'), '{"precious": true}\n');
    linkSync(join(outside, 'claims.json'), join(root, 'claims.json'));
    linkSync(join(outside, 'victim.json'), join(root, 'answers.json'));
    const s = await connect(['--root', root]);
    const r = await call(s.client, 'check_claims', { claims_path: 'claims.json' });
    expect(r.isError, text(r)).toBeFalsy();
    expect(JSON.parse(readFileSync(join(root, 'answers.json'), 'utf8'))).toEqual({ c0: 'verbatim', c1: 'no_match' });
    // The answers replaced the root's name; the file outside, the other name of the same inode before, is untouched.
    expect(readFileSync(join(outside, 'victim.json'), 'utf8')).toBe('{"precious": true}\n');
  });

  it("devices and the server's own stdin are refused unopened even with the root at /", async () => {
    const server = await pageServer();
    const s = await connect(['--root', '/']);
    const cases: [string, RegExp][] = [
      ['/dev/null', /^claims_path "\/dev\/null": is a character device; give a regular file$/],
      ['/dev/zero', /^claims_path "\/dev\/zero": is a character device/],
      // The server's stdin is its protocol pipe: a path to it resolves to no file, and nothing reads it.
      ['/proc/self/fd/0', /^claims_path "\/proc\/self\/fd\/0": (no such file|is a named pipe)/],
      ['/dev/stdin', /^claims_path "\/dev\/stdin": (no such file|is a named pipe)/],
      ['/proc/self/status', /^claims_path "\/proc\/self\/status": is not valid JSON/],
    ];
    for (const [path, reason] of cases)
      expectRefused(await call(s.client, 'check_claims', { claims_path: path }, 5_000), reason, path);
    await stillServes(s, server.origin);
  });

  it('check_claims calls on FIFOs, many at once, never hold up another call (DNS included)', async () => {
    const server = await pageServer();
    const root = realpathSync(tempDir());
    for (let i = 0; i < 16; i++) execFileSync('mkfifo', [join(root, `fifo${i}`)]);
    writeFileSync(join(root, 'claims.json'), claimsJson(server.origin));
    const s = await connect(['--root', root]);
    const t0 = Date.now();
    const fifoCalls = Array.from({ length: 16 }, (_, i) =>
      call(
        s.client,
        'check_claims',
        i % 2 ? { claims_path: `fifo${i}` } : { claims_path: 'claims.json', answers_path: `fifo${i}` },
        5_000,
      ),
    );
    // A host name: its lookup runs on libuv's thread pool, which a blocking open of a FIFO would have taken.
    const normal = call(
      s.client,
      'verify_quote',
      { url: `http://localhost:${server.port}/page.txt`, quote: 'welcomed it on Tuesday' },
      5_000,
    );
    const [fifos, verified] = await Promise.all([Promise.all(fifoCalls), normal]);
    for (const r of fifos) expectRefused(r, /: is a named pipe \(FIFO\)/);
    expect((verified.structuredContent as { label: string }).label).toBe('verbatim');
    expect(Date.now() - t0).toBeLessThan(3_000);
    await stillServes(s, server.origin);
  });
});

describe('quotecheck mcp under attack: bounds in and out', () => {
  it('inputs over their caps are refused before any work, naming the cap, and nothing is fetched', async () => {
    const server = await pageServer();
    const s = await connect([]);
    const url = `${server.origin}/page.txt`;
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        'verify_quote',
        { url, quote: 'q'.repeat(10_000_000) },
        /^quote: 10,000,000 characters, over the 20,000-character cap$/,
      ],
      [
        'verify_quote',
        { url, quote: 'é'.repeat(3_000_000) },
        /^quote: 3,000,000 characters, over the 20,000-character cap$/,
      ],
      [
        'verify_quote',
        { url: `${url}?${'x'.repeat(10_000_000)}`, quote: 'welcomed' },
        /^url: 10,000,0\d\d characters, over the 8,192-character cap$/,
      ],
      [
        'verify_quote',
        { url: 'u'.repeat(9_000), quote: 'q'.repeat(30_000) },
        /^url: 9,000 characters, over the 8,192-character cap; quote: 30,000 characters, over the 20,000-character cap$/,
      ],
      [
        'read_source',
        { url: `${url}?${'x'.repeat(1_000_000)}` },
        /^url: 1,000,0\d\d characters, over the 8,192-character cap$/,
      ],
      [
        'search_source',
        { url, query: 'w '.repeat(5_000_000) },
        /^query: 10,000,000 characters, over the 1,000-character cap$/,
      ],
      [
        'check_claims',
        { claims_path: 'c'.repeat(5_000_000) },
        /^claims_path: 5,000,000 characters, over the 4,096-character cap$/,
      ],
      [
        'verify_quote',
        { url, quote: 'welcomed', as_of: '2024-'.repeat(1_000_000) },
        /^as_of: 5,000,000 characters, over the 64-character cap$/,
      ],
      // Arguments are a handful of fields: thousands are refused before they are walked.
      [
        'verify_quote',
        { url, quote: 'welcomed', ...Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])) },
        /^verify_quote: the arguments hold more than 64 values in all/,
      ],
    ];
    for (const [name, args, reason] of cases) {
      const t0 = Date.now();
      expectRefused(await call(s.client, name, args, 20_000), reason, name);
      expect(Date.now() - t0, name).toBeLessThan(5_000);
    }
    expect(server.hits('/page.txt')).toBe(0);
    await stillServes(s, server.origin);
  });

  it('a request over the message cap is answered with an error, and the session goes on', async () => {
    const server = await pageServer();
    const s = await connect([]);
    // 2 bytes a character in UTF-8: 18 MB on the wire, over the 16 MiB a message may be (the SDK alone would end the session).
    const quote = 'é'.repeat(9_000_000);
    await expect(call(s.client, 'verify_quote', { url: `${server.origin}/page.txt`, quote }, 20_000)).rejects.toThrow(
      /the request is 18,000,\d{3} bytes, over the 16,777,216-byte cap for one message/,
    );
    expect(MAX_REQUEST_BYTES).toBe(16 * 1024 * 1024);
    await stillServes(s, server.origin);
    expect(s.stderr()).toMatch(/dropped a request: the request is 18,000,\d{3} bytes/);
  });

  it('long inputs come back as their start, length and sha256; pages and passages stay under the response cap', async () => {
    // A URL near the cap ("http://127.0.0.1:PORT" is at most 22 characters).
    const longPath = `/long?${'q'.repeat(MAX_URL_CHARS - 22 - 6)}`;
    const controls = Array.from({ length: 300_000 }, (_, i) => String.fromCharCode(1 + (i % 7))).join('');
    const server = await serve([
      { path: '/page.txt', body: PAGE, headers: { 'content-type': 'text/plain; charset=utf-8' } },
      { path: longPath, body: PAGE, headers: { 'content-type': 'text/plain; charset=utf-8' } },
      // Text whose JSON is 6 bytes a character (\u0001 ...) and 4 (emoji), for read_source's page.
      {
        path: '/controls.txt',
        body: `start ${controls} end`,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      },
      { path: '/emoji.txt', body: '😀 '.repeat(200_000), headers: { 'content-type': 'text/plain; charset=utf-8' } },
      // One "word" a megabyte long, and a page of near-duplicates, for search_source.
      {
        path: '/long-words.txt',
        body: `${'members said '.repeat(1000)}${'x'.repeat(1_000_000)} ${'vote was close '.repeat(1000)}`,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      },
    ]);
    const s = await connect([]);
    const quote = `${'Members said the vote was close, '.repeat(606)}and so on`.slice(0, MAX_QUOTE_CHARS);
    expect(quote).toHaveLength(MAX_QUOTE_CHARS);
    const v = await call(s.client, 'verify_quote', { url: `${server.origin}/page.txt`, quote });
    expect(v.isError, text(v)).toBeFalsy();
    const rec = v.structuredContent as { quote: string; label: string };
    const sha = createHash('sha256').update(quote).digest('hex');
    expect(rec.quote).toBe(`${quote.slice(0, 200)}… [20,000 characters, sha256 ${sha}]`);
    expect(text(v)).not.toContain(quote.slice(0, 1000));
    expect(bytesOf(v)).toBeLessThan(MAX_RESPONSE_BYTES / 2);

    const longUrl = `${server.origin}${longPath}`;
    expect(longUrl.length).toBeLessThanOrEqual(MAX_URL_CHARS);
    const u = await call(s.client, 'read_source', { url: longUrl });
    expect(u.isError, text(u)).toBeFalsy();
    const sha256 = createHash('sha256').update(longUrl).digest('hex');
    expect((u.structuredContent as { url: string }).url).toBe(
      `${longUrl.slice(0, 200)}… [${longUrl.length.toLocaleString('en-US')} characters, sha256 ${sha256}]`,
    );

    for (const path of ['/controls.txt', '/emoji.txt']) {
      const pages: string[] = [];
      let offset: number | null = 0;
      let total = 0;
      while (offset !== null) {
        const r = await call(s.client, 'read_source', { url: `${server.origin}${path}`, offset, length: 100_000 });
        expect(r.isError, text(r)).toBeFalsy();
        expect(bytesOf(r)).toBeLessThan(MAX_RESPONSE_BYTES);
        const page = r.structuredContent as { text: string; next_offset: number | null; total_length: number };
        // The page is cut by its JSON size, never inside a surrogate pair.
        expect(Buffer.byteLength(JSON.stringify(page.text))).toBeLessThanOrEqual(PART_BYTES + 2);
        expect(page.text).not.toMatch(/[\uD800-\uDBFF]$/);
        pages.push(page.text);
        total = page.total_length;
        offset = page.next_offset;
      }
      expect(pages.length).toBeGreaterThan(2);
      expect(pages.join('')).toHaveLength(total);
    }
    const ctl = await call(s.client, 'read_source', { url: `${server.origin}/controls.txt`, length: 100_000 });
    expect((ctl.structuredContent as { text: string }).text.length).toBeLessThan(50_000);

    const found = await call(s.client, 'search_source', {
      url: `${server.origin}/long-words.txt`,
      query: 'members said the vote was close',
      max_results: 20,
    });
    expect(found.isError, text(found)).toBeFalsy();
    expect(bytesOf(found)).toBeLessThan(MAX_RESPONSE_BYTES);
    for (const p of (found.structuredContent as { results: { text: string; raw: string }[] }).results) {
      expect(p.text.length).toBeLessThan(4_200);
      expect(p.raw.length).toBeLessThan(4_200);
    }
    await stillServes(s, server.origin);
  });

  it('claims files: a size cap, a claim cap, the quote and URL caps per claim; at the cap the answer stays small', async () => {
    const server = await pageServer();
    const root = realpathSync(tempDir());
    const url = `${server.origin}/page.txt`;
    const many = Array.from({ length: 10_000 }, (_, i) => ({ id: `c${i}`, quote: 'the vote was close', url }));
    writeFileSync(join(root, 'many.json'), JSON.stringify(many));
    writeFileSync(join(root, 'long-quote.json'), JSON.stringify([{ id: 'a', quote: 'q'.repeat(30_000), url }]));
    writeFileSync(
      join(root, 'long-url.json'),
      JSON.stringify([{ id: 'a', quote: 'q', url: `${url}?${'x'.repeat(10_000)}` }]),
    );
    // Sparse: 65 MB that take no room, refused by their size before a byte is read.
    writeFileSync(join(root, 'huge.json'), '[');
    truncateSync(join(root, 'huge.json'), DEFAULT_MAX_CLAIMS_BYTES + 1);
    // At the cap: one claim's id a megabyte long, and every claim on one page.
    const atCap = many
      .slice(0, MAX_CLAIMS_PER_CALL)
      .map((c, i) => (i === 7 ? { ...c, id: `long-${'i'.repeat(1_000_000)}` } : c));
    writeFileSync(join(root, 'at-cap.json'), JSON.stringify(atCap));
    const s = await connect(['--root', root]);

    expectRefused(
      await call(s.client, 'check_claims', { claims_path: 'many.json' }),
      /^claims_path "many\.json": 10,000 claims, over the 1,000-claim cap for one check_claims call; split the file, or label it with `quotecheck run`$/,
    );
    expectRefused(
      await call(s.client, 'check_claims', { claims_path: 'long-quote.json' }),
      /^claims_path "long-quote\.json": claim #1 \(id "a"\): quote: 30,000 characters, over the 20,000-character cap$/,
    );
    expectRefused(
      await call(s.client, 'check_claims', { claims_path: 'long-url.json' }),
      /^claims_path "long-url\.json": claim #1 \(id "a"\): url: 10,0\d\d characters, over the 8,192-character cap$/,
    );
    expectRefused(
      await call(s.client, 'check_claims', { claims_path: 'huge.json' }),
      /^claims_path "huge\.json": is 67,108,865 bytes, over the 67,108,864-byte limit$/,
    );
    // Refused before any work: no answers file, no fetch.
    expect(existsSync(join(root, 'answers.json'))).toBe(false);
    expect(server.hits('/page.txt')).toBe(0);

    const t0 = Date.now();
    const r = await call(s.client, 'check_claims', { claims_path: 'at-cap.json' }, 20_000);
    expect(r.isError, text(r)).toBeFalsy();
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(bytesOf(r)).toBeLessThan(MAX_RESPONSE_BYTES);
    const out = r.structuredContent as { claims: number; listed: number; results: { id: string }[] };
    expect(out.claims).toBe(MAX_CLAIMS_PER_CALL);
    expect(out.listed).toBe(200);
    expect(out.results[7]!.id).toMatch(/^long-i+… \[1,000,005 characters, sha256 [0-9a-f]{64}\]$/);
    const answers = JSON.parse(readFileSync(join(root, 'answers.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(answers)).toHaveLength(MAX_CLAIMS_PER_CALL);
    expect(answers[atCap[7]!.id]).toBe('verbatim');
    await stillServes(s, server.origin);
  });

  it("many large pages: the server's memory stays within --cache-mb of its baseline", async () => {
    const MB = 1024 * 1024;
    const pageMb = 8;
    const pages = 16;
    const cacheMb = 32;
    // Mixed case, punctuation and curly quotes: the extracted text (two bytes a character) and its normalized form differ.
    const line = 'Lorem Ipsum “dolor” sit amet, Consectetur adipiscing ELIT; sed do eiusmod tempor. ';
    const body = (i: number): string =>
      `page ${i} ${line.repeat(Math.ceil((pageMb * MB) / line.length))}`.slice(0, pageMb * MB);
    const server = await serve(
      Array.from({ length: pages }, (_, i) => ({
        path: `/p${i}.txt`,
        body: body(i),
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      })),
    );
    const s = await connect(['--cache-mb', String(cacheMb)]);
    // The baseline: the server with two pages read, so a page's own working memory is in it.
    for (const i of [0, 1])
      expect(
        (await call(s.client, 'read_source', { url: `${server.origin}/p${i}.txt`, length: 100 })).isError,
      ).toBeFalsy();
    const baseline = vmKb(s.pid, 'VmHWM');
    const t0 = Date.now();
    for (let i = 2; i < pages; i++) {
      const r = await call(s.client, 'read_source', { url: `${server.origin}/p${i}.txt`, length: 100 }, 20_000);
      expect(r.isError, text(r)).toBeFalsy();
      expect((r.structuredContent as { text: string }).text).toBe(body(i).slice(0, 100));
    }
    const peak = vmKb(s.pid, 'VmHWM');
    const rss = vmKb(s.pid, 'VmRSS');
    // Kept: at most --cache-mb. Not kept, but not yet collected: a few pages' working copies (body, text,
    // normalized text and the normalizer's steps); measured at 100 to 150 MB over the baseline with 8 MB pages.
    // Keeping every page, as the server did before (16 records), takes 500 to 700 MB more.
    const bound = baseline + (cacheMb + 256) * 1024;
    process.stderr.write(
      `mcp memory: ${pages} pages of ${pageMb} MB, --cache-mb ${cacheMb}: VmHWM ${Math.round(baseline / 1024)} MB -> ${Math.round(peak / 1024)} MB, VmRSS ${Math.round(rss / 1024)} MB, ${Date.now() - t0} ms\n`,
    );
    expect(peak).toBeLessThan(bound);
    expect(peak).toBeLessThan(1024 * 1024);
    // The budget is in bytes: no 8 MB page's record (its body plus two bytes a character of its texts) fits in 32 MB,
    // so paging a page again extracts it again, from the HTTP cache (the last few bodies fit).
    await call(s.client, 'read_source', { url: `${server.origin}/p${pages - 1}.txt`, offset: 100, length: 100 });
    expect(server.hits(`/p${pages - 1}.txt`)).toBe(1);
    await stillServesOn(s, server.origin, '/p3.txt', 'sit amet, Consectetur');
  });

  it('a call over --call-timeout answers an error naming the limit, and the server goes on', async () => {
    const server = await pageServer();
    const root = realpathSync(tempDir());
    writeFileSync(
      join(root, 'claims.json'),
      JSON.stringify([
        { id: 'slow', quote: 'anything', url: `${server.origin}/hang` },
        { id: 'fine', quote: 'the vote was close', url: `${server.origin}/page.txt` },
      ]),
    );
    const s = await connect(['--root', root, '--call-timeout', '1', '--timeout', '30', '--source-budget', '30']);
    for (const [name, args] of [
      ['verify_quote', { url: `${server.origin}/hang`, quote: 'anything' }],
      ['read_source', { url: `${server.origin}/hang` }],
      ['search_source', { url: `${server.origin}/hang`, query: 'anything' }],
    ] as const) {
      const t0 = Date.now();
      expectRefused(
        await call(s.client, name, args),
        new RegExp(`^${name}: stopped at the 1-second limit for one call \\(--call-timeout 1\\)$`),
        name,
      );
      expect(Date.now() - t0).toBeLessThan(2_500);
    }
    const c = await call(s.client, 'check_claims', { claims_path: 'claims.json' });
    expectRefused(
      c,
      /^check_claims: stopped at the 1-second limit for one call \(--call-timeout 1\); the answers file holds the claims decided by then, the others no_match$/,
    );
    // The answers were written from the start, and the decided claim is in them once the run has wound down.
    await expect
      .poll(
        () => existsSync(join(root, 'answers.json')) && JSON.parse(readFileSync(join(root, 'answers.json'), 'utf8')),
        { timeout: 3_000 },
      )
      .toEqual({ slow: 'no_match', fine: 'verbatim' });
    await stillServes(s, server.origin);
  });
});

async function stillServesOn(s: Session, origin: string, path: string, quote: string): Promise<void> {
  const r = await call(s.client, 'verify_quote', { url: `${origin}${path}`, quote }, 10_000);
  expect((r.structuredContent as { label: string }).label, text(r)).toBe('verbatim');
}

describe('quotecheck mcp under attack: the guards themselves', () => {
  it('the transport guard turns a result over the cap into an error naming it, and any error into one line', async () => {
    const sent: JSONRPCMessage[] = [];
    const inner: Transport = { start: async () => {}, close: async () => {}, send: async (m) => void sent.push(m) };
    const guard = new GuardedTransport(inner, 1000);
    const seen: JSONRPCMessage[] = [];
    guard.onmessage = (m) => void seen.push(m);
    inner.onmessage!({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'read_source', arguments: {} } });
    expect(seen).toHaveLength(1);
    await guard.send({
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: 'x'.repeat(5000) }], structuredContent: { a: 1 } },
    });
    expect(sent[0]).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        content: [
          {
            type: 'text',
            text: expect.stringMatching(
              /^read_source: the answer would be 5,\d{3} bytes, over the 1,000-byte cap for one response; ask for less$/,
            ),
          },
        ],
        isError: true,
      },
    });
    await guard.send({
      jsonrpc: '2.0',
      id: 8,
      result: {
        content: [
          {
            type: 'text',
            text: 'MCP error -32602: Input validation error: Invalid arguments for tool t: Too small: expected number to be >=1 at length\nquote: 9 characters, over the 5-character cap at quote',
          },
        ],
        isError: true,
      },
    });
    const answer = sent[1];
    if (answer === undefined || !('result' in answer)) throw new Error('the second message sent is not a result');
    expect((answer.result as CallToolResult).content).toEqual([
      {
        type: 'text',
        text: 'length: Too small: expected number to be >=1; quote: 9 characters, over the 5-character cap',
      },
    ]);
    // A small result passes as it is.
    const small = { jsonrpc: '2.0' as const, id: 9, result: { content: [{ type: 'text', text: 'fine' }] } };
    await guard.send(small);
    expect(sent[2]).toBe(small);
  });

  it('over-long request lines are dropped as they stream, and their id found at either end', async () => {
    const got: [number, unknown][] = [];
    const lines = new BoundedLines(100, (bytes, id) => got.push([bytes, id]));
    const out: Buffer[] = [];
    lines.on('data', (d: Buffer) => out.push(d));
    const input = new PassThrough();
    input.pipe(lines);
    const small = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
    // The SDK client writes the id last; other clients may write it first; an id that is not a scalar is not one.
    const idLast = [
      `{"method":"tools/call","params":{"q":"${'x'.repeat(300)}`,
      `${'y'.repeat(300)}"},"jsonrpc":"2.0","id":42}\n`,
    ];
    const idFirst = `{"jsonrpc":"2.0","id":"abc","params":"${'z'.repeat(500)}"}\n`;
    const noId = `{"id":{"x":1},"p":"${'w'.repeat(200)}"}\n`;
    input.write(small);
    input.write(idLast[0]);
    input.write(`${idLast[1]}${small}`);
    input.write(`${idFirst}${noId}`);
    input.end();
    await new Promise((resolve) => lines.on('end', resolve));
    expect(Buffer.concat(out).toString()).toBe(small + small);
    expect(got).toEqual([
      [idLast.join('').length, 42],
      [idFirst.length, 'abc'],
      [noId.length, undefined],
    ]);
  });

  it("--root must be a folder; --call-timeout's default in help is the one the server applies", async () => {
    const r = await runCliInProcess(['mcp', '--root', '/nonexistent/folder']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('quotecheck: error: --root "/nonexistent/folder": no such folder');
    const help = await runCliInProcess(['mcp', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(`(default: ${DEFAULT_CALL_TIMEOUT_SECONDS})`);
    expect(help.stdout).toMatch(/--root <dir>/);
    expect(MAX_PATH_CHARS).toBe(4096);
  });
});
