// Issue 16, item 1: a fallback at every stage. A dependency that throws on one page's input must not cost
// the page: charset sniffing falls through to the next step of the decoding order (docs/how-it-decides.md#decoding), a DOM
// build or Readability that throws keeps the streamed full view, pdftotext failing after printing text keeps
// that text, and each fallback is named in the report's note. A claim is `empty` only when no stage produced text.
//
// Faults are injected in-process: the dependency modules are mocked (vi.mock), each fault behind a flag that
// a test sets. The HTML worker's job (runHtmlJob) runs in-process too when `faults.inProcess` is set, since
// a mock does not reach a worker thread; otherwise pages go through the real worker pool.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { checkClaims, type ClaimResult } from '../../src/check.js';
import { decodeHtml, decodeText } from '../../src/extract/decode.js';
import { ExtractError } from '../../src/extract/errors.js';
import { runHtmlJob, type HtmlJobReply, type HtmlJobResult } from '../../src/extract/html.js';
import { extractSource } from '../../src/extract/index.js';
import { pdfToText } from '../../src/extract/pdf/pdftotext.js';
import { HtmlPool } from '../../src/extract/worker/pool.js';
import { serve, tempDir } from '../support/helpers.js';

const faults = vi.hoisted(() => ({
  /** whatwg-encoding's labelToName throws. */
  labelToName: false,
  /** whatwg-encoding's decode throws (every legacy encoding). */
  decode: false,
  /** whatwg-encoding's getBOMEncoding throws. */
  bom: false,
  /** chardet's analyse throws. */
  chardet: false,
  /** The light DOM's tree builder throws. */
  dom: false,
  /** Readability's parse throws. */
  readability: false,
  /** The streaming parser (the full view's last resort) throws. */
  stream: false,
  /** HTML pages are extracted in-process (runHtmlJob), where the mocks above reach. */
  inProcess: false,
}));

afterEach(() => {
  for (const k of Object.keys(faults) as (keyof typeof faults)[]) faults[k] = false;
});

/** A TypeError as html-encoding-sniffer 4.0.0 threw it. */
function charCodeAtError(): TypeError {
  return new TypeError("Cannot read properties of undefined (reading 'charCodeAt')");
}

vi.mock('whatwg-encoding', async (importOriginal) => {
  const real = await importOriginal<typeof import('whatwg-encoding')>();
  return {
    ...real,
    labelToName: (label: string) => {
      if (faults.labelToName) throw charCodeAtError();
      return real.labelToName(label);
    },
    decode: (bytes: Uint8Array, name: string) => {
      if (faults.decode) throw new RangeError(`iconv-lite: no codec for ${name}`);
      return real.decode(bytes, name);
    },
    getBOMEncoding: (bytes: Uint8Array) => {
      if (faults.bom) throw charCodeAtError();
      return real.getBOMEncoding(bytes);
    },
  };
});

vi.mock('chardet', async (importOriginal) => {
  const real = await importOriginal<{ default: typeof import('chardet') }>();
  const analyse: typeof real.default.analyse = (...args) => {
    if (faults.chardet) throw new Error('chardet: recognizer failed');
    return real.default.analyse(...args);
  };
  return { ...real, default: { ...real.default, analyse } };
});

vi.mock('../../src/extract/lightdom/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/extract/lightdom/index.js')>();
  return {
    ...real,
    buildDocument: (...args: Parameters<typeof real.buildDocument>) => {
      if (faults.dom) throw charCodeAtError();
      return real.buildDocument(...args);
    },
  };
});

vi.mock('@mozilla/readability', async (importOriginal) => {
  const real = await importOriginal<typeof import('@mozilla/readability')>();
  class Readability<T> extends real.Readability<T> {
    override parse() {
      if (faults.readability) throw new RangeError('Maximum call stack size exceeded');
      return super.parse();
    }
  }
  return { ...real, Readability };
});

vi.mock('../../src/extract/streamed-text.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/extract/streamed-text.js')>();
  return {
    ...real,
    streamedText: (...args: Parameters<typeof real.streamedText>) => {
      if (faults.stream) throw new Error('tokenizer failed');
      return real.streamedText(...args);
    },
  };
});

