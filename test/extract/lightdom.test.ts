// Readability's light DOM as the tree builder makes it: the same tree as a browser's DOM (jsdom, through parse5) on
// well-formed pages, on pages that leave tags out, and on each error-handling pattern of the HTML standard's parser,
// down to the doctype, SVG and MathML names and attributes, and fragments in foreign contexts; the tokenizer's
// script data states; the DOM operations Readability relies on.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JSDOM, VirtualConsole } from 'jsdom';
import { foreignContent } from 'parse5';
import '../support/jsdom-reference.js';
import { describe, expect, test } from 'vitest';
import { rng } from '../../bench/random.js';
import { articleView, htmlToViews, parseHtml } from '../../src/extract/html.js';
import { buildDocument, inlineStyle, type LightDocument, type LightElement } from '../../src/extract/lightdom/index.js';
import { renderText } from '../../src/extract/render.js';
import { scriptDataEnd } from '../../src/extract/script-data.js';
import { normalize } from '../../src/normalize.js';
import { FIXTURES, ROOT } from '../support/helpers.js';
import { type DumpNode, dump } from '../support/tree-dump.js';

/** A whole page as a light document, without limits. */
const parseDocument = (html: string) => buildDocument(html).doc!;

const { window } = new JSDOM('', { virtualConsole: new VirtualConsole() });
const parser = new window.DOMParser();
const jsdom = (html: string) => parser.parseFromString(html, 'text/html');

/** The shape that matters to Readability and the views: tags of the root, head and body children, the title and the body's text. */
function shape(doc: { documentElement?: unknown; head?: unknown; body?: unknown; title: string }) {
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
  [
    'a complete page',
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title> A  Title </title></head><body><p>Hello <b>world</b></p></body></html>',
  ],
  ['no html, head or body tags', '<title>T</title><meta name="x" content="y"><p>one</p><p>two</p>'],
  ['no head tag', '<html><title>T</title><body><div>text</div></body></html>'],
  ['no body tag', '<html><head><title>T</title></head><div>a</div><p>b</p></html>'],
  ['only text', 'just some text'],
  ['content after </body>', '<html><head></head><body><p>in</p></body><p>after body</p></html>'],
  ['content after </html>', '<html><head></head><body><p>in</p></body></html><p>after html</p> trailing'],
  ['a div in the head', '<html><head><title>T</title><div>moved</div></head><body><p>b</p></body></html>'],
  ['head content after the head', '<html><head></head><meta name="late"><body><p>b</p></body></html>'],
  ['a second body tag', '<html><body><p>a</p><body><p>b</p></body></html>'],
  [
    'an SVG title before the page title',
    '<html><head></head><body><svg><title>icon</title></svg><title>Real</title><p>x</p></body></html>',
  ],
  ['template content is not in the tree', '<html><body><template><p>hidden</p></template><p>shown</p></body></html>'],
  ['entities split text but make one node', '<p>a &amp; b &lt; c&nbsp;d</p>'],
  ['comments are not text', '<html><body><!-- note --><p>a<!-- x -->b</p></body></html>'],
];

describe('light DOM shape = jsdom', () => {
  test.each(PAGES)('%s', (_what, html) => {
    expect(shape(parseDocument(html))).toEqual(shape(jsdom(html)));
    expect(dump(parseDocument(html) as unknown as DumpNode)).toBe(dump(jsdom(html) as unknown as DumpNode));
  });

  test('a namespace prefix stays in the tag name (<o:p> is not a <p>)', () => {
    const doc = parseDocument('<html><body><o:p>word</o:p></body></html>');
    expect(doc.body!.children[0]!.localName).toBe('o:p');
    expect(doc.body!.children[0]!.tagName).toBe('O:P');
  });

  test('the page text equals jsdom on the same pages', () => {
    for (const [, html] of PAGES) {
      expect(normalize(htmlToViews(html).full)).toBe(normalize(renderText(jsdom(html).body)));
    }
  });
});

