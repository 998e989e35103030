// The production HTML path against an independent reference: the worker's steps (parseHtml, then articleView over
// the light DOM) give the same normalized full and article views as jsdom's DOM and Readability over it, rendered by
// a renderer written here from the HTML standard's rendering section, on every real page we ship and on malformed
// pages written to exercise the parser's error handling. Pages past a DOM cap get the streamed text; it is checked too.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import './support/jsdom-reference.js';
import { describe, expect, test } from 'vitest';
import { decodeHtml } from '../src/extract/decode.js';
import { articleView, DOM_LIMITS, parseHtml } from '../src/extract/html.js';
import { normalize } from '../src/normalize.js';
import { SOURCES } from '../golden/sources.js';
import { FIXTURES, ROOT } from './support/helpers.js';

/** Every HTML page of the real-world corpus: the golden sources and cases, and the rest (gzipped) in test/fixtures/corpus. */
const corpusDirs = [
  join(ROOT, 'golden', 'sources', 'html'),
  join(ROOT, 'golden', 'diagnosis', 'sources'),
  join(FIXTURES, 'corpus'),
];
const htmlFiles = (d: string) =>
  readdirSync(d)
    .filter((f) => /\.html(\.gz)?$/.test(f))
    .map((f) => join(d, f));
const corpus = corpusDirs.flatMap(htmlFiles);
/** Malformed markup as real pages have it: one page per error-handling pattern of the standard's parser. */
const malformed = htmlFiles(join(FIXTURES, 'malformed'));

function pageBytes(path: string): Buffer {
  const bytes = readFileSync(path);
  return path.endsWith('.gz') ? gunzipSync(bytes) : bytes;
}

// ---------------------------------------------------------------------------------------------------------------
// The reference renderer, written from the HTML standard (§15 Rendering) and docs/how-it-decides.md#extraction, independently of
// src/extract/render.ts: a recursive walk over a standard DOM that keeps the text of rendered nodes and breaks
// lines at block boxes and <br>.

/** §15.3.1 Hidden elements: `display: none` in the user agent style sheet (those that can hold text). */
const UA_DISPLAY_NONE = [
  'area',
  'base',
  'basefont',
  'datalist',
  'head',
  'link',
  'meta',
  'noembed',
  'noframes',
  'param',
  'rp',
  'script',
  'style',
  'template',
  'title',
];
/**
 * docs/how-it-decides.md#extraction: the full view is the body's text without script, style, noscript, template. noscript is hidden
 * because browsers run scripts (§15.3.1 hides it under `@media (scripting)`).
 */
const DESIGN_SKIPPED = ['script', 'style', 'noscript', 'template'];
/** §15.4 Replaced elements: their children are fallback content, not rendered (iframe's is raw text; video, audio, canvas with scripting). */
const REPLACED = ['iframe', 'video', 'audio', 'canvas'];
const NOT_RENDERED = new Set([...UA_DISPLAY_NONE, ...DESIGN_SKIPPED, ...REPLACED]);

/** §15.3: elements whose default display is block, list-item, or a table box (each a box of its own). */
const BLOCK_BOXES = new Set([
  // §15.3.2 The page; §15.3.3 Flow content
  'html',
  'body',
  'address',
  'blockquote',
  'center',
  'dialog',
  'div',
  'figure',
  'figcaption',
  'footer',
  'form',
  'header',
  'hr',
  'legend',
  'listing',
  'main',
  'p',
  'plaintext',
  'pre',
  'search',
  'xmp',
  // §15.3.6 Sections and headings
  'article',
  'aside',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hgroup',
  'nav',
  'section',
  // §15.3.7 Lists
  'dir',
  'dd',
  'dl',
  'dt',
  'menu',
  'ol',
  'ul',
  'li',
  // §15.3.8 Tables
  'table',
  'caption',
  'colgroup',
  'col',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  // §15.3.11? fieldset; §15.5.4–5 details and summary; a select shown as a list box has one option per line; frameset
  'fieldset',
  'details',
  'summary',
  'optgroup',
  'option',
  'frameset',
]);

/** SVG 2 §5.9: title, desc and metadata are not rendered; nor are style and script. MathML Core shows only a <semantics>' first child. */
const SVG_NOT_RENDERED = new Set(['title', 'desc', 'metadata', 'style', 'script']);
const MATHML_NOT_RENDERED = new Set(['annotation', 'annotation-xml']);
const HTML_NS = 'http://www.w3.org/1999/xhtml';
const SVG_NS = 'http://www.w3.org/2000/svg';

