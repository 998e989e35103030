// Diagnosis building blocks: approximate alignment, artifact canon, page furniture, shell detection, selectors.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { nearestSpan } from '../../src/diagnose/align.js';
import { artifactDifferences } from '../../src/diagnose/artifact.js';
import { canon, canonText, findInterrupted } from '../../src/diagnose/canon.js';
import { detectShell } from '../../src/diagnose/shells.js';
import { findQuote, normalizeViews, textQuoteSelector } from '../../src/match.js';
import { normalize } from '../../src/normalize.js';
import { pdfToText } from '../../src/extract/pdf/pdftotext.js';
import { rng } from '../../bench/random.js';
import { editDistance, nearestDistance } from '../support/references.js';
import { verifyQuote } from '../../src/verify.js';
import { CODE_POINTS, FIXTURES, serve } from '../support/helpers.js';
import { markupSignals } from '../support/markup.js';

describe('nearestSpan', () => {
  test('finds an exact occurrence with similarity 1', () => {
    const text = 'alpha beta gamma delta epsilon zeta eta theta';
    const span = nearestSpan('gamma delta', text)!;
    expect(text.slice(span.start, span.end)).toBe('gamma delta');
    expect(span.similarity).toBe(1);
  });

  test('agrees with the textbook edit distance on small random inputs, and the span it reports is that close', () => {
    const random = rng(7);
    const rand = (n: number) => Math.floor(random() * n);
    for (let t = 0; t < 200; t++) {
      const alphabet = 'abcde ';
      const text = Array.from({ length: 5 + rand(30) }, () => alphabet[rand(alphabet.length)]).join('');
      const quote = Array.from({ length: 1 + rand(8) }, () => alphabet[rand(alphabet.length)]).join('');
      const span = nearestSpan(quote, text)!;
      expect(span.distance, `${quote} in ${text}`).toBe(nearestDistance(quote, text));
      // The reported span really is that close.
      expect(editDistance(quote, text.slice(span.start, span.end)), `${quote} in ${text}`).toBe(span.distance);
    }
  });

  test('finds a one-word misquote in a long text by anchoring', () => {
    const filler = Array.from(
      { length: 20_000 },
      (_, i) => `sentence number ${i} talks about nothing in particular.`,
    ).join(' ');
    const real = 'the committee approved the budget on tuesday after a long and heated debate about schools';
    const text = `${filler.slice(0, 500_000)} ${real} ${filler.slice(500_000)}`;
    const span = nearestSpan(
      'the committee approved the budget on wednesday after a long and heated debate about schools',
      text,
    )!;
    expect(text.slice(span.start, span.end)).toBe(
      'the committee approved the budget on tuesday after a long and heated debate about schools',
    );
    expect(span.similarity).toBeGreaterThan(0.9);
  });

  test('a fabricated sentence gets a low similarity', () => {
    const text = normalize(
      'Prosecutors in Sweden have dropped an investigation into a rape allegation made against Wikileaks co-founder Julian Assange in 2010. The 48-year-old Australian was evicted in April.',
    ).repeat(20);
    const span = nearestSpan(normalize('Volcanic ash grounded every flight across northern Europe for a week.'), text);
    expect(span === null || span.similarity < 0.6).toBe(true);
  });
});

describe('canon: what extraction changes, ignored', () => {
  test.each([
    ['extrac- tion', 'extraction'],
    ['mixedmode', 'mixed-mode'],
    ['g robid', 'grobid'],
    ['con\u00ADspir\u00ADacy', 'conspiracy'],
    ['bel\u200Bmarsh', 'belmarsh'],
    ['\u200Ciphone 11\u200C', 'iphone11'],
  ])('%j ~ %j', (a, b) => {
    expect(canon(normalize(a))).toBe(canon(normalize(b)));
  });
});