/** One case per error-handling pattern of the standard's tree construction (§13.2.6), in miniature. */
const PATTERNS: [string, string][] = [
  ['misnested formatting and blocks (adoption agency)', '<b><p>x</b>y</p>'],
  ['a block inside a formatting element, closed by its end tag', '<p><strong>cost<div>note</div>more</strong></p>'],
  ['</p> without <p>', '<div>a</p>b</div>'],
  ['an unclosed <a> across paragraphs (reconstructed in each)', '<p><a href=/m>map<p>next<p>last'],
  ['a second <a> closes the first', '<a href=1>one<a href=2>two</a>'],
  ["Noah's ark: at most three identical formatting entries", '<b><b><b><b><b><p>x'],
  ['stray text in a table (foster parenting)', '<table>caption text<tr><td>a</td>stray<td>b</td></tr>more</table>'],
  ['a block in a table (foster parenting)', '<table><tr><td>a</td></tr><div>moved out</div></table>'],
  ['formatting fostered out of a table, then misnested', '<table><b><tr><td>a</b>b</td></tr></table>c'],
  ['implied tbody and tr', '<table><td>a<td>b<tr><th>c</table>'],
  ['a table inside a table closes it', '<table><tr><td><table><tr><td>in</table></td></tr><table><tr><td>next'],
  [
    '<template> in the head and the body',
    '<head><template><p>t</p></template></head><body><template><tr><td>x</td></tr></template><p>y',
  ],
  [
    '<noscript> in the head, scripting disabled',
    '<head><noscript><img src=p><p>nojs</p></noscript><meta name=a></head><p>b',
  ],
  ['<noscript> text in the head', '<head><noscript>no js here</noscript></head>x'],
  ['<noscript> in the body holds markup', '<p>a<noscript><p>b</p></noscript>c'],
  ['a frameset document', '<head></head><frameset><frame src=a><noframes><p>nf</p></noframes></frameset><p>gone'],
  [
    'svg with title, desc, text and breakout',
    '<p>x<svg><title>t</title><desc>d</desc><text>label<tspan>s</tspan></text><foreignObject><p>fo</p></foreignObject><p>out</svg>y',
  ],
  [
    'math with semantics and annotation',
    '<p><math><semantics><mrow><mi>x</mi><mo>=</mo><mn>2</mn></mrow><annotation encoding="application/x-tex">x=2</annotation></semantics></math></p>',
  ],
  ['CDATA in svg is text, in HTML a comment', '<svg><text><![CDATA[a<b]]></text></svg><p><![CDATA[gone]]>kept'],
  ['React comments between text runs', '<div>From <!-- -->1 July<!-- -->, four<!--$--> bins</div>'],
  ['<plaintext> takes the rest of the page', '<p>a<plaintext><b>x</b></plaintext>y'],
  ['<textarea> and <title> are RCDATA', '<textarea>\n<b>x</b>&amp;</textarea><title>t&amp;<i>u</i></title>'],
  [
    '<xmp>, <iframe>, <noembed> are raw text',
    '<xmp><b>a</b>&amp;</xmp><iframe><p>b</p></iframe><noembed><i>c</i></noembed>',
  ],
  ['<select> keeps only options', '<select><b>x</b><option>o<div>d</div><optgroup label=g><option>p</select>z'],
  ['<select> in a table', '<table><tr><td><select><option>a<tr><td>b</table>'],
  ['<style> in a <select> is ignored, its content is markup', '<select><style><option>x</option></style></select>'],
  [
    'entities without semicolons',
    '<p>&amp &copy2024 &notit; &notin; &ampersand &lt3 &#128; &#0; &#xD800; &#x110000;</p><a href="?a=1&para=2&copy=3">l</a>',
  ],
  ['NUL bytes', '<p>a\0b</p><script>x\0y</script><svg><text>c\0d</text></svg>'],
  ['<image> is <img>', '<p>a<image src=x>b</p><svg><image href=y /></svg>'],
  ['nested forms', '<form id=a><p>x<form id=b><p>y</form>z</form>w'],
  ['deep inline nesting', `<p>${'<span><font>'.repeat(150)}deep${'</font></span>'.repeat(40)}</p>after`],
  [
    'misplaced html, head and body tags',
    'stray<!doctype html><html><head><div>d</div></head><meta name=x><body class=a><p>p<body class=b></body><p>after</html><p>after html',
  ],
  ['a list item closes an open one, not across a div', '<ul><li>a<div><li>b</div><li>c</ul>'],
  ['headings close headings', '<h1>a<h2>b</h1>c'],
  ['<pre> drops a leading newline', '<pre>\nline</pre><pre>\n\nline2</pre><listing>\nl</listing>'],
  ['<button> in a button closes it', '<button>a<button>b</button>c'],
  ['quirks mode: <table> does not close <p>', '<p>a<table><tr><td>b</table>c'],
  ['no-quirks: <table> closes <p>', '<!doctype html><p>a<table><tr><td>b</table>c'],
  ['ruby', '<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>'],
  ['<col> and <caption>', '<table><caption>c<col><colgroup><col></colgroup><tr><td>x</table>'],
];

