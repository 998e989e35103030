// Property tests (fast-check): normalization, the substring label and the approximate aligner
// against arbitrary text, astral-plane characters, combining marks and every character docs/how-it-decides.md#normalization-and-the-label maps.
// Fixed seeds: a failure names its seed and shrunk counterexample and replays the same way.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { nearestSpan } from '../src/diagnose/align.js';
import type { TextView } from '../src/extract/index.js';
import { findQuote, normalizeViews, type HtmlViewChoice, type NormalizedView } from '../src/match.js';
import { normalize } from '../src/normalize.js';
import { beforeWhitespaceAndCase, designNormalize, editDistance, nearestDistance } from './support/references.js';

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));

// Every character docs/how-it-decides.md#normalization-and-the-label names.
const SINGLE_QUOTES = ['\u2018', '\u2019', '\u201A', '\u201B', '\u2032', '\u2035'];
const DOUBLE_QUOTES = ['\u201C', '\u201D', '\u201E', '\u201F', '\u2033', '\u2036'];
const DASHES = [...range(0x2010, 0x2015), '\u2212', '\uFE58', '\uFE63', '\uFF0D'];
const WHITESPACE = [
  ' ',
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  '\u00A0',
  '\u1680',
  ...range(0x2000, 0x200a),
  '\u2028',
  '\u2029',
  '\u202F',
  '\u205F',
  '\u3000',
  '\uFEFF',
  ...range(0x001c, 0x001f),
  '\u0085',
];
const COMBINING = [
  '\u0300',
  '\u0301',
  '\u0302',
  '\u0303',
  '\u0307',
  '\u0308',
  '\u030A',
  '\u030C',
  '\u0313',
  '\u0327',
  '\u0331',
  '\u0342',
  '\u0345',
  '\u20DD',
  '\u3099',
  '\u{1D165}',
];
const ASTRAL = [
  '\u{1D49C}',
  '\u{1D400}',
  '\u{1D41A}',
  '\u{1F600}',
  '\u{1F44D}\u{1F3FD}',
  '\u{1F468}\u200D\u{1F469}',
  '\u{20000}',
  '\u{1D6BA}',
  '\u{10400}',
  '\u{10428}',
  '\u{1F1EB}\u{1F1F7}',
];
const TRICKY = [
  'A',
  'a',
  'b',
  'B',
  'e',
  '\u00E9',
  'J',
  'H',
  'T',
  'W',
  'Y',
  '\u0399',
  '\u03A5', // bases of the compositions that lowercasing creates (see below)
  '\uFB01',
  '\u216B',
  '\u00BD',
  '\u00B2',
  '\u01C5',
  '\u0130',
  '\u03A3',
  '\u03C3',
  '\u03C2',
  '\u00DF',
  '\u1E9E',
  '\u212A',
  '\u212B',
  '\u00A8',
  '\u00B4',
  '\u3131',
  '\u314F',
  '\u1100',
  '\u1161',
  '\uAC00',
  '\u30AB',
  '\uFF76',
  '\uFF9E',
  '\u00AD',
  '\u200B',
  '\u200D',
  '\u2026',
  '"',
  "'",
  '-',
  '.',
  '\u0E33',
  '\u0B47',
  '\u0B3E',
];
const SPECIAL = [...SINGLE_QUOTES, ...DOUBLE_QUOTES, ...DASHES, ...WHITESPACE, ...COMBINING, ...ASTRAL, ...TRICKY];

/** One piece of text: mostly the characters that matter here, sometimes any code point or any grapheme. */
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SPECIAL) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...'abcdefghij ') },
);
const text = (maxLength = 40) => fc.array(piece, { maxLength }).map((parts) => parts.join(''));

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** Offsets of every grapheme boundary of s, 0 and s.length included. */
function graphemeBoundaries(s: string): number[] {
  const out = [0];
  for (const g of segmenter.segment(s)) out.push(g.index + g.segment.length);
  return out;
}

/**
 * Whether normalizing the three pieces of a cut text separately gives the pieces of the whole
 * text normalized. Two steps of design §3 are not "local", whatever the cut:
 * - NFKC: normalization forms are not closed under concatenation. Even at a grapheme boundary
 *   NFKC can compose across the cut: Hangul compatibility jamo (U+3131 U+314F, two graphemes)
 *   become conjoining jamo and then one syllable (U+AC00).
 * - lowercasing: Greek capital sigma lowercases by context (Final_Sigma: `ΑΣ` -> `ας`, but
 *   `ΑΣΑ` -> `ασα`), so a cut next to a Σ inside a word changes its lowercase form.
 * A quote cut there really does normalize to something that is not in the normalized text, so
 * these cuts are excluded from the property (and pinned as examples below); whitespace steps are
 * local (a run cut in two still becomes one space in the text, and the quote's edge spaces are trimmed).
 */
