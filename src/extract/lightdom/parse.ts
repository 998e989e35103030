// Entry points: a page's document in one tokenizer pass (within limits), and the HTML fragment parsing algorithm.
import { htmlTokenizer } from '../htmlparser2-internals.js';
import { NO_LIMITS, type TreeLimits } from './limits.js';
import { HTML_NS, SHARED_DOC, type LightDocument, type LightElement } from './nodes.js';
import { TokenGlue } from './tokenizer.js';
import { LightTreeBuilder } from './tree.js';

/** Contexts whose content the tokenizer reads as text. */
const RAW_CONTEXTS: ReadonlySet<string> = new Set(['title', 'textarea', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'script', 'plaintext']);

/** The HTML fragment parsing algorithm (innerHTML), with `context` as the context element: the new children. */
export function parseFragment(html: string, context: LightElement): LightElement {
  const tree = new LightTreeBuilder(NO_LIMITS, context);
  if (context.namespaceURI === HTML_NS && RAW_CONTEXTS.has(context.localName)) {
    // Contexts whose content the tokenizer reads as text (Readability never sets these).
    const root = tree.fragmentRoot();
    root.appendChild(SHARED_DOC.createTextNode(html));
    return root;
  }
  const glue = new TokenGlue(html, tree);
  const tokenizer = htmlTokenizer(glue);
  glue.tokenizer = tokenizer;
  tokenizer.write(html);
  tokenizer.end();
  return tree.fragmentRoot();
}

/**
 * Builds a page's light document in one tokenizer pass; stops (no document, `over` says why) as soon as the
 * tree passes one of `limits`.
 */
export function buildDocument(html: string, limits: TreeLimits = NO_LIMITS): { doc?: LightDocument; over?: string } {
  const tree = new LightTreeBuilder(limits);
  const glue = new TokenGlue(html, tree);
  const tokenizer = htmlTokenizer(glue);
  glue.tokenizer = tokenizer;
  tokenizer.write(html);
  if (!tree.over) tokenizer.end();
  const doc = tree.over ? undefined : tree.finish();
  return tree.over ? { over: tree.over } : { doc };
}

/** Parses a whole page into a light document, without limits. */
export function parseDocument(html: string): LightDocument {
  return buildDocument(html).doc!;
}