describe('each error-handling pattern: the same tree as jsdom', () => {
  test.each(PATTERNS)('%s', (_what, html) => {
    expect(dump(parseDocument(html) as unknown as DumpNode)).toBe(dump(jsdom(html) as unknown as DumpNode));
  });

  test.each(readdirSync(join(FIXTURES, 'malformed')).map((f) => [f]))('malformed page %s', (file) => {
    const html = readFileSync(join(FIXTURES, 'malformed', file), 'utf8');
    expect(dump(parseDocument(html) as unknown as DumpNode)).toBe(dump(jsdom(html) as unknown as DumpNode));
  });

  test('random tag soup (seeded): the same tree as jsdom', () => {
    const tags =
      'p,b,i,a,div,span,table,tr,td,th,tbody,caption,colgroup,col,li,ul,dd,dt,h1,h2,form,select,option,optgroup,button,pre,textarea,title,script,style,svg,math,mi,foreignObject,desc,template,noscript,head,body,html,br,img,image,hr,input,nobr,font,em,u,object,marquee,frameset,frame,noframes,plaintext,xmp,iframe,ruby,rt,rp,center,section'.split(
        ',',
      );
    const texts = ['x', 'y z', ' ', '\n', '&amp;', '&nbsp;', '<!-- c -->', '&notit;'];
    const random = rng(20240601);
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
    const differing: string[] = [];
    for (let k = 0; k < 600; k++) {
      const parts = random() < 0.5 ? ['<!doctype html>'] : [];
      for (let j = 3 + Math.floor(random() * 25); j > 0; j--) {
        const r = random();
        parts.push(
          r < 0.45
            ? `<${pick(tags)}${random() < 0.1 ? ' id=q' : ''}${random() < 0.05 ? '/' : ''}>`
            : r < 0.75
              ? `</${pick(tags)}>`
              : pick(texts),
        );
      }
      const html = parts.join('');
      if (dump(parseDocument(html) as unknown as DumpNode) !== dump(jsdom(html) as unknown as DumpNode))
        differing.push(html);
    }
    expect(differing).toEqual([]);
  });
});

/** DOCTYPEs: the name, the identifiers in either quotes, missing whitespace, bogus ones, and the quirks each selects. */
const DOCTYPES: string[] = [
  '<!DOCTYPE html>',
  '<!doctype HTML>',
  '<!DoCtYpE hTmL >',
  '<!DOCTYPEhtml>',
  '<!DOCTYPE>',
  '<!DOCTYPE >',
  '<!DOCTYPE html5>',
  '<!DOCTYPE svg>',
  '<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">',
  '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">',
  '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">',
  '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">',
  "<!DOCTYPE html PUBLIC '-//W3O//DTD W3 HTML Strict 3.0//EN//'>",
  '<!DOCTYPE html PUBLIC "-//IETF//DTD HTML 2.0//EN">',
  '<!DOCTYPE html PUBLIC "html">',
  '<!DOCTYPE html SYSTEM "http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd">',
  "<!DOCTYPE html SYSTEM 'about:legacy-compat'>",
  '<!DOCTYPE html PUBLIC>',
  '<!DOCTYPE html SYSTEM>',
  '<!DOCTYPE html PUBLIC"-//W3C//DTD HTML 4.01//EN"\'sys\'>',
  '<!DOCTYPE html SYSTEM"sys">',
  '<!DOCTYPE html PUBLIC "abrupt>',
  '<!DOCTYPE html PUBLIC "pub" "abrupt>',
  '<!DOCTYPE html SYSTEM "sys" trailing junk>',
  '<!DOCTYPE html PUBLIC "pub" junk>',
  '<!DOCTYPE html PUBLIC x>',
  '<!DOCTYPE html junk>',
  '<!DOCTYPE html publicx "a">',
  '<!DOCTYPE html\tPUBLIC\n"a\r\nb"\r"c\rd">',
  '<!DOCTYPE h\0tml PUBLIC "a\0b" "c\0d">',
  '<!-- first --><!DOCTYPE html>',
  ' \n<!DOCTYPE html><!DOCTYPE second>',
  'text<!DOCTYPE html>',
  '<html><!DOCTYPE html>',
];

/** Every name of the standard's "adjust SVG attributes" table, as the tokenizer gives it (lowercase). */
const SVG_ATTRIBUTE_TABLE =
  'attributename attributetype basefrequency baseprofile calcmode clippathunits diffuseconstant edgemode filterunits glyphref gradienttransform gradientunits kernelmatrix kernelunitlength keypoints keysplines keytimes lengthadjust limitingconeangle markerheight markerunits markerwidth maskcontentunits maskunits numoctaves pathlength patterncontentunits patterntransform patternunits pointsatx pointsaty pointsatz preservealpha preserveaspectratio primitiveunits refx refy repeatcount repeatdur requiredextensions requiredfeatures specularconstant specularexponent spreadmethod startoffset stddeviation stitchtiles surfacescale systemlanguage tablevalues targetx targety textlength viewbox viewtarget xchannelselector ychannelselector zoomandpan'.split(
    ' ',
  );
/** The "adjust foreign attributes" table's names, and names like them that are not in it. */
const FOREIGN_ATTRIBUTES =
  'xlink:actuate xlink:arcrole xlink:href xlink:role xlink:show xlink:title xlink:type xml:lang xml:space xmlns xmlns:xlink'.split(
    ' ',
  );
const NOT_FOREIGN_ATTRIBUTES = ['xlink:foo', 'xml:base', 'xmlns:foo', 'xlink', 'href'];

