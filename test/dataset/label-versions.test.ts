// A label's evidence records what made the text it was judged on (src/dataset/label.ts LabelEvidence.versions):
// quotecheck's version for every label, and pdftotext's (`pdftotext -v`) for a PDF's; the card and a frozen edition's
// check read them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { VERSION } from '../../src/config/defaults.js';
import { pdftotextVersion } from '../../src/extract/pdf/pdftotext-version.js';
import { runCliInProcess, serve, tempDir, writeJson } from '../support/helpers.js';

describe("a label's evidence: the extractor's version", () => {
  test('quotecheck for every label, pdftotext for a PDF (the version pdftotext -v prints)', async () => {
    const server = await serve([
      {
        path: '/page',
        body: '<html><body><p>The harbour master counted ships.</p></body></html>',
        headers: { 'content-type': 'text/html; charset=utf-8' },
      },
      { path: '/paper.pdf', file: 'tracemonkey-p1.pdf', headers: { 'content-type': 'application/pdf' } },
    ]);
    const dir = tempDir();
    const claims = writeJson(join(dir, 'claims.json'), [
      { id: 'h', quote: 'counted ships', url: `${server.origin}/page` },
      { id: 'p', quote: 'Trace-based Just-in-Time Type Specialization', url: `${server.origin}/paper.pdf` },
    ]);
    const out = join(dir, 'labelled.jsonl');
    const r = await runCliInProcess(['label', '--allow-private', '--claims', claims, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; evidence: { extractor: string; versions: unknown } });
    const byId = Object.fromEntries(rows.map((row) => [row.id, row.evidence]));
    const pdftotext = pdftotextVersion();
    expect(pdftotext).toMatch(/^\d+\.\d+/);
    expect(byId.h).toMatchObject({ extractor: 'readability', versions: { quotecheck: VERSION } });
    expect((byId.h!.versions as Record<string, unknown>).pdftotext).toBeUndefined();
    expect(byId.p).toMatchObject({ extractor: 'pdftotext', versions: { quotecheck: VERSION, pdftotext } });
  });

  test('pdftotextVersion: the version a command on PATH prints, none when there is no such command', () => {
    expect(pdftotextVersion('pdftotext', '/nonexistent')).toBeUndefined();
    expect(pdftotextVersion('pdftotext')).toBe(pdftotextVersion('pdftotext', process.env.PATH));
  });
});
