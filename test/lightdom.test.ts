// Readability's light DOM as built from htmlparser2: the document's shape, title and inline-style
// answers match a browser's DOM (jsdom) where pages commonly leave tags out or put content astray.
import { JSDOM, VirtualConsole } from 'jsdom';
import { Parser } from 'htmlparser2';
import { describe, expect, test } from 'vitest';
import { inlineStyle, LightTreeBuilder, type LightDocument, type LightElement } from '../src/extract/lightdom.js';
import { htmlToViews } from '../src/extract/html.js';
import { renderText } from '../src/extract/render.js';
import { HTML_PARSER_OPTIONS } from '../src/extract/stream.js';
import { normalize } from '../src/normalize.js';

const { window } = new JSDOM('', { virtualConsole: new VirtualConsole() });
const parser = new window.DOMParser();

function light(html: string): LightDocument {
  const tree = new LightTreeBuilder();
  const p = new Parser({ onopentag: (n, a) => tree.open(n, a), onclosetag: (n) => tree.close(n), ontext: (t) => tree.textChunk(t) }, HTML_PARSER_OPTIONS);
  p.write(html);
  p.end();
  return tree.finish();
}

/** The shape that matters to Readability and the views: tags of the root, head and body children, the title and the body's text. */
function shape(doc: { documentElement: unknown; head: unknown; body: unknown; title: string }) {
  const tags = (el: unknown) => Array.from((el as LightElement).children, (c) => c.localName);
  return {
    root: tags(doc.documentElement),
    head: tags(doc.head),
    body: tags(doc.body),
    title: doc.title,
    text: normalize(renderText(doc.body as Node)),
  };
}

const PAGES: [string, string][] = [
  ['a complete page', '<!doctype html><html lang="en"><head><meta charset="utf-8"><title> A  Title </title></head><body><p>Hello <b>world</b></p></body></html>'],
  ['no html, head or body tags', '<title>T</title><meta name="x" content="y"><p>one</p><p>two</p>'],
  ['no head tag', '<html><title>T</title><body><div>text</div></body></html>'],
  ['no body tag', '<html><head><title>T</title></head><div>a</div><p>b</p></html>'],
  ['only text', 'just some text'],
  ['content after </body>', '<html><head></head><body><p>in</p></body><p>after body</p></html>'],
  ['content after </html>', '<html><head></head><body><p>in</p></body></html><p>after html</p> trailing'],
  ['a div in the head', '<html><head><title>T</title><div>moved</div></head><body><p>b</p></body></html>'],
  ['head content after the head', '<html><head></head><meta name="late"><body><p>b</p></body></html>'],
  ['a second body tag', '<html><body><p>a</p><body><p>b</p></body></html>'],
  ['an SVG title before the page title', '<html><head></head><body><svg><title>icon</title></svg><title>Real</title><p>x</p></body></html>'],
  ['template content is not in the tree', '<html><body><template><p>hidden</p></template><p>shown</p></body></html>'],
  ['entities split text but make one node', '<p>a &amp; b &lt; c&nbsp;d</p>'],
  ['comments are not text', '<html><body><!-- note --><p>a<!-- x -->b</p></body></html>'],
];

describe('light DOM shape = jsdom', () => {
  test.each(PAGES)('%s', (_what, html) => {
    expect(shape(light(html))).toEqual(shape(parser.parseFromString(html, 'text/html')));
  });

  test('a namespace prefix stays in the tag name (<o:p> is not a <p>)', () => {
    const doc = light('<html><body><o:p>word</o:p></body></html>');
    expect(doc.body!.children[0]!.localName).toBe('o:p');
  });

  test('the page text equals jsdom on the same pages', () => {
    for (const [, html] of PAGES) {
      expect(normalize(htmlToViews(html).full)).toBe(normalize(renderText(parser.parseFromString(html, 'text/html').body)));
    }
  });
});

describe('inline style: hidden exactly when a browser says so', () => {
  const STYLES = [
    'display:none', 'DISPLAY: NONE', 'display: none !important', 'display:none;display:block', 'display:none !important; display:block',
    'display: block; visibility: hidden', 'visibility:HIDDEN', 'visibility: hidden ! important', 'color: red', '', 'display:', 'display: none; color: red',
    'display:block;display:none', ' display : none ; ', 'displayx: none', 'display: inline-block',
  ];
  test.each(STYLES.map((s) => [s]))('style="%s"', (style) => {
    const el = window.document.createElement('div');
    el.setAttribute('style', style);
    expect(inlineStyle(style, 'display') === 'none').toBe(el.style.display === 'none');
    expect(inlineStyle(style, 'visibility') === 'hidden').toBe(el.style.visibility === 'hidden');
  });
});

describe('Readability on the light DOM', () => {
  test('finds the article and leaves the page furniture', () => {
    const para = (i: number) => `<p>This is paragraph ${i} of the article, long enough to count as real content for Readability, with commas, clauses, and more words.</p>`;
    const html = `<html><head><title>News</title></head><body><nav><a href="/">Home</a> <a href="/a">About</a></nav><article>${[1, 2, 3, 4, 5, 6].map(para).join('')}</article><footer>Copyright footer text</footer></body></html>`;
    const views = htmlToViews(html);
    expect(views.article).toContain('paragraph 6 of the article');
    expect(views.article).not.toContain('Copyright footer');
    expect(views.full).toContain('Copyright footer');
  });

  test('markup errors stay off stdout (JSDOMParser would print them)', () => {
    const writes: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void writes.push(args.join(' '));
    try {
      const para = '<p>Words and words, and more words, in a paragraph long enough to be an article for Readability to keep.</p>';
      // Readability re-parses with JSDOMParser's own parser (noscript images, retries); nothing may be printed.
      htmlToViews(`<html><body><noscript><img src="a.png" alt='x"y'></noscript><div>${para.repeat(8)}</div></body></html>`);
    } finally {
      console.log = log;
    }
    expect(writes).toEqual([]);
  });
});
