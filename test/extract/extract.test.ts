// docs/how-it-decides.md#extraction: what text each kind of body yields (block-aware HTML, charsets, pdftotext, sniffing).
import { readFileSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { ExtractError, extractSource, sniffKind, parseContentType } from '../../src/extract/index.js';
import { decodeHtml, decodeText } from '../../src/extract/decode.js';
import { htmlToViews } from '../../src/extract/html.js';
import { HtmlPool, defaultPoolSize } from '../../src/extract/worker/pool.js';
import { pdfToText } from '../../src/extract/pdf/pdftotext.js';
import { SHELL_NICENESS } from '../../src/extract/pdf/command-shells.js';
import { normalize } from '../../src/normalize.js';
import { FIXTURES, tempDir } from '../support/helpers.js';

const opts = { timeoutMs: 30_000 };
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const fullText = (html: string) => normalize(htmlToViews(html).full);

describe('HTML: blocks and <br> separate text, inline elements do not', () => {
  test.each([
    ['<p>a</p><p>b</p>', 'a b'],
    ['<ul><li>one</li><li>two</li></ul>', 'one two'],
    ['<div>a<div>b</div>c</div>', 'a b c'],
    ['line one<br>line two', 'line one line two'],
    ['<table><tr><td>cell</td><td>next</td></tr></table>', 'cell next'],
    ['<h2>Title</h2>Text', 'title text'],
    ['un<b>bel</b><i>iev</i><span>able</span>', 'unbelievable'],
    ['<a href="#">link</a>ed and <em>em</em>phasis', 'linked and emphasis'],
    ['a<script>var x = "no";</script>b<style>p{}</style>c<noscript>nojs</noscript>d<template>t</template>e', 'abcde'],
  ])('%s', (body, text) => {
    expect(fullText(`<!doctype html><html><head><title>T</title></head><body>${body}</body></html>`)).toBe(text);
  });

  test('the head (title, meta) is not part of the text', () => {
    expect(
      fullText(
        '<html><head><title>Headline</title><meta name="description" content="desc"></head><body>body</body></html>',
      ),
    ).toBe('body');
  });

  test('Readability finds the article and renders it block-aware too', () => {
    const para = (n: number) =>
      `<p>Paragraph ${n} says something long enough to be an article paragraph, with commas, clauses, and words, so that Readability scores it as content.</p>`;
    const html = `<html><body><nav><a href="/">Home</a> <a href="/x">Other</a></nav><article><h1>Head</h1>${[1, 2, 3, 4, 5].map(para).join('')}<ul><li>first item</li><li>second item</li></ul></article><footer>Footer links</footer></body></html>`;
    const views = htmlToViews(html);
    expect(views.article).toBeDefined();
    const article = normalize(views.article!);
    expect(article).toContain('readability scores it as content. paragraph 2 says');
    expect(article).toContain('first item second item');
    expect(article).not.toContain('footer links');
    expect(normalize(views.full)).toContain('footer links');
  });

  test("a style sheet that jsdom's CSS parser chokes on does not stop extraction", () => {
    // css-tree throws ") is expected" on this calc(); parsed normally, jsdom would throw from its constructor.
    const html =
      '<html><head><style>.a{width:calc(100% - (2*var(--x))}</style></head><body><p style="width:calc(1px + (2px">still here</p></body></html>';
    expect(fullText(html)).toBe('still here');
  });
});

describe('charsets (HTML standard sniffing)', () => {
  test('a windows-1252 / iso-8859-1 page declared only in <meta> decodes right', () => {
    const bytes = fixture('../../golden/sources/html/traf-die-tagespost.de-demut.html');
    const decoded = decodeHtml(bytes);
    expect(decoded.charset).toBe('windows-1252'); // the WHATWG name for the iso-8859-1 label
    expect(decoded.charsetSource).toBe('meta');
    expect(decoded.text).toContain('Sorgfalt und Zurückhaltung sind mehr denn je gefragt');
  });

  test('the HTTP charset wins over <meta>; a BOM wins over both', () => {
    const bytes = Buffer.from('<meta charset="utf-8"><p>caf\xe9</p>', 'latin1');
    expect(decodeHtml(bytes, 'windows-1252').text).toContain('café');
    const bom = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('<meta charset="windows-1252"><p>café</p>'),
    ]);
    expect(decodeHtml(bom, 'iso-8859-2')).toMatchObject({ charset: 'UTF-8', charsetSource: 'bom' });
  });

  test('shift_jis by http-equiv meta', () => {
    const head = Buffer.from(
      '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body><p>',
    );
    const kana = Buffer.from([0x82, 0xa0, 0x82, 0xa2, 0x82, 0xa4]); // あいう in Shift_JIS
    const decoded = decodeHtml(Buffer.concat([head, kana, Buffer.from('</p></body></html>')]));
    expect(decoded.charset).toBe('Shift_JIS');
    expect(decoded.text).toContain('あいう');
  });

  test('undeclared: UTF-8 when valid, windows-1252 when not', () => {
    expect(decodeHtml(Buffer.from('<p>naïve “quotes”</p>'))).toMatchObject({
      charset: 'UTF-8',
      charsetSource: 'default',
    });
    const legacy = decodeHtml(Buffer.from([0x3c, 0x70, 0x3e, 0x93, 0x68, 0x69, 0x94, 0x20, 0x80]));
    expect(legacy).toMatchObject({ charset: 'windows-1252', charsetSource: 'default' });
    expect(legacy.text).toBe('<p>“hi” €');
    expect(decodeText(Buffer.from([0xe9]))).toMatchObject({ text: 'é', charset: 'windows-1252' });
  });
});

