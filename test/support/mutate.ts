// Mutations of real pages for the extraction fuzz tests (test/fuzz.test.ts): byte edits, and where a quote-keeping edit may go.
import fc from 'fast-check';
import { decodeHtml } from '../../src/extract/decode.js';
import { normalize } from '../../src/normalize.js';

/** One edit of a page's bytes: at `pos`, `del` bytes removed and `ins` put in their place. */
export interface Edit {
  pos: number;
  del: number;
  ins: Uint8Array;
}

/** The edits applied in order of position; an edit that starts inside an earlier one's deleted bytes is dropped. At one position, insertions go first. */
export function applyEdits(bytes: Uint8Array, edits: readonly Edit[]): Buffer {
  const sorted = [...edits].sort((a, b) => a.pos - b.pos || a.del - b.del);
  const parts: Uint8Array[] = [];
  let cursor = 0;
  for (const e of sorted) {
    const pos = Math.min(e.pos, bytes.length);
    if (pos < cursor) continue;
    parts.push(bytes.subarray(cursor, pos), e.ins);
    cursor = Math.min(bytes.length, pos + e.del);
  }
  parts.push(bytes.subarray(cursor));
  return Buffer.concat(parts);
}

/** A fragment's bytes: UTF-8 (ASCII markup; U+0000 and others as valid UTF-8, a lone surrogate as U+FFFD's bytes), so a UTF-8 page stays valid UTF-8. */
const ascii = (s: string): Uint8Array => Buffer.from(s, 'utf8');

/** A real page, with a quote on it and the places where markup may be changed without touching the quote. */
export interface FuzzPage {
  name: string;
  bytes: Buffer;
  /** The quote as it stands in the page's text (a run of text between two tags, no character references). */
  quote: string;
  /** The quote's bytes: [start, end). */
  quoteStart: number;
  quoteEnd: number;
  /** Whether the page declares its charset (a `<meta>`): bytes of another encoding then cannot change how it is decoded. */
  declared: boolean;
  /**
   * Offsets of tag starts (`<` of a start tag, end tag, comment or doctype) outside the quote, after the page's
   * charset declaration (so nothing put there can push the declaration out of the head), and outside raw text
   * (script, style, title, textarea, noscript, iframe, comments), so nothing put there can end such an element
   * early: balanced markup inserted at one of them leaves the quote's text whole and in the body.
   */
  boundaries: number[];
  /** Start tags outside the quote and outside raw text: [offset just past the tag name, tag name]. */
  startTags: [number, string][];
  /** Whole tokens (comments, start and end tags of plain elements) outside the quote and raw text that can be removed without moving the quote: [start, end). */
  removable: [number, number][];
}

const RAW =
  /<(script|style|title|textarea|noscript|iframe|xmp|noembed|noframes|template)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;
/** Elements whose start and end tags can go without the tree builder swallowing or moving text (no raw text, no tables, no forms, no foreign content). */
const PLAIN = new Set([
  'div',
  'span',
  'p',
  'a',
  'b',
  'i',
  'em',
  'strong',
  'li',
  'ul',
  'ol',
  'section',
  'article',
  'header',
  'footer',
  'nav',
  'aside',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'img',
  'br',
  'hr',
  'link',
  'figure',
  'figcaption',
  'small',
  'time',
  'main',
  'blockquote',
  'label',
  'u',
  'sup',
  'sub',
  'abbr',
  'cite',
]);

/**
 * Prepares a page: picks as its quote the first text run (between two tags, in the body, in the extracted
 * full view) of at least `minWords` words with no character reference, and cut to at most 12 words.
 */