function cutIsLocal(t: string, i: number, j: number): boolean {
  const parts = [t.slice(0, i), t.slice(i, j), t.slice(j)];
  const nfkc = parts.map((p) => p.normalize('NFKC'));
  if (nfkc.join('') !== t.normalize('NFKC')) return false;
  const pre = parts.map(beforeWhitespaceAndCase);
  return pre.map((p) => p.toLowerCase()).join('') === pre.join('').toLowerCase();
}

/** Character-by-character (code point) comparison at every offset; the code-unit offset of the first match, or -1. */
function naiveIndexOf(quote: string, textValue: string): number {
  const q = Array.from(quote);
  const t = Array.from(textValue);
  for (let o = 0; o + q.length <= t.length; o++) {
    let k = 0;
    while (k < q.length && t[o + k] === q[k]) k++;
    if (k === q.length) return t.slice(0, o).join('').length;
  }
  return -1;
}

const textView = (t: string): NormalizedView[] =>
  normalizeViews([{ name: 'text', extractor: 'text', text: t } satisfies TextView]);

/** Counts runs and precondition skips, so a generator that skips most runs fails loudly instead of testing nothing. */
function skipMeter() {
  let runs = 0;
  let skipped = 0;
  return {
    pre(ok: boolean): void {
      runs++;
      if (!ok) skipped++;
      fc.pre(ok);
    },
    expectMostRan(maxShare: number): void {
      expect(runs).toBeGreaterThan(0);
      expect(skipped / runs).toBeLessThan(maxShare);
    },
  };
}

describe('normalize (design §3)', () => {
  // Not idempotent on every string, by the order of design §3: lowercasing (step 5) comes after
  // NFKC (step 1) and can create a canonical composition that NFKC would have made:
  // `J` + U+030C has no precomposed form, `j` + U+030C is U+01F0. normalize("J\u030C") is
  // "j\u030C" and normalize of that is "\u01F0". Thirty such composites exist in Unicode 15 (ǰ ẖ ẗ ẘ ẙ and
  // polytonic Greek such as ᾶ from Α + U+0342). So the property is stated exactly: normalize is
  // idempotent whenever its output is already NFKC, and in general one more normalize only composes.
  test('is idempotent whenever its output is NFKC; otherwise the second pass only composes (NFC of the output) and the third changes nothing; an output not in NFKC holds a combining mark, and is rare', () => {
    let notNfkc = 0;
    let runs = 0;
    fc.assert(
      fc.property(text(60), (s) => {
        runs++;
        const once = normalize(s);
        const twice = normalize(once);
        expect(twice).toBe(once.normalize('NFKC'));
        // Only composition is left for the second pass: no compatibility mapping, no quote, dash, space or case change.
        expect(twice).toBe(once.normalize('NFC'));
        expect(normalize(twice)).toBe(twice);
        if (once !== twice) {
          notNfkc++;
          // What lowercasing can newly compose is a base letter with a combining mark that follows it.
          expect(once, JSON.stringify(s)).toMatch(/\p{M}/u);
        }
      }),
      { seed: 20240501, numRuns: 20_000 },
    );
    // The generator does reach the exception (J, Α and their marks are among its pieces), and it stays an exception.
    expect(notNfkc).toBeGreaterThan(0);
    expect(notNfkc / runs).toBeLessThan(0.1);
  });

  test('equals design §3 step by step, on ASCII (its shortcut) and on any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
          text(40),
        ),
        (s) => {
          expect(normalize(s)).toBe(designNormalize(s));
        },
      ),
      { seed: 11, numRuns: 20_000 },
    );
  });

  test('the known exception: lowercasing after NFKC creates a composition', () => {
    expect(normalize('J\u030C')).toBe('j\u030C');
    expect(normalize('j\u030C')).toBe('\u01F0');
    expect(normalize('\u0391\u0342')).toBe('\u03B1\u0342');
    expect(normalize('\u03B1\u0342')).toBe('\u1FB6');
  });
});