describe('what a body is', () => {
  const pdf = Buffer.from('%PDF-1.7\n...');
  test.each([
    [pdf, 'application/pdf', '/x', 'pdf'],
    [pdf, 'application/octet-stream', '/download', 'pdf'],
    [pdf, 'text/html; charset=utf-8', '/page', 'pdf'],
    [Buffer.concat([Buffer.from('junk\n'), pdf]), undefined, '/x', 'pdf'],
    [Buffer.from('<!DOCTYPE html><p>x'), 'application/octet-stream', '/x', 'html'],
    [Buffer.from('<p>x</p>'), 'text/html', '/x.pdf', 'html'],
    [Buffer.from('plain words'), 'text/plain; charset=utf-8', '/x', 'text'],
    [Buffer.from('plain words'), undefined, '/notes', 'text'],
    [Buffer.from('<p>x</p>'), undefined, '/x', 'html'],
    [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]), 'image/png', '/x.png', 'unsupported'],
    [Buffer.from([1, 2, 0, 3]), undefined, '/blob', 'unsupported'],
  ])('%#: %s as %s at %s is %s', (bytes, type, path, kind) => {
    expect(sniffKind(bytes, parseContentType(type), `http://127.0.0.1${path}`)).toBe(kind);
  });
});

describe('PDF via pdftotext', () => {
  const url = 'http://127.0.0.1/paper';
  test('a two-column paper: a quote that crosses a line break matches; one that crosses into the next column past a footnote does not', async () => {
    const text = await extractSource(
      { body: fixture('tracemonkey-p1.pdf'), contentType: 'application/pdf', url },
      opts,
    );
    expect(text.views).toHaveLength(1);
    expect(text.views[0]!.extractor).toBe('pdftotext');
    const body = normalize(text.views[0]!.text);
    expect(body).toContain(
      normalize(
        'We present an alternative compilation technique for dynamically-typed languages that identifies frequently executed loop traces at run-time',
      ),
    );
    expect(body).not.toContain(
      normalize('the de facto standard for client-side web programming and is used for the application logic'),
    );
    // pdftotext joins "mixed-" at a line end with "mode": the hyphenated quote is not found.
    expect(body).toContain('uses a mixedmode execution approach');
    expect(body).not.toContain('uses a mixed-mode execution approach');
  });

  test('a scan without a text layer is "empty"', async () => {
    const err = await extractSource({ body: fixture('issue-203-decimalize.pdf'), url }, opts).catch((e) => e);
    expect(err).toBeInstanceOf(ExtractError);
    expect(err.kind).toBe('empty');
  });

  test('a PDF that needs a password is "encrypted"; one that opens with the empty password is read', async () => {
    const err = await extractSource({ body: fixture('libreoffice-writer-password.pdf'), url }, opts).catch((e) => e);
    expect(err).toMatchObject({ kind: 'encrypted' });
    const open = await extractSource({ body: fixture('issue-00352-asw-oct96-p41.pdf'), url }, opts);
    expect(open.views[0]!.text.trim().length).toBeGreaterThan(100);
  });

  test('a missing pdftotext names the package to install', async () => {
    const err = await extractSource(
      { body: fixture('tracemonkey-p1.pdf'), url },
      { ...opts, pdftotext: 'pdftotext-not-installed' },
    ).catch((e) => e);
    expect(err).toMatchObject({ kind: 'tool_missing' });
    expect(err.message).toMatch(/poppler-utils/);
  });

  test("bytes that are not a PDF but claim to be one fail with pdftotext's reason", async () => {
    const err = await extractSource(
      { body: Buffer.from('not a pdf at all'), contentType: 'application/pdf', url },
      opts,
    ).catch((e) => e);
    expect(err).toMatchObject({ kind: 'failed' });
  });
});

describe('the HTML worker pool: a slow article search costs the article, not the page', () => {
  /** A stand-in worker: answers the full view at once, then never finishes the article (or sends nothing). */
  function standIn(sendFull: boolean): URL {
    const dir = tempDir('quotecheck-pool-');
    const file = join(dir, 'worker.mjs');
    writeFileSync(
      file,
      `import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ id }) => {
  ${sendFull ? "parentPort.postMessage({ id, ok: true, stage: 'full', final: false, full: 'The Full Text', normalizedFull: 'the full text', charset: 'utf-8', markup: { notFree: false, scripted: false } });" : ''}
  for (;;) {} // Readability that never ends
});
`,
    );
    return pathToFileURL(file);
  }

  test('past the time limit, the page keeps its full view and says why there is no article', async () => {
    const pool = new HtmlPool(1, standIn(true));
    try {
      const result = await pool.extract(new Uint8Array(), undefined, 500);
      expect(result.views).toEqual({
        full: 'The Full Text',
        articleNote: 'no article view: Readability stopped at the 0.5 s limit (full view only)',
      });
      expect(result.normalized).toEqual({ full: 'the full text' });
    } finally {
      await pool.close();
    }
  });

  test('a page not even parsed in time is a timeout', async () => {
    const pool = new HtmlPool(1, standIn(false));
    try {
      await expect(pool.extract(new Uint8Array(), undefined, 500)).rejects.toMatchObject({
        kind: 'timeout',
        message: 'HTML extraction stopped after 0.5 s',
      });
    } finally {
      await pool.close();
    }
  });
});