export function preparePage(name: string, bytes: Buffer, fullView: string, minWords = 8): FuzzPage {
  const decoded = decodeHtml(bytes);
  const text = decoded.text;
  const utf8 = decoded.charset === 'UTF-8';
  const singleByte = !utf8 && text.length === bytes.length;
  if (!utf8 && !singleByte) throw new Error(`${name}: only UTF-8 and single-byte pages`);
  const byteOffset = (i: number): number => (utf8 ? Buffer.byteLength(text.slice(0, i), 'utf8') : i);
  const normalizedFull = normalize(fullView);
  const bodyAt = text.search(/<body[\s>]/i);
  const runs = /[^<>&]{40,}/g;
  let quote: string | undefined;
  let at = -1;
  runs.lastIndex = Math.max(0, bodyAt);
  for (let m = runs.exec(text); m; m = runs.exec(text)) {
    const words = m[0].trim().split(/\s+/);
    if (words.length < minWords || /[{};=]|\uFFFD/.test(m[0])) continue;
    const candidate = words.slice(0, 12).join(' ');
    const n = normalize(candidate);
    // In the page's view once only, and its source bytes exactly the candidate (single spaces).
    if (normalizedFull.indexOf(n) === -1 || normalizedFull.indexOf(n) !== normalizedFull.lastIndexOf(n)) continue;
    const i = text.indexOf(candidate, m.index);
    if (i === -1 || i >= m.index + m[0].length) continue;
    quote = candidate;
    at = i;
    break;
  }
  if (quote === undefined) throw new Error(`${name}: no quote found`);
  const quoteStart = byteOffset(at);
  const quoteEnd = byteOffset(at + quote.length);
  // Markup is ASCII: offsets in the bytes read as latin1 are byte offsets.
  const b = bytes.toString('latin1');
  const meta = /<meta\b[^>]*charset[^>]*>/i.exec(b.slice(0, Math.max(0, b.search(/<body[\s>]/i))) || '');
  const declared = decoded.charsetSource === 'meta';
  const after = declared && meta ? meta.index + meta[0].length : 0;
  const raw: [number, number][] = [];
  RAW.lastIndex = 0;
  for (let m = RAW.exec(b); m; m = RAW.exec(b)) raw.push([m.index, m.index + m[0].length]);
  const inRaw = (p: number) => raw.some(([s, e]) => p > s && p < e);
  const outside = (s: number, e: number) => e <= quoteStart || s >= quoteEnd;
  const boundaries: number[] = [];
  const startTags: [number, string][] = [];
  const removable: [number, number][] = [];
  const tags = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^<>]*>|<!--[\s\S]*?-->/g;
  for (let m = tags.exec(b); m; m = tags.exec(b)) {
    const s = m.index;
    const e = s + m[0].length;
    if (s < after || inRaw(s) || !outside(s, e)) continue;
    boundaries.push(s);
    if (m[2] === undefined) {
      removable.push([s, e]);
      continue;
    }
    const tag = m[2].toLowerCase();
    if (!m[1]) startTags.push([s + 1 + m[2].length, tag]);
    if (PLAIN.has(tag) && !/charset/i.test(m[0])) removable.push([s, e]);
  }
  return { name, bytes, quote, quoteStart, quoteEnd, declared, boundaries, startTags, removable };
}

// ---------------------------------------------------------------------------------------------
// Fragments

/** `<meta>` declarations with odd values: empty, cut, unknown, a refresh with "charset" in it, UTF-16 labels (which a document means as UTF-8). */
const ODD_META_VALUES = [
  '0; url=/x charset',
  'text/html; charset=',
  'charset=',
  'charset',
  'text/html; charset="',
  "text/html; charset='",
  'text/html; charset=bogus-label',
  'text/html; charset=utf-16',
  'text/html; charset=UTF-16LE',
  'text/html;charset=utf-16be',
  'text/html; charset=""',
  'text/html; charset==utf-8',
  'text/html; charset=\u00e9',
  'text/html; charset=replacement',
  'text/html; charset=iso-2022-kr',
  ';;;;',
  '',
  '   ',
  'charset=constructor',
  'charset=__proto__',
  'text/html; charset=utf-8; charset=utf-16',
  '0;url=javascript:alert(1)',
  'text/html; charset=\t utf-16 \f',
];
const ODD_META_CHARSETS = [
  '',
  ' ',
  'utf-16',
  'UTF-16BE',
  'bogus',
  'x',
  '"',
  'toString',
  'hasOwnProperty',
  'replacement',
  'unicode-1-1-utf-8',
  '&#0;',
  'utf-7',
];
/** Labels that name a decodable encoding other than the page's: only after the page's own declaration, which the first one wins over. */
const OTHER_LABELS = ['x-user-defined', 'windows-1250', 'shift_jis', 'koi8-r', 'gb18030', 'iso-2022-jp'];

const metaFragment = (declared: boolean): fc.Arbitrary<string> =>
  fc.oneof(
    fc
      .constantFrom(...ODD_META_VALUES)
      .map((v) => `<meta http-equiv="Content-Type" content="${v.replace(/"/g, '&quot;')}">`),
    fc
      .constantFrom(...ODD_META_VALUES.filter((v) => !v.includes("'")))
      .map((v) => `<meta content='${v}' http-equiv=content-type>`),
    fc.constantFrom(...ODD_META_CHARSETS).map((v) => `<meta charset="${v.replace(/"/g, '&quot;')}">`),
    fc.constantFrom(
      '<meta charset>',
      '<meta charset=>',
      '<meta http-equiv="refresh" content="0; url=/x charset=utf-16">',
      '<meta name="charset" content="shift_jis">',
      '<meta http-equiv=content-type>',
      '<meta/charset=utf-16/>',
    ),
    ...(declared ? [fc.constantFrom(...OTHER_LABELS).map((v) => `<meta charset="${v}">`)] : []),
  );