/** The element a fragment is parsed in: the last, deepest element of a document made of `host`. */
function contextOf(doc: { body?: unknown }): DumpNode & { innerHTML: string } {
  let el = doc.body as { children: ArrayLike<unknown> };
  while (el.children.length > 0) el = el.children[el.children.length - 1] as typeof el;
  return el as unknown as DumpNode & { innerHTML: string };
}
/** The fragment `markup` parsed in the context the end of `host` gives, by the light DOM and by jsdom (innerHTML), dumped. */
function fragmentDumps(host: string, markup: string): [string, string] {
  const page = `<!doctype html><body>${host}`;
  const ours = contextOf(parseDocument(page));
  ours.innerHTML = markup;
  const theirs = contextOf(jsdom(page));
  theirs.innerHTML = markup;
  return [dump(ours), dump(theirs)];
}

/** Context elements for fragments: SVG and MathML ones, their integration points, and an HTML one. */
const FOREIGN_CONTEXTS = [
  '<svg>',
  '<svg><g>',
  '<svg><clippath>',
  '<svg><foreignObject>',
  '<svg><desc>',
  '<svg><title>',
  '<math>',
  '<math><mrow>',
  '<math><mi>',
  '<math><mtext>',
  '<math><annotation-xml encoding="text/html">',
  '<math><annotation-xml encoding="APPLICATION/XHTML+XML">',
  '<math><annotation-xml encoding="image/svg+xml">',
  '<math><annotation-xml>',
  '<div>',
];

describe('the doctype, SVG and MathML names, and fragments in foreign contexts: the same tree as jsdom', () => {
  test.each(DOCTYPES.map((d) => [d]))('doctype %j (and the quirks mode it selects)', (doctype) => {
    const html = `${doctype}<p>a<table><tr><td>b</table>`;
    const ours = parseDocument(html);
    const ref = jsdom(html);
    expect(dump(ours as unknown as DumpNode)).toBe(dump(ref as unknown as DumpNode));
    expect((ours.doctype as unknown as DocumentType | undefined)?.name).toBe(ref.doctype?.name);
  });

  test('a doctype leaves the text, the title and Readability as they are', () => {
    const para =
      '<p>Words and words, and more words, in a paragraph long enough to be an article for Readability to keep.</p>';
    const body = `<html><head><title>T</title></head><body><article>${para.repeat(6)}</article></body></html>`;
    const withDoctype = htmlToViews(`<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x">${body}`);
    expect(withDoctype).toEqual(htmlToViews(body));
    expect(withDoctype.article).toContain('a paragraph long enough');
  });

  test("every SVG attribute name of the standard's table, on SVG and on MathML and HTML elements", () => {
    const attrs = SVG_ATTRIBUTE_TABLE.map((n, i) => `${i % 2 ? n.toUpperCase() : n}=${i}`).join(' ');
    const html = `<svg ${attrs}><g ${attrs}/></svg><math ${attrs}><mi ${attrs}></mi></math><div ${attrs}></div>`;
    const ours = parseDocument(html);
    expect(dump(ours as unknown as DumpNode)).toBe(dump(jsdom(html) as unknown as DumpNode));
    expect((ours.body!.children[0] as unknown as Element).getAttribute('viewBox')).toBe(
      String(SVG_ATTRIBUTE_TABLE.indexOf('viewbox')),
    );
  });

  test('definitionURL on MathML elements only', () => {
    const html =
      '<math definitionurl=a><mi DEFINITIONURL=b></mi><annotation-xml encoding=text/html><p definitionurl=c></annotation-xml></math><svg definitionurl=d></svg>';
    expect(dump(parseDocument(html) as unknown as DumpNode)).toBe(dump(jsdom(html) as unknown as DumpNode));
  });

  test('xlink:, xml: and xmlns attributes: namespace and prefix on SVG and MathML elements, plain names on HTML ones', () => {
    const attrs = [...FOREIGN_ATTRIBUTES, ...NOT_FOREIGN_ATTRIBUTES]
      .map((n, i) => `${i % 3 ? n : n.toUpperCase()}="${i}"`)
      .join(' ');
    const html = `<svg ${attrs}><a ${attrs}><foreignObject ${attrs}><p ${attrs}></p></foreignObject></a></svg><math ${attrs}></math><div ${attrs}></div>`;
    const ours = parseDocument(html);
    expect(dump(ours as unknown as DumpNode)).toBe(dump(jsdom(html) as unknown as DumpNode));
    // The qualified name is what getAttribute matches, in jsdom and here.
    expect((ours.body!.children[0] as unknown as Element).getAttribute('xlink:href')).toBe(
      String(FOREIGN_ATTRIBUTES.indexOf('xlink:href')),
    );
  });

  test("every SVG tag name of the standard's table, in SVG (adjusted), MathML and HTML (not), with end tags in any case", () => {
    const names = [...foreignContent.SVG_TAG_NAMES_ADJUSTMENT_MAP.keys()];
    expect(names).toContain('fedropshadow');
    const tags = names.map((n, i) => (i % 2 ? `<${n}/>` : `<${n.toUpperCase()}>x</${n}>`)).join('');
    const html = `<svg>${tags}</svg><math>${tags}</math><div>${tags}</div>`;
    expect(dump(parseDocument(html) as unknown as DumpNode)).toBe(dump(jsdom(html) as unknown as DumpNode));
  });

  test.each([
    ['in SVG after </html>', '<p>a<svg><g></html><!--in g--><mi><!--in mi--></svg><!--after-->'],
    ['in MathML after </html>', '<math><mrow>x</html><!--in mrow--><mi><!--in mi--></math><!--after-->'],
    ['in SVG after </body>', '<svg><g></body><!--in g--></svg><!--after-->'],
    [
      'in an integration point, where </html> is ignored',
      '<svg><foreignObject></html><!--in foreignObject--><p>x<!--in p--></svg><!--after-->',
    ],
  ])('comments where SVG or MathML is still open go in the current node: %s', (_what, html) => {
    expect(dump(parseDocument(html) as unknown as DumpNode)).toBe(dump(jsdom(html) as unknown as DumpNode));
  });

  const FRAGMENTS = [
    '<p>para</p><b>bold</b>text<div>d</div>',
    '<g><path d=1 /></g><clippath/><linearGradient viewbox=v></lineargradient><foreignobject><div>x</div></foreignobject>after',
    '<svg viewbox="0 0 1 1" xlink:href=h><rect/></svg>',
    '<mi definitionurl=d>x</mi><mglyph/><malignmark/>text<mtext><b>t</b></mtext>',
    '<font color=red>f</font><font>g</font>',
    '</p>after</br>x</g>y</svg>z</math>w',
    '<title>t<b>x</b></title><style>s<i>{}</i></style><script>1<2</script><textarea><u>r</u></textarea>',
    '<a xlink:href=u definitionurl=d attributename=a>l</a>',
    '<table><tr><td>x</table>',
    '<math><mi>m</mi></math><svg><desc><p>d</desc></svg>',
    '<annotation-xml encoding=text/html><p>h</p></annotation-xml><annotation-xml><p>not</p></annotation-xml>',
    '<desc>d<p>in desc</p></desc><mi><svg><g/></svg></mi>',
  ];
  test.each(FOREIGN_CONTEXTS.map((c) => [c]))('fragments parsed in the context %s', (host) => {
    for (const markup of FRAGMENTS) {
      const [ours, theirs] = fragmentDumps(host, markup);
      expect(ours, markup).toBe(theirs);
    }
  });
});

