// jsdom as the reference DOM, with one correction to its parse5 tree adapter (imported for its effect, before jsdom parses).
//
// jsdom's parse5 tree adapter appends foster-parented text (a table's stray text) at the end of the table's parent
// instead of before the table (its insertTextBefore calls `_append`, which drops the reference node), where the
// standard (§13.2.6.1, the appropriate place for inserting a node), parse5's own tree adapter and every browser put
// it. Elements are foster-parented correctly. The fix below inserts the text where the standard says.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// (The parse5 that jsdom itself loads, wherever npm put it.)
const { Parser: Parse5Parser } = (await import(
  pathToFileURL(createRequire(createRequire(import.meta.url).resolve('jsdom')).resolve('parse5')).href
)) as typeof import('parse5');
{
  type ParserInternals = {
    _shouldFosterParentOnInsertion(): boolean;
    _findFosterParentingLocation(): {
      parent: { _insert?: (node: unknown, ref: unknown) => void };
      beforeElement: { previousSibling: { nodeType: number; data: string } | null; _ownerDocument: { createTextNode(s: string): unknown } } | null;
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
