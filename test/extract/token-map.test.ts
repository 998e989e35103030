// Raw spans and selectors (src/match.ts) found from checkpoints every few dozen tokens give what a map of every token
// gave: the map of every token is written out here as the reference, and both are run on texts that normalization
// changes (ligatures, fractions, curly quotes, dashes, whitespace runs, long texts past many checkpoints).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { TextView } from '../../src/extract/index.js';
import { rawSpan, textQuoteSelector, widenToWords } from '../../src/match.js';
import { normalize, SPACE_CLASS } from '../../src/normalize.js';

const TOKEN = new RegExp(`[^${SPACE_CLASS}]+`, 'g');
const SPACE_RUN = new RegExp(`[${SPACE_CLASS}]+`, 'g');

/** The map of every token, as src/match.ts kept it before checkpoints: null when token-wise normalization differs. */
function fullMap(raw: string, normalized: string) {
  const rs: number[] = [];
  const re: number[] = [];
  const ns: number[] = [];
  const ne: number[] = [];
  let pos = 0;
  for (const m of raw.matchAll(TOKEN)) {
    const n = normalize(m[0]);
    if (n === '') continue;
    if (ns.length > 0) {
      if (normalized.charCodeAt(pos) !== 0x20) return null;
      pos += 1;
    }
    if (!normalized.startsWith(n, pos)) return null;
    rs.push(m.index);
    re.push(m.index + m[0].length);
    ns.push(pos);
    pos += n.length;
    ne.push(pos);
  }
  return pos === normalized.length && ns.length > 0 ? { rs, re, ns, ne } : null;
}

function referenceOffset(map: NonNullable<ReturnType<typeof fullMap>>, offset: number, isEnd: boolean): number {
  let lo = 0;
  let hi = map.ns.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (map.ns[mid]! <= offset - (isEnd ? 1 : 0)) lo = mid;
    else hi = mid - 1;
  }
  const [ns, ne, rs, re] = [map.ns[lo]!, map.ne[lo]!, map.rs[lo]!, map.re[lo]!];
  if (offset >= ne) return re;
  if (offset <= ns) return rs;
  const rawLength = re - rs;
  const normLength = ne - ns;
  return rs + (rawLength === normLength ? offset - ns : Math.round(((offset - ns) * rawLength) / normLength));
}

function referenceSpan(raw: string, normalized: string, start: number, end: number): string | null {
  const map = fullMap(raw, normalized);
  if (!map || end <= start) return null;
  const w = widenToWords(raw, referenceOffset(map, start, false), referenceOffset(map, end, true));
  return raw.slice(w.start, w.end).replace(SPACE_RUN, ' ').trim();
}

const view = (text: string): TextView => ({ name: 'full', extractor: 'fulltext', text });

/** Words normalization changes and words it keeps, joined by whitespace runs of several kinds. */
const WORDS = ['ﬁnd', 'ﬂow', '½', '“quoted”', 'long—dash', 'Ünïcode', 'plain', 'word', '…', 'Ⅻ', 'x\u00ady'];
const SPACES = [' ', '  ', '\n', '\t \n', '\u00a0', '\u2003'];

const texts = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SPACES)), { minLength: 1, maxLength: 400 })
  .map((parts) => parts.map(([w, s]) => w + s).join(''));

describe('raw spans from checkpoints', () => {
  test('give the spans a map of every token gave, anywhere in texts that normalization changes', () => {
    fc.assert(
      fc.property(texts, fc.nat(), fc.nat(), (raw, a, b) => {
        const normalized = normalize(raw);
        const start = a % (normalized.length + 1);
        const end = start + (b % (normalized.length - start + 1));
        expect(rawSpan(view(raw), normalized, start, end)).toBe(referenceSpan(raw, normalized, start, end));
      }),
      { numRuns: 300 },
    );
  });

  test('a selector on a long text, many checkpoints in, is the raw text of the match', () => {
    const raw = Array.from({ length: 5_000 }, (_, i) => `ﬁeld${i}  “item” ${i % 7 === 0 ? '½' : 'word'}\n`).join('');
    const normalized = normalize(raw);
    const exact = normalize('ﬁeld4321  “item” word');
    const offset = normalized.indexOf(exact);
    expect(offset).toBeGreaterThan(0);
    const selector = textQuoteSelector(view(raw), normalized, {
      view: 'full',
      extractor: 'fulltext',
      offset,
      exact,
      prefix: '',
      suffix: '',
    });
    expect(selector.exact).toBe('ﬁeld4321  “item” word');
    expect(rawSpan(view(raw), normalized, offset, offset + exact.length)).toBe(
      referenceSpan(raw, normalized, offset, offset + exact.length),
    );
  });
});
