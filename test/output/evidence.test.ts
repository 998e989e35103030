// The difference in the page's own words: nearest.raw (whole words, the page's wording) and nearest.diff, in the library, the report and `verify`.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkClaims } from '../../src/check.js';
import { MAX_DIFF_CELLS, wordDiff } from '../../src/diagnose/diff.js';
import { MAX_WIDEN, widenToWords } from '../../src/match.js';
import { toReportRecord } from '../../src/output/evidence-report.js';
import { normalize } from '../../src/normalize.js';
import { describe as describeResult, renderDiff, useColour } from '../../src/cli/actions/verify.js';
import { claimsRun, runCliInProcess, serve } from '../support/helpers.js';

const html = { 'content-type': 'text/html; charset=utf-8' };
const PAGE =
  '<html><body><article><h1>Council news</h1>' +
  '<p>On the 4th, the Subcommittee approved the “Budget” on Tuesday—after a long debate over schools and roads.</p>' +
  '<p>Members said the vote was close, and the Mayor’s office welcomed it.</p></article></body></html>';
const PAGE_TEXT =
  'On the 4th, the Subcommittee approved the “Budget” on Tuesday—after a long debate over schools and roads. Members said the vote was close, and the Mayor’s office welcomed it.';

describe('wordDiff: the quote against the span, word by word', () => {
  test("a changed word: missing (the quote's wording) before extra (the page's)", () => {
    expect(wordDiff('approved the budget on Wednesday after', 'approved the Budget on Tuesday after')).toEqual([
      { op: 'equal', text: 'approved the Budget on' },
      { op: 'missing', text: 'Wednesday' },
      { op: 'extra', text: 'Tuesday' },
      { op: 'equal', text: 'after' },
    ]);
  });

  test('dropped and added words; case, curly quotes and dashes are not differences', () => {
    expect(wordDiff('the "budget" on Tuesday-after a debate', 'the “Budget” on Tuesday—after a long debate')).toEqual([
      { op: 'equal', text: 'the “Budget” on Tuesday—after a' },
      { op: 'extra', text: 'long' },
      { op: 'equal', text: 'debate' },
    ]);
    expect(wordDiff('members said the vote was very close', 'Members said the vote was close')).toEqual([
      { op: 'equal', text: 'Members said the vote was' },
      { op: 'missing', text: 'very' },
      { op: 'equal', text: 'close' },
    ]);
  });

  test('punctuation is not a difference: quotes around a word, a comma after it, a dash joining two words', () => {
    expect(
      wordDiff(
        'the mayor said the vote was the right call for our town',
        'The Mayor said the vote “was the wrong call for our town,”',
      ),
    ).toEqual([
      { op: 'equal', text: 'The Mayor said the vote “was the' },
      { op: 'missing', text: 'right' },
      { op: 'extra', text: 'wrong' },
      { op: 'equal', text: 'call for our town,”' },
    ]);
    expect(wordDiff('on Wednesday after a debate', 'on Tuesday—after a debate')).toEqual([
      { op: 'equal', text: 'on' },
      { op: 'missing', text: 'Wednesday' },
      { op: 'extra', text: 'Tuesday—' },
      { op: 'equal', text: 'after a debate' },
    ]);
    // A word that is all punctuation is compared as it is: a dash the quote adds is a difference.
    expect(wordDiff('a — b', 'a b')).toEqual([
      { op: 'equal', text: 'a' },
      { op: 'missing', text: '—' },
      { op: 'equal', text: 'b' },
    ]);
  });

  test('scripts without spaces are compared character by character, and shown without spaces', () => {
    expect(wordDiff('委员会批准了预算', '委员会否决了预算')).toEqual([
      { op: 'equal', text: '委员会' },
      { op: 'missing', text: '批准' },
      { op: 'extra', text: '否决' },
      { op: 'equal', text: '了预算' },
    ]);
  });

  test('a pair too large for the table keeps its common head and tail and reports the middle as replaced', () => {
    const n = Math.ceil(Math.sqrt(MAX_DIFF_CELLS)) + 10;
    const a = Array.from({ length: n }, (_, i) => `a${i}`).join(' ');
    const b = Array.from({ length: n }, (_, i) => `b${i}`).join(' ');
    const runs = wordDiff(`head ${a} tail`, `head ${b} tail`);
    expect(runs.map((r) => r.op)).toEqual(['equal', 'missing', 'extra', 'equal']);
    expect(runs[1]!.text.split(' ')).toHaveLength(n);
  });
});