describe('canonText: the whole text at once gives each line its canon(normalize(line))', () => {
  /** The definition, line by line. */
  function byLine(raw: string): {
    text: string;
    lines: { raw: string; start: number; end: number; pageStart: boolean }[];
  } {
    const lines: { raw: string; start: number; end: number; pageStart: boolean }[] = [];
    let offset = 0;
    let pageStart = false;
    for (const piece of raw.split(/(\f|\r\n|\n|\r)/)) {
      if (piece === '\f') pageStart = true;
      if (/^(\f|\r\n|\n|\r)$/.test(piece)) continue;
      const c = canon(normalize(piece));
      lines.push({ raw: piece, start: offset, end: offset + c.length, pageStart });
      offset += c.length;
      pageStart = false;
    }
    return { text: lines.map((l) => canon(normalize(l.raw))).join(''), lines };
  }
  const shape = (ct: ReturnType<typeof canonText>) => ({
    text: ct.text,
    lines: ct.lines.map(({ raw, start, end, pageStart }) => ({ raw, start, end, pageStart })),
  });
  // Characters where a shortcut could go wrong: breaks of every kind, whitespace canon() drops but a
  // line break is not, NFKC's compatibility forms, casing that depends on context (final sigma,
  // dotted I), combining marks after a break, soft hyphens and zero-width characters.
  const alphabet = [
    'a',
    'Z',
    ' ',
    '\n',
    '\r',
    '\r\n',
    '\f',
    '\t',
    '\u00A0',
    '\u2028',
    '\u0085',
    '\u001C',
    '\u00AD',
    '\u200B',
    '\uFEFF',
    '-',
    '\u2014',
    '\u201C',
    '\u2019',
    '\uFB01',
    '\u2460',
    '\uFF21',
    '\u03A3',
    '\u0130',
    '\u0301',
    '\u1E9E',
    '\u00BD',
    '7',
    '\uD83D\uDE00',
  ];
  test('on random texts made of them', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }), (chars) => {
        const raw = chars.join('');
        expect(shape(canonText(raw))).toEqual(byLine(raw));
      }),
      { numRuns: 3000 },
    );
  });
  test('on every code point of the BMP, plane 1 and plane 14 (the rest is CJK ideographs, unassigned or private use), in a line and at a line break', () => {
    const wrong: string[] = [];
    for (const cp of CODE_POINTS) {
      const c = String.fromCodePoint(cp);
      // (A character canon() drops between "\r" and "\n" sends canonText line by line: the second text alone.)
      for (const raw of [`A${c}\u03A3 x\n\u03A3${c}\fy${c}`, `a\r${c}\nb`]) {
        if (JSON.stringify(shape(canonText(raw))) !== JSON.stringify(byLine(raw)))
          wrong.push(`U+${cp.toString(16).toUpperCase()} in ${JSON.stringify(raw)}`);
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });
  test('on a real PDF text (pdftotext: pages, hyphens, ligatures)', async () => {
    const { text } = await pdfToText(readFileSync(join(FIXTURES, 'tracemonkey-p1.pdf')), { timeoutMs: 20_000 });
    expect(text.length).toBeGreaterThan(1000);
    expect(shape(canonText(text))).toEqual(byLine(text));
  });
});

describe('findInterrupted: page furniture inside a quote', () => {
  const quote = canon(
    normalize(
      'the de facto standard for client-side web programming and is used for the application logic of browser-based productivity applications',
    ),
  );
  test('a block set off by blank lines inside a sentence (a footnote or copyright box)', () => {
    const raw =
      'JavaScript, for example, is the de facto standard for client-side web programming\n\nPermission to make digital or hard copies of all or part of this work\nCopyright 2009 ACM\n\nand is used for the application logic of browser-based productivity\napplications such as Google Mail.';
    const found = findInterrupted(quote, canonText(raw));
    expect(found?.gaps).toEqual([
      'Permission to make digital or hard copies of all or part of this work / Copyright 2009 ACM',
    ]);
  });
  test('a running header after a page break', () => {
    const raw =
      'is the de facto standard for client-side web programming\n\fPLDI 2009 Dublin\n\nand is used for the application logic of browser-based productivity applications';
    expect(findInterrupted(quote, canonText(raw))?.gaps).toEqual(['PLDI 2009 Dublin']);
  });
  test('line numbers between the lines of a transcript', () => {
    const q = canon(
      normalize('we will hear argument first this morning in case 19-123, the petitioner against the respondent'),
    );
    const raw =
      '12 we will hear argument first\n13\nthis morning in case 19-123, the\n14\npetitioner against the respondent';
    expect(findInterrupted(q, canonText(raw))?.gaps).toEqual(['13', '14']);
  });
  test('a line of running text the quote leaves out is not furniture', () => {
    const raw =
      'is the de facto standard for client-side web programming\nwhich many people have written about at length\nand is used for the application logic of browser-based productivity applications';
    expect(findInterrupted(quote, canonText(raw))).toBeNull();
  });
  test('a new paragraph after a sentence end is a splice, not furniture', () => {
    const q = canon(normalize('It ended there. The second paragraph begins here and goes on'));
    const raw = 'It ended there.\n\nAn unrelated paragraph in between.\n\nThe second paragraph begins here and goes on';
    expect(findInterrupted(q, canonText(raw))).toBeNull();
  });
});

