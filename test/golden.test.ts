// The golden benchmark end to end: the oracle scores 1.000 on every task, the baseline exactly the no_match share.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { scoreAll, scoreDiagnosis, type Score } from '../golden/scoreboard.js';
import { goldenDir, startGoldenServer, type RunningServer } from '../golden/server.js';
import { tempDir } from './helpers.js';

describe('golden tasks', () => {
  let server: RunningServer;
  let scores: Score[];
  let outDir: string;

  beforeAll(async () => {
    server = await startGoldenServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  test('the oracle scores 1.000 on every task; the baseline scores the no_match share', async () => {
    outDir = tempDir();
    scores = await scoreAll(join(goldenDir(), 'tasks'), outDir);
    expect(scores.length).toBeGreaterThanOrEqual(6);
    expect(scores.reduce((n, s) => n + s.claims, 0)).toBeGreaterThanOrEqual(60);
    for (const s of scores) {
      expect(s.oracle, `oracle on ${s.task}`).toBe(1);
      expect(s.baseline, `baseline on ${s.task}`).toBeCloseTo(s.noMatchShare, 10);
    }
    // Every claim has a report row, with the evidence fields filled for verbatim ones.
    for (const s of scores) {
      const rows = readFileSync(join(outDir, s.task, 'report.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(rows).toHaveLength(s.claims);
      for (const row of rows.filter((r) => r.label === 'verbatim')) {
        expect(row.match, row.id).toMatchObject({ offset: expect.any(Number) });
        expect(row.source_sha256, row.id).toMatch(/^[0-9a-f]{64}$/);
      }
    }
  }, 240_000);

  test('diagnosis: precision and recall of at least 0.9 for every code on golden/diagnosis, labels unchanged', async () => {
    const s = await scoreDiagnosis(join(goldenDir(), 'diagnosis'), tempDir());
    expect(s.total).toBeGreaterThanOrEqual(60);
    expect(s.relabelled, 'every case is mechanically no_match; diagnosis never changes a label').toEqual([]);
    for (const code of ['extraction_artifact', 'near_miss', 'partial', 'not_found', 'paywall', 'empty', 'fetch_failed']) {
      expect(Object.values(s.matrix[code] ?? {}).reduce((n, v) => n + v, 0), `cases of ${code}`).toBeGreaterThanOrEqual(9);
      expect(s.precision[code], `precision of ${code}; misses: ${JSON.stringify(s.misses)}`).toBeGreaterThanOrEqual(0.9);
      expect(s.recall[code], `recall of ${code}; misses: ${JSON.stringify(s.misses)}`).toBeGreaterThanOrEqual(0.9);
    }
  }, 240_000);
});