/** Balanced markup: comments, void elements, elements closed again, odd attributes, NULs, lone surrogate references. */
const SAFE_FRAGMENTS = [
  '<!---->',
  '<!-- a comment -->',
  '<!-- <p>not a tag</p> -->',
  '<!--->',
  '<!-- -- -->',
  '<!--\u0000-->',
  '<?xml version="1.0"?>',
  '<!doctype html>',
  '<!DOCTYPE x SYSTEM "y">',
  '<br>',
  '<br/>',
  '</br>',
  '<hr>',
  '<img src=x alt="">',
  '<wbr>',
  '<input value="&#xD800;">',
  '<link rel=stylesheet href="&#0;">',
  '<span></span>',
  '<div></div>',
  '<p></p>',
  '<b>bold</b>',
  '<i><b>mis</i>nested</b>',
  '<a href="#">link</a>',
  '<div><p>a</div>',
  '<custom-element x=1>ce</custom-element>',
  '<span>&#xD800;</span>',
  '<span>&#xDFFF;&#xD800;</span>',
  '<p>&#55296;&#56319;</p>',
  '<span>&#0;&#x110000;&#x80;&#x9F;</span>',
  '<span>&amp&lt&notit;&#;&#x;</span>',
  '<span>\u0000</span>',
  '\u0000',
  '<p>\u0000\u0000\u0000</p>',
  '<div title="\u0000">x</div>',
  '<span>\uFFFE\uFFFF</span>',
  '<svg><title>t</title><desc>d</desc></svg>',
  '<math><mi>x</mi></math>',
  '<svg><foreignObject><p>f</p></foreignObject></svg>',
  '<template><p>t</p></template>',
  '<script>var s = "<div>";</script>',
  '<style>p { color: red }</style>',
  '<noscript><p>n</p></noscript>',
  '<textarea>t</textarea>',
  '<title>x</title>',
  '<table><tr><td>c</td></tr></table>',
  '<select><option>o</option></select>',
  '<iframe src="x">i</iframe>',
  '<object><param name=x></object>',
  '<ruby>r<rt>t</rt></ruby>',
  '<div hidden>h</div>',
  '<details><summary>s</summary>d</details>',
  '<base href="http://x/">',
  '<head></head>',
  '<body class=x>',
  '<html lang=x>',
];

const ATTRIBUTES = [
  ' data-x="&#xD800;"',
  ' a=b=c',
  " x='\"'",
  ' x="\'"',
  ' class="a" class="b"',
  ' id',
  ' =x',
  ' x=&amp;',
  ' \u0000=1',
  ' x="\u0000"',
  ' lang="\uD800"',
  ' style="display:none"',
  ' hidden',
  ' aria-hidden=true',
  ' onload="</script>"',
  ' title="<!--"',
  ' data-y=">"',
  ' /',
  ' xmlns="http://www.w3.org/1999/xhtml"',
  ' x="&#xDC00;&#xD800;&#55296;"',
  ' dir=rtl',
  ' translate=no',
  ' x'.repeat(200),
];

/** Invalid UTF-8 and windows-1252 runs (curly quotes, umlauts, C1 bytes), and UTF-8 for pages in a legacy encoding. */
const FOREIGN_BYTES: Uint8Array[] = [
  Uint8Array.of(0x93, 0xe4, 0xfc, 0x94, 0x96, 0x80),
  Uint8Array.of(0xff, 0xfe),
  Uint8Array.of(0xc3),
  Uint8Array.of(0xe2, 0x80),
  Uint8Array.of(0xed, 0xa0, 0x80),
  Buffer.from('Grüße “so” — ok', 'utf8'),
  Uint8Array.of(0xef, 0xbb, 0xbf),
  Uint8Array.of(0xf4, 0x90, 0x80, 0x80),
  Uint8Array.of(0x81, 0x8d, 0x8f, 0x90, 0x9d),
];

/** Nested markup `depth` deep (the DOM cap is 400): balanced, so the text after it stays where it was. */
export function nested(open: string, close: string, depth: number, inner = 'deep'): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