// What the current code does with content the page hides itself, decided with the standard: `hidden` (§15.3.1
// `[hidden] { display: none }`) and `style="display: none"` hide content from a reader, but the full view is the
// body's text (docs/how-it-decides.md#extraction) and such content is real text a reader reveals (tabs, accordions, "read more"), so
// the full view keeps it, as the production renderer does; the article view drops it where Readability does
// (its _isProbablyVisible reads `hidden`, `aria-hidden` and the style attribute). The reference does the same:
// it does not look at attributes at all.

function referenceText(root: Node): string {
  const lines: string[] = [''];
  const breakLine = () => {
    if (lines[lines.length - 1] !== '') lines.push('');
  };
  const visit = (node: Node) => {
    if (node.nodeType === 3) {
      lines[lines.length - 1] += node.nodeValue ?? '';
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as Element;
    const name = el.localName;
    if (el.namespaceURI === HTML_NS) {
      if (name === 'br') return breakLine();
      if (NOT_RENDERED.has(name)) return;
    } else if (el.namespaceURI === SVG_NS ? SVG_NOT_RENDERED.has(name) : MATHML_NOT_RENDERED.has(name)) {
      return;
    }
    const block = el.namespaceURI === HTML_NS && BLOCK_BOXES.has(name);
    if (block) breakLine();
    for (let child = el.firstChild; child; child = child.nextSibling) visit(child);
    if (block) breakLine();
  };
  for (let child = root.firstChild; child; child = child.nextSibling) visit(child);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// The reference DOM: jsdom's DOMParser (no scripts, no style sheets: scripting disabled, as jsdom parses).
//
// One correction to jsdom's parse5 tree adapter (foster-parented text): test/support/jsdom-reference.ts, imported above.

const { window } = new JSDOM('', { virtualConsole: new VirtualConsole() });
const domParser = new window.DOMParser();

/** The reference views: jsdom's document rendered; Readability over a second copy, its article rendered. */
function reference(html: string): { full: string; article: string | null } {
  const full = normalize(referenceText(domParser.parseFromString(html, 'text/html').body));
  const result = new Readability<Element>(domParser.parseFromString(html, 'text/html'), {
    serializer: (el) => el as Element,
  }).parse();
  return { full, article: result?.content ? normalize(referenceText(result.content)) : null };
}

/** The production views, as the worker computes them (src/extract/worker/html-worker.ts): parseHtml, then articleView. */
function production(html: string): { full: string; article: string | null; tree: boolean } {
  const page = parseHtml(html);
  const article = page.doc ? articleView(page.doc).article : undefined;
  return {
    full: normalize(page.full),
    article: article === undefined ? null : normalize(article),
    tree: page.doc !== undefined,
  };
}

describe("production HTML path = jsdom + the standard's rendering", () => {
  test('every HTML page of the corpus is here: each golden source page (golden/sources.ts), as many shared-corpus pages as test/fixtures/README.md says, and the malformed pages', () => {
    const goldenPages = Object.values(SOURCES)
      .filter((d) => d.file.startsWith('html/'))
      .map((d) => join(ROOT, 'golden', 'sources', d.file));
    expect(goldenPages.length).toBeGreaterThan(0);
    expect(corpus).toEqual(expect.arrayContaining(goldenPages));
    const said = /the (\d+) real pages of the shared corpus/.exec(readFileSync(join(FIXTURES, 'README.md'), 'utf8'));
    expect(said, 'test/fixtures/README.md names the count of corpus/*.html.gz').not.toBeNull();
    expect(htmlFiles(join(FIXTURES, 'corpus'))).toHaveLength(Number(said![1]));
    expect(malformed.length).toBeGreaterThanOrEqual(20);
  });

  test.each(corpus.map((p) => [p.slice(ROOT.length + 1)]))('%s', (page) => {
    const html = decodeHtml(pageBytes(join(ROOT, page))).text;
    const ref = reference(html);
    const fast = production(html);
    expect(fast.tree).toBe(true);
    expect(fast.full).toBe(ref.full);
    expect(fast.article).toBe(ref.article);
    // The streaming parser alone (what a page past the DOM caps gets) gives the same full text on real pages.
    expect(normalize(parseHtml(html, { ...DOM_LIMITS, maxBytes: -1 }).full)).toBe(ref.full);
  });

  test.each(malformed.map((p) => [p.slice(ROOT.length + 1)]))('%s', (page) => {
    const html = decodeHtml(pageBytes(join(ROOT, page))).text;
    const ref = reference(html);
    const fast = production(html);
    expect(fast.full).toBe(ref.full);
    expect(fast.article).toBe(ref.article);
  });

  test('the malformed pages exercise the article view too (Readability finds an article on nearly all of them)', () => {
    const withArticle = malformed.filter((p) => reference(decodeHtml(pageBytes(p)).text).article !== null);
    expect(withArticle.length).toBeGreaterThanOrEqual(malformed.length - 2);
  });
});

describe('what the malformed pages show (both sides agree on these; here is what they agree on)', () => {
  const views = (name: string) => production(decodeHtml(pageBytes(join(FIXTURES, 'malformed', name))).text);

  test('old comment idiom in scripts: no script text leaks into either view', () => {
    const v = views('script-comment-idiom.html');
    for (const leak of ['document.write', 'counter.js', 'nested', 'var n', 'd = 1', '<!--<script>']) {
      expect(v.full).not.toContain(leak);
      expect(v.article ?? '').not.toContain(leak);
    }
    expect(v.full).toContain('the new dates would be fixed once the strike was over');
    expect(v.article).toContain('for the unveiling of a sculpture');
    // `<scr" + "ipt` never starts the double escaped state, so in the escaped state the first `</script>` ends the
    // script, and what follows is text, in a browser as here.
    expect(v.full).toContain('"); } --> twenty-four visitors');
  });

  test('an unclosed comment in a script at the end of the page: the rest is script', () => {
    const v = views('script-unclosed-comment.html');
    expect(v.full).toContain('consider the request.');
    expect(v.full).not.toContain('everything after the unclosed comment');
  });

  test('misnested formatting: the adoption agency keeps the words where a browser shows them', () => {
    const v = views('misnested-formatting.html');
    expect(v.full).toContain('mill street bridge, ending a dispute');
    expect(v.full).toContain('could grow by a fifth before the bridge opens');
    expect(v.article).toContain('mill street bridge, ending a dispute');
  });

  test('stray text in a table is foster-parented before the table', () => {
    const v = views('table-stray-text.html');
    expect(v.full.indexOf('rainfall in millimetres, by station:')).toBeLessThan(
      v.full.indexOf('station january february march'),
    );
    expect(v.full).toContain('that wet winters hydrologists warned do not guarantee dry summers.');
  });

  test('an unclosed link across paragraphs is reopened in each (the adoption agency): a paragraph all link is dropped as navigation', () => {
    const v = views('unclosed-anchor.html');
    // As over a browser's DOM (Firefox's Reader View): the paragraph wholly inside the reopened <a> has a link
    // density of 1, so Readability drops it; the full view keeps it.
    expect(v.full).toContain('the walk starts at the basin behind the old warehouse');
    expect(v.article).not.toContain('the walk starts at the basin behind the old warehouse');
    expect(v.article).toContain('most walkers take about five hours');
  });

  test('template, noscript, RCDATA, plaintext, select, entities, NUL, image, forms, deep nesting, ruby', () => {
    expect(views('template-content.html').full).not.toContain('template');
    expect(views('noscript-head-text.html').full).toContain('your browser does not support javascript'); // scripting disabled: it leaves the head
    expect(views('rcdata.html').full).toContain('tags like <b>this</b> and </p> stay text, & entities are decoded.');
    expect(views('plaintext.html').full).toContain(
      '* fixed: </plaintext> in a file name was shown incorrectly. </div>',
    );
    // In a select only option, optgroup and hr count: the <b> and <div> tags are dropped, their text stays (in the open option).
    expect(views('select-content.html').full).toContain(
      'weekdays only monday tuesdaywednesday is not offered thursday friday evening',
    );
    expect(views('entities.html').full).toContain(
      '"at&t-free zone" ¬it; and ∉ shows how browsers read entities without a semicolon: &ersand, <3 and >5.',
    );
    expect(views('nul-bytes.html').full).toContain('text with a nullcharacter between words, and onemore');
    expect(views('image-tag.html').full).toContain('a photographer stood on the same spot');
    expect(views('nested-forms.html').article).toContain('membership costs five pounds');
    expect(views('deep-inline.html').article).toContain(
      'forty-two residents and all seven parish councillors present.',
    );
    expect(views('rendering-lists.html').full).toContain('富士山ふじさん');
    expect(views('rendering-lists.html').full).not.toContain('does not support');
    expect(views('svg-mathml.html').full).not.toContain('clock icon');
    expect(views('svg-mathml.html').full).not.toContain('displaystyle');
    expect(views('svg-mathml.html').full).toContain('angle θ');
    expect(views('hidden-content.html').full).toContain('this paragraph has the hidden attribute.');
    expect(views('hidden-content.html').article).not.toContain('this paragraph has the hidden attribute.');
    expect(views('frameset.html').full).toBe('');
  });
});