/** The HTML job in-process: its replies put together as the pool does (src/extract/worker/pool.ts). */
function extractInProcess(bytes: Uint8Array, httpCharset: string | undefined): Promise<HtmlJobResult> {
  const replies: HtmlJobReply[] = [];
  runHtmlJob({ id: 0, bytes, httpCharset }, (r) => replies.push(r));
  const [full, article] = replies;
  if (!full?.ok)
    return Promise.reject(
      new ExtractError('failed', `HTML extraction failed: ${full?.ok === false ? full.message : 'no reply'}`),
    );
  if (full.stage !== 'full') throw new Error('the full view comes first');
  const fallbacks = [
    ...(full.fallbacks ?? []),
    ...(article?.ok && article.stage === 'article' ? (article.fallbacks ?? []) : []),
  ];
  const result: HtmlJobResult = {
    views: { full: full.full, articleNote: full.articleNote },
    normalized: { full: full.normalizedFull },
    charset: full.charset,
    charsetSource: full.charsetSource,
    markup: full.markup,
    ...(fallbacks.length ? { fallbacks } : {}),
  };
  if (article?.ok && article.stage === 'article') {
    result.views.articleNote = article.articleNote;
    if (article.article !== undefined) {
      result.views.article = article.article;
      result.normalized.article = article.normalizedArticle;
    }
  }
  return Promise.resolve(result);
}

vi.mock('../../src/extract/worker/pool.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/extract/worker/pool.js')>();
  const inProcess = {
    extract: (bytes: Uint8Array, httpCharset: string | undefined) => extractInProcess(bytes, httpCharset),
    // A run starts a worker ahead of its first page (prepareExtraction): in process there is none to start.
    warm: () => {},
  };
  return { ...real, htmlPool: () => (faults.inProcess ? inProcess : real.htmlPool()) };
});

const QUOTE = 'Café society – a naïve “quoted” sentence';
const BODY = `<body><article><h1>Moved</h1><p>${QUOTE}, kept whole by every stage.</p><p>${'Filler text for the article. '.repeat(30)}</p></article></body></html>`;

/** One claim about one page, checked through the whole pipeline. */
async function checkOne(
  path: string,
  body: string | Buffer,
  contentType: string,
  quote = QUOTE,
  opts: { pdftotext?: string } = {},
): Promise<ClaimResult> {
  const server = await serve([{ path, body, headers: { 'content-type': contentType } }]);
  const run = await checkClaims([{ id: 'c', quote, url: `${server.origin}${path}` }], {
    allowPrivate: true,
    ...opts,
    wayback: 'off',
  });
  return run.results[0]!;
}

describe('the crash: a meta refresh whose content ends with "charset" (html-encoding-sniffer 4.0.0 threw on it)', () => {
  // Served as text/html with no charset: the <meta> scan reads each of these and finds no declaration.
  test.each([
    ['the reported page', `<meta http-equiv="refresh" content="0; url=/quoted-charset">`],
    ['ends with "charset"', `<meta http-equiv="refresh" content="0; url=/charset">`],
    ['ends with "charset="', `<meta http-equiv="refresh" content="0; url=/q?charset=">`],
    ['ends with charset="', `<meta http-equiv="refresh" content='0; url=/q?charset="'>`],
    ['single quotes, URL quoted inside', `<meta http-equiv='refresh' content='0; URL="/quoted-charset"'>`],
    ['unquoted', `<meta http-equiv=refresh content=0;url=/quoted-charset>`],
    [
      'a Content-Type whose content ends with "charset"',
      `<meta http-equiv="Content-Type" content="text/html; charset"><meta http-equiv="refresh" content="0; url=/quoted-charset">`,
    ],
    [
      'a charset attribute that is "charset"',
      `<meta charset="charset"><meta http-equiv="refresh" content="0; url=/quoted-charset">`,
    ],
  ])('%s: verbatim, UTF-8, no fallback needed', async (_, meta) => {
    const result = await checkOne(
      '/redirect',
      `<!doctype html><html><head><title>Moved</title>${meta}</head>${BODY}`,
      'text/html',
    );
    expect(result).toMatchObject({
      label: 'verbatim',
      diagnosis: 'verbatim',
      charset: 'UTF-8',
      charsetSource: 'default',
    });
    expect(result.note ?? '').not.toMatch(/threw|failed/);
  });

  test('with a real declaration after it, that declaration decides (windows-1252 bytes)', async () => {
    const html = `<!doctype html><html><head><meta http-equiv="refresh" content="0; url=/quoted-charset"><meta charset="windows-1252"></head>${BODY}`;
    const result = await checkOne(
      '/redirect-1252',
      Buffer.from(
        html.replace(/[“”–]/g, (c) => ({ '“': '\x93', '”': '\x94', '–': '\x96' })[c]!),
        'latin1',
      ),
      'text/html',
    );
    expect(result).toMatchObject({ label: 'verbatim', charset: 'windows-1252', charsetSource: 'meta' });
  });

  test('the <meta> scan finds no declaration in such content (and nothing throws)', () => {
    for (const content of ['0; url=/quoted-charset', 'charset', 'x; charset=', 'x; charset="', "x; charset='utf-8"]) {
      const decoded = decodeHtml(
        Buffer.from(`<meta http-equiv="Content-Type" content="${content.replace(/"/g, '&quot;')}"><p>café`),
      );
      expect(decoded).toEqual({ text: expect.stringContaining('café'), charset: 'UTF-8', charsetSource: 'default' });
    }
  });
});