describe('detectShell', () => {
  /** detectShell over a page as the pipeline gives it: the markup's signals read where the HTML is decoded (extract/markup.ts). */
  const detectPageShell = ({
    html,
    ...page
  }: {
    status: number;
    headers?: Record<string, string>;
    html: string;
    text: string;
  }) => detectShell({ ...page, markup: markupSignals(html, page.text.length) });
  test('a bot check announced by its header, even with status 403', () => {
    expect(
      detectPageShell({ status: 403, headers: { 'cf-mitigated': 'challenge' }, html: '<html></html>', text: '' }),
    ).toMatchObject({
      kind: 'bot_check',
      strong: true,
    });
  });
  test('bot-check wording on a short page', () => {
    expect(
      detectPageShell({
        status: 200,
        html: '<p>x</p>',
        text: normalize('Just a moment... Checking if the site connection is secure'),
      }),
    ).toMatchObject({
      kind: 'bot_check',
      strong: true,
    });
  });
  test('a subscription wall: strong when the page is short, weak on a long page', () => {
    const wall = normalize(
      'Headline. First paragraph of the story. Subscribe to continue reading. Already a subscriber? Log in',
    );
    expect(detectPageShell({ status: 200, html: '<p>x</p>', text: wall })).toMatchObject({
      kind: 'subscription',
      strong: true,
    });
    expect(
      detectPageShell({ status: 200, html: '<p>x</p>', text: `${'long article text. '.repeat(300)} ${wall}` }),
    ).toMatchObject({
      kind: 'subscription',
      strong: false,
    });
  });
  test('JSON-LD isAccessibleForFree false', () => {
    const html =
      '<script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree": false}</script><p>Intro</p>';
    expect(detectPageShell({ status: 200, html, text: 'intro' })).toMatchObject({
      kind: 'subscription',
      evidence: expect.stringContaining('isAccessibleForFree'),
    });
  });
  test('a JavaScript-only app shell', () => {
    const html = '<html><body><div id="root"></div><script src="/static/js/main.js"></script></body></html>';
    expect(detectPageShell({ status: 200, html, text: '' })).toMatchObject({ kind: 'js_shell', strong: true });
  });
  test('a fetched app shell with no text at all is named as one in the note, not "the document has no text"', async () => {
    const shell =
      '<!doctype html><html><head><title>App</title><script src="/static/js/main.js"></script></head><body>' +
      '<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>';
    const server = await serve([
      { path: '/app', body: shell, headers: { 'content-type': 'text/html' } },
      {
        path: '/blank',
        body: '<!doctype html><html><head></head><body></body></html>',
        headers: { 'content-type': 'text/html' },
      },
    ]);
    const app = await verifyQuote(`${server.origin}/app`, 'the harbour opens in May', { allowPrivate: true });
    expect(app).toMatchObject({ label: 'no_match', diagnosis: 'empty' });
    expect(app.note).toBe(
      'the response is a JavaScript-only shell (0 characters of text; the page is built by scripts)',
    );
    // A page with nothing at all and no scripts is still just empty.
    const blank = await verifyQuote(`${server.origin}/blank`, 'the harbour opens in May', { allowPrivate: true });
    expect(blank).toMatchObject({ diagnosis: 'empty', note: 'the document has no text' });
  });
  test('a meta refresh page is a redirect shell naming its target; a long article with a meta refresh is not', () => {
    const refresh = '<meta http-equiv="refresh" content="0; url=https://example.com/story">';
    expect(
      detectPageShell({
        status: 200,
        html: `<html><head>${refresh}</head><body>Redirecting...</body></html>`,
        text: 'redirecting...',
      }),
    ).toMatchObject({
      kind: 'redirect',
      strong: true,
      evidence: 'meta refresh to https://example.com/story',
      redirect: { target: 'https://example.com/story', via: 'meta refresh' },
    });
    const text = normalize('The council met on Monday to discuss the new bridge. '.repeat(80));
    expect(
      detectPageShell({
        status: 200,
        html: `<html><head>${refresh}</head><body><article><p>...</p></article></body></html>`,
        text,
      }),
    ).toBeNull();
  });
  test('a one-line script redirect on an empty page is a redirect shell, not a JavaScript-only shell', () => {
    const html = '<html><body><script>window.location.href = "https://example.com/next";</script></body></html>';
    expect(detectPageShell({ status: 200, html, text: '' })).toMatchObject({
      kind: 'redirect',
      evidence: 'script to https://example.com/next',
    });
  });
  test('an ordinary article that mentions subscribing is not a shell', () => {
    const text = normalize(
      `${'The council met on Monday to discuss the new bridge. '.repeat(80)} Subscribe to our newsletter for more local news.`,
    );
    expect(detectPageShell({ status: 200, html: '<article><p>...</p></article>', text })).toBeNull();
  });
});

