// The light DOM's entry point: what the rest of quotecheck (and its tests) import of it.
//
// Readability's own light DOM (JSDOMParser's node classes, shipped with @mozilla/readability), built by the HTML
// standard's tree construction from htmlparser2's tokens:
//
// nodes.ts     the node shapes, namespaces, and how nodes are made
// slots.ts     O(1) child removal
// queries.ts   getElementsByTagName, querySelectorAll, inline styles
// serialize.ts innerHTML (fragment serialization; fragment parsing for the setter)
// parse.ts     buildDocument, parseDocument, parseFragment
// tokenizer.ts htmlparser2's tokens to the tree builder
// tree.ts      LightTreeBuilder, on stack.ts, insert.ts, formatting.ts, modes.ts, start-tags.ts, end-tags.ts
//              (with tags.ts, tokens.ts, doctype.ts, limits.ts)
//
// The modules that adjust JSDOMParser's shared prototypes (so that the light DOM answers as jsdom does where
// Readability asks) do so when loaded; they are all loaded here, so that every importer sees the adjusted DOM.
import './slots.js';
import './queries.js';
import './serialize.js';

export type { LightDocument, LightElement } from './nodes.js';
export type { TreeLimits } from './limits.js';
export { buildDocument, parseDocument } from './parse.js';
export { inlineStyle } from './queries.js';
