// The golden benchmark end to end: the oracle scores 1.000 on every task, the baseline exactly the no_match share.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { scoreAll, type Score } from '../golden/scoreboard.js';
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
});
