// The HTML fragment parsing algorithm (innerHTML's setter, installed by patches.ts): a fragment's nodes, built in
// the context of an element by the same tokenizer and tree builder as a page.
import { NO_LIMITS } from './tree-limits.js';
import { HTML_NS, SHARED_DOC, type LightElement } from './nodes.js';
import { tokenizeInto } from './tokenizer.js';
import { LightTreeBuilder } from './tree.js';

/** Contexts whose content the tokenizer reads as text. */
const RAW_CONTEXTS: ReadonlySet<string> = new Set([
  'title',
  'textarea',
  'style',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'script',
  'plaintext',
]);

/**
 * The HTML fragment parsing algorithm (innerHTML), with `context` as the context element: the new children. It runs
 * on the light DOM's nodes, so the light DOM's patches are in place (it is reached through the innerHTML they install).
 */
export function parseFragment(html: string, context: LightElement): LightElement {
  const tree = new LightTreeBuilder(NO_LIMITS, context);
  if (context.namespaceURI === HTML_NS && RAW_CONTEXTS.has(context.localName)) {
    // Contexts whose content the tokenizer reads as text (Readability never sets these).
    const root = tree.fragmentRoot();
    root.appendChild(SHARED_DOC.createTextNode(html));
    return root;
  }
  tokenizeInto(html, tree);
  return tree.fragmentRoot();
}