describe('widenToWords: a span never starts or ends inside a word', () => {
  const text = 'the subcommittee approved the budget';
  test('edges inside words move out to the word edges; spaces at the ends are dropped', () => {
    const w = widenToWords(text, 7, 27); // "ommittee approved th"
    expect(text.slice(w.start, w.end)).toBe('subcommittee approved the');
    const s = widenToWords(text, 3, 17); // " subcommittee "
    expect(text.slice(s.start, s.end)).toBe('subcommittee');
  });

  test('characters of scripts without spaces are words of their own', () => {
    const cjk = '委员会批准了预算';
    expect(widenToWords(cjk, 3, 5)).toEqual({ start: 3, end: 5 });
  });

  test('a run without spaces longer than MAX_WIDEN is cut where the span ends', () => {
    const glued = `word ${'a'.repeat(3 * MAX_WIDEN)} word`;
    const mid = 5 + MAX_WIDEN + 10;
    expect(widenToWords(glued, mid, mid + 5)).toEqual({ start: mid, end: mid + 5 });
    // Each edge on its own: the start is within reach of the run's edge, the end is not.
    expect(widenToWords(glued, 7, 10)).toEqual({ start: 5, end: 10 });
  });
});

describe("nearest in the page's own wording, with its diff", () => {
  test("a misquote: raw is the page's wording in whole words, diff quotes the difference; the report carries both", async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const quote = 'The committee approved the "budget" on Wednesday-after a long debate over schools and roads.';
    const run = await checkClaims([{ id: 'm', quote, url: `${server.origin}/p` }], { allowPrivate: true });
    const r = run.results[0]!;
    expect(r).toMatchObject({ label: 'no_match', diagnosis: 'near_miss' });
    expect(r.nearest!.raw).toBe(
      'the Subcommittee approved the “Budget” on Tuesday—after a long debate over schools and roads.',
    );
    expect(r.nearest!.text).toBe(
      'the subcommittee approved the "budget" on tuesday-after a long debate over schools and roads.',
    );
    expect(r.nearest!.diff).toEqual([
      { op: 'equal', text: 'the' },
      { op: 'missing', text: 'committee' },
      { op: 'extra', text: 'Subcommittee' },
      { op: 'equal', text: 'approved the “Budget” on' },
      { op: 'missing', text: 'Wednesday-' },
      { op: 'extra', text: 'Tuesday—' },
      { op: 'equal', text: 'after a long debate over schools and roads.' },
    ]);
    // The similarity is said once: in nearest, not again in the note.
    expect(r.note).not.toMatch(/similarity/);
    const record = toReportRecord(r);
    expect(record.nearest).toEqual({
      text: r.nearest!.text,
      raw: r.nearest!.raw,
      diff: r.nearest!.diff,
      similarity: r.nearest!.similarity,
      view: r.nearest!.view,
      offset: r.nearest!.offset,
    });
  });

  test('on misquotes cut anywhere in the page, raw is always whole words of the page', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const words = PAGE_TEXT.split(' ');
    const claims = [];
    for (let start = 0; start + 8 <= words.length; start += 3) {
      const piece = words.slice(start, start + 8);
      piece[4] = 'zebra'; // one changed word
      claims.push({ id: `c${start}`, quote: piece.join(' '), url: `${server.origin}/p` });
      // The first and last words cut short: the alignment starts and ends inside the page's words.
      piece[0] = piece[0]!.length > 3 ? piece[0]!.slice(2) : piece[0]!;
      piece[7] = piece[7]!.length > 3 ? piece[7]!.slice(0, -2) : piece[7]!;
      claims.push({ id: `cut${start}`, quote: piece.join(' '), url: `${server.origin}/p` });
    }
    const run = await checkClaims(claims, { allowPrivate: true });
    const spaced = ` ${PAGE_TEXT} `;
    const normalized = ` ${normalize(PAGE_TEXT)} `;
    for (const r of run.results) {
      expect(r.nearest, r.id).toBeTruthy();
      const raw = r.nearest!.raw;
      expect(spaced, `${r.id}: ${raw}`).toContain(` ${raw} `);
      expect(normalized, `${r.id}: ${r.nearest!.text}`).toContain(` ${r.nearest!.text} `);
      expect(
        r.nearest!.diff.some((d) => d.op === 'missing' && d.text === 'zebra'),
        r.id,
      ).toBe(true);
    }
  });

  test('the --report JSON Lines carry nearest.raw and nearest.diff', async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const { claims, out, report } = claimsRun([
      {
        id: 'm',
        quote: "Members said the vote was very close, and the Mayor's office welcomed it.",
        url: `${server.origin}/p`,
      },
    ]);
    const r = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      claims,
      '--out',
      out,
      '--report',
      report,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const row = JSON.parse(readFileSync(report, 'utf8').trim());
    expect(row.nearest.raw).toBe('Members said the vote was close, and the Mayor’s office welcomed it.');
    expect(row.nearest.diff).toEqual([
      { op: 'equal', text: 'Members said the vote was' },
      { op: 'missing', text: 'very' },
      { op: 'equal', text: 'close, and the Mayor’s office welcomed it.' },
    ]);
  });
});

