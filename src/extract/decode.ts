// Bytes to text as a browser decodes them (docs/how-it-decides.md#decoding, HTML standard §13.2.3): BOM, HTTP charset,
// a <meta> declaration in the head wherever it sits, UTF-8 when valid, the legacy encoding the bytes look like
// (chardet), windows-1252.
import chardet from 'chardet';
import { decode, getBOMEncoding, isSupported, labelToName } from 'whatwg-encoding';
import { ASCII_WHITESPACE, isAsciiWhitespace } from './ascii-whitespace.js';
import { describeError } from './errors.js';
import { scriptDataEnd } from './script-data.js';
import type { CharsetSource } from '../contract.js';

/**
 * Where the charset came from: the vocabulary of docs/how-it-decides.md#decoding (report field `charset_source`,
 * contract.ts CharsetSourceSchema).
 */
export type { CharsetSource };

interface Decoded {
  text: string;
  /** The WHATWG name of the encoding used, e.g. "UTF-8", "windows-1252", "Shift_JIS". */
  charset: string;
  /**
   * `meta`: a declaration in the document (a `<meta>`, or the XML declaration the prescan also
   * reads); `detected`: the legacy encoding the bytes look like; `default`: UTF-8 because the
   * bytes are valid UTF-8, or windows-1252 when nothing fits.
   */
  charsetSource: CharsetSource;
  /**
   * Steps of the decoding order that threw (a dependency's fault: whatwg-encoding, chardet, a
   * scanner), each said in a few words; the next step of the order decided instead. Absent when
   * none did. The report's `note` names them (docs/how-it-decides.md#decoding: a page never fails on its charset).
   */
  fallbacks?: string[];
}

// ---------------------------------------------------------------------------------------------
// Encoding names and labels

/**
 * Labels of the Encoding Standard's table that whatwg-encoding 3.1.1 leaves out (it lists only
 * what iconv-lite decodes); Node's TextDecoder decodes the first three encodings. `replacement`
 * (ISO-2022-KR/CN, HZ) decodes a whole document to one U+FFFD in a browser, a defence against
 * script injection; here it counts as undecodable, like an unknown label, and the search goes on.
 */
const MORE_LABELS = new Map<string, string>([
  ['iso-2022-jp', 'ISO-2022-JP'],
  ['csiso2022jp', 'ISO-2022-JP'],
  ['iso-8859-8-i', 'ISO-8859-8-I'],
  ['csiso88598i', 'ISO-8859-8-I'],
  ['logical', 'ISO-8859-8-I'],
  ['x-mac-cyrillic', 'x-mac-cyrillic'],
  ['x-mac-ukrainian', 'x-mac-cyrillic'],
  ['replacement', 'replacement'],
  ['csiso2022kr', 'replacement'],
  ['hz-gb-2312', 'replacement'],
  ['iso-2022-cn', 'replacement'],
  ['iso-2022-cn-ext', 'replacement'],
  ['iso-2022-kr', 'replacement'],
]);

/** Leading and trailing ASCII whitespace (String#trim strips more). */
const SURROUNDING_WHITESPACE = new RegExp(`^[${ASCII_WHITESPACE}]+|[${ASCII_WHITESPACE}]+$`, 'g');

/**
 * The Encoding Standard's "get an encoding": the label without surrounding ASCII whitespace, ASCII case-insensitively;
 * null when unknown.
 */
function getEncoding(label: string): string | null {
  const trimmed = label.replace(SURROUNDING_WHITESPACE, '');
  // Every label is printable ASCII; this also keeps String#trim's wider whitespace out of labelToName.
  if (!/^[\x21-\x7e]+$/.test(trimmed)) return null;
  const lower = trimmed.toLowerCase();
  const name: unknown = labelToName(lower); // a plain-object lookup: "constructor" would give a function
  return typeof name === 'string' ? name : (MORE_LABELS.get(lower) ?? null);
}

const decodable = new Map<string, boolean>();

/** Whether an encoding is implemented here: whatwg-encoding (iconv-lite), else Node's TextDecoder (ICU). */
function canDecode(name: string): boolean {
  let ok = decodable.get(name);
  if (ok === undefined) {
    ok = isSupported(name);
    if (!ok) {
      try {
        new TextDecoder(name);
        ok = true;
      } catch {
        ok = false;
      }
    }
    decodable.set(name, ok);
  }
  return ok;
}

const UTF8 = new TextDecoder('utf-8');
const UTF8_FATAL = new TextDecoder('utf-8', { fatal: true });

/**
 * UTF-8 goes through Node's TextDecoder (fast, WHATWG-exact). Legacy encodings go through
 * whatwg-encoding (iconv-lite), because Node 20's TextDecoder decodes "windows-1252" as
 * ISO-8859-1: 0x93 would become U+0093 instead of the curly quote U+201C. Only the few that
 * iconv-lite lacks (ISO-2022-JP, ISO-8859-8-I, x-mac-cyrillic) go to TextDecoder.
 */
