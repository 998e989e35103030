// The tree builder's tokens: a start tag and its attributes (a flat name, value list), as tokenizer.ts makes them.

/** A tag's attributes as a flat list: name, value, name, value... (names unique, first kept). */
export type Attrs = readonly string[];
export const NO_ATTRS: Attrs = [];

/** A start tag token. */
export interface StartTag {
  name: string;
  attrs: Attrs;
  selfClosing: boolean;
}

export function getAttr(attrs: Attrs, name: string): string | undefined {
  for (let i = 0; i < attrs.length; i += 2) if (attrs[i] === name) return attrs[i + 1];
  return undefined;
}

/** Whether two tags have the same attributes, in any order (the Noah's Ark clause compares them). */
export function sameAttrs(a: Attrs, b: Attrs): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 2) if (getAttr(b, a[i]!) !== a[i + 1]) return false;
  return true;
}
