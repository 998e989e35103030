// The streamed evidence report: a line per decision as it comes, whole lines after a SIGKILL at any moment, and the input order on request.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { ReportFile, reorderReport } from '../src/output/report-file.js';
import type { ClaimResult } from '../src/check.js';
import { runCli, runCliInProcess, serve, tempDir, writeJson } from './support/helpers.js';

const html = { 'content-type': 'text/html; charset=utf-8' };

/** The whole lines of a JSON Lines file, each parsed (a failure to parse fails the test), and the cut last line if there is one. */
function wholeLines(path: string): { rows: Record<string, unknown>[]; cut: string } {
  const text = readFileSync(path, 'utf8');
  const parts = text.split('\n');
  const cut = parts.pop()!; // '' when the file ends with a newline
  return { rows: parts.map((l) => JSON.parse(l) as Record<string, unknown>), cut };
}

function result(id: string, index: number, note?: string): ClaimResult {
  return { id, index, label: 'no_match', diagnosis: 'not_found', match: null, drift: 'unknown', note, ms: 1 };
}

describe('ReportFile and reorderReport', () => {
  test('each append is one whole line on disk at once; reorderReport puts them in input order', () => {
    const dir = tempDir();
    const path = join(dir, 'r.jsonl');
    const report = new ReportFile(path);
    expect(readFileSync(path, 'utf8')).toBe('');
    for (const [i, id] of ['c', 'a', 'b'].entries()) {
      report.append(result(id, i));
      // Readable whole after every append: nothing waits in a buffer of this process.
      expect(wholeLines(path).rows.map((r) => r.id)).toEqual(['c', 'a', 'b'].slice(0, i + 1));
    }
    expect(report.lines).toBe(3);
    report.close();
    reorderReport(path, ['a', 'b', 'c']);
    expect(wholeLines(path)).toEqual({
      rows: [
        expect.objectContaining({ id: 'a' }),
        expect.objectContaining({ id: 'b' }),
        expect.objectContaining({ id: 'c' }),
      ],
      cut: '',
    });
    expect(readdirSync(dir)).toEqual(['r.jsonl']);
  });

  test('reorderReport: lines longer than its read buffer, ids it was not given kept after, a cut last line dropped', () => {
    const dir = tempDir();
    const path = join(dir, 'r.jsonl');
    const long = 'x'.repeat(2_500_000); // crosses two 1 MB reads
    const lines = [{ id: 'b', note: long }, { id: 'stray' }, { id: 'a', note: 'é'.repeat(700_000) }].map((r) =>
      JSON.stringify(r),
    );
    writeFileSync(path, `${lines.join('\n')}\n{"id": "c", "no`);
    reorderReport(path, ['a', 'b', 'c']);
    const { rows, cut } = wholeLines(path);
    expect(cut).toBe('');
    expect(rows.map((r) => r.id)).toEqual(['a', 'b', 'stray']);
    expect(rows[1]!.note).toBe(long);
    expect(rows[0]!.note).toBe('é'.repeat(700_000));
  });

  test('a write that fails stops the appending and says why; what was written stays', () => {
    const report = new ReportFile('/dev/full');
    report.append(result('a', 0));
    expect(report.failure).toMatch(/no space left|ENOSPC/i);
    expect(report.lines).toBe(0);
    report.append(result('b', 1)); // no throw, nothing more tried
    report.close();
  });
});

