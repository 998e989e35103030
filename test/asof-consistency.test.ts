// As of the date, the same answer everywhere (docs/sources-change.md#the-same-answer-everywhere): a proven capture decides every claim of its URL, date and
// evidence whichever claim fetched it; --wayback strict looks one up for quotes found in today's changed text; and
// run, verify and the MCP server's verify_quote give one claim the same answer.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, test } from 'vitest';
import { checkClaims, type CheckOptions } from '../src/check.js';
import { startWaybackStub, type RunningWayback } from '../src/wayback/stub/stub.js';
import { join } from 'node:path';
import { runEvaluation } from '../src/evaluate/evaluate.js';
import { QUICK_ISOLATION } from './support/engine.js';
import { CLI, claimsRun, runCliInProcess, serve, tempDir } from './support/helpers.js';

const html = { 'content-type': 'text/html; charset=utf-8' };
const page = (body: string): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Budget</title></head><body><article><h1>Report</h1>${body}</article></body></html>`;

/** The page as labelled: the archive holds it, and the evidence is its sha256. */
const THEN = page(
  '<p>The committee approved the budget on Tuesday after a long debate.</p><p>Members praised the new school lunch program.</p>',
);
/** The page today: a sentence was added after the verify date. */
const NOW = page(
  '<p>The committee approved the budget on Tuesday after a long debate.</p><p>Members praised the new school lunch program.</p><p>The mayor later called the vote a turning point for the city.</p>',
);
const EVIDENCE = createHash('sha256').update(THEN).digest('hex');
const DATE = '2024-05-01';
/** In both texts. */
const KEPT = 'approved the budget on Tuesday after a long debate';
/** Added after the date: in today's text only. Its label as of the date is no_match. */
const ADDED = 'called the vote a turning point for the city';
/** In neither: it makes its claim look the capture up under --wayback auto. */
const NEVER = 'the budget was rejected by a wide margin';

const fast: Partial<CheckOptions> = { allowPrivate: true, timeoutMs: 2_000, retries: 0, waybackPerMinute: 60_000 };

const archives: RunningWayback[] = [];
const clients: Client[] = [];
afterEach(async () => {
  while (clients.length)
    await clients
      .pop()!
      .close()
      .catch(() => {});
  while (archives.length) await archives.pop()!.close();
});

async function setup() {
  const server = await serve([{ path: '/budget', body: NOW, headers: html }]);
  const url = `${server.origin}/budget`;
  const archive = await startWaybackStub({
    host: '127.0.0.4',
    captures: [{ url, timestamp: '20240415090000', body: THEN, headers: html }],
  });
  archives.push(archive);
  return { url, archive };
}

const claim = (id: string, quote: string, url: string) => ({
  id,
  quote,
  url,
  verify_date: DATE,
  evidence: { sha256: EVIDENCE },
});

describe('a proven capture decides every claim of its URL, date and evidence', () => {
  test('run: a quote added after the date is no_match when a sibling claim brought the proven capture, whichever comes first', async () => {
    const { url, archive } = await setup();
    for (const order of [
      [claim('never', NEVER, url), claim('added', ADDED, url)],
      [claim('added', ADDED, url), claim('never', NEVER, url)],
    ]) {
      const run = await checkClaims(order, { ...fast, waybackUrl: archive.origin });
      const r = Object.fromEntries(run.results.map((x) => [x.id, x]));
      expect(r.added).toMatchObject({ label: 'no_match', asOf: { source: 'wayback', proof: 'sha256' } });
      expect(r.added!.note).toMatch(
        /judged on the Wayback capture of 2024-04-15T09:00:00Z, whose bytes hash to the evidence \(the live source: its sha256 differs from the evidence; the quote is in it, added after the date\)/,
      );
      expect(r.never).toMatchObject({ label: 'no_match', asOf: { proof: 'sha256' } });
    }
    // One lookup for the URL and date, however many claims it decided.
    expect(archive.requests.filter((q) => q.path.startsWith('/cdx/')).length).toBe(2);
  });

  test('a claim of the same URL found in both texts stays verbatim; another date or evidence is not decided by it', async () => {
    const { url, archive } = await setup();
    const run = await checkClaims(
      [
        claim('never', NEVER, url),
        claim('kept', KEPT, url),
        { ...claim('other-date', ADDED, url), verify_date: '2024-06-01' },
        { id: 'no-evidence', quote: ADDED, url, verify_date: DATE },
      ],
      { ...fast, waybackUrl: archive.origin },
    );
    const r = Object.fromEntries(run.results.map((x) => [x.id, x]));
    expect(r.kept).toMatchObject({ label: 'verbatim', asOf: { proof: 'sha256' } });
    // No claim of 2024-06-01 looked the archive up (its quote is in today's text), so today's text decides it.
    expect(r['other-date']).toMatchObject({ label: 'verbatim', asOf: { source: 'live' } });
    expect(r['no-evidence']).toMatchObject({ label: 'verbatim', asOf: { source: 'live' } });
  });

  test('alone, the added quote is verbatim under --wayback auto (no lookup) and no_match under strict', async () => {
    const { url, archive } = await setup();
    const auto = await checkClaims([claim('added', ADDED, url)], { ...fast, waybackUrl: archive.origin });
    expect(auto.results[0]).toMatchObject({ label: 'verbatim', asOf: { source: 'live' } });
    expect(archive.requests).toHaveLength(0);
    const strict = await checkClaims([claim('added', ADDED, url), claim('kept', KEPT, url)], {
      ...fast,
      waybackUrl: archive.origin,
      wayback: 'strict',
    });
    expect(strict.results.map((x) => [x.id, x.label])).toEqual([
      ['added', 'no_match'],
      ['kept', 'verbatim'],
    ]);
  });
});

describe('one claim, one answer: run, verify and verify_quote', () => {
  const cases = [
    { name: 'the added quote, strict', quote: ADDED, wayback: 'strict', label: 'no_match', exit: 1 },
    { name: 'the added quote, auto', quote: ADDED, wayback: 'auto', label: 'verbatim', exit: 0 },
    { name: 'a quote of the date only, auto', quote: NEVER, wayback: 'auto', label: 'no_match', exit: 1 },
    { name: 'a quote in both texts, strict', quote: KEPT, wayback: 'strict', label: 'verbatim', exit: 0 },
  ] as const;

  test.each(cases)(
    '$name: $label everywhere',
    async ({ quote, wayback, label, exit }) => {
      const { url, archive } = await setup();
      const { claims, out, report } = claimsRun([claim('c', quote, url)]);
      const run = await runCliInProcess([
        'run',
        '--allow-private',
        '--quiet',
        '--claims',
        claims,
        '--out',
        out,
        '--report',
        report,
        '--wayback',
        wayback,
        '--wayback-url',
        archive.origin,
        '--wayback-rate',
        '6000',
        '--retries',
        '0',
      ]);
      expect(run.code).toBe(0);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ c: label });
      const fromRun = JSON.parse(readFileSync(report, 'utf8').trim().split('\n')[0]!);

      const verify = await runCliInProcess([
        'verify',
        '--allow-private',
        '--json',
        '--url',
        url,
        '--quote',
        quote,
        '--as-of',
        DATE,
        '--evidence',
        `sha256:${EVIDENCE.toUpperCase()}`,
        '--wayback',
        wayback,
        '--wayback-url',
        archive.origin,
        '--wayback-rate',
        '6000',
        '--retries',
        '0',
      ]);
      expect(verify.code).toBe(exit);
      const fromVerify = JSON.parse(verify.stdout);

      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          CLI,
          'mcp',
          '--allow-private',
          '--wayback-url',
          archive.origin,
          '--wayback-rate',
          '6000',
          '--retries',
          '0',
        ],
        stderr: 'pipe',
      });
      const client = new Client({ name: 'asof-test', version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      const tool = (await client.callTool({
        name: 'verify_quote',
        arguments: { url, quote, as_of: DATE, evidence: EVIDENCE, wayback },
      })) as CallToolResult;
      expect(tool.isError).toBeFalsy();
      const fromTool = tool.structuredContent as Record<string, unknown>;

      for (const [where, r] of [
        ['run', fromRun],
        ['verify', fromVerify],
        ['verify_quote', fromTool],
      ] as const) {
        expect({
          where,
          label: r.label,
          diagnosis: r.diagnosis,
          as_of: { ...r.as_of, timestamp: undefined },
          drift: r.drift,
        }).toEqual({
          where,
          label: fromRun.label,
          diagnosis: fromRun.diagnosis,
          as_of: { ...fromRun.as_of, timestamp: undefined },
          drift: fromRun.drift,
        });
      }
    },
    30_000,
  );

  test('verify --as-of without evidence under auto says the date looked nothing up, and how to have it looked up', async () => {
    const { url, archive } = await setup();
    const v = await runCliInProcess([
      'verify',
      '--allow-private',
      '--json',
      '--url',
      url,
      '--quote',
      NEVER,
      '--as-of',
      DATE,
      '--wayback-url',
      archive.origin,
      '--retries',
      '0',
    ]);
    expect(v.code).toBe(1);
    expect(JSON.parse(v.stdout).note).toContain(
      `without an evidence hash, wayback mode auto looks up no capture; mode always (--wayback always) judges on the capture nearest ${DATE}`,
    );
    const bad = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      url,
      '--quote',
      NEVER,
      '--evidence',
      'abc',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--evidence "abc": not a sha256/);
  });
});

describe("a frozen edition of the builder's case", () => {
  test('recorded, exported with --warc and benched with nothing served: the oracle scores 1.000; a label the frozen oracle would not give is refused, naming it', async () => {
    const { url, archive } = await setup();
    const dir = tempDir();
    const claims = [claim('never', NEVER, url), claim('added', ADDED, url), claim('kept', KEPT, url)];
    const { claims: claimsFile, out } = claimsRun(claims);
    const warc = join(dir, 'run.warc.gz');
    const rec = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      claimsFile,
      '--out',
      out,
      '--record',
      warc,
      '--wayback-url',
      archive.origin,
      '--wayback-rate',
      '6000',
      '--retries',
      '0',
    ]);
    expect(rec.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ never: 'no_match', added: 'no_match', kept: 'verbatim' });
    const gold = { never: 'no_match', added: 'no_match', kept: 'verbatim' } as const;
    const labelled = join(dir, 'labelled.jsonl');
    writeFileSync(
      labelled,
      claims.map((c) => JSON.stringify({ ...c, label: gold[c.id as keyof typeof gold] })).join('\n') + '\n',
    );
    await archive.close();
    archives.length = 0;
    const exported = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      join(dir, 'frozen'),
      '--warc',
      warc,
      '--name',
      'b',
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    // A small archive is counted in KB, never "0.0 MB".
    expect(exported.stdout).toMatch(/records, \d+ KB in all\) in environment\/sources\.warc\.gz/);
    const bench = await runEvaluation({
      tasksDir: join(dir, 'frozen'),
      agent: 'oracle',
      outDir: join(dir, 'bench'),
      ...QUICK_ISOLATION,
    });
    expect(bench.tasks.map((t) => t.reward)).toEqual([1]);

    // A label the recording does not bear out: refused before anything is written, naming the claim.
    const wrong = join(dir, 'wrong.jsonl');
    writeFileSync(
      wrong,
      claims
        .map((c) => JSON.stringify({ ...c, label: c.id === 'added' ? 'verbatim' : gold[c.id as keyof typeof gold] }))
        .join('\n') + '\n',
    );
    const refused = await runCliInProcess([
      'export',
      '--labelled',
      wrong,
      '--out',
      join(dir, 'refused'),
      '--warc',
      warc,
      '--name',
      'b',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /the frozen oracle would answer 1 claim otherwise than labelled: b-001\/added \(label verbatim, oracle no_match: not_found\).*--allow-disagreement/,
    );
    expect(existsSync(join(dir, 'refused'))).toBe(false);
    const allowed = await runCliInProcess([
      'export',
      '--labelled',
      wrong,
      '--out',
      join(dir, 'allowed'),
      '--warc',
      warc,
      '--name',
      'b',
      '--allow-disagreement',
    ]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(
      /1 claim the frozen oracle answers otherwise than labelled \(--allow-disagreement\)/,
    );
  }, 60_000);
});