describe('verify shows the difference', () => {
  test("without a terminal: the page's wording, plain [-missing-]{+extra+} markers, the similarity once; --json has raw and diff", async () => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const quote = "Members said the vote was very close, and the Mayor's office opposed it.";
    const r = await runCliInProcess(['verify', '--allow-private', '--url', `${server.origin}/p`, '--quote', quote]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('  Members said the vote was close, and the Mayor’s office welcomed it.\n');
    expect(r.stdout).toContain(
      '  Members said the vote was [-very-] close, and the Mayor’s office [-opposed-] {+welcomed+} it.\n',
    );
    expect(r.stdout).not.toContain('\x1b[');
    expect(r.stdout.match(/similarity/g)).toHaveLength(1);
    const j = await runCliInProcess([
      'verify',
      '--allow-private',
      '--json',
      '--url',
      `${server.origin}/p`,
      '--quote',
      quote,
    ]);
    expect(j.code, j.stderr).toBe(1);
    const out = JSON.parse(j.stdout);
    expect(out.nearest.raw).toBe('Members said the vote was close, and the Mayor’s office welcomed it.');
    expect(out.nearest.diff).toContainEqual({ op: 'extra', text: 'welcomed' });
  });

  test('on a terminal: missing words red and struck, extra green; NO_COLOR or a pipe turns colour off', async () => {
    const diff = [
      { op: 'equal', text: 'on' },
      { op: 'missing', text: 'Wednesday' },
      { op: 'extra', text: 'Tuesday' },
    ] as const;
    expect(renderDiff(diff, true)).toBe('on \x1b[31;9mWednesday\x1b[29;39m \x1b[32mTuesday\x1b[39m');
    expect(renderDiff(diff, false)).toBe('on [-Wednesday-] {+Tuesday+}');
    expect(useColour({ isTTY: true }, {})).toBe(true);
    expect(useColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(useColour({ isTTY: false }, {})).toBe(false);
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const run = await checkClaims(
      [
        {
          id: 'x',
          quote: "Members said the vote was close, and the Mayor's office opposed it.",
          url: `${server.origin}/p`,
        },
      ],
      {
        allowPrivate: true,
      },
    );
    const text = describeResult(run.results[0]!, true);
    expect(text).toContain('\x1b[31;9mopposed\x1b[29;39m \x1b[32mwelcomed\x1b[39m');
    expect(text).toContain('red, struck: only in the quote; green: only in the source');
  });
});