/** Random markup over HTML, SVG and MathML: mixed-case names, the attributes the standard's tables adjust, integration points, breakouts. */
function foreignSoup(random: () => number, length: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  // <svg> and <math> often, then the other foreign names (SVG's and MathML's, and the HTML names SVG also has),
  // then HTML names, most of which break out of foreign content; rarely, the names whose HTML elements read the
  // rest of the page as text (SVG's <title> among them).
  const foreignTags =
    'mi,mo,mn,ms,mtext,mglyph,malignmark,mrow,annotation-xml,foreignObject,desc,clipPath,linearGradient,feDropShadow,textPath,g,path,text,tspan,a'.split(
      ',',
    );
  const htmlTags =
    'p,b,i,div,span,table,tr,td,font,br,ul,li,select,option,em,body,html,head,template,h1,pre,img,image,input,nobr,center,object,frameset'.split(
      ',',
    );
  const textTags = 'title,style,script,textarea,noscript,xmp,iframe'.split(',');
  const tag = () => {
    const r = random();
    return r < 0.2 ? pick(['svg', 'math']) : r < 0.7 ? pick(foreignTags) : r < 0.93 ? pick(htmlTags) : pick(textTags);
  };
  const attrs = [
    'viewBox="0 0 1 1"',
    'VIEWBOX=v',
    'preserveaspectratio=x',
    'attributeName=a',
    'definitionurl=d',
    'definitionURL=D',
    'xlink:href=#h',
    'XLINK:HREF=u',
    'xlink:title=t',
    'xml:lang=en',
    'xml:space=preserve',
    'xml:base=b',
    'xmlns="http://www.w3.org/2000/svg"',
    'xmlns:xlink=x',
    'xmlns:foo=f',
    'encoding=text/html',
    'encoding="application/xhtml+xml"',
    'encoding=TEXT/HTML',
    'encoding=image/svg+xml',
    'color=red',
    'face=f',
    'size=1',
    'id=q',
  ];
  const texts = ['x', 'y z', ' ', '\n', '&amp;', '<!-- c -->'];
  const mixedCase = (name: string) =>
    random() < 0.2 ? name.toUpperCase() : random() < 0.2 ? name.toLowerCase() : name;
  const parts: string[] = [];
  for (let j = length; j > 0; j--) {
    const r = random();
    if (r < 0.5) {
      let start = `<${mixedCase(tag())}`;
      for (let a = Math.floor(random() * 3); a > 0; a--) start += ` ${pick(attrs)}`;
      parts.push(`${start}${random() < 0.1 ? '/' : ''}>`);
    } else if (r < 0.75) parts.push(`</${mixedCase(tag())}>`);
    else parts.push(pick(texts));
  }
  return parts.join('');
}

