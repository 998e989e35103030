// A replay needs nothing repeated (docs/sources-change.md#record-and-replay-warc): a run recorded against the
// loopback Wayback stub replays with no --wayback-url (or any other one) to the same answers and report, the base it
// used said once; an archive recorded before the base was written down has it inferred; one joined from two bases is
// refused unless --wayback-url names one; a plain export replayed by evaluate and a frozen export (with no URL in solve.sh, the MCP args or the
// instruction) score 1.000.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startWaybackStub, type RunningWayback } from '../src/wayback/stub/stub.js';
import { checkClaims, type ClaimInput } from '../src/check.js';
import { openReplay, readArchive, recordedWaybackBases } from '../src/archive/index.js';
import { serializeRecord, warcinfoRecord } from '../src/archive/warc.js';
import { QUICK_ISOLATION_ARGS } from './support/engine.js';
import { runCli, runCliInProcess, serve, tempDir, writeJson, taskFolders } from './support/helpers.js';
import type { EvaluationReport } from '../src/results/evaluation-report.js';

const sha256 = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
const html = { 'content-type': 'text/html; charset=utf-8' };
const page = (title: string, body: string): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body><article><h1>${title}</h1>${body}</article></body></html>`;

// Two sources that changed since their claims were labelled: the labelled text is only in the archive's capture.
const BUDGET_THEN = page(
  'Budget',
  '<p>The committee approved the budget on Tuesday after a long debate.</p><p>Members praised the new school lunch program.</p>',
);
const BUDGET_NOW = page(
  'Budget',
  '<p>The committee approved a revised budget on Wednesday.</p><p>Members praised the new school lunch program.</p>',
);
const BRIDGE_THEN = page('Bridge', '<p>The old bridge will close for repairs in the spring of next year.</p>');
const BRIDGE_NOW = page('Bridge', '<p>The old bridge reopened to traffic this week after repairs.</p>');

const DEFAULT_WAYBACK = 'https://web.archive.org';

const archives: RunningWayback[] = [];
afterEach(async () => {
  while (archives.length) await archives.pop()!.close();
});

type Row = Record<string, unknown> & { id: string; as_of: Record<string, unknown> | null };
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));
const rows = (path: string): Row[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row)
    .sort((a, b) => a.id.localeCompare(b.id));

/** A report row without what may differ between a live run and its replay: times, the live/replay kind, a live text's fetch time. */
function comparable(row: Row): Row {
  const { ms: _ms, ...rest } = row;
  const asOf: Record<string, unknown> | null = row.as_of
    ? {
        ...row.as_of,
        source: row.as_of.source === 'replay' ? (row.as_of.capture_url ? 'wayback' : 'live') : row.as_of.source,
      }
    : null;
  if (asOf && !asOf.capture_url) delete asOf.timestamp;
  return { ...rest, as_of: asOf } as Row;
}

interface Recording {
  dir: string;
  claims: string;
  labelled: Record<string, unknown>[];
  warc: string;
  wayback: string;
  live: { answers: unknown; rows: Row[] };
}

/**
 * Claims on two drifted sources and one that did not drift, recorded live against the Wayback stub on 127.0.0.4
 * (its own port: not the default base), then every server stopped.
 */
async function recordRun(): Promise<Recording> {
  const server = await serve([
    { path: '/budget', body: BUDGET_NOW, headers: html },
    { path: '/bridge', body: BRIDGE_NOW, headers: html },
  ]);
  const budget = `${server.origin}/budget`;
  const bridge = `${server.origin}/bridge`;
  const wb = await startWaybackStub({
    host: '127.0.0.4',
    captures: [
      { url: budget, timestamp: '20240430120000', body: BUDGET_THEN, headers: html },
      { url: bridge, timestamp: '20240301090000', body: BRIDGE_THEN, headers: html },
    ],
  });
  archives.push(wb);
  const labelled = [
    {
      id: 'budget-then',
      quote: 'approved the budget on Tuesday after a long debate',
      url: budget,
      verify_date: '2024-05-01',
      evidence: { sha256: sha256(BUDGET_THEN) },
      label: 'verbatim',
    },
    {
      id: 'budget-lunch',
      quote: 'praised the new school lunch program',
      url: budget,
      verify_date: '2024-05-01',
      evidence: { sha256: sha256(BUDGET_THEN) },
      label: 'verbatim',
    },
    {
      id: 'bridge-then',
      quote: 'will close for repairs in the spring',
      url: bridge,
      verify_date: '2024-03-02',
      evidence: { sha256: sha256(BRIDGE_THEN) },
      label: 'verbatim',
    },
    {
      id: 'bridge-made-up',
      quote: 'the bridge was painted bright green',
      url: bridge,
      verify_date: '2024-03-02',
      evidence: { sha256: sha256(BRIDGE_THEN) },
      label: 'no_match',
    },
  ];
  const dir = tempDir();
  const claims = writeJson(
    join(dir, 'claims.json'),
    labelled.map(({ label: _label, ...claim }) => claim),
  );
  const warc = join(dir, 'run.warc.gz');
  const live = await runCliInProcess([
    'run',
    '--allow-private',
    '--quiet',
    '--claims',
    claims,
    '--out',
    join(dir, 'live.json'),
    '--report',
    join(dir, 'live.jsonl'),
    '--record',
    warc,
    '--wayback-url',
    wb.origin,
    '--wayback-rate',
    '6000',
  ]);
  expect(live.code, live.stderr).toBe(0);
  const answers = readJson(join(dir, 'live.json'));
  expect(answers).toEqual(Object.fromEntries(labelled.map((c) => [c.id, c.label])));
  await server.close();
  await wb.close();
  return { dir, claims, labelled, warc, wayback: wb.origin, live: { answers, rows: rows(join(dir, 'live.jsonl')) } };
}

/** `run --replay` of the recording with these further arguments: its answers, report rows and stderr. */
async function replay(rec: Recording, name: string, args: string[], warc = rec.warc) {
  const out = join(rec.dir, `${name}.json`);
  const report = join(rec.dir, `${name}.jsonl`);
  const r = await runCliInProcess([
    'run',
    '--allow-private',
    '--quiet',
    '--claims',
    rec.claims,
    '--out',
    out,
    '--report',
    report,
    '--replay',
    warc,
    ...args,
  ]);
  return { ...r, answers: existsSync(out) ? readJson(out) : undefined, rows: existsSync(report) ? rows(report) : [] };
}

describe('a replay answers archive requests from the base the recording asked', () => {
  test('with no --wayback-url, the same one or another: the recorded answers and report, and the base used said once', async () => {
    const rec = await recordRun();
    // Two verbatim claims are decided on captures: without them they would be no_match.
    expect(rec.live.rows.filter((r) => r.as_of?.capture_url).map((r) => r.id)).toEqual(
      expect.arrayContaining(['bridge-then', 'budget-then']),
    );

    for (const [name, args, said] of [
      ['bare', [], `answered from its recording of ${rec.wayback}, not ${DEFAULT_WAYBACK}`],
      ['same', ['--wayback-url', rec.wayback], `answered from its recording of ${rec.wayback}`],
      [
        'other',
        ['--wayback-url', 'http://127.0.0.9:9'],
        `answered from its recording of ${rec.wayback}, not http://127.0.0.9:9`,
      ],
    ] as const) {
      const r = await replay(rec, name, [...args]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(r.answers, name).toEqual(rec.live.answers);
      expect(r.rows.map(comparable), name).toEqual(rec.live.rows.map(comparable));
      expect(
        r.rows.every((row) => !/not in the archive/.test(String(row.note ?? ''))),
        name,
      ).toBe(true);
      const lines = r.stderr.split('\n').filter((l) => /Wayback requests are answered/.test(l));
      expect(lines, `${name}: ${r.stderr}`).toHaveLength(1);
      expect(lines[0]).toContain(`replaying ${rec.warc}: no request leaves this machine; Wayback requests are ${said}`);
      if (name === 'same') expect(lines[0]).not.toMatch(/, not /);
    }

    // The base is in the warcinfo record.
    expect((await readArchive(rec.warc)).records[0]).toMatchObject({
      type: 'warcinfo',
      fields: { 'wayback-base': rec.wayback },
    });

    // verify too: the capture the recording fetched decides, with the base said on stderr.
    const v = await runCliInProcess([
      'verify',
      '--allow-private',
      '--json',
      '--url',
      String(rec.labelled[0]!.url),
      '--quote',
      String(rec.labelled[0]!.quote),
      '--as-of',
      '2024-05-01',
      '--wayback',
      'always',
      '--replay',
      rec.warc,
    ]);
    expect(v.code, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({
      label: 'verbatim',
      as_of: { capture_url: expect.stringContaining(`${rec.wayback}/web/20240430120000id_/`) },
    });
    expect(v.stderr.trim()).toBe(
      `quotecheck: replaying ${rec.warc}: Wayback requests are answered from its recording of ${rec.wayback}, not ${DEFAULT_WAYBACK}`,
    );

    // The library: a replay opened with no options answers the default base's requests from the recorded one.
    const lib = await checkClaims(JSON.parse(readFileSync(rec.claims, 'utf8')) as ClaimInput[], {
      allowPrivate: true,
      transport: { kind: 'replay', archive: await openReplay(rec.warc) },
    });
    expect(Object.fromEntries(lib.results.map((r) => [r.id, r.label]))).toEqual(rec.live.answers);
  }, 60_000);

  test('an archive recorded before the base was written down: inferred from its captures and CDX queries', async () => {
    const rec = await recordRun();
    // The same file with the warcinfo record quotecheck wrote before: no wayback-base field.
    const bytes = readFileSync(rec.warc);
    const { records } = await readArchive(rec.warc);
    const old = join(rec.dir, 'old.warc.gz');
    writeFileSync(
      old,
      Buffer.concat([
        await serializeRecord(warcinfoRecord('old.warc.gz', 'quotecheck/0.1.0')),
        bytes.subarray(records[0]!.raw.length),
      ]),
    );
    const oldArchive = await readArchive(old);
    expect(oldArchive.records[0]!.fields?.['wayback-base']).toBeUndefined();
    expect(recordedWaybackBases(oldArchive)).toEqual([rec.wayback]);
    const r = await replay(rec, 'old', [], old);
    expect(r.code, r.stderr).toBe(0);
    expect(r.answers).toEqual(rec.live.answers);
    expect(r.rows.map(comparable)).toEqual(rec.live.rows.map(comparable));
    expect(r.stderr).toContain(
      `Wayback requests are answered from its recording of ${rec.wayback}, not ${DEFAULT_WAYBACK}`,
    );
  }, 60_000);

  test('an archive joined from runs against two bases: refused in one line naming both, unless --wayback-url names one', async () => {
    const first = await recordRun();
    const second = await recordRun();
    const joined = join(first.dir, 'joined.warc.gz');
    writeFileSync(joined, Buffer.concat([readFileSync(first.warc), readFileSync(second.warc)]));
    const refused = await replay(first, 'joined-bare', [], joined);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(
      `${joined} holds Wayback answers recorded from several archives (${first.wayback}, ${second.wayback}); give --wayback-url with the one to replay`,
    );
    const chosen = await replay(first, 'joined-first', ['--wayback-url', `${first.wayback}/`], joined);
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(chosen.answers).toEqual(first.live.answers);
    expect(chosen.rows.map(comparable)).toEqual(first.live.rows.map(comparable));
    expect(chosen.stderr).toContain(
      `answered from its recording of ${first.wayback} (it holds answers from ${first.wayback}, ${second.wayback})`,
    );
  }, 90_000);

  test('evaluate --replay over a plain export, and a frozen export with no URL anywhere, score 1.000', async () => {
    const rec = await recordRun();
    const labelled = join(rec.dir, 'labelled.jsonl');
    writeFileSync(labelled, rec.labelled.map((c) => JSON.stringify(c)).join('\n') + '\n');

    // A plain export: its solve.sh names no Wayback Machine; evaluate --replay gives it the recording.
    const plain = join(rec.dir, 'plain');
    const exported = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      plain,
      '--allow-private',
      '--name',
      'plain',
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const [plainTask] = taskFolders(plain);
    expect(readFileSync(join(plain, plainTask!, 'solution', 'solve.sh'), 'utf8')).not.toContain('--wayback-url');
    const benched = await runCli([
      'evaluate',
      '--quiet',
      '--tasks',
      plain,
      '--out',
      join(rec.dir, 'bench-plain'),
      '--replay',
      rec.warc,
      ...QUICK_ISOLATION_ARGS,
    ]);
    expect(benched.code, benched.stderr).toBe(0);
    const plainReport = readJson(join(rec.dir, 'bench-plain', 'report.json')) as EvaluationReport;
    expect(plainReport.mean_reward, JSON.stringify(plainReport.tasks.map((t) => t.problems))).toBe(1);

    // A frozen edition made from a run against the stub: no --wayback-url in solve.sh, the MCP args or the instruction.
    const frozen = join(rec.dir, 'frozen');
    const made = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      frozen,
      '--warc',
      rec.warc,
      '--allow-private',
      '--with-mcp',
      '--name',
      'frozen',
    ]);
    expect(made.code, made.stderr).toBe(0);
    for (const t of taskFolders(frozen)) {
      for (const file of ['solution/solve.sh', 'task.toml', 'instruction.md']) {
        const text = readFileSync(join(frozen, t, file), 'utf8');
        expect(text, `${t}/${file}`).not.toContain('--wayback-url');
        expect(text, `${t}/${file}`).not.toContain(rec.wayback);
      }
      expect(readFileSync(join(frozen, t, 'task.toml'), 'utf8')).toContain('--allow-private');
      const shipped = await readArchive(join(frozen, t, 'environment', 'sources.warc.gz'));
      expect(shipped.records[0]).toMatchObject({ type: 'warcinfo', fields: { 'wayback-base': rec.wayback } });
    }
    const oracle = await runCli([
      'evaluate',
      '--quiet',
      '--tasks',
      frozen,
      '--out',
      join(rec.dir, 'bench-frozen'),
      ...QUICK_ISOLATION_ARGS,
    ]);
    expect(oracle.code, oracle.stderr).toBe(0);
    const frozenReport = readJson(join(rec.dir, 'bench-frozen', 'report.json')) as EvaluationReport;
    expect(frozenReport.mean_reward, JSON.stringify(frozenReport.tasks.map((t) => t.problems))).toBe(1);
  }, 180_000);
});
