// The network rule as an attacker meets it: every address judged against the IANA special-purpose registries, every
// IPv4 form inside IPv6 decoded, URL spellings of loopback, an archive that redirects a capture into the private
// network (library, `run`, `verify` and the MCP server), and the defaults of every command that fetches.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import ipaddr from 'ipaddr.js';
import { afterEach, describe, expect, test } from 'vitest';
import { checkClaims } from '../../src/check.js';
import { fetchSource } from '../../src/fetch/index.js';
import { judgeAddress } from '../../src/fetch/guard.js';
import { startWaybackStub, type RunningWayback } from '../../src/wayback/stub/stub.js';
import { CLI, FIXTURES, claimsRun, runCliInProcess, serve, tempDir, writeJson } from '../support/helpers.js';

const html = { 'content-type': 'text/html; charset=utf-8' };
const SECRET = 'INTERNAL-ONLY: the metadata token is 7f3a9c';
const PUBLIC_TEXT = 'The harbour master counted forty-two ships on the first day of the fair.';
const page = (text: string): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body><article><p>${text}</p><p>${'More prose about the fair. '.repeat(20)}</p></article></body></html>`;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!().catch(() => {});
});

// ---- the registries ----------------------------------------------------------------------------

interface Row {
  block: string;
  name: string;
  reachable: 'True' | 'False' | 'N/A';
}

/** The registries' rows (test/fixtures/iana-special-purpose.csv): a quoted name may hold commas. */
function registry(): Row[] {
  return readFileSync(join(FIXTURES, 'iana-special-purpose.csv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#') && !l.startsWith('block,'))
    .map((line) => {
      const cells = line.match(/("[^"]*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, ''));
      return { block: cells[0]!, name: cells[1]!, reachable: cells[3] as Row['reachable'] };
    });
}

/** Blocks whose addresses carry an IPv4 address that is the real destination: judged by that address (tested below). */
const CARRIERS = new Set(['::ffff:0:0/96', '64:ff9b::/96', '2001::/32', '2002::/16']);

function ends(block: string): string[] {
  const [net, bits] = ipaddr.parseCIDR(block);
  if (net.kind() === 'ipv4') {
    return [
      ipaddr.IPv4.networkAddressFromCIDR(block).toString(),
      ipaddr.IPv4.broadcastAddressFromCIDR(block).toString(),
    ];
  }
  return [
    ipaddr.IPv6.networkAddressFromCIDR(block).toString(),
    ipaddr.IPv6.broadcastAddressFromCIDR(block).toString(),
    bits === 128 ? '' : '',
  ].filter(Boolean);
}

/** The most specific row holding `address` (the registry nests single addresses inside blocks). */
function rowFor(rows: Row[], address: string): Row | undefined {
  const addr = ipaddr.parse(address);
  let best: Row | undefined;
  let bestBits = -1;
  for (const row of rows) {
    const [net, bits] = ipaddr.parseCIDR(row.block);
    if (net.kind() === addr.kind() && addr.match(net, bits) && bits > bestBits) {
      best = row;
      bestBits = bits;
    }
  }
  return best;
}

describe('the address rule against the IANA special-purpose registries', () => {
  const rows = registry();

  test('the fixture holds both registries', () => {
    expect(rows.length).toBeGreaterThan(45);
    expect(rows.filter((r) => r.block.includes(':')).length).toBeGreaterThan(20);
  });

  test.each(registry().filter((r) => !CARRIERS.has(r.block)))(
    '$block ($name, globally reachable: $reachable): first and last address',
    (row) => {
      for (const address of ends(row.block)) {
        const owner = rowFor(rows, address)!;
        if (CARRIERS.has(owner.block)) continue; // a nested carrier block decides by the address it carries
        const verdict = judgeAddress(address);
        expect(verdict.allowed, `${address} (most specific row ${owner.block}, ${owner.reachable})`).toBe(
          owner.reachable === 'True',
        );
        if (!verdict.allowed) expect(verdict.why).toMatch(/\S/);
      }
    },
  );

  test.each([
    ['224.0.0.1', 'multicast (224.0.0.0/4)'],
    ['239.255.255.250', 'multicast (224.0.0.0/4)'],
    ['ff02::1', 'multicast (ff00::/8)'],
    ['fec0::1', 'deprecated site local (fec0::/10)'],
    ['4000::1', 'outside the global unicast space (2000::/3)'],
    ['::2', 'IPv4-compatible, carrying 0.0.0.2: unspecified (0.0.0.0/8)'],
  ])('%s, outside the registries, is refused: %s', (address, why) => {
    expect(judgeAddress(address)).toEqual({ allowed: false, why });
  });

  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888',
  ])('%s, a global unicast address, is allowed', (address) => {
    expect(judgeAddress(address)).toEqual({ allowed: true });
  });
});

describe('IPv4 inside IPv6: the address carried is what is judged', () => {
  // Teredo (RFC 4380): server IPv4 in bits 32-63, the client's IPv4 inverted in the last 32 bits.
  const teredo = (server: string, client: string): string => {
    const s = ipaddr.IPv4.parse(server).octets;
    const c = ipaddr.IPv4.parse(client).octets.map((o) => o ^ 0xff);
    const hex = (a: number[], i: number): string => ((a[i]! << 8) | a[i + 1]!).toString(16);
    return `2001:0:${hex(s, 0)}:${hex(s, 2)}:8000:63bf:${hex(c, 0)}:${hex(c, 2)}`;
  };
  const forms: [string, (v4: string) => string][] = [
    ['IPv4-mapped', (v4) => `::ffff:${v4}`],
    ['IPv4-compatible', (v4) => `::${v4}`],
    ['IPv4-translated', (v4) => `::ffff:0:${v4}`],
    ['NAT64', (v4) => `64:ff9b::${v4}`],
    [
      '6to4',
      (v4) => {
        const o = ipaddr.IPv4.parse(v4).octets;
        return `2002:${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}::1`;
      },
    ],
    ['Teredo', (v4) => teredo('65.54.227.120', v4)],
  ];
  const inside: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link local'],
    ['10.0.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier grade nat'],
    ['0.0.0.0', 'unspecified'],
  ];

  test.each(forms)(
    '%s: a private address inside is refused, naming the form and the address; a public one is allowed',
    (form, make) => {
      for (const [v4, range] of inside) {
        // `::0.0.0.0` is `::` itself, the unspecified address, and refused as that.
        if (form === 'IPv4-compatible' && v4 === '0.0.0.0') continue;
        const verdict = judgeAddress(make(v4));
        expect(verdict.allowed, make(v4)).toBe(false);
        if (!verdict.allowed) expect(verdict.why).toBe(`${form}, carrying ${v4}: ${range} (${judgeAddressBlock(v4)})`);
      }
      expect(judgeAddress(make('8.8.8.8')), make('8.8.8.8')).toEqual({ allowed: true });
    },
  );

  test('Teredo is refused when its server is private, whatever the client', () => {
    expect(judgeAddress(teredo('10.1.1.1', '8.8.8.8'))).toMatchObject({
      allowed: false,
      why: expect.stringContaining('carrying 10.1.1.1'),
    });
  });

  test('the local-use NAT64 prefix is refused whatever it carries; written with a dotted tail, each form is read as written', () => {
    expect(judgeAddress('64:ff9b:1::808:808')).toEqual({ allowed: false, why: 'local-use NAT64 (64:ff9b:1::/48)' });
    // ipaddr.js alone reads `::127.0.0.1` as IPv4-mapped; the rule reads it as the URL parser writes it (::7f00:1).
    expect(judgeAddress('::127.0.0.1')).toMatchObject({
      why: expect.stringMatching(/^IPv4-compatible, carrying 127\.0\.0\.1/),
    });
    expect(judgeAddress('[::ffff:7f00:1]')).toMatchObject({
      why: expect.stringMatching(/^IPv4-mapped, carrying 127\.0\.0\.1/),
    });
  });
});

function judgeAddressBlock(v4: string): string {
  const verdict = judgeAddress(v4);
  return verdict.allowed ? '' : verdict.why.replace(/^.*\((.*)\)$/, '$1');
}

// ---- URLs, libraries, commands ---------------------------------------------------------------------

describe('by default nothing private is reached, however the URL spells it', () => {
  test.each([
    ['a dotted literal', (p: number) => `http://127.0.0.1:${p}/secret`],
    ['a short form', (p: number) => `http://127.1:${p}/secret`],
    ['a decimal integer', (p: number) => `http://2130706433:${p}/secret`],
    ['hex and octal parts', (p: number) => `http://0x7f.0.0.01:${p}/secret`],
    ['0.0.0.0 (this host on Linux)', (p: number) => `http://0.0.0.0:${p}/secret`],
    ['IPv4-mapped IPv6', (p: number) => `http://[::ffff:127.0.0.1]:${p}/secret`],
    ['IPv6 loopback', (p: number) => `http://[::1]:${p}/secret`],
    ['a name for loopback', (p: number) => `http://localhost:${p}/secret`],
    ['credentials before a loopback host', (p: number) => `http://example.org@127.0.0.1:${p}/secret`],
  ])('%s is refused before connecting, in one line naming the address and --allow-private', async (_what, url) => {
    const server = await serve(
      [{ path: '/secret', body: SECRET, headers: { 'content-type': 'text/plain' } }],
      ['127.0.0.1'],
    );
    const run = await checkClaims([{ id: 'x', quote: SECRET, url: url(server.port) }], {
      retries: 0,
      timeoutMs: 3_000,
      wayback: 'off',
    });
    const r = run.results[0]!;
    expect(r).toMatchObject({ label: 'no_match', diagnosis: 'fetch_failed' });
    expect(r.note).toMatch(
      /^refused: .*(is|resolves to) .*\((127\.0\.0\.0\/8|::1\/128|0\.0\.0\.0\/8)\): not a global address; pass --allow-private to reach private networks/,
    );
    expect(r.note).not.toContain('\n');
    expect(server.hits('/secret')).toBe(0);
  });

  test('fetchSource without a dispatcher refuses too; allowPrivate opens it', async () => {
    const server = await serve([{ path: '/secret', body: SECRET, headers: { 'content-type': 'text/plain' } }]);
    const settings = {
      timeoutMs: 2_000,
      retries: 0,
      backoffMinMs: 0,
      backoffMaxMs: 0,
      retryAfterCapMs: 0,
      budgetMs: 5_000,
      maxBytes: 1e6,
      maxRedirects: 5,
      userAgent: 'test',
    };
    const refused = await fetchSource(`${server.origin}/secret`, settings);
    expect(refused).toMatchObject({ ok: false, error: 'refused' });
    expect(server.hits('/secret')).toBe(0);
    expect(await fetchSource(`${server.origin}/secret`, { ...settings, allowPrivate: true })).toMatchObject({
      ok: true,
      status: 200,
    });
  });
});

