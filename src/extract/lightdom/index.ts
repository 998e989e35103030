// The light DOM's entry point: what the rest of quotecheck (and its tests) import of it.
//
// Readability's own light DOM (JSDOMParser's node classes, shipped with @mozilla/readability), built by the HTML
// standard's tree construction from htmlparser2's tokens:
//
// nodes.ts     the node shapes, namespaces, and how nodes are made
// slots.ts     O(1) child removal
// queries.ts   getElementsByTagName, querySelectorAll, inline styles
// serialize.ts innerHTML (fragment serialization)
// fragment.ts  parseFragment (innerHTML's setter)
// patches.ts   installLightDomPatches: the adjustments to JSDOMParser's shared prototypes, made when called
// parse.ts     buildDocument (which calls installLightDomPatches)
// tokenizer.ts htmlparser2's tokens to the tree builder
// tree.ts      LightTreeBuilder: the tokens' entry points and the rules for text, on its state (state.ts), made of
//              parts that own their data: the stack of open elements (stack.ts), the active formatting elements
//              (formatting.ts, with reconstruction and the adoption agency), node insertion (insert.ts), the budget
//              (tree-limits.ts); the rules take that state: modes.ts, start-tags.ts, end-tags.ts (with tags.ts,
//              tokens.ts, doctype.ts, foreign-attrs.ts)
//
// Importing the light DOM changes nothing outside it: JSDOMParser's shared prototypes are adjusted (so that the light
// DOM answers as jsdom does where Readability asks) by installLightDomPatches, which the entry points call.

export type { LightDocument, LightElement, LightNode } from './nodes.js';
export { ELEMENT_NODE, TEXT_NODE } from './nodes.js';
export type { TreeLimits } from './tree-limits.js';
export { buildDocument } from './parse.js';
export { installLightDomPatches } from './patches.js';
export { inlineStyle } from './queries.js';