describe('a quote cut from the text is always found', () => {
  const cut = fc.record({ t: text(50), a: fc.nat(), b: fc.nat() }).map(({ t, a, b }) => {
    const bounds = graphemeBoundaries(t);
    const x = bounds[a % bounds.length]!;
    const y = bounds[b % bounds.length]!;
    return { t, i: Math.min(x, y), j: Math.max(x, y) };
  });

  test('for every cut at grapheme boundaries that normalizes locally (see cutIsLocal): at its first occurrence, with the text around it as evidence', () => {
    const meter = skipMeter();
    fc.assert(
      fc.property(cut, ({ t, i, j }) => {
        const q = normalize(t.slice(i, j));
        fc.pre(q !== '');
        meter.pre(cutIsLocal(t, i, j));
        const views = textView(t);
        const m = findQuote(q, views);
        expect(m).not.toBeNull();
        // The first occurrence (by a code point comparison, not indexOf), with the evidence around it taken from the text there.
        const normalized = views[0]!.text;
        expect(m!.offset).toBe(naiveIndexOf(q, normalized));
        expect(m!.prefix + m!.exact + m!.suffix).toBe(
          normalized.slice(Math.max(0, m!.offset - 80), m!.offset + q.length + 80),
        );
      }),
      { seed: 42, numRuns: 20_000 },
    );
    meter.expectMostRan(0.1);
  });

  test('cuts inside whitespace runs are fine: edge spaces are trimmed, the run is one space in the text', () => {
    const t = 'one \u00A0\t two\u2003\u2003three';
    for (let i = 0; i <= t.length; i++) {
      for (let j = i + 1; j <= t.length; j++) {
        const q = normalize(t.slice(i, j));
        if (q !== '') expect(findQuote(q, textView(t)), JSON.stringify(t.slice(i, j))).not.toBeNull();
      }
    }
  });

  test('cuts the property excludes, each for a real reason', () => {
    const notFound = (t: string, q: string) => findQuote(normalize(q), textView(t)) === null;
    // Not a grapheme boundary: between a base letter and its combining mark (NFKC composed them in the text)...
    expect(notFound('cafe\u0301', 'cafe')).toBe(true);
    // ...or inside a surrogate pair (half of U+1D49C is no character; the whole is NFKC "A").
    expect(notFound('\u{1D49C}b', '\u{1D49C}b'.slice(1))).toBe(true);
    // A grapheme boundary where NFKC still composes: compatibility jamo become one syllable.
    expect(normalize('\u3131\u314F')).toBe('\uAC00');
    expect(notFound('\u3131\u314F', '\u3131')).toBe(true);
    expect(cutIsLocal('\u3131\u314F', 0, 1)).toBe(false);
    // Final sigma: the lowercase of Σ depends on its neighbours.
    expect(notFound('\u0391\u03A3\u0391', '\u0391\u03A3')).toBe(true);
    expect(cutIsLocal('\u0391\u03A3\u0391', 0, 2)).toBe(false);
    // A word-final Σ quoted with its word is found: its context is the same on both sides.
    expect(notFound('\u039F\u0394\u039F\u03A3 \u0391', '\u039F\u0394\u039F\u03A3')).toBe(false);
  });
});

describe('inserting a character into a found quote', () => {
  test('never keeps it verbatim when the inserted character survives normalization and is nowhere in the normalized text', () => {
    const meter = skipMeter();
    fc.assert(
      fc.property(
        text(40),
        fc.nat(),
        fc.nat(),
        piece.filter((c) => Array.from(c).length === 1),
        fc.nat(),
        (t, a, b, c, k) => {
          const bounds = graphemeBoundaries(t);
          const x = bounds[a % bounds.length]!;
          const y = bounds[b % bounds.length]!;
          const raw = t.slice(Math.min(x, y), Math.max(x, y));
          const views = textView(t);
          fc.pre(normalize(raw) !== '' && findQuote(normalize(raw), views) !== null); // a found quote
          const nc = normalize(c);
          // Preconditions:
          // 1. normalization does not remove the character (whitespace is trimmed or merged into a run);
          // 2. its normalized form occurs nowhere in the normalized text;
          // 3. it survives normalization in place: it is not composed with its neighbours
          //    (a combining mark after a letter, a jamo) nor lowercased differently there (Σ).
          meter.pre(nc !== '' && !views[0]!.text.includes(nc));
          const points = Array.from(raw);
          const at = k % (points.length + 1);
          const inserted = [...points.slice(0, at), c, ...points.slice(at)].join('');
          const q = normalize(inserted);
          fc.pre(q.includes(nc));
          expect(findQuote(q, views)).toBeNull();
        },
      ),
      { seed: 1234, numRuns: 10_000 },
    );
    meter.expectMostRan(0.5);
  });
});