/**
 * An archive that lists captures as the Wayback Machine does (CDX from the loopback Wayback stub) but answers
 * every capture with a redirect into the private network: what a compromised or impersonated archive can do.
 */
async function hostileArchive(
  stub: RunningWayback,
  location: string,
): Promise<{ origin: string; captureRequests: () => number }> {
  let captures = 0;
  const server = http.createServer((req, res) => {
    if (req.url!.startsWith('/web/')) {
      captures++;
      res.writeHead(302, { location }).end();
      return;
    }
    void fetch(stub.origin + req.url).then(
      async (answer) => {
        res
          .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
          .end(Buffer.from(await answer.arrayBuffer()));
      },
      () => res.writeHead(502).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.4', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { origin: `http://127.0.0.4:${(server.address() as AddressInfo).port}`, captureRequests: () => captures };
}

async function archiveSetup() {
  // The internal page has the quote too: fetched, it would make the claim verbatim and show the secret as context.
  const secret = await serve(
    [{ path: '/internal', body: page(`${PUBLIC_TEXT} ${SECRET}`), headers: html }],
    ['127.0.0.1'],
  );
  // The claim's own URL: a name that does not resolve (.invalid, RFC 6761), so today's page cannot be read and the
  // archive is asked for its capture. (A private address is never asked about: no public archive holds one.)
  const claimUrl = `http://article.invalid/article`;
  const stub = await startWaybackStub({
    host: '127.0.0.4',
    captures: [{ url: claimUrl, timestamp: '20240301120000', body: page(`${PUBLIC_TEXT} ${SECRET}`), headers: html }],
  });
  closers.push(() => stub.close());
  const hostile = await hostileArchive(stub, `${secret.origin}/internal`);
  return { secret, stub, hostile, claimUrl };
}

describe('an archive that redirects a capture into the private network', () => {
  test('library: the configured archive is reached, the redirect out of it is refused, the internal page never fetched', async () => {
    const { secret, hostile, claimUrl } = await archiveSetup();
    const run = await checkClaims([{ id: 'c', quote: PUBLIC_TEXT, url: claimUrl, verify_date: '2024-05-01' }], {
      retries: 0,
      timeoutMs: 3_000,
      wayback: 'always',
      waybackUrl: hostile.origin,
      waybackPerMinute: 6_000,
    });
    const r = run.results[0]!;
    expect(hostile.captureRequests()).toBeGreaterThan(0);
    expect(secret.hits('/internal')).toBe(0);
    expect(r.label).toBe('no_match');
    expect(JSON.stringify(r)).not.toContain('metadata token');
    expect(r.note).toMatch(/refused: 127\.0\.0\.1 is loopback \(127\.0\.0\.0\/8\)/);
  });

  test('library: the same archive answering honestly is used, with private networks still refused for sources', async () => {
    const { stub, claimUrl } = await archiveSetup();
    const run = await checkClaims([{ id: 'c', quote: PUBLIC_TEXT, url: claimUrl, verify_date: '2024-05-01' }], {
      retries: 0,
      timeoutMs: 3_000,
      wayback: 'always',
      waybackUrl: stub.origin,
      waybackPerMinute: 6_000,
    });
    expect(run.results[0]).toMatchObject({ label: 'verbatim', asOf: { source: 'wayback' } });
  });

  test("a claim whose URL is on the archive's own origin is a source like any other: refused", async () => {
    const { stub, claimUrl } = await archiveSetup();
    const run = await checkClaims(
      [{ id: 'c', quote: PUBLIC_TEXT, url: `${stub.origin}/web/20240301120000id_/${claimUrl}` }],
      {
        retries: 0,
        timeoutMs: 3_000,
        wayback: 'off',
        waybackUrl: stub.origin,
      },
    );
    expect(run.results[0]).toMatchObject({
      label: 'no_match',
      diagnosis: 'fetch_failed',
      note: expect.stringMatching(/^refused: 127\.0\.0\.4 is loopback/),
    });
  });

  test('run --wayback always and verify --as-of: no internal request, the refusal in the report', async () => {
    const { secret, hostile, claimUrl } = await archiveSetup();
    const { claims, out, report } = claimsRun([
      { id: 'c', quote: PUBLIC_TEXT, url: claimUrl, verify_date: '2024-05-01' },
    ]);
    const r = await runCliInProcess([
      'run',
      '--claims',
      claims,
      '--out',
      out,
      '--report',
      report,
      '--retries',
      '0',
      '--timeout',
      '3',
      '--wayback',
      'always',
      '--wayback-url',
      hostile.origin,
      '--wayback-rate',
      '600',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ c: 'no_match' });
    expect(readFileSync(report, 'utf8')).not.toContain('metadata token');
    expect(readFileSync(report, 'utf8')).toContain('refused: 127.0.0.1 is loopback');
    const v = await runCliInProcess([
      'verify',
      '--url',
      claimUrl,
      '--quote',
      PUBLIC_TEXT,
      '--as-of',
      '2024-05-01',
      '--wayback',
      'always',
      '--wayback-url',
      hostile.origin,
      '--retries',
      '0',
      '--timeout',
      '3',
      '--json',
    ]);
    expect(v.code).toBe(1);
    expect(v.stdout).not.toContain('metadata token');
    expect(secret.hits('/internal')).toBe(0);
    expect(hostile.captureRequests()).toBeGreaterThanOrEqual(2);
  });

  test('MCP: verify_quote with as_of through the hostile archive answers without the internal page, and the server answers the next call', async () => {
    const { secret, hostile, claimUrl } = await archiveSetup();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--wayback-url', hostile.origin, '--wayback-rate', '600', '--timeout', '3', '--retries', '0'],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'network-rule-test', version: '1.0.0' });
    await client.connect(transport);
    closers.push(() => client.close());
    const r = (await client.callTool({
      name: 'verify_quote',
      arguments: { url: claimUrl, quote: PUBLIC_TEXT, as_of: '2024-05-01', wayback: 'always' },
    })) as CallToolResult;
    const body = JSON.stringify(r);
    expect(body).not.toContain('metadata token');
    // The source could not be read (its name does not resolve) and the capture's redirect was refused: a fetch_failed
    // answer that names both. (A source refused itself is a tool error: see the read_source call below.)
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ label: 'no_match', diagnosis: 'fetch_failed' });
    expect(body).toMatch(/no capture as of the date could be had: .*refused: 127\.0\.0\.1 is loopback/);
    expect(hostile.captureRequests()).toBeGreaterThan(0);
    expect(secret.hits('/internal')).toBe(0);
    // A source on loopback, asked for directly: refused in one line, and the server is still there.
    const read = (await client.callTool({
      name: 'read_source',
      arguments: { url: `${secret.origin}/internal` },
    })) as CallToolResult;
    expect(read.isError).toBe(true);
    expect(JSON.stringify(read.content)).toMatch(/refused: 127\.0\.0\.1 is loopback.*--allow-private/);
    expect((await client.listTools()).tools).toHaveLength(4);
  }, 30_000);
});

describe("the commands' defaults", () => {
  test('run and verify refuse loopback without --allow-private, naming it; --block-private is still accepted; both together are refused', async () => {
    const server = await serve([{ path: '/p', body: page(PUBLIC_TEXT), headers: html }]);
    const { claims, out } = claimsRun([{ id: 'a', quote: PUBLIC_TEXT, url: `${server.origin}/p` }]);
    expect((await runCliInProcess(['run', '--claims', claims, '--out', out, '--quiet', '--wayback', 'off'])).code).toBe(
      0,
    );
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ a: 'no_match' });
    const refused = await runCliInProcess([
      'verify',
      '--url',
      `${server.origin}/p`,
      '--quote',
      PUBLIC_TEXT,
      '--wayback',
      'off',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'refused: 127.0.0.1 is loopback (127.0.0.0/8): not a global address; pass --allow-private to reach private networks',
    );
    expect(
      (
        await runCliInProcess([
          'verify',
          '--block-private',
          '--url',
          `${server.origin}/p`,
          '--quote',
          PUBLIC_TEXT,
          '--wayback',
          'off',
        ])
      ).code,
    ).toBe(1);
    expect(server.hits('/p')).toBe(0);
    const allowed = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      `${server.origin}/p`,
      '--quote',
      PUBLIC_TEXT,
      '--wayback',
      'off',
    ]);
    expect(allowed.code).toBe(0);
    const both = await runCliInProcess(['run', '--allow-private', '--block-private', '--claims', claims, '--out', out]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/'--block-private' cannot be used with option '--allow-private'/);
  });

  test("export --allow-private writes it into the oracle's run and the MCP server's arguments; without it, neither has it, and private sources are refused", async () => {
    const dir = tempDir();
    const labelled = writeJson(join(dir, 'l.json'), [
      { id: 'a', quote: 'q', url: 'http://10.0.0.5/p', label: 'no_match' },
    ]);
    expect(
      (
        await runCliInProcess([
          'export',
          '--labelled',
          labelled,
          '--out',
          join(dir, 'open'),
          '--allow-private',
          '--with-mcp',
          '--name',
          'n',
        ])
      ).code,
    ).toBe(0);
    expect(readFileSync(join(dir, 'open', 'n-001', 'solution', 'solve.sh'), 'utf8')).toMatch(
      / run --claims .* "\$@" --allow-private; \}/,
    );
    expect(readFileSync(join(dir, 'open', 'n-001', 'task.toml'), 'utf8')).toMatch(
      /args = \[\s*"mcp",\s*"--root",\s*"\/app",\s*"--allow-private"\s*\]/,
    );
    // Without it a source on a private network is refused (the tasks' oracle would refuse it: test/fetch/export-private.test.ts).
    const refused = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      join(dir, 'refused'),
      '--with-mcp',
      '--name',
      'n',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/private network.*--allow-private/);
    const publicLabelled = writeJson(join(dir, 'p.json'), [
      { id: 'a', quote: 'q', url: 'http://93.184.215.14/p', label: 'no_match' },
    ]);
    expect(
      (
        await runCliInProcess([
          'export',
          '--labelled',
          publicLabelled,
          '--out',
          join(dir, 'closed'),
          '--with-mcp',
          '--name',
          'n',
        ])
      ).code,
    ).toBe(0);
    expect(readFileSync(join(dir, 'closed', 'n-001', 'solution', 'solve.sh'), 'utf8')).not.toContain('allow-private');
    expect(readFileSync(join(dir, 'closed', 'n-001', 'task.toml'), 'utf8')).not.toContain('allow-private');
  });
});