/** A site whose every claim is verbatim once decided: a claim shown `verbatim` in the answers file is a claim the run decided. */
async function slowSite(sources: number, claimsPer: number): Promise<{ claims: string; dir: string; ids: string[] }> {
  const sentence = (i: number) =>
    `Source ${i} says the harbour bridge will open to walkers in the spring of next year.`;
  const server = await serve(
    Array.from({ length: sources }, (_, i) => ({
      path: `/s/${i}`,
      body: `<html><body><article><p>${sentence(i)}</p><p>${'Other words about the town and its river. '.repeat(40)}</p></article></body></html>`,
      headers: html,
      delayMs: 30 + ((i * 37) % 11) * 40,
    })),
  );
  const claims = Array.from({ length: sources }, (_, i) =>
    Array.from({ length: claimsPer }, (_, k) => ({
      id: `s${i}-${k}`,
      quote: sentence(i),
      url: `${server.origin}/s/${i}`,
    })),
  ).flat();
  const dir = tempDir();
  return { claims: writeJson(join(dir, 'claims.json'), claims), dir, ids: claims.map((c) => c.id) };
}

describe('quotecheck run --report streams', () => {
  test.each([1, 25, 70])(
    'SIGKILL once %i claims show decided: every whole line parses and the report covers every claim the answers file shows decided',
    async (after) => {
      const { claims, dir, ids } = await slowSite(60, 2);
      const out = join(dir, 'answers.json');
      const report = join(dir, 'report.jsonl');
      let seen = 0;
      const r = await runCli(
        [
          'run',
          '--allow-private',
          '--quiet',
          '--claims',
          claims,
          '--out',
          out,
          '--report',
          report,
          '--concurrency',
          '3',
          '--per-host',
          '3',
        ],
        {
          onSpawn: async (child) => {
            for (let i = 0; i < 600; i++) {
              await sleep(20);
              try {
                seen = Object.values(JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>).filter(
                  (l) => l === 'verbatim',
                ).length;
              } catch {
                continue; // not written yet
              }
              if (seen >= after) break;
            }
            child.kill('SIGKILL');
          },
        },
      );
      expect(r.signal).toBe('SIGKILL');
      expect(seen).toBeGreaterThanOrEqual(after);
      // The answers file: whole, every claim, in input order.
      const answers = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>;
      expect(Object.keys(answers)).toEqual(ids);
      const decided = ids.filter((id) => answers[id] === 'verbatim');
      // The report: every whole line parses (wholeLines throws otherwise); a cut last line is the only damage allowed.
      const { rows, cut } = wholeLines(report);
      if (cut !== '') expect(() => JSON.parse(cut)).toThrow();
      const reported = rows.map((x) => x.id as string);
      expect(new Set(reported).size).toBe(reported.length);
      expect(reported.filter((id) => !ids.includes(id))).toEqual([]);
      for (const id of decided) expect(reported, `${id} is verbatim in the answers file`).toContain(id);
      for (const row of rows) expect(row).toMatchObject({ label: 'verbatim', diagnosis: 'verbatim' });
      expect(rows.length).toBeLessThan(ids.length); // killed in the middle
    },
    60_000,
  );

  test("a whole run: a line per claim in decision order, or in the claims file's order with --report-order input (no temp file left)", async () => {
    const { claims, dir, ids } = await slowSite(12, 2);
    const decision = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      claims,
      '--out',
      join(dir, 'a.json'),
      '--report',
      join(dir, 'decision.jsonl'),
    ]);
    expect(decision.code, decision.stderr).toBe(0);
    const streamed = wholeLines(join(dir, 'decision.jsonl')).rows.map((x) => x.id);
    expect([...streamed].sort()).toEqual([...ids].sort());
    const input = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      claims,
      '--out',
      join(dir, 'b.json'),
      '--report',
      join(dir, 'input.jsonl'),
      '--report-order',
      'input',
    ]);
    expect(input.code, input.stderr).toBe(0);
    expect(wholeLines(join(dir, 'input.jsonl')).rows.map((x) => x.id)).toEqual(ids);
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json', 'claims.json', 'decision.jsonl', 'input.jsonl']);
    expect(existsSync(join(dir, 'decision.jsonl'))).toBe(true);
  }, 60_000);

  test('--report-order takes decision or input only', async () => {
    const r = await runCliInProcess(['run', '--allow-private', '--report-order', 'random']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--report-order.*random.*decision, input/s);
  });
});