describe('the HTML worker pool: a worker per core the main thread leaves free, and a slow page does not hold up the rest', () => {
  /** A stand-in worker: a page whose bytes say "slow" takes 1.5 s of CPU; any other answers at once. */
  function timedStandIn(): URL {
    const dir = tempDir('quotecheck-pool-');
    const file = join(dir, 'worker.mjs');
    writeFileSync(
      file,
      `import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ id, bytes }) => {
  const text = new TextDecoder().decode(bytes);
  if (text === 'slow') { const end = Date.now() + 1500; while (Date.now() < end) {} }
  parentPort.postMessage({ id, ok: true, stage: 'full', final: true, full: text, normalizedFull: text, charset: 'utf-8', markup: { notFree: false, scripted: false } });
});
`,
    );
    return pathToFileURL(file);
  }
  const page = (s: string) => new TextEncoder().encode(s);

  test('by default one worker per core, less one for the main thread, never none', () => {
    expect([1, 2, 4, 8].map((cores) => defaultPoolSize(cores))).toEqual([1, 1, 3, 7]);
  });

  test('pages queue behind a busy worker while it is quick; a job past the slow-job time gets a worker beside it, which leaves after', async () => {
    const pool = new HtmlPool(1, timedStandIn(), 300);
    try {
      const t0 = performance.now();
      const slow = pool.extract(page('slow'), undefined, 20_000);
      const quick = pool.extract(page('quick'), undefined, 20_000);
      expect(pool.workers).toBe(1); // the second page waits: the pool's size is 1
      const quickDone = await quick.then(() => performance.now() - t0);
      // Answered beside the slow page (after the slow-job time, about 0.3 s), not behind it (1.5 s).
      expect(quickDone).toBeLessThan(1200);
      expect(pool.workers).toBe(2);
      expect((await slow).views.full).toBe('slow');
      // The slow job is over: the pool is back to its size.
      await new Promise((r) => setTimeout(r, 50));
      expect(pool.workers).toBe(1);
      expect((await pool.extract(page('again'), undefined, 20_000)).views.full).toBe('again');
    } finally {
      await pool.close();
    }
  });
});

describe('pdftotext from a shell: limits and stops', () => {
  /** A stand-in pdftotext (a shell script), in a folder whose name needs quoting. */
  function fakeTool(body: string): string {
    const dir = tempDir("quotecheck it's a tool ");
    const file = join(dir, 'pdftotext');
    writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  }
  const pdf = Buffer.from('%PDF-1.4 stand-in');

  test('its output is capped: past the cap it is stopped, and the note says so', async () => {
    const tool = fakeTool('head -c 5000000 /dev/zero');
    const err = await pdfToText(pdf, { timeoutMs: 20_000, command: tool, maxOutputBytes: 1024 * 1024 }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'failed', message: 'pdftotext output exceeds 1 MB' });
  });

  test("it runs below the run's own priority (batch work must not hold up fetching or the HTML worker)", async () => {
    const tool = fakeTool('echo "niceness $(nice)"');
    const { text } = await pdfToText(pdf, { timeoutMs: 20_000, command: tool });
    expect(text.trim()).toBe(`niceness ${Math.min(19, getPriority() + SHELL_NICENESS)}`);
  });

  test('the run stopping kills it at once', async () => {
    const tool = fakeTool('sleep 30');
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const err = await pdfToText(pdf, { timeoutMs: 20_000, command: tool, signal: controller.signal }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'timeout', message: 'pdftotext stopped: the run was stopped' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('its text and exit status come back as it gave them (arguments passed verbatim, quotes and spaces in paths too)', async () => {
    const tool = fakeTool('printf "args:%s|" "$@"; echo; echo "Ünïcode – text"; echo "warning: odd" >&2');
    const { text, normalized } = await pdfToText(pdf, { timeoutMs: 20_000, command: tool });
    expect(text).toMatch(/^args:-enc\|args:UTF-8\|args:\/.*\/source\.pdf\|args:-\|\nÜnïcode – text\n$/);
    expect(normalized).toContain('ünïcode - text');
    const failing = fakeTool('echo "Syntax Error: bad xref" >&2; exit 1');
    await expect(pdfToText(pdf, { timeoutMs: 20_000, command: failing })).rejects.toMatchObject({
      kind: 'failed',
      message: 'pdftotext failed (exit 1): Syntax Error: bad xref',
    });
  });
});
