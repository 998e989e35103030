// docs/how-it-decides.md#normalization-and-the-label, step by step and character by character.
import { serialize } from 'node:v8';
import { describe, expect, test } from 'vitest';
import { normalize } from '../../src/normalize.js';
import { CODE_POINTS } from '../support/helpers.js';
import { designNormalize } from '../support/references.js';

const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

describe('step 1: Unicode NFKC', () => {
  test.each([
    ['\uFB01', 'fi'], // ligature fi
    ['\uFB00', 'ff'],
    ['\uFB03', 'ffi'],
    ['\uFF21\uFF22', 'ab'], // full-width letters (then lowercased)
    ['\u2026', '...'], // ellipsis decomposes to three dots under NFKC
    ['e\u0301', '\u00E9'], // combining acute composes
    ['\u2460', '1'], // circled digit
    ['x\u00B2', 'x2'], // superscript
  ])('%j becomes %j', (input, output) => {
    expect(normalize(input)).toBe(output);
  });
});

describe('step 2: curly quotes to straight quotes', () => {
  test.each(['\u2018', '\u2019', '\u201A', '\u201B', '\u2032', '\u2035'])('single %s', (c) => {
    expect(normalize(`a${c}b`), hex(c)).toBe("a'b");
  });
  test.each(['\u201C', '\u201D', '\u201E', '\u201F'])('double %s', (c) => {
    expect(normalize(`a${c}b`), hex(c)).toBe('a"b');
  });
  test('double primes U+2033 and U+2036 never reach step 2: NFKC (step 1) splits them into two single primes', () => {
    // The table in step 2 lists them, but the order of the steps decides: 2033 -> 2032 2032 -> '' (two apostrophes).
    expect('\u2033'.normalize('NFKC')).toBe('\u2032\u2032');
    expect(normalize('a\u2033b')).toBe("a''b");
    expect(normalize('a\u2036b')).toBe("a''b");
  });
  test('straight quotes and the backtick stay', () => {
    expect(normalize(`'"\``)).toBe(`'"\``);
  });
});

describe('step 3: dashes to hyphen-minus', () => {
  const dashes = ['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\uFE58', '\uFE63', '\uFF0D'];
  test.each(dashes)('dash %s', (c) => {
    expect(normalize(`a${c}b`), hex(c)).toBe('a-b');
  });
  test('other dash-like characters stay (soft hyphen, tilde, underscore)', () => {
    expect(normalize('a\u00ADb')).toBe('a\u00ADb');
    expect(normalize('a~_b')).toBe('a~_b');
  });
});

describe('step 4: whitespace runs to one space, trimmed', () => {
  const spaces = [
    '\t',
    '\n',
    '\u000B',
    '\f',
    '\r',
    ' ',
    '\u00A0',
    '\u1680',
    '\u2000',
    '\u2001',
    '\u2002',
    '\u2003',
    '\u2004',
    '\u2005',
    '\u2006',
    '\u2007',
    '\u2008',
    '\u2009',
    '\u200A',
    '\u2028',
    '\u2029',
    '\u202F',
    '\u205F',
    '\u3000',
    '\uFEFF',
    '\u001C',
    '\u001D',
    '\u001E',
    '\u001F',
    '\u0085',
  ];
  test.each(spaces)('%j separates words with one space', (c) => {
    expect(normalize(`a${c}b`), hex(c)).toBe('a b');
    expect(normalize(`a${c}${c} ${c}b`), hex(c)).toBe('a b');
  });
  test('leading and trailing whitespace is trimmed', () => {
    expect(normalize(' \n\t a b \u0085\u001F ')).toBe('a b');
  });
  test('zero-width characters are not whitespace and stay', () => {
    for (const c of ['\u200B', '\u200C', '\u200D', '\u2060']) expect(normalize(`a${c}b`), hex(c)).toBe(`a${c}b`);
  });
});

describe('step 5: lowercase', () => {
  test('ASCII and non-ASCII letters', () => {
    expect(normalize('ÄÖÜ ΣΑΣ Straße İ')).toBe('äöü σας straße i\u0307');
  });
});

describe('the steps together', () => {
  test('a typographic quote matches its plain typing', () => {
    const source = normalize('He said: \u201CThe \uFB01rst\u2014and last\u2014time\u2026\u201D\n   It was\u00A0over.');
    const typed = normalize('he said: "the first-and last-time..." it was over.');
    expect(source).toBe(typed);
  });
  test('the empty and all-whitespace strings normalize to ""', () => {
    expect(normalize('')).toBe('');
    expect(normalize(' \n\t\u00A0\u3000')).toBe('');
  });
});

describe('the fast paths are the definition, on every code point of the BMP and plane 1 (the rest is unassigned, CJK ideographs or private use)', () => {
  test('each code point alone, between letters, doubled, and next to a space', () => {
    const wrong: string[] = [];
    for (const cp of CODE_POINTS) {
      const c = String.fromCodePoint(cp);
      for (const text of [c, `A${c}\u03A3`, `a${c}${c}b`, `a ${c}b`, `a${c} b`]) {
        if (normalize(text) !== designNormalize(text))
          wrong.push(`U+${cp.toString(16).toUpperCase()} in ${JSON.stringify(text)}`);
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });
});

describe('a long text, normalized a piece at a time', () => {
  // Characters that read or change around them: final sigma, combining marks that compose or reorder, compatibility
  // forms, Hangul jamo that compose, case-ignorable marks, every kind of whitespace, curly quotes and dashes; beside
  // the ASCII letters and digits a long text is cut between.
  const TOKENS = (
    "a Z q 0 9 x B Σ ΑΣ σ ς ' . : \u00AD \u0301 \u0308 \u0323 \u0345 \u00A0 \u2003 \u3000 \u0085 \u001F \u2019 " +
    '\u201C \u2014 \uFB01 \u2460 \u1100 \u1161 \u11A8 \u0130 \u1E9E \u212B J\u030C \u{1D400} \uFF21'
  )
    .split(' ')
    .concat([' ', '  ', '\n', '\t']);
  /** A text of about `chars` characters from TOKENS, the same for a seed. */
  function longText(chars: number, seed: number): string {
    let state = seed;
    const parts: string[] = [];
    for (let n = 0; n < chars; ) {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      const token = TOKENS[state % TOKENS.length]!;
      parts.push(token);
      n += token.length;
    }
    return parts.join('');
  }

  test.each([1, 2, 3])('gives what the whole text gives, by the design (seed %i)', (seed) => {
    const text = ` \u2003${longText(3 * 1024 * 1024, seed)}ΑΣ \n`;
    expect(normalize(text) === designNormalize(text)).toBe(true);
  });

  test('a sigma before a mark and a letter stays a medial sigma wherever the text is cut', () => {
    // Lowercasing reads past the apostrophe (case-ignorable) to the letter: a cut after the apostrophe would end a piece
    // on a final sigma.
    const text = "ΑΣ'ab 1".repeat(500_000);
    const normalized = normalize(text);
    expect(normalized === designNormalize(text)).toBe(true);
    expect(normalized.includes('ς')).toBe(false);
  });

  test('a text of curly quotes and ASCII comes back in one byte a character, as a shorter one does', () => {
    const text = 'the council\u2019s \u201Cbudget\u201D vote \u2014 members said '.repeat(60_000);
    const normalized = normalize(text);
    expect(normalized === designNormalize(text)).toBe(true);
    // A string of one byte a character is half the size serialized (its copy to a worker).
    expect(serialize(normalized).length).toBeLessThan(normalized.length * 1.1);
  });
});
