// HTML to text in one parse: the page's full visible text and Readability's article view (over Readability's light DOM), both rendered block-aware.
import { Readability } from '@mozilla/readability';
import { Parser } from 'htmlparser2';
import { LightTreeBuilder } from './lightdom.js';
import { renderText } from './render.js';
import { FullTextSink, HTML_PARSER_OPTIONS } from './stream.js';

export interface HtmlViews {
  /** The whole body's visible text. */
  full: string;
  /** Readability's article content, rendered the same way; undefined when there is none. */
  article?: string;
  /** Why there is no article view, when there is none. */
  articleNote?: string;
}

/**
 * Limits past which a page gets no DOM (a DOM's cost grows with size, and with element count
 * times depth): such a page gets its full view from the streaming pass and no article view. Real
 * pages are far below them (the corpus: at most ~2,000 elements, depth 51).
 */
export const DOM_LIMITS = { maxBytes: 10 * 1024 * 1024, maxElements: 150_000, maxDepth: 400 };

/**
 * One htmlparser2 pass builds a tree in JSDOMParser's light DOM (lightdom.ts), the DOM
 * Readability's own tests run on: the full view is that tree's body rendered, the article view
 * Readability's content rendered. The same pass streams the full view's text and counts elements
 * and depth (stream.ts): past the DOM caps the tree is dropped and the streamed text serves. The reference is jsdom (a spec-compliant parser) and
 * Readability over it: on every real page of the corpus both views give the same normalized text
 * as the reference (test/html-identity.test.ts), at about a tenth of the cost. Nothing runs
 * scripts, loads resources or parses style sheets (jsdom's CSS parser throws on some real pages'
 * style sheets; text needs no CSS).
 */
export function htmlToViews(html: string, limits = DOM_LIMITS): HtmlViews {
  const full = new FullTextSink();
  let tree: LightTreeBuilder | undefined;
  let over: string | undefined;
  if (html.length > limits.maxBytes) over = `${(html.length / 1024 / 1024).toFixed(1)} MB of HTML > the ${limits.maxBytes / 1024 / 1024} MB DOM cap`;
  else tree = new LightTreeBuilder();

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        full.open(name);
        if (!tree) return;
        if (full.elements > limits.maxElements) {
          over = `more than ${limits.maxElements} elements (the DOM cap)`;
          tree = undefined;
        } else if (full.maxDepth > limits.maxDepth) {
          over = `elements nested more than ${limits.maxDepth} deep (the DOM cap)`;
          tree = undefined;
        } else {
          tree.open(name, attributes);
        }
      },
      onclosetag(name) {
        full.close(name);
        tree?.close(name);
      },
      ontext(text) {
        full.textChunk(text);
        tree?.textChunk(text);
      },
    },
    HTML_PARSER_OPTIONS,
  );
  parser.write(html);
  parser.end();

  if (!tree) return { full: full.result().text, articleNote: `no article view: ${over} (full text from a streaming parser)` };
  const doc = tree.finish();
  // The full view from the tree (before Readability changes it): content the tree builder moved
  // (a <div> in the head, text after </body>) is where a browser shows it.
  const text = renderText(doc.body as unknown as Node);
  try {
    const result = new Readability<Element>(doc as unknown as Document, { serializer: (el) => el as Element }).parse();
    if (result?.content) return { full: text, article: renderText(result.content) };
    return { full: text, articleNote: 'Readability found no article' };
  } catch (err) {
    return { full: text, articleNote: `Readability failed: ${(err as Error).message}` };
  }
}