describe('random documents and fragments with foreign content (seeded): the same tree as jsdom', () => {
  test('random tag soup over HTML, SVG and MathML, after random doctypes', () => {
    const random = rng(20261201);
    const differing: string[] = [];
    for (let k = 0; k < 600; k++) {
      const doctype = random() < 0.6 ? DOCTYPES[Math.floor(random() * DOCTYPES.length)]! : '';
      const html = doctype + foreignSoup(random, 3 + Math.floor(random() * 25));
      if (dump(parseDocument(html) as unknown as DumpNode) !== dump(jsdom(html) as unknown as DumpNode))
        differing.push(html);
    }
    expect(differing).toEqual([]);
  });

  test('random DOCTYPEs (keywords, identifiers, quotes, whitespace, CR and NUL in any order): the same doctype node and quirks mode', () => {
    const pieces = [
      ' ',
      '\t',
      '\n',
      '\r\n',
      '\r',
      '\f',
      'html',
      'HTML',
      'x',
      '-',
      '\0',
      'PUBLIC',
      'public',
      'SYSTEM',
      'system',
      '"',
      "'",
    ];
    const ids = [
      '"-//W3C//DTD HTML 4.01 Transitional//EN"',
      "'-//W3O//DTD W3 HTML Strict 3.0//EN//'",
      '"http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd"',
      '"about:legacy-compat"',
    ];
    const random = rng(20261203);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const differing: string[] = [];
    for (let k = 0; k < 600; k++) {
      let doctype = pick(['<!DOCTYPE', '<!doctype', '<!DocType']);
      for (let j = Math.floor(random() * 9); j > 0; j--) doctype += random() < 0.2 ? pick(ids) : pick(pieces);
      const html = `${doctype}><p>a<table><tr><td>b</table>`;
      if (dump(parseDocument(html) as unknown as DumpNode) !== dump(jsdom(html) as unknown as DumpNode))
        differing.push(html);
    }
    expect(differing).toEqual([]);
  });

  test('random fragments in SVG, MathML and HTML contexts', () => {
    const random = rng(20261202);
    const differing: string[] = [];
    for (let k = 0; k < 400; k++) {
      const host = FOREIGN_CONTEXTS[Math.floor(random() * FOREIGN_CONTEXTS.length)]!;
      const markup = foreignSoup(random, 2 + Math.floor(random() * 15));
      const [ours, theirs] = fragmentDumps(host, markup);
      if (ours !== theirs) differing.push(`${host} | ${markup}`);
    }
    expect(differing).toEqual([]);
  });
});

describe("script data: the standard's escaped and double escaped states (htmlparser2 alone ends a script at the first </script)", () => {
  /** Which `</script` (counting from 1, any case) ends the script; 0 when none does. */
  const endsAt = (script: string, nth: number) => {
    let at = -1;
    for (let k = 0; k < nth; k++) at = script.toLowerCase().indexOf('</script', at + 1);
    return nth === 0 ? -1 : at;
  };
  test.each([
    ['plain script', 'var a = 1;</script>', 1],
    ['</script> needs whitespace, / or > after it', 'a</scriptx></script >', 2],
    ['<!-- ... --> without <script>: the first </script> ends it', '<!-- a --></script>', 1],
    ['escaped: </script> still ends it', '<!-- document.write("x</script>"); --></script>', 1],
    [
      'double escaped: <script> inside <!-- keeps </script> in',
      '<!-- document.write("<script src=x></script>") --></script>',
      2,
    ],
    ['--> leaves the escaped states', '<!--<script>--></script>', 1],
    [
      'double escaped, closed, then back in escaped: the next </script> ends it',
      '<!--<script></script>x</script>after --></script>',
      2,
    ],
    ['nested script opened and closed twice', '<!--<script>a</script><script>b</script>--></script>', 3],
    ['case-insensitive names', '<!--<SCRIPT>x</ScRiPt>--></SCRIPT>', 2],
    ['<scr" + "ipt is not a script tag', '<!-- "<scr"+"ipt>" --></script>', 1],
    ['<!--> is an empty escape', '<!-->x</script>', 1],
    ['an unclosed comment with a script inside runs to the end', '<!--<script>x</script> no end', 0],
    ['no end tag at all', 'var x = "<!--";', 0],
    ['</script at the very end is not an end tag', 'x</script', 0],
  ])('%s', (_what, script, nth) => {
    expect(scriptDataEnd(script, 0)).toBe(endsAt(script, nth));
    // The charset scan runs the same scanner on the bytes: the same answer.
    expect(scriptDataEnd(Buffer.from(script, 'latin1'), 0)).toBe(endsAt(script, nth));
  });

  test.each([
    ['<script><!-- document.write("<script src=x></script>") --></script><p>after</p>'],
    ['<script><!--<script>--></script>x'],
    ['<script><!--<script></script>--></script>y</script>z'],
    ['<p>a<script><!-- <script> </script> not yet --></script>b</p>'],
    ['<p>a<script><!--<script>unclosed'],
    ['<script>a</script><script><!--</script>b'],
  ])('parsed as jsdom parses it: %s', (html) => {
    expect(dump(parseDocument(html) as unknown as DumpNode)).toBe(dump(jsdom(html) as unknown as DumpNode));
    // and the streamed view (pages past the caps) hides the script text too
    expect(normalize(parseHtml(html, { maxBytes: -1, maxElements: 1, maxDepth: 1, maxChildren: 1 }).full)).toBe(
      normalize(renderText(jsdom(html).body)),
    );
  });
});