describe('findQuote agrees with a naive matcher', () => {
  const smallPiece = fc.oneof(
    fc.constantFrom(
      'a',
      'b',
      'e',
      '\u00E9',
      '\u0301',
      ' ',
      '\u{1D49C}',
      '\u{1D49D}',
      '\u{1F600}',
      '\u{1F3FD}',
      '\u03C3',
      '\u03C2',
      '\u0308',
    ),
    piece,
  );
  const smallText = (max: number) => fc.array(smallPiece, { maxLength: max }).map((p) => p.join(''));
  const viewName = fc.constantFrom<'article' | 'full' | 'text'>('article', 'full', 'text');
  const input = fc
    .record({
      views: fc.array(fc.record({ name: viewName, text: smallText(30) }), { minLength: 1, maxLength: 3 }),
      choice: fc.constantFrom<HtmlViewChoice>('article', 'full', 'any'),
      quote: smallText(4),
      from: fc.nat(),
      a: fc.nat(),
      b: fc.nat(),
      sliced: fc.boolean(),
    })
    .map(({ views, choice, quote, from, a, b, sliced }) => {
      if (!sliced) return { views, choice, quote };
      // Half the time the quote is cut from one of the views (at code point boundaries), so matches are common.
      const points = Array.from(views[from % views.length]!.text);
      const x = a % (points.length + 1);
      const y = b % (points.length + 1);
      return { views, choice, quote: points.slice(Math.min(x, y), Math.max(x, y)).join('') };
    });

  /** Which views count, as design §3 says (the text view always; an HTML view when chosen, or with `any`), and the first that holds the quote. */
  function reference(quote: string, views: readonly NormalizedView[], choice: HtmlViewChoice) {
    if (quote === '') return null;
    for (const v of views) {
      if (!(v.name === 'text' || choice === 'any' || v.name === choice)) continue;
      const offset = naiveIndexOf(quote, v.text);
      if (offset !== -1) return { view: v.name, offset, text: v.text };
    }
    return null;
  }

  function check(quote: string, views: NormalizedView[], choice: HtmlViewChoice): void {
    const m = findQuote(quote, views, choice);
    const ref = reference(quote, views, choice);
    if (ref === null) {
      expect(m).toBeNull();
      return;
    }
    expect(m).not.toBeNull();
    expect({ view: m!.view, offset: m!.offset }).toEqual({ view: ref.view, offset: ref.offset });
    // The evidence: the quote as it stands in that view, with up to 80 code units of that view's text each side.
    expect(m!.exact).toBe(ref.text.slice(ref.offset, ref.offset + quote.length));
    expect(m!.prefix).toBe(ref.text.slice(Math.max(0, ref.offset - 80), ref.offset));
    expect(m!.suffix).toBe(ref.text.slice(ref.offset + quote.length, ref.offset + quote.length + 80));
  }

  test('the same view and offset as the naive matcher, and the evidence from that view, on raw strings and on normalized quote and views, with astral characters and combining marks', () => {
    fc.assert(
      fc.property(input, ({ views, choice, quote }) => {
        const raw: NormalizedView[] = views.map((v) => ({ name: v.name, extractor: 'text', text: v.text }));
        check(quote, raw, choice);
        const textViews: TextView[] = views.map((v) => ({ name: v.name, extractor: 'text', text: v.text }));
        check(normalize(quote), normalizeViews(textViews), choice);
      }),
      { seed: 99, numRuns: 10_000 },
    );
  });
});