const depth = fc.oneof(
  fc.integer({ min: 1, max: 50 }),
  fc.integer({ min: 380, max: 420 }),
  fc.integer({ min: 1, max: 1500 }),
);
const nesting = fc.oneof(
  depth.map((d) => nested('<div>', '</div>', d)),
  depth.map((d) => nested('<span>', '</span>', d)),
  depth.map((d) => nested('<b><i>', '</i></b>', Math.ceil(d / 2))),
  depth.map((d) => nested('<ul><li>', '</li></ul>', Math.ceil(d / 2))),
  fc.integer({ min: 1, max: 150 }).map((d) => nested('<table><tr><td>', '</td></tr></table>', d)),
  fc.integer({ min: 1, max: 600 }).map((d) => nested('<svg><g>', '</g></svg>', 1) + nested('<g>', '</g>', d)),
);

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Edits that leave the quote's text whole: inserted balanced markup, odd attributes and declarations, removed comments and plain tags. */
export function quoteKeepingEdits(page: FuzzPage, maxEdits = 6): fc.Arbitrary<Edit[]> {
  const at = fc.constantFrom(...page.boundaries);
  const insertAt = (frag: fc.Arbitrary<Uint8Array>) => fc.record({ pos: at, del: fc.constant(0), ins: frag });
  const edit = fc.oneof(
    { weight: 4, arbitrary: insertAt(fc.constantFrom(...SAFE_FRAGMENTS).map(ascii)) },
    { weight: 3, arbitrary: insertAt(metaFragment(page.declared).map(ascii)) },
    {
      weight: 3,
      arbitrary: fc
        .record({ tag: fc.constantFrom(...page.startTags), attr: fc.constantFrom(...ATTRIBUTES) })
        .map(({ tag, attr }): Edit => ({ pos: tag[0], del: 0, ins: ascii(attr) })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...page.removable)
        .map(([s, e]): Edit => ({ pos: s, del: e - s, ins: new Uint8Array(0) })),
    },
    { weight: 1, arbitrary: insertAt(nesting.map(ascii)) },
    ...(page.declared ? [{ weight: 2, arbitrary: insertAt(fc.constantFrom(...FOREIGN_BYTES)) }] : []),
  );
  return fc.array(edit, { minLength: 1, maxLength: maxEdits });
}

/** Any edits: byte flips, truncation, spans removed, tags removed, and any fragment (unbalanced ones too) anywhere. */
export function anyEdits(page: FuzzPage, maxEdits = 12): fc.Arbitrary<Edit[]> {
  const n = page.bytes.length;
  const pos = fc.integer({ min: 0, max: n });
  const unbalanced = fc.constantFrom(
    '<!--',
    '-->',
    '<script>',
    '</script>',
    '<style>',
    '<title>',
    '<textarea>',
    '<plaintext>',
    '<xmp>',
    '<noscript>',
    '<iframe>',
    '<svg>',
    '<math>',
    '<table>',
    '<select>',
    '<template>',
    '</template>',
    '</body>',
    '</html>',
    '<body>',
    '<frameset>',
    '<![CDATA[',
    ']]>',
    '<!doctype',
    '<a',
    '<',
    '&',
    '&#',
    '&#x',
    '&#xD800',
    '"',
    "'",
    '</',
    '<meta charset=utf-16>',
    '<meta charset="x-user-defined">',
    '<head>',
    '<form>',
    '<button>',
    '<p>',
    '<li>',
    '<dd>',
    '<h1>',
    '<nobr>',
    '<frame>',
    '<image>',
    '<isindex>',
    '<keygen>',
  );
  const fragment = fc.oneof(
    fc.constantFrom(...SAFE_FRAGMENTS).map(ascii),
    metaFragment(true).map(ascii),
    unbalanced.map(ascii),
    fc.constantFrom(...FOREIGN_BYTES),
    nesting.map(ascii),
    fc.uint8Array({ minLength: 1, maxLength: 16 }),
    fc.constantFrom(...ATTRIBUTES).map(ascii),
  );
  const edit = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        pos: fc.integer({ min: 0, max: n - 1 }),
        del: fc.constant(1),
        ins: fc.integer({ min: 0, max: 255 }).map((v) => Uint8Array.of(v)),
      }),
    },
    { weight: 3, arbitrary: fc.record({ pos, del: fc.constant(0), ins: fragment }) },
    {
      weight: 2,
      arbitrary: fc.record({ pos, del: fc.integer({ min: 1, max: 300 }), ins: fc.constant(new Uint8Array(0)) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        pos: fc.constantFrom(...page.removable.map(([s]) => s)),
        del: fc.integer({ min: 1, max: 40 }),
        ins: fragment,
      }),
    },
  );
  return fc
    .record({ edits: fc.array(edit, { minLength: 1, maxLength: maxEdits }), truncate: fc.option(pos, { freq: 3 }) })
    .map(({ edits, truncate }) =>
      truncate === null ? edits : [...edits, { pos: truncate, del: n, ins: new Uint8Array(0) }],
    );
}

/** Edits shown short (a failing case's counterexample): positions, deleted counts and inserted bytes, long ones cut. */
export function describeEdits(edits: readonly Edit[]): string {
  return edits
    .map((e) => {
      const ins = Buffer.from(e.ins).toString('latin1');
      return `@${e.pos} -${e.del} +${JSON.stringify(ins.length > 80 ? `${ins.slice(0, 40)}…(${ins.length})…${ins.slice(-20)}` : ins)}`;
    })
    .join(', ');
}