function decodeBytes(bytes: Uint8Array, charset: string): string {
  if (charset === 'UTF-8') return UTF8.decode(bytes);
  if (isSupported(charset)) return decode(bytes, charset);
  return new TextDecoder(charset).decode(bytes);
}

/**
 * windows-1252's bytes 0x80 to 0x9F; every other byte is its own code point. The five bytes the
 * Encoding Standard maps to C1 controls (0x81, 0x8D, 0x8F, 0x90, 0x9D) are U+FFFD here, as
 * whatwg-encoding (iconv-lite) decodes them: the fallback gives the text the usual path gives.
 */
const WINDOWS_1252_HIGH =
  '\u20ac\ufffd\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\ufffd\u017d\ufffd' +
  '\ufffd\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\ufffd\u017e\u0178';

/** windows-1252 without any dependency: the last resort when whatwg-encoding throws on it (it decodes every byte). */
function windows1252(b: Buffer): string {
  const latin1 = b.toString('latin1');
  return /[\x80-\x9f]/.test(latin1)
    ? latin1.replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]!)
    : latin1;
}

/**
 * A step of the decoding order whose dependency threw is "no answer": the next step decides (a
 * page must never fail on its charset), and `fallbacks` records which step threw.
 */
function attempt<T>(step: string, fallbacks: string[], sniff: () => T | null): T | null {
  try {
    return sniff();
  } catch (err) {
    fallbacks.push(`${step} threw (${describeError(err)}): the next step of the decoding order decided`);
    return null;
  }
}

/**
 * One step of the decoding order: where its answer comes from, and the charset it names (null: no answer), with the
 * text when the step decoded it already.
 */
interface Step {
  source: CharsetSource;
  name: string;
  sniff: () => { charset: string; text?: string } | null;
}

/**
 * The first step that names a charset the bytes then decode in; a step that throws, or whose
 * charset fails to decode, passes to the next. windows-1252, which decodes every byte, ends the
 * order (whatwg-encoding's, else the table above).
 */
function decodeInOrder(b: Buffer, steps: Step[], fallbacks: string[]): Decoded {
  for (const step of steps) {
    const found = attempt(step.name, fallbacks, step.sniff);
    if (!found) continue;
    const { charset } = found;
    const text =
      found.text ?? attempt(`decoding as ${charset} (${step.name})`, fallbacks, () => decodeBytes(b, charset));
    if (text !== null) return decoded(text, charset, step.source, fallbacks);
  }
  const text =
    attempt('decoding as windows-1252 (whatwg-encoding)', fallbacks, () => decodeBytes(b, 'windows-1252')) ??
    windows1252(b);
  return decoded(text, 'windows-1252', 'default', fallbacks);
}

function decoded(text: string, charset: string, charsetSource: CharsetSource, fallbacks: string[]): Decoded {
  return fallbacks.length ? { text, charset, charsetSource, fallbacks } : { text, charset, charsetSource };
}

/** A decodable encoding from a BOM-less label (HTTP or document), or null to keep looking. */
function usable(name: string | null): string | null {
  return name !== null && canDecode(name) ? name : null;
}

/**
 * What a declaration inside the document means (the prescan's last steps and "change the
 * encoding", §13.2.3.2 and §13.2.3.4): bytes that can carry ASCII markup cannot be UTF-16, so
 * a UTF-16 label means UTF-8; `x-user-defined` means windows-1252. Undecodable: keep looking.
 */
function documentDeclared(name: string | null): string | null {
  if (name === 'UTF-16LE' || name === 'UTF-16BE') return 'UTF-8';
  if (name === 'x-user-defined') return 'windows-1252';
  return usable(name);
}

// ---------------------------------------------------------------------------------------------
// The <meta> scan: a small HTML tokenizer over the bytes (ASCII-compatible encodings only; a
// UTF-16 page has a BOM or an HTTP charset, or is caught by the XML check below).

const SPACE = 0x20,
  BANG = 0x21,
  DQUOTE = 0x22,
  SQUOTE = 0x27;
const DASH = 0x2d,
  SLASH = 0x2f,
  LT = 0x3c,
  EQUALS = 0x3d,
  GT = 0x3e,
  QUESTION = 0x3f;

function isAsciiAlpha(c: number | undefined): boolean {
  if (c === undefined) return false;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x7a;
}

/**
 * How many bytes a declaration is honoured in whatever precedes it: the prescan's 1024 (§13.2.3.2), as Blink's
 * HTMLMetaCharsetParser also checks them unconditionally.
 */
const PRESCAN_BYTES = 1024;