describe('charset sniffing that throws falls through to the next step of the decoding order (docs/how-it-decides.md#decoding)', () => {
  const polish = Buffer.from([
    ...Buffer.from('<html><head><meta charset="windows-1250"></head><body><p>Za'),
    0xbf,
    0xf3,
    0xb3,
    0xe6,
    ...Buffer.from(' g'),
    0xea,
    0x9c,
    0x6c,
    0xb9,
    ...Buffer.from(' ja'),
    0x9f,
    0xf1,
    ...Buffer.from('</p></body></html>'),
  ]);

  test('no fault: the declaration decides, and no fallbacks field', () => {
    const decoded = decodeHtml(polish);
    expect(decoded).toEqual({
      text: expect.stringContaining('Zażółć gęślą jaźń'),
      charset: 'windows-1250',
      charsetSource: 'meta',
    });
  });

  test('label lookup throws (HTTP charset and <meta>): the bytes are not UTF-8, so detection decides; each step that threw is named', () => {
    faults.labelToName = true;
    const decoded = decodeHtml(polish, 'windows-1250');
    expect(decoded.charsetSource).toMatch(/detected|default/);
    expect(decoded.fallbacks).toEqual([
      expect.stringMatching(
        /^the HTTP charset label threw \(TypeError: Cannot read properties of undefined \(reading 'charCodeAt'\)\): the next step/,
      ),
      expect.stringMatching(/^the <meta> charset scan threw \(TypeError/),
    ]);
  });

  test('UTF-8 bytes with a throwing label lookup: UTF-8, as the order says next', () => {
    faults.labelToName = true;
    const decoded = decodeHtml(Buffer.from('<meta charset="utf-8"><p>café “quoted”</p>'), 'utf-8');
    expect(decoded).toMatchObject({
      text: expect.stringContaining('café “quoted”'),
      charset: 'UTF-8',
      charsetSource: 'default',
    });
    expect(decoded.fallbacks).toHaveLength(2);
  });

  test('BOM sniffing throws: the HTTP charset decides', () => {
    faults.bom = true;
    const decoded = decodeText(Buffer.from('caf\xe9', 'latin1'), 'iso-8859-1');
    expect(decoded).toMatchObject({ text: 'café', charset: 'windows-1252', charsetSource: 'http' });
    expect(decoded.fallbacks).toEqual([expect.stringMatching(/^BOM sniffing threw/)]);
  });

  test('decoding throws for every legacy encoding: windows-1252 from the built-in table, the same text as whatwg-encoding gives', () => {
    faults.decode = true;
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const decoded = decodeText(all, 'windows-1252');
    expect(decoded.charset).toBe('windows-1252');
    faults.decode = false;
    expect(decoded.text).toBe(decodeText(all, 'windows-1252').text);
    expect(decoded.fallbacks).toEqual([
      expect.stringMatching(/^decoding as windows-1252 \(the HTTP charset label\) threw \(RangeError: iconv-lite/),
      expect.stringMatching(/^decoding as windows-1252 \(whatwg-encoding\) threw/),
    ]);
  });

  test('a declared charset that fails to decode passes to the next step (UTF-8 bytes)', () => {
    faults.decode = true;
    const decoded = decodeHtml(Buffer.from('<meta charset="windows-1250"><p>café</p>'));
    expect(decoded).toMatchObject({
      text: expect.stringContaining('café'),
      charset: 'UTF-8',
      charsetSource: 'default',
    });
    expect(decoded.fallbacks).toEqual([
      expect.stringMatching(/^decoding as windows-1250 \(the <meta> charset scan\) threw/),
    ]);
  });

  test('chardet throws: windows-1252, the default, and the note says detection threw', () => {
    faults.chardet = true;
    const decoded = decodeText(Buffer.from('\x93caf\xe9\x94', 'latin1'));
    expect(decoded).toMatchObject({ text: '“café”', charset: 'windows-1252', charsetSource: 'default' });
    expect(decoded.fallbacks).toEqual([
      expect.stringMatching(/^charset detection \(chardet\) threw \(chardet: recognizer failed\)/),
    ]);
  });

  test('end to end: a text/plain page whose detection throws is still verbatim, and the report note names the fallback', async () => {
    faults.chardet = true;
    const result = await checkOne(
      '/legacy.txt',
      Buffer.from('He said \x93caf\xe9 society\x94 twice.', 'latin1'),
      'text/plain',
      'said "café society" twice',
    );
    expect(result).toMatchObject({ label: 'verbatim', charset: 'windows-1252', charsetSource: 'default' });
    expect(result.note).toMatch(/charset detection \(chardet\) threw .*the next step of the decoding order decided/);
  });
});

describe('a DOM build or Readability that throws keeps the streamed full view', () => {
  const html = Buffer.from(`<!doctype html><html><head><title>t</title></head>${BODY}`);

  test('no fault: both views, no fallbacks', async () => {
    faults.inProcess = true;
    const text = await extractSource({ body: html, contentType: 'text/html', url: 'http://x/' }, { timeoutMs: 20_000 });
    expect(text.views.map((v) => v.name)).toEqual(['article', 'full']);
    expect(text.fallbacks).toBeUndefined();
  });

  test('the DOM build throws: the full view from the streaming parser, no article view, and why', async () => {
    faults.inProcess = true;
    faults.dom = true;
    const text = await extractSource({ body: html, contentType: 'text/html', url: 'http://x/' }, { timeoutMs: 20_000 });
    expect(text.views.map((v) => [v.name, v.extractor])).toEqual([['full', 'fulltext']]);
    expect(text.views[0]!.text).toContain(QUOTE);
    expect(text.fallbacks).toEqual([
      expect.stringMatching(
        /^the DOM build threw \(TypeError: .*charCodeAt.*\): full view from the streaming parser, no article view$/,
      ),
    ]);
  });

  test('Readability throws: the full view stands', async () => {
    faults.inProcess = true;
    faults.readability = true;
    const text = await extractSource({ body: html, contentType: 'text/html', url: 'http://x/' }, { timeoutMs: 20_000 });
    expect(text.views.map((v) => v.name)).toEqual(['full']);
    expect(text.fallbacks).toEqual([
      'Readability threw (RangeError: Maximum call stack size exceeded): the full view stands, no article view',
    ]);
  });

  test.each([['dom'], ['readability']] as const)(
    'end to end (%s throws): verbatim in the full view, the note names the fallback once',
    async (fault) => {
      faults.inProcess = true;
      faults[fault] = true;
      const result = await checkOne('/page', `<!doctype html><html><head></head>${BODY}`, 'text/html');
      expect(result).toMatchObject({
        label: 'verbatim',
        diagnosis: 'verbatim',
        extractor: 'fulltext',
        match: { view: 'full' },
      });
      const named = fault === 'dom' ? 'the DOM build threw' : 'Readability threw';
      expect(result.note).toContain(named);
      expect(result.note!.split(named)).toHaveLength(2);
    },
  );

  test('a no_match claim keeps both its diagnosis note and the fallback', async () => {
    faults.inProcess = true;
    faults.dom = true;
    const result = await checkOne(
      '/page',
      `<!doctype html><html><head></head>${BODY}`,
      'text/html',
      'a sentence nobody wrote anywhere at all',
    );
    expect(result).toMatchObject({ label: 'no_match', diagnosis: 'not_found' });
    expect(result.note).toMatch(/nothing close.*; the DOM build threw/);
  });

  test('no stage produced text (the DOM build and the streaming parser both throw): empty', async () => {
    faults.inProcess = true;
    faults.dom = true;
    faults.stream = true;
    const result = await checkOne('/page', `<!doctype html><html><head></head>${BODY}`, 'text/html');
    expect(result).toMatchObject({ label: 'no_match', diagnosis: 'empty' });
    expect(result.note).toMatch(/HTML extraction failed: tokenizer failed/);
  });
});

describe('the worker pool: a worker that fails after sending the full view costs the article, not the page', () => {
  /** A stand-in worker: the full view, then (`how`) a failure reply, an uncaught throw, or an exit. */
  function standIn(how: 'reply' | 'throw' | 'exit'): URL {
    const file = join(tempDir('quotecheck-pool-'), 'worker.mjs');
    const fail = {
      reply: "parentPort.postMessage({ id, ok: false, message: 'boom' });",
      throw: "setImmediate(() => { throw new Error('boom'); });",
      exit: 'setImmediate(() => process.exit(3));',
    }[how];
    writeFileSync(
      file,
      `import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ id }) => {
  parentPort.postMessage({ id, ok: true, stage: 'full', final: false, full: 'The Full Text', normalizedFull: 'the full text', charset: 'UTF-8', charsetSource: 'default', markup: { notFree: false, scripted: false }, fallbacks: ['an earlier fallback'] });
  ${fail}
});
`,
    );
    return pathToFileURL(file);
  }

  test.each([
    ['reply', /^HTML extraction failed \(boom\) after the full view/],
    ['throw', /^the HTML worker crashed \(boom\) after the full view/],
    ['exit', /^the HTML worker exited \(code 3\) after the full view/],
  ] as const)('%s: the full view, and both fallbacks named', async (how, note) => {
    const pool = new HtmlPool(1, standIn(how));
    try {
      const result = await pool.extract(new Uint8Array(), undefined, 20_000);
      expect(result.views.full).toBe('The Full Text');
      expect(result.views.article).toBeUndefined();
      expect(result.fallbacks).toEqual(['an earlier fallback', expect.stringMatching(note)]);
    } finally {
      await pool.close();
    }
  });
});

describe('pdftotext failing after printing text keeps that text, and says so', () => {
  /** A stand-in pdftotext (a shell script). */
  function fakeTool(body: string): string {
    const file = join(tempDir('quotecheck-pdf-tool-'), 'pdftotext');
    writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  }
  const pdf = Buffer.from('%PDF-1.4 stand-in');

  test('exit 1 after text: the text, and a fallback naming the exit and what it said', async () => {
    const tool = fakeTool('echo "Page one: Café society."; echo "Syntax Error: damaged page 2" >&2; exit 1');
    const result = await pdfToText(pdf, { timeoutMs: 20_000, command: tool });
    expect(result).toEqual({
      text: 'Page one: Café society.\n',
      normalized: 'page one: café society.',
      fallback: 'pdftotext exited 1 (Syntax Error: damaged page 2) after printing text: the text it printed was kept',
    });
  });

  test('killed by a signal after text (a crash): the text is kept', async () => {
    const tool = fakeTool('echo "Page one text"; kill -SEGV $$');
    const result = await pdfToText(pdf, { timeoutMs: 20_000, command: tool });
    expect(result.text).toBe('Page one text\n');
    expect(result.fallback).toMatch(/^pdftotext was killed by signal 11 after printing text/);
  });

  test('nothing printed, blank, or not text: the failure stands as before', async () => {
    for (const body of [
      'echo "Syntax Error: bad xref" >&2; exit 1',
      'printf "\\n\\f\\n"; exit 1',
      'printf "\\377\\376x"; exit 1',
      'printf "a\\000b"; exit 1',
    ]) {
      await expect(pdfToText(pdf, { timeoutMs: 20_000, command: fakeTool(body) })).rejects.toMatchObject({
        kind: 'failed',
      });
    }
  });

  test('end to end: verbatim from the printed text, the note names the fallback; nothing printed is empty', async () => {
    const kept = await checkOne('/doc.pdf', pdf, 'application/pdf', 'café society', {
      pdftotext: fakeTool('echo "Page one: Café society."; echo "Syntax Error: damaged page 2" >&2; exit 1'),
    });
    expect(kept).toMatchObject({ label: 'verbatim', extractor: 'pdftotext' });
    expect(kept.note).toMatch(/^pdftotext exited 1 .* the text it printed was kept$/);
    const lost = await checkOne('/doc.pdf', pdf, 'application/pdf', 'café society', {
      pdftotext: fakeTool('echo "Syntax Error: bad xref" >&2; exit 1'),
    });
    expect(lost).toMatchObject({
      label: 'no_match',
      diagnosis: 'empty',
      note: 'pdftotext failed (exit 1): Syntax Error: bad xref',
    });
  });
});