describe("JSDOMParser's shared prototypes: adjusted by an explicit call, not by importing the light DOM", () => {
  test('importing the light DOM leaves them as they are; its entry points adjust them, once', () => {
    // In a process of its own (here, the suite has long adjusted them), on the compiled light DOM.
    const lightdom = pathToFileURL(join(ROOT, 'dist', 'src', 'extract', 'lightdom', 'index.js')).href;
    const script = `
      import JSDOMParser from '@mozilla/readability/JSDOMParser.js';
      const doc = new JSDOMParser().parse('<p></p>', 'http://localhost/');
      const el = doc.children[0];
      const protos = {
        Parser: Object.getPrototypeOf(new JSDOMParser()),
        Document: Object.getPrototypeOf(doc),
        Element: Object.getPrototypeOf(el),
        Node: Object.getPrototypeOf(Object.getPrototypeOf(doc.createTextNode(''))),
        Style: Object.getPrototypeOf(el.style),
      };
      const snapshot = () => Object.entries(protos).map(([name, p]) => [name, Object.getOwnPropertyDescriptors(p)]);
      const changed = (a, b) => a.flatMap(([name, before], i) => {
        const after = b[i][1];
        return [...new Set([...Object.keys(before), ...Object.keys(after)])]
          .filter((k) => ['value', 'get', 'set'].some((f) => before[k]?.[f] !== after[k]?.[f]))
          .map((k) => name + '.' + k);
      });
      const before = snapshot();
      const light = await import(${JSON.stringify(lightdom)});
      const imported = snapshot();
      light.buildDocument('<p>x</p>');
      const parsed = snapshot();
      light.installLightDomPatches();
      light.buildDocument('<p>y</p>');
      const again = snapshot();
      console.log(JSON.stringify({ onImport: changed(before, imported), onParse: changed(imported, parsed), again: changed(parsed, again) }));
    `;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }),
    ) as Record<string, string[]>;
    expect(out.onImport).toEqual([]);
    expect(out.onParse!.sort()).toEqual([
      'Document.getElementsByTagName',
      'Document.querySelectorAll',
      'Element.getElementsByTagName',
      'Element.innerHTML',
      'Element.namespaceURI',
      'Element.querySelectorAll',
      'Node.appendChild',
      'Node.childNodes',
      'Node.children',
      'Node.firstChild',
      'Node.firstElementChild',
      'Node.lastChild',
      'Node.lastElementChild',
      'Node.remove',
      'Node.replaceChild',
      'Parser.error',
      'Style.getStyle',
    ]);
    expect(out.again).toEqual([]);
  });
});

describe('DOM operations Readability uses, as a browser DOM answers them', () => {
  test('innerHTML round-trips through the fragment parser (Readability re-parses the page when it retries)', () => {
    const html =
      '<div><p>a<!-- c -->b</p><table><tr><td>x</td></tr></table><svg><title>t</title></svg><xmp><b></xmp><textarea>&lt;</textarea><br><template><p>t</p></template></div>';
    const doc = parseDocument(html);
    const div = doc.body!.children[0]!;
    const before = dump(div as unknown as DumpNode);
    // biome-ignore lint/correctness/noSelfAssign: the setter parses what the getter serialized: the round trip is the test
    div.innerHTML = div.innerHTML;
    expect(dump(div as unknown as DumpNode)).toBe(before);
    const ref = jsdom(html).body.firstElementChild!;
    expect(dump(div as unknown as DumpNode)).toBe(dump(ref as unknown as DumpNode));
  });

  test('innerHTML parses a fragment in its context, as a browser does', () => {
    const doc = parseDocument('<div id=d></div>');
    const div = doc.body!.children[0]!;
    const markup = '<p>a<td>dropped</td><tr>also<b>x<p>y</b>z';
    div.innerHTML = markup;
    const ref = jsdom('<div></div>').body.firstElementChild!;
    ref.innerHTML = markup;
    expect(dump(div as unknown as DumpNode)).toBe(dump(ref as unknown as DumpNode));
  });

  test('getElementsByTagName and querySelectorAll: document order, HTML names case-insensitive, SVG elements by their own name', () => {
    const html = '<div><h2>a</h2><h1>b</h1><svg><a><text>s</text></a></svg><p><a href=x>l</a><h1>c</h1></p></div>';
    const doc = parseDocument(html) as unknown as Document;
    const ref = jsdom(html);
    const names = (list: ArrayLike<Element>) => Array.from(list, (e) => `${e.localName}:${e.textContent}`);
    expect(names(doc.body.querySelectorAll('h1,h2'))).toEqual(names(ref.body.querySelectorAll('h1,h2')));
    expect(names(doc.body.getElementsByTagName('a'))).toEqual(names(ref.body.getElementsByTagName('a')));
    expect(names(doc.body.getElementsByTagName('A'))).toEqual(names(ref.body.getElementsByTagName('A')));
    expect(doc.getElementsByTagName('*').length).toBe(ref.getElementsByTagName('*').length);
  });

  test('SVG and MathML elements look to Readability as they do in jsdom (tag name case, class name, style)', () => {
    const doc = parseDocument(
      '<svg class="share-icon"><foreignObject/></svg><math style="display:none"><mi>x</mi></math>',
    );
    const [svg, math] = doc.body!.children as unknown as Element[];
    expect(svg!.tagName).toBe('svg');
    expect(typeof svg!.className).not.toBe('string');
    expect(svg!.children[0]!.tagName).toBe('foreignObject');
    expect(math!.tagName).toBe('math');
    expect((math as unknown as { style?: unknown }).style).toBeUndefined();
  });
});