/**
 * Start tags the "in head" insertion mode keeps in the head (§13.2.6.4.4; html and head merge or are ignored). Any
 * other start tag begins the body.
 */
const HEAD_TAGS = new Set([
  'html',
  'head',
  'base',
  'basefont',
  'bgsound',
  'link',
  'meta',
  'noframes',
  'noscript',
  'script',
  'style',
  'template',
  'title',
]);

/**
 * Elements whose content the tokenizer reads as text, not markup (RAWTEXT and RCDATA,
 * §13.2.6.2): a `<meta>` in there is no element. Scripting is enabled, as in a browser, so
 * `<noscript>` is one of them. `<script>` has its own states (scriptEnd).
 */
const RAW_TEXT = new Set(['style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'title', 'textarea']);

/** An attribute as byte ranges of its name and value (spans, so that tags other than meta build no strings). */
interface AttributeSpan {
  nameStart: number;
  nameEnd: number;
  valueStart: number;
  valueEnd: number;
}

/**
 * The standard's "get an attribute" (§13.2.3.2, used by the prescan), from `pos` inside a tag.
 * Returns where the scan goes on and the attribute, or no attribute at the tag's `>` (`pos`
 * then points at it); null when the bytes end first (a tag cut off by the end is no tag).
 * Case is folded by the caller: names and values only ever match ASCII case-insensitively.
 * It reads attributes as the tokenizer's attribute states do (duplicates aside, which callers
 * drop), except that it decodes no character references.
 */
function getAttribute(b: Buffer, pos: number): { pos: number; attr?: AttributeSpan } | null {
  const n = b.length;
  // 1. Skip whitespace and '/' (a self-closing slash is just a separator here).
  while (pos < n && (isAsciiWhitespace(b[pos]) || b[pos] === SLASH)) pos++;
  if (pos >= n) return null;
  // 2. '>': the tag ends, no attribute.
  if (b[pos] === GT) return { pos };
  // 3-5. The name: its first byte, even '=', belongs to it; then up to '=', whitespace, '/' or '>'.
  const nameStart = pos++;
  for (;;) {
    if (pos >= n) return null;
    const c = b[pos];
    if (c === EQUALS || isAsciiWhitespace(c)) break;
    if (c === SLASH || c === GT) return { pos, attr: { nameStart, nameEnd: pos, valueStart: pos, valueEnd: pos } };
    pos++;
  }
  const nameEnd = pos;
  // 6-8. Spaces, then '=' or the attribute has no value.
  while (pos < n && isAsciiWhitespace(b[pos])) pos++;
  if (pos >= n) return null;
  if (b[pos] !== EQUALS) return { pos, attr: { nameStart, nameEnd, valueStart: pos, valueEnd: pos } };
  pos++;
  // 9. Spaces before the value.
  while (pos < n && isAsciiWhitespace(b[pos])) pos++;
  if (pos >= n) return null;
  // 10. A quoted value runs to the same quote; '>' ends the tag with an empty value.
  const q = b[pos];
  if (q === DQUOTE || q === SQUOTE) {
    const close = b.indexOf(q, pos + 1);
    if (close === -1) return null;
    return { pos: close + 1, attr: { nameStart, nameEnd, valueStart: pos + 1, valueEnd: close } };
  }
  if (q === GT) return { pos, attr: { nameStart, nameEnd, valueStart: pos, valueEnd: pos } };
  // 11-12. An unquoted value runs to whitespace or '>'.
  const valueStart = pos++;
  while (pos < n && !isAsciiWhitespace(b[pos]) && b[pos] !== GT) pos++;
  if (pos >= n) return null;
  return { pos, attr: { nameStart, nameEnd, valueStart, valueEnd: pos } };
}

interface Tag {
  /** The tag name, lowercased. */
  name: string;
  /** Just past the tag's `>`. */
  end: number;
  /** A meta start tag's attributes (names and values lowercased; the first of duplicates kept). */
  attributes?: Map<string, string>;
}

/**
 * A start or end tag whose name starts at `at` (a letter): name, then attributes to the `>`; null when the bytes end
 * inside it.
 */
function readTag(b: Buffer, at: number, start: boolean): Tag | null {
  const n = b.length;
  let pos = at;
  while (pos < n && !isAsciiWhitespace(b[pos]) && b[pos] !== SLASH && b[pos] !== GT) pos++;
  if (pos >= n) return null;
  const name = b.toString('latin1', at, pos).toLowerCase();
  const attributes = start && name === 'meta' ? new Map<string, string>() : undefined;
  for (;;) {
    const got = getAttribute(b, pos);
    if (got === null) return null;
    pos = got.pos;
    if (!got.attr) return { name, end: pos + 1, attributes };
    if (attributes) {
      const a = got.attr;
      const attrName = b.toString('latin1', a.nameStart, a.nameEnd).toLowerCase();
      if (!attributes.has(attrName))
        attributes.set(attrName, b.toString('latin1', a.valueStart, a.valueEnd).toLowerCase());
    }
  }
}

/**
 * Whether `name` (lowercase ASCII) sits at `at`, in any case, followed by whitespace, '/' or '>': how an appropriate
 * end tag, or `<script` in script data, is recognized.
 */
function namedAt(b: Buffer, at: number, name: string): boolean {
  if (!namedPrefix(b, at, name)) return false;
  const after = b[at + name.length];
  return isAsciiWhitespace(after) || after === SLASH || after === GT;
}

/** Index just past the `>` at or after `from` (bogus comments, DOCTYPE), or the end. */
function pastGt(b: Buffer, from: number): number {
  const gt = b.indexOf(GT, from);
  return gt === -1 ? b.length : gt + 1;
}

/**
 * Index just past the comment opened by the `<!--` at `lt`, or the end: the tokenizer's comment
 * states, where `<!-->` and `<!--->` close at once, and then `-->` or `--!>` closes.
 */
function pastComment(b: Buffer, lt: number): number {
  if (b[lt + 4] === GT) return lt + 5;
  if (b[lt + 4] === DASH && b[lt + 5] === GT) return lt + 6;
  const close = b.indexOf('-->', lt + 4, 'latin1');
  // `--!>` counts only before the `-->`: searched to the end from every comment, a page of many comments and
  // no `--!>` would cost the square of its length (80,000 comments: past the extraction time limit).
  const end = close === -1 ? b.length : close;
  const bangAt = b.subarray(lt + 4, end).indexOf('--!>', 0, 'latin1');
  if (bangAt !== -1) return lt + 4 + bangAt + 4;
  return close === -1 ? b.length : close + 3;
}

/** Index of the `<` of the end tag that closes a RAWTEXT or RCDATA element named `name`, or the end. */
function rawTextEnd(b: Buffer, from: number, name: string): number {
  for (let i = b.indexOf('</', from, 'latin1'); i !== -1; i = b.indexOf('</', i + 2, 'latin1')) {
    if (namedAt(b, i + 2, name)) return i;
  }
  return b.length;
}

/**
 * Index of the `<` of the `</script>` that closes a script, or the end: the tokenizer's script data states
 * (§13.2.5.4 ff.), escapes included, by the scanner the tokenizer itself uses (script-data.ts). Old pages write
 * `<script><!-- document.write("<script>...</script>") --></script>`.
 */
function scriptEnd(b: Buffer, from: number): number {
  const end = scriptDataEnd(b, from);
  return end === -1 ? b.length : end;
}

/**
 * The standard's "algorithm for extracting a character encoding from a meta element" (a
 * `content` value, lowercased): the label after the first `charset` that is followed by `=`,
 * quoted or up to whitespace or `;`. Null for none (unlike html-encoding-sniffer 4.0.0, which
 * throws when the value ends with `charset`).
 */
function charsetFromContent(s: string): string | null {
  let pos = 0;
  for (;;) {
    const at = s.indexOf('charset', pos);
    if (at === -1) return null;
    pos = at + 7;
    while (isAsciiWhitespace(s.charCodeAt(pos))) pos++;
    if (s[pos] === '=') break;
    // Not "charset=": look again from the character after it.
  }
  pos++;
  while (isAsciiWhitespace(s.charCodeAt(pos))) pos++;
  const c = s[pos];
  if (c === undefined) return null;
  if (c === '"' || c === "'") {
    const close = s.indexOf(c, pos + 1);
    return close === -1 ? null : getEncoding(s.slice(pos + 1, close));
  }
  let end = pos;
  while (end < s.length && !isAsciiWhitespace(s.charCodeAt(end)) && s[end] !== ';') end++;
  return getEncoding(s.slice(pos, end));
}

/**
 * What a `<meta>` element declares, as the tree builder reads it ("in head", §13.2.6.4.4): the
 * `charset` attribute if its label is known, otherwise `http-equiv="Content-Type"` with a
 * `content` that names one. (The prescan alone would let a bad `charset` attribute void a good
 * `content` in the same element; the tree builder then changes the encoding anyway.)
 */
function metaDeclares(attributes: Map<string, string>): string | null {
  const charset = attributes.get('charset');
  const fromCharset = charset === undefined ? null : documentDeclared(getEncoding(charset));
  if (fromCharset) return fromCharset;
  const content = attributes.get('content');
  if (attributes.get('http-equiv') !== 'content-type' || content === undefined) return null;
  return documentDeclared(charsetFromContent(content));
}

/**
 * The standard's prescan (§13.2.3.2, "prescan a byte stream to determine its encoding") over the first 1024 bytes:
 * a byte scan that skips comments, and otherwise knows tags only as names and attributes. It knows nothing of
 * scripts, styles or titles, so a `<meta>` written inside one of them (`document.write('<meta charset=...>')`,
 * `<style type="text/plain">`) near the top sets the encoding in every browser; so it does here. A tag cut off by
 * the 1024th byte ends the scan with nothing, as the bytes running out does. Null when it finds no usable encoding.
 */
function prescanCharset(bytes: Buffer): string | null {
  const b = bytes.subarray(0, PRESCAN_BYTES);
  const n = b.length;
  const attr = (a: AttributeSpan, from: 'name' | 'value'): string =>
    b
      .toString('latin1', from === 'name' ? a.nameStart : a.valueStart, from === 'name' ? a.nameEnd : a.valueEnd)
      .toLowerCase();
  for (let pos = 0; pos < n; pos++) {
    if (b[pos] !== LT) continue;
    if (b[pos + 1] === BANG && b[pos + 2] === DASH && b[pos + 3] === DASH) {
      // "<!--": to the first '>' that ends a "-->" after the '<' ("<!-->" closes at once: its "--" precede the '>').
      const close = b.indexOf('-->', pos + 2, 'latin1');
      if (close === -1) return null;
      pos = close + 2;
    } else if (namedPrefix(b, pos + 1, 'meta') && (isAsciiWhitespace(b[pos + 5]) || b[pos + 5] === SLASH)) {
      // "<meta" and a space or '/': its attributes, the first of each name; then what they declare (steps 2-12).
      let at = pos + 6;
      const seen = new Set<string>();
      let gotPragma = false;
      let needPragma: boolean | null = null;
      let charset: string | null | 'failure' = null;
      for (;;) {
        const got = getAttribute(b, at);
        if (got === null) return null;
        at = got.pos;
        if (!got.attr) break;
        const name = attr(got.attr, 'name');
        if (seen.has(name)) continue;
        seen.add(name);
        const value = attr(got.attr, 'value');
        if (name === 'http-equiv') {
          if (value === 'content-type') gotPragma = true;
        } else if (name === 'content') {
          const fromContent = charsetFromContent(value);
          if (fromContent !== null && charset === null) {
            charset = fromContent;
            needPragma = true;
          }
        } else if (name === 'charset') {
          charset = getEncoding(value) ?? 'failure';
          needPragma = false;
        }
      }
      pos = at; // the tag's '>': the loop's next byte is past it
      if (needPragma === null || (needPragma && !gotPragma) || charset === null || charset === 'failure') continue;
      const declared = documentDeclared(charset);
      if (declared) return declared;
    } else if (isAsciiAlpha(b[pos + 1]) || (b[pos + 1] === SLASH && isAsciiAlpha(b[pos + 2]))) {
      // A tag: to the first whitespace or '>' after its name, then its attributes, read and dropped.
      let at = pos + 1;
      while (at < n && !isAsciiWhitespace(b[at]) && b[at] !== GT) at++;
      if (at >= n) return null;
      for (;;) {
        const got = getAttribute(b, at);
        if (got === null) return null;
        at = got.pos;
        if (!got.attr) break;
      }
      pos = at;
    } else if (b[pos + 1] === BANG || b[pos + 1] === SLASH || b[pos + 1] === QUESTION) {
      // "<!", "</", "<?": to the first '>'.
      const gt = b.indexOf(GT, pos + 2);
      if (gt === -1) return null;
      pos = gt;
    }
  }
  return null;
}

/** Whether the ASCII letters of `name` (lowercase) start at `at`, in any case. */
function namedPrefix(b: Buffer, at: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) if (((b[at + k] ?? 0) | 0x20) !== name.charCodeAt(k)) return false;
  return true;
}

/**
 * The encoding the page's `<meta>` declares, or null: the first declaration a browser acts on.
 * A browser reads the first 1024 bytes before parsing (the prescan, §13.2.3.2), and its tree
 * builder "changes the encoding" when it meets a `<meta>` later (§13.2.3.4), which a head long
 * with scripts, styles or comments makes common. So the scan tokenizes from the start, as the
 * tokenizer does, and takes the first `<meta>` element with a usable label:
 * - comments, and the content of scripts and RAWTEXT/RCDATA elements (style, title, textarea,
 *   noscript...), are not markup: a `<meta>` in there declares nothing;
 * - an unknown or undecodable label is ignored, and the scan goes on;
 * - body content (a start tag that is no head element, non-whitespace text outside head
 *   elements, `</body>`, `</html>`, `</br>`; inside a `<template>` nothing is) ends the scan
 *   once past the first 1024 bytes; within them a `<meta>` counts wherever it is, as in the
 *   prescan. (A tree builder that meets a `<meta>` in the body would still switch; docs/how-it-decides.md#decoding
 *   does not follow that, nor does Blink's HTMLMetaCharsetParser, which this scan resembles.)
 * It runs after the prescan (prescanCharset), which takes the first 1024 bytes as the standard does, scripts and
 * styles included; past them, only a real `<meta>` element changes the encoding (docs/how-it-decides.md#decoding).
 */
function metaCharset(b: Buffer): string | null {
  const n = b.length;
  let pos = 0;
  let body = false; // body content has started
  let templates = 0; // open <template> elements
  while (pos < n) {
    const lt = b.indexOf(LT, pos);
    const textEnd = lt === -1 ? n : lt;
    if (!body && templates === 0) {
      for (let i = pos; i < textEnd; i++) {
        if (!isAsciiWhitespace(b[i])) {
          body = true;
          break;
        }
      }
    }
    if (lt === -1 || (body && lt >= PRESCAN_BYTES)) return null;
    pos = lt;
    const next = b[lt + 1];
    if (next === BANG) {
      // comment; DOCTYPE or bogus comment
      pos = b[lt + 2] === DASH && b[lt + 3] === DASH ? pastComment(b, lt) : pastGt(b, lt + 2);
    } else if (next === QUESTION) {
      pos = pastGt(b, lt + 2); // "<?": a bogus comment
    } else if (next === SLASH) {
      if (isAsciiAlpha(b[lt + 2])) {
        const tag = readTag(b, lt + 2, false);
        if (tag === null) return null;
        pos = tag.end;
        if (tag.name === 'template') templates = Math.max(0, templates - 1);
        else if (templates === 0 && (tag.name === 'body' || tag.name === 'html' || tag.name === 'br')) body = true;
      } else {
        pos = b[lt + 2] === GT ? lt + 3 : pastGt(b, lt + 2); // "</>" is dropped; "</" + other is a bogus comment
      }
    } else if (isAsciiAlpha(next)) {
      const tag = readTag(b, lt + 1, true);
      if (tag === null) return null;
      pos = tag.end;
      if (tag.attributes) {
        const declared = metaDeclares(tag.attributes);
        if (declared) return declared;
      }
      if (templates === 0 && !HEAD_TAGS.has(tag.name)) body = true;
      if (tag.name === 'template') templates++;
      else if (tag.name === 'script') pos = scriptEnd(b, pos);
      else if (RAW_TEXT.has(tag.name)) pos = rawTextEnd(b, pos, tag.name);
      else if (tag.name === 'plaintext') return null; // the rest is text
    } else {
      // A '<' that opens nothing is text.
      if (templates === 0) body = true;
      pos = lt + 1;
    }
  }
  return null;
}

/**
 * The prescan's XML declaration checks (§13.2.3.2: "get an XML encoding"), for a page with no
 * `<meta>`: `<?x` in UTF-16 without a BOM is UTF-16, and an ASCII `<?xml ... encoding="..."?>`
 * at the very start, within the first 1024 bytes, declares its label (UTF-16 meaning UTF-8).
 */
function xmlDeclaration(b: Buffer): string | null {
  if (b[0] === LT && b[1] === 0 && b[2] === QUESTION && b[3] === 0 && b[4] === 0x78 && b[5] === 0) return 'UTF-16LE';
  if (b[0] === 0 && b[1] === LT && b[2] === 0 && b[3] === QUESTION && b[4] === 0 && b[5] === 0x78) return 'UTF-16BE';
  if (b.length < 5 || b.toString('latin1', 0, 5) !== '<?xml') return null;
  const end = b.indexOf(GT, 5);
  if (end === -1 || end >= PRESCAN_BYTES) return null;
  let pos = b.indexOf('encoding', 5, 'latin1');
  if (pos === -1 || pos >= end) return null;
  pos += 8;
  while (pos < end && b[pos]! <= SPACE) pos++;
  if (b[pos] !== EQUALS) return null;
  pos++;
  while (pos < end && b[pos]! <= SPACE) pos++;
  const quote = b[pos];
  if (quote !== DQUOTE && quote !== SQUOTE) return null;
  const close = b.indexOf(quote, pos + 1);
  if (close === -1 || close > end) return null;
  for (let i = pos + 1; i < close; i++) if (b[i]! <= SPACE) return null;
  return documentDeclared(getEncoding(b.toString('latin1', pos + 1, close)));
}

// ---------------------------------------------------------------------------------------------
// No declaration: UTF-8 when valid, else the legacy encoding the bytes look like

/** The text when the bytes are valid UTF-8, else null. */
function validUtf8(bytes: Uint8Array): string | null {
  try {
    return UTF8_FATAL.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * chardet's answers (ICU's detector) as WHATWG encodings: ISO-8859-1 and -9 are windows-1252 and -1254 there, as the
 * label table says.
 */
const FROM_CHARDET = new Map<string, string>([
  ['ISO-8859-1', 'windows-1252'],
  ['windows-1252', 'windows-1252'],
  ['ISO-8859-2', 'ISO-8859-2'],
  ['windows-1250', 'windows-1250'],
  ['ISO-8859-5', 'ISO-8859-5'],
  ['windows-1251', 'windows-1251'],
  ['KOI8-R', 'KOI8-R'],
  ['ISO-8859-6', 'ISO-8859-6'],
  ['windows-1256', 'windows-1256'],
  ['ISO-8859-7', 'ISO-8859-7'],
  ['windows-1253', 'windows-1253'],
  ['ISO-8859-8', 'ISO-8859-8'],
  ['windows-1255', 'windows-1255'],
  ['ISO-8859-9', 'windows-1254'],
  ['windows-1254', 'windows-1254'],
  ['windows-1257', 'windows-1257'],
  ['windows-1258', 'windows-1258'],
  ['windows-874', 'windows-874'],
  ['Shift_JIS', 'Shift_JIS'],
  ['EUC-JP', 'EUC-JP'],
  ['EUC-KR', 'EUC-KR'],
  ['GB18030', 'gb18030'],
  ['Big5', 'Big5'],
  // Not guesses here: UTF-8 and UTF-16/32 (the bytes are not valid UTF-8, and no browser guesses
  // UTF-16 without a BOM), ISO-2022-* (7-bit: such a page is valid UTF-8 and never gets here).
]);

/**
 * The least confidence at which a guess beats windows-1252, for CJK (multi-byte) and for
 * single-byte encodings: chardet's two kinds of recognizers score differently (CJK ones count
 * valid and frequent characters, 10 for a handful and 100 for a paragraph; single-byte ones
 * score 300 times the share of the text's trigrams among the language's 64 most frequent).
 * Measured on 2,424 samples (30 to 4,000 characters of natural text in 22 languages, encoded in
 * their legacy encodings, in minimal HTML without declaration, markup stripped as below), 68
 * real pages (the 57 benchmark pages re-encoded, the 6 trafilatura ones without their
 * declarations) and 1,000 strings of random bytes (20 to 500 bytes):
 * - no windows-1252 sample (660) ever got another guess on top, at any confidence;
 * - right CJK guesses score 73 to 100 even at 30 characters; wrong ones at most 66 (KOI8-R
 *   Russian of 30 characters read as GBK), 10 for "<p>\x93hi\x94 \x80" (EUC-JP);
 * - right single-byte guesses grow with the text: Russian and Central European 17-35 at 120
 *   characters, 35-50 at 1,000; but Belarusian (a Russian model) 11-17 at any length;
 * - random bytes get a single-byte guess of up to 18 at 20-100 bytes, 7 at most from 200.
 * With 50 and 12, 97.5% of the samples of 250 characters or more decode right (95.7% with 20
 * for both, 92.9% of all lengths), and random strings of 200 bytes or more are never guessed.
 */
const MIN_CONFIDENCE_CJK = 50;
const MIN_CONFIDENCE_SINGLE_BYTE = 12;
const CJK = new Set(['Shift_JIS', 'EUC-JP', 'EUC-KR', 'gb18030', 'Big5']);

/**
 * chardet reads at most this many bytes of the page's text. Its cost is linear in the sample (each of its
 * recognizers makes a pass over it) and its
 * accuracy stops growing long before: each of the 68 real test pages is detected right from
 * its first 2 KB of text as from 64 KB, and text samples of 1,000 characters and more are
 * right in 98% to 100% of cases (Central European excepted, see the tests). 8 KB holds 4,000
 * CJK or 8,000 Latin characters: room for a long menu before the article's first paragraph.
 */
const DETECT_BYTES = 8 * 1024;

/**
 * The page's text for detection, up to DETECT_BYTES: markup stripped (tags, comments, scripts
 * and styles), whitespace runs folded to one space. On the raw bytes chardet reads mostly
 * ASCII markup: the same 68 real pages (first 64 KB) were detected right 61 times raw, 66 times
 * with tags stripped, 68 times with scripts, styles and comments stripped too (and faster, on
 * less input); the sample's language n-grams are what single-byte detection scores.
 */
function textSample(b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(Math.min(DETECT_BYTES, b.length));
  let len = 0;
  let space = true; // the last byte written was a space (none at the start)
  const n = b.length;
  let pos = 0;
  while (pos < n && len < out.length) {
    const lt = b.indexOf(LT, pos);
    const textEnd = lt === -1 ? n : lt;
    for (let i = pos; i < textEnd && len < out.length; i++) {
      const c = b[i]!;
      if (isAsciiWhitespace(c)) {
        if (!space) out[len++] = SPACE;
        space = true;
      } else {
        out[len++] = c;
        space = false;
      }
    }
    if (lt === -1) break;
    const next = b[lt + 1];
    if (next === BANG && b[lt + 2] === DASH && b[lt + 3] === DASH) pos = pastComment(b, lt);
    else if (isAsciiAlpha(next) && namedAt(b, lt + 1, 'script')) pos = pastGt(b, scriptEnd(b, lt + 1));
    else if (isAsciiAlpha(next) && namedAt(b, lt + 1, 'style')) pos = pastGt(b, rawTextEnd(b, lt + 1, 'style'));
    else if (isAsciiAlpha(next) || next === SLASH || next === BANG || next === QUESTION) pos = pastGt(b, lt + 1);
    else {
      // A lone '<' is text.
      if (len < out.length) out[len++] = LT;
      space = false;
      pos = lt + 1;
      continue;
    }
    // A tag separates words.
    if (!space && len < out.length) out[len++] = SPACE;
    space = true;
  }
  return out.subarray(0, len);
}

/**
 * The legacy encoding the bytes look like (chardet over the text, or over the bytes of a plain-text body), or null when
 * no guess is confident enough.
 */
function detectLegacy(b: Buffer, html: boolean): string | null {
  const sample = html ? textSample(b) : b.subarray(0, DETECT_BYTES);
  // Only ASCII to go on: the text reads the same in every candidate.
  if (!sample.some((c) => c >= 0x80)) return null;
  for (const match of chardet.analyse(sample)) {
    const name = FROM_CHARDET.get(match.name);
    if (name === undefined || !canDecode(name)) continue;
    return match.confidence >= (CJK.has(name) ? MIN_CONFIDENCE_CJK : MIN_CONFIDENCE_SINGLE_BYTE) ? name : null;
  }
  return null;
}

/** A charset answer, or no answer. */
function named(charset: string | null): { charset: string } | null {
  return charset ? { charset } : null;
}

/** The first steps of the order, both kinds of document: the BOM, then the HTTP charset. */
function declaredSteps(b: Buffer, httpCharset: string | undefined): Step[] {
  return [
    { source: 'bom', name: 'BOM sniffing', sniff: () => named(getBOMEncoding(b)) },
    {
      source: 'http',
      name: 'the HTTP charset label',
      sniff: () => (httpCharset === undefined ? null : named(usable(getEncoding(httpCharset)))),
    },
  ];
}

/**
 * No BOM, HTTP charset or declaration: bytes that are valid UTF-8 are UTF-8 (most of today's
 * web); otherwise the legacy encoding they look like, as browsers guess (chardetng,
 * compact_enc_det); windows-1252, the web's legacy default, which decodes every byte, when no
 * guess is confident. chardet runs only here: never on valid UTF-8 or on declared pages.
 */
function undeclaredSteps(b: Buffer, html: boolean): Step[] {
  return [
    {
      source: 'default',
      name: 'UTF-8 validation',
      sniff: () => {
        const text = validUtf8(b);
        return text === null ? null : { charset: 'UTF-8', text };
      },
    },
    { source: 'detected', name: 'charset detection (chardet)', sniff: () => named(detectLegacy(b, html)) },
  ];
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Decodes an HTML document as a browser would (HTML standard §13.2.3; docs/how-it-decides.md#decoding): a BOM,
 * then the HTTP charset, then a `<meta charset>` / `http-equiv` Content-Type declaration in the
 * head wherever it sits (or the XML declaration), then UTF-8 when the bytes are valid UTF-8, then
 * the legacy encoding they look like, else windows-1252. Never throws on any bytes: a step that
 * throws passes to the next, and `fallbacks` says so.
 */
export function decodeHtml(bytes: Uint8Array, httpCharset?: string): Decoded {
  const b = asBuffer(bytes);
  return decodeInOrder(
    b,
    [
      ...declaredSteps(b, httpCharset),
      { source: 'meta', name: 'the <meta> charset scan', sniff: () => named(prescanCharset(b) ?? metaCharset(b)) },
      { source: 'meta', name: 'the XML declaration scan', sniff: () => named(xmlDeclaration(b)) },
      ...undeclaredSteps(b, true),
    ],
    [],
  );
}

/**
 * Decodes a plain-text (or JSON, CSV, ...) body: a BOM, then the HTTP charset, then UTF-8 when valid, the legacy
 * encoding it looks like, or windows-1252. Never throws, as decodeHtml.
 */
export function decodeText(bytes: Uint8Array, httpCharset?: string): Decoded {
  const b = asBuffer(bytes);
  return decodeInOrder(b, [...declaredSteps(b, httpCharset), ...undeclaredSteps(b, false)], []);
}