describe('TextQuoteSelector', () => {
  test('exact, prefix and suffix come from the raw text, not the normalized one', () => {
    const raw = 'Intro line.\n\nThe Committee  approved the “budget” on Tuesday—after a long debate.';
    const views = [{ name: 'text' as const, extractor: 'text' as const, text: raw }];
    const [nv] = normalizeViews(views);
    const match = findQuote(normalize('approved the "budget" on tuesday-after'), [nv!])!;
    const selector = textQuoteSelector(views[0]!, nv!.text, match);
    expect(selector).toEqual({
      type: 'TextQuoteSelector',
      exact: 'approved the “budget” on Tuesday—after',
      prefix: 'Intro line.\n\nThe Committee  ',
      suffix: ' a long debate.',
    });
  });
});

describe('nearestSpan on quotes longer than one 32-bit block', () => {
  test('agrees with the full table for quotes of 30 to 140 characters, and the span it reports is that close', () => {
    const random = rng(11);
    const rand = (n: number) => Math.floor(random() * n);
    const alphabet = 'abcdef ghij';
    for (let t = 0; t < 150; t++) {
      const text = Array.from({ length: 40 + rand(300) }, () => alphabet[rand(alphabet.length)]).join('');
      // Half the time the quote is a damaged copy of part of the text, so small distances occur too.
      let quote: string;
      if (t % 2 === 0 && text.length > 40) {
        const start = rand(text.length - 35);
        quote = text
          .slice(start, start + 30 + rand(Math.min(110, text.length - start - 30) + 1))
          .split('')
          .map((c) => (rand(10) === 0 ? 'x' : c))
          .join('');
      } else {
        quote = Array.from({ length: 30 + rand(110) }, () => alphabet[rand(alphabet.length)]).join('');
      }
      const span = nearestSpan(quote, text);
      const whole = text.length <= 4 * quote.length + 64;
      if (!span) {
        // Only an anchored search (long text) may find no candidate region at all.
        expect(whole, `${t}`).toBe(false);
        continue;
      }
      if (whole) expect(span.distance, `${t}`).toBe(nearestDistance(quote, text));
      expect(editDistance(quote, text.slice(span.start, span.end)), `${t}`).toBe(span.distance);
    }
  });
});