describe('DOM caps: counted by the tree builder as it builds', () => {
  test('elements, depth and children of one node each stop it, naming the cap', () => {
    expect(buildDocument('<p>x</p>'.repeat(50), { maxElements: 40, maxDepth: 100, maxChildren: 100 }).over).toMatch(
      /more than 40 elements/,
    );
    expect(buildDocument('<div>'.repeat(50), { maxElements: 1000, maxDepth: 20, maxChildren: 100 }).over).toMatch(
      /nested more than 20 deep/,
    );
    expect(buildDocument('<br>'.repeat(50), { maxElements: 1000, maxDepth: 100, maxChildren: 30 }).over).toMatch(
      /more than 30 children/,
    );
    expect(
      buildDocument('<p>x</p>'.repeat(50), { maxElements: 1000, maxDepth: 100, maxChildren: 100 }).doc,
    ).toBeDefined();
  });

  test('misnested formatting that browsers reopen in every block is bounded by the element cap', () => {
    // Each <b> is left open by </div>, and reopened with all the others in the next block: quadratic in a browser.
    const html =
      '<div><b id=1></div>'.replace('1', '0') +
      Array.from({ length: 3000 }, (_, i) => `<div><b id=${i}>x</div>`).join('');
    const started = performance.now();
    const result = buildDocument(html, { maxElements: 50_000, maxDepth: 5_000, maxChildren: 50_000 });
    expect(result.over).toMatch(/more than 50000 elements/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('inline style: hidden exactly when a browser says so', () => {
  const STYLES = [
    'display:none',
    'DISPLAY: NONE',
    'display: none !important',
    'display:none;display:block',
    'display:none !important; display:block',
    'display: block; visibility: hidden',
    'visibility:HIDDEN',
    'visibility: hidden ! important',
    'color: red',
    '',
    'display:',
    'display: none; color: red',
    'display:block;display:none',
    ' display : none ; ',
    'displayx: none',
    'display: inline-block',
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
    const para = (i: number) =>
      `<p>This is paragraph ${i} of the article, long enough to count as real content for Readability, with commas, clauses, and more words.</p>`;
    const html = `<html><head><title>News</title></head><body><nav><a href="/">Home</a> <a href="/a">About</a></nav><article>${[1, 2, 3, 4, 5, 6].map(para).join('')}</article><footer>Copyright footer text</footer></body></html>`;
    const views = htmlToViews(html);
    expect(views.article).toContain('paragraph 6 of the article');
    expect(views.article).not.toContain('Copyright footer');
    expect(views.full).toContain('Copyright footer');
  });

  test("a comment between text runs splits Readability's paragraphs as over a browser DOM", () => {
    const html = `<html><body><div>${'<p>Some long paragraph of text with enough words and commas, clauses, to be content.</p>'.repeat(4)}<div>Joined<!-- -->words</div></div></body></html>`;
    const page = parseHtml(html);
    const ours = articleView(page.doc as LightDocument).article!;
    expect(normalize(ours)).toContain('joined words');
    expect(normalize(page.full)).toContain('joinedwords');
  });

  test('markup errors stay off stdout (JSDOMParser would print them)', () => {
    const writes: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void writes.push(args.join(' '));
    try {
      const para =
        '<p>Words and words, and more words, in a paragraph long enough to be an article for Readability to keep.</p>';
      // Readability re-parses noscript images and, when it retries, the page (innerHTML); nothing may be printed.
      htmlToViews(
        `<html><body><noscript><img src="a.png" alt='x"y'></noscript><div>${para.repeat(8)}</div></body></html>`,
      );
    } finally {
      console.log = log;
    }
    expect(writes).toEqual([]);
  });
});
