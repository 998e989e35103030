// A large page's texts leave the HTML worker as their code units in buffers handed over (src/extract/worker/units.ts),
// the worker's own texts let go first: they arrive as they were, in one byte a character when they were.
import { serialize } from 'node:v8';
import { describe, expect, test } from 'vitest';
import { runHtmlJob, type HtmlJobReply } from '../../src/extract/html.js';
import { HtmlPool } from '../../src/extract/worker/pool.js';
import { textOf } from '../../src/extract/worker/units.js';
import { normalize } from '../../src/normalize.js';

/** About 9 MB of paragraphs with curly quotes and dashes: past the DOM caps, so its full view is its only one. */
function largePage(): Uint8Array {
  const paragraph = '<p>The council\u2019s \u201Cbudget\u201D vote \u2014 members said it would pass.</p>\n';
  const body = paragraph.repeat(Math.ceil((9 * 1024 * 1024) / Buffer.byteLength(paragraph)));
  return new Uint8Array(Buffer.from(`<html><body>${body}<p>The last line.</p></body></html>`));
}

describe("a large page's texts", () => {
  test('come from the worker in buffers handed over, and the pool gives them back as they were', async () => {
    const replies: { reply: HtmlJobReply; transfer?: ArrayBuffer[] }[] = [];
    runHtmlJob({ id: 0, bytes: largePage(), httpCharset: 'utf-8' }, (reply, transfer) =>
      replies.push({ reply, transfer }),
    );
    const [{ reply, transfer }] = replies as [(typeof replies)[0]];
    if (!reply.ok || reply.stage !== 'full' || !reply.units) throw new Error('expected the full view in units');
    expect([reply.full, reply.normalizedFull]).toEqual(['', '']);
    expect(transfer).toEqual([reply.units.full.units, reply.units.normalizedFull.units]);
    const full = textOf(reply.units.full);
    const normalized = textOf(reply.units.normalizedFull);
    expect(full).toContain('The council\u2019s \u201Cbudget\u201D vote \u2014 members said it would pass.');
    expect(full.trimEnd().endsWith('The last line.')).toBe(true);
    expect(normalized === normalize(full)).toBe(true);
    // The normalized text, ASCII, crosses in one byte a character and stays so: half the size serialized.
    expect(reply.units.normalizedFull.latin1).toBe(true);
    expect(serialize(normalized).length).toBeLessThan(normalized.length * 1.1);

    const pool = new HtmlPool(1);
    try {
      const result = await pool.extract(largePage(), 'utf-8', 60_000);
      expect(result.views.full === full).toBe(true);
      expect(result.normalized.full === normalized).toBe(true);
      expect(result.views.article).toBeUndefined();
    } finally {
      await pool.close();
    }
  });
});