describe('nearestSpan (approximate alignment)', () => {
  /** Quotes and texts of the Basic Multilingual Plane, combining marks included. */
  const bmp = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('a', 'b', 'c', ' ', 'e', '\u00E9', '\u0301', '\u0308') },
    { weight: 1, arbitrary: piece.filter((c) => !/[\uD800-\uDFFF]/.test(c)) },
  );
  /** The same with astral-plane characters (surrogate pairs). */
  const astral = fc.oneof(
    { weight: 3, arbitrary: bmp },
    { weight: 1, arbitrary: fc.constantFrom('\u{1D49C}', '\u{1F600}', '\u{1F469}', '\u{20000}') },
    { weight: 1, arbitrary: piece },
  );
  const strings = (unit: fc.Arbitrary<string>, min: number, max: number) =>
    fc.array(unit, { minLength: min, maxLength: max }).map((p) => p.join(''));
  /** A quote and a text short enough for the naive optimum; half the time the quote is planted in the text. */
  const pair = (unit: fc.Arbitrary<string>) =>
    fc.tuple(strings(unit, 1, 8), strings(unit, 1, 18), fc.nat(), fc.boolean()).map(([quote, t, at, plant]) => {
      const pos = at % (t.length + 1);
      return { quote, textValue: plant ? t.slice(0, pos) + quote + t.slice(pos) : t };
    });

  /** What holds whatever the characters: the distance is the optimum, bounded by the quote, 0 exactly on an occurrence. */
  function checkDistance(quote: string, textValue: string): NonNullable<ReturnType<typeof nearestSpan>> {
    const span = nearestSpan(quote, textValue)!;
    expect(span).not.toBeNull();
    expect(0 <= span.start && span.start <= span.end && span.end <= textValue.length).toBe(true);
    expect(span.distance).toBeLessThanOrEqual(quote.length);
    expect(span.distance).toBe(nearestDistance(quote, textValue));
    expect(span.distance === 0).toBe(textValue.includes(quote));
    expect(span.similarity).toBeCloseTo(Math.max(0, 1 - span.distance / quote.length), 12);
    return span;
  }

  test("short BMP texts: the span's edit distance is the reported one and the optimum, at most the quote's length, 0 exactly when the quote occurs", () => {
    fc.assert(
      fc.property(pair(bmp), ({ quote, textValue }) => {
        const span = checkDistance(quote, textValue);
        expect(editDistance(quote, textValue.slice(span.start, span.end))).toBe(span.distance);
      }),
      { seed: 5, numRuns: 1500 },
    );
  });

  test("short texts with astral characters: the reported distance is the optimum, at most the quote's length, 0 exactly when the quote occurs", () => {
    fc.assert(
      fc.property(pair(astral), ({ quote, textValue }) => void checkDistance(quote, textValue)),
      { seed: 6, numRuns: 1500 },
    );
  });

  // The backward pass reverses by code unit, the unit both passes align, so the start maps back
  // exactly. Spans may still cut a surrogate pair (nearestSpan('\u{1F600}', 'x\u{1F603}') ends after
  // the high surrogate): the alignment is over code units, and the distance is measured the same way.
  test("with astral characters, the span's own edit distance is the reported one", () => {
    fc.assert(
      fc.property(pair(astral), ({ quote, textValue }) => {
        const span = nearestSpan(quote, textValue)!;
        expect(editDistance(quote, textValue.slice(span.start, span.end))).toBe(span.distance);
      }),
      { seed: 5, numRuns: 1500 },
    );
  });

  test('empty quote or empty text: no span', () => {
    expect(nearestSpan('', 'abc')).toBeNull();
    expect(nearestSpan('abc', '')).toBeNull();
  });

  test('long texts (anchored search): a planted quote of 15 or more characters is found exactly', () => {
    // Anchors are 8-grams sampled every 8 characters, so only a shared run of 15 characters is
    // sure to be seen: shorter quotes may legitimately be missed in long texts, hence minLength 15.
    fc.assert(
      fc.property(strings(astral, 15, 60), strings(astral, 400, 3000), fc.nat(), (quote, t, at) => {
        const pos = at % (t.length + 1);
        const textValue = t.slice(0, pos) + quote + t.slice(pos);
        const span = nearestSpan(quote, textValue)!;
        expect(span.distance).toBe(0);
        expect(textValue.slice(span.start, span.end)).toBe(quote);
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  test("long texts (anchored search): a planted copy with one edit is found at most that far, and the span's own edit distance is the reported one", () => {
    // One edit in a quote of 31 or more code points leaves a run of 15 on one side of it: an anchor sees it.
    const edit = fc.record({
      op: fc.constantFrom('insert', 'delete', 'replace'),
      at: fc.nat(),
      ch: fc.constantFrom('z', '\u00E9', '\u{1F600}'),
    });
    fc.assert(
      fc.property(
        strings(astral, 31, 60).filter((q) => Array.from(q).length >= 31),
        strings(astral, 400, 3000),
        fc.nat(),
        edit,
        (quote, t, at, { op, at: k, ch }) => {
          const points = Array.from(quote);
          const i = k % points.length;
          const copy = [
            ...points.slice(0, i),
            ...(op === 'delete' ? [] : [ch]),
            ...points.slice(op === 'insert' ? i : i + 1),
          ].join('');
          const pos = at % (t.length + 1);
          const textValue = t.slice(0, pos) + copy + t.slice(pos);
          const span = nearestSpan(quote, textValue)!;
          expect(span).not.toBeNull();
          expect(span.distance).toBeLessThanOrEqual(editDistance(quote, copy));
          expect(editDistance(quote, textValue.slice(span.start, span.end))).toBe(span.distance);
        },
      ),
      { seed: 12, numRuns: 300 },
    );
  });
});