describe('an extraction artifact: the note names what made the match', () => {
  /** A page whose paragraphs hold each case, as a browser would show them. */
  const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body><article>
<p>The council met on Tuesday—and the vote, at last, was close.</p>
<p>The mayor said the plan was “ready to go” after a long debate about schools.</p>
<p>She called it «a new start for the whole city» in her speech to the assembly.</p>
<p>Con\u00ADspir\u00ADacy theories spread faster than the corrections that follow them.</p>
<p>The in\u200Bcu\u200Bba\u200Btor will test several programs with high-quality monitoring.</p>
</article></body></html>`;
  const html = { 'content-type': 'text/html; charset=utf-8' };

  test.each([
    // The issue's case: an em dash written "--". Nothing was glued, and the note says what differs.
    [
      'The council met on Tuesday -- and the vote, at last, was close.',
      /^in the article text, except for a dash or hyphen spelled differently: punctuation, not extraction \("Tuesday -- and" in the quote, "Tuesday—and" in the source\)$/,
    ],
    [
      'The council met on Tuesday - and the vote, at last, was close.',
      /a dash or hyphen spelled differently: punctuation, not extraction \("Tuesday - and" in the quote, "Tuesday—and" in the source\)/,
    ],
    [
      'The mayor said the plan was «ready to go» after a long debate',
      /^in the article text, except for other quotation marks: punctuation, not extraction \(2 places; the first: « in the quote, “ in the source\)$/,
    ],
    [
      "She called it 'a new start for the whole city' in her speech",
      /other quotation marks: punctuation, not extraction \(2 places; the first: ' in the quote, « in the source\)/,
    ],
    [
      'Conspiracy theories spread faster than the corrections',
      /^in the article text, except for soft hyphens, invisible on the page \(U\+00AD in "Conspiracy"\)$/,
    ],
    [
      'The incubator will test several programs',
      /^in the article text, except for zero-width characters, invisible on the page \(U\+200B in "incubator"\)$/,
    ],
  ])('%j', async (quote, note) => {
    const server = await serve([{ path: '/p', body: PAGE, headers: html }]);
    const r = await verifyQuote(`${server.origin}/p`, quote, { allowPrivate: true, htmlView: 'article' });
    expect(r.label).toBe('no_match');
    expect(r.diagnosis).toBe('extraction_artifact');
    expect(r.note).toMatch(note);
    expect(r.note).not.toMatch(/glued|split/);
  });

  test('a real PDF: the hyphen pdftotext drops where it joins two lines, named as such', async () => {
    const server = await serve([
      { path: '/paper.pdf', file: 'tracemonkey-p1.pdf', headers: { 'content-type': 'application/pdf' } },
    ]);
    const url = `${server.origin}/paper.pdf`;
    const dropped = await verifyQuote(url, 'uses a mixed-mode execution approach', { allowPrivate: true });
    expect(dropped.diagnosis).toBe('extraction_artifact');
    expect(dropped.note).toBe(
      'in the extracted text, except for a hyphen the source lacks, as where extraction joins a line ending in one ("mixedmode" for the quote\'s "mixed-mode")',
    );
  });

  test('each equivalence canon() applies is named by its own kind', () => {
    const kinds = (quote: string, source: string) =>
      artifactDifferences(quote, source)?.map((d) => [d.kind, d.quote, d.source]);
    expect(kinds('the end of the war', 'the end ofthe war')).toEqual([['glued', 'of the', 'ofthe']]);
    expect(kinds('SCIENCE PARSE', 'S CIENCE P ARSE')).toEqual([
      ['split', 'SCIENCE', 'S CIENCE'],
      ['split', 'PARSE', 'P ARSE'],
    ]);
    expect(kinds('we generate tables', 'we gen- erate ta-\nbles')).toEqual([
      ['hyphen_kept', 'generate', 'gen- erate'],
      ['hyphen_kept', 'tables', 'ta- bles'],
    ]);
    expect(kinds('a mixed-mode approach', 'a mixedmode approach')).toEqual([
      ['hyphen_dropped', 'mixed-mode', 'mixedmode'],
    ]);
    expect(kinds('NANOJIT, the back end', 'NANOJIT , the back end')).toEqual([['spacing', 'NANOJIT,', 'NANOJIT ,']]);
    expect(kinds('an e-mail to all', 'an email to all')).toEqual([['hyphen_dropped', 'e-mail', 'email']]);
    expect(kinds('a well known fact', 'a well-known fact')).toEqual([['dash', 'well known', 'well-known']]);
    expect(kinds('prices — and wages', 'prices--and wages')).toEqual([['dash', 'prices — and', 'prices--and']]);
    expect(kinds('"yes," she said', '«yes,» she said')).toEqual([
      ['quote_mark', '"', '«'],
      ['quote_mark', '"', '»'],
    ]);
    // French spacing inside guillemets is spacing around punctuation, named as such.
    expect(kinds('"yes," she said', '« yes, » she said')?.map(([kind]) => kind)).toEqual([
      'quote_mark',
      'spacing',
      'spacing',
      'quote_mark',
    ]);
    // What normalization already folds is no difference: curly quotes, an em dash for a hyphen-minus, NFKC's ligatures and ellipsis.
    expect(kinds('“Efficient” - fine...', '"efficient" — fine…')).toEqual([]);
    expect(artifactDifferences('not there', 'something else')).toBeNull();
  });
});
