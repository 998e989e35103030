// jsdom as the reference DOM, with three corrections to its parse5 parser and tree adapter where they depart from the
// HTML standard (imported for its effect, before jsdom parses).
//
// 1. jsdom's parse5 tree adapter appends foster-parented text (a table's stray text) at the end of the table's parent
// instead of before the table (its insertTextBefore calls `_append`, which drops the reference node), where the
// standard (§13.2.6.1, the appropriate place for inserting a node), parse5's own tree adapter and every browser put
// it. Elements are foster-parented correctly. The fix below inserts the text where the standard says.
//
// 2. jsdom's adapter merges a repeated <html> or <body> tag's attributes into the element by setting each (its
// adoptAttributes is the one it uses for a new element's), so `<body class=a><body class=b>` ends with class=b;
// the standard ("in body", a start tag html or body) adds only the attributes the element does not have, as
// parse5's own adapter and browsers do. The fix passes on only those.
//
// 3. parse5's table of SVG tag names (the standard's, for "any other start tag" in foreign content) lacks
// fedropshadow -> feDropShadow, which the standard has (since Filter Effects added the element); the fix adds it.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// (The parse5 that jsdom itself loads, wherever npm put it.)
const { Parser: Parse5Parser, foreignContent } = (await import(
  pathToFileURL(createRequire(createRequire(import.meta.url).resolve('jsdom')).resolve('parse5')).href
)) as typeof import('parse5');
{
  // 1. Foster-parented text before the table.
  type ParserInternals = {
    _shouldFosterParentOnInsertion(): boolean;
    _findFosterParentingLocation(): {
      parent: { _insert?: (node: unknown, ref: unknown) => void };
      beforeElement: {
        previousSibling: { nodeType: number; data: string } | null;
        _ownerDocument: { createTextNode(s: string): unknown };
      } | null;
    };
    _insertCharacters(token: { chars: string }): void;
  };
  const proto = Parse5Parser.prototype as unknown as ParserInternals;
  const original = proto._insertCharacters;
  proto._insertCharacters = function insertCharacters(this: ParserInternals, token: { chars: string }) {
    if (this._shouldFosterParentOnInsertion()) {
      const { parent, beforeElement } = this._findFosterParentingLocation();
      if (beforeElement && parent._insert) {
        const prev = beforeElement.previousSibling;
        if (prev && prev.nodeType === 3) prev.data += token.chars;
        else parent._insert(beforeElement._ownerDocument.createTextNode(token.chars), beforeElement);
        return;
      }
    }
    original.call(this, token);
  };
}
{
  // 2. A repeated <html> or <body> tag adds only the attributes the element lacks. The adapter is jsdom's (not
  // exported): its class is patched when the first parser is given one.
  type Adapter = { adoptAttributes(element: { hasAttribute(name: string): boolean }, attrs: { name: string }[]): void };
  const patched = new WeakSet<object>();
  const adapters = new WeakMap<object, Adapter>();
  Object.defineProperty(Parse5Parser.prototype, 'treeAdapter', {
    configurable: true,
    get(this: object) {
      return adapters.get(this);
    },
    set(this: object, adapter: Adapter) {
      const proto = Object.getPrototypeOf(adapter) as Adapter;
      if (proto !== Object.prototype && !patched.has(proto)) {
        patched.add(proto);
        const adopt = proto.adoptAttributes;
        proto.adoptAttributes = function adoptAttributes(this: Adapter, element, attrs) {
          adopt.call(
            this,
            element,
            attrs.filter((a) => !element.hasAttribute(a.name)),
          );
        };
      }
      adapters.set(this, adapter);
    },
  });
}
// 3. The standard's fedropshadow.
(foreignContent.SVG_TAG_NAMES_ADJUSTMENT_MAP as Map<string, string>).set('fedropshadow', 'feDropShadow');
