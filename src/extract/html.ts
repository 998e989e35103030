// HTML to text in one parse: the page's full visible text and Readability's article view (over Readability's light DOM), both rendered block-aware.
import { Readability } from '@mozilla/readability';
import { Parser } from 'htmlparser2';
import { LightTreeBuilder, type LightDocument } from './lightdom.js';
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
 * Limits past which a page gets no DOM: such a page gets its full view from the streaming pass
 * and no article view. A DOM's cost grows with size, with element count times depth, and, in the
 * light DOM (children are arrays: moving a node out of a parent is linear in its children), with
 * the square of the widest element's children. Real pages are far below them (the corpus: at most
 * ~2,000 elements, depth 51, 478 children of one element).
 */
export const DOM_LIMITS = { maxBytes: 10 * 1024 * 1024, maxElements: 150_000, maxDepth: 400, maxChildren: 5_000 };

/** A page parsed: its full view, and the tree Readability will read (unless the page is past a DOM cap). */
export interface ParsedPage {
  full: string;
  doc?: LightDocument;
  /** Why there is no tree, when there is none. */
  note?: string;
}

/** Which DOM cap the page has passed so far, if any. */
function overCap(sink: FullTextSink, limits: typeof DOM_LIMITS): string | undefined {
  if (sink.elements > limits.maxElements) return `more than ${limits.maxElements} elements (the DOM cap)`;
  if (sink.maxDepth > limits.maxDepth) return `elements nested more than ${limits.maxDepth} deep (the DOM cap)`;
  if (sink.maxChildren > limits.maxChildren) return `more than ${limits.maxChildren} children in one element (the DOM cap)`;
  return undefined;
}

/**
 * One htmlparser2 pass builds a tree in JSDOMParser's light DOM (lightdom.ts), the DOM
 * Readability's own tests run on; the full view is that tree's body rendered. The same pass
 * streams the full view's text and counts elements, depth and children (stream.ts): past a DOM
 * cap the tree is dropped and the streamed text serves.
 */
export function parseHtml(html: string, limits = DOM_LIMITS): ParsedPage {
  const sink = new FullTextSink();
  let tree: LightTreeBuilder | undefined;
  let over: string | undefined;
  if (html.length > limits.maxBytes) over = `${(html.length / 1024 / 1024).toFixed(1)} MB of HTML > the ${limits.maxBytes / 1024 / 1024} MB DOM cap`;
  else tree = new LightTreeBuilder();
  const check = () => {
    over = overCap(sink, limits);
    if (over) tree = undefined;
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        sink.open(name);
        if (tree) check();
        tree?.open(name, attributes);
      },
      onclosetag(name) {
        sink.close(name);
        tree?.close(name);
      },
      ontext(text) {
        sink.textChunk(text);
        if (tree) check();
        tree?.textChunk(text);
      },
    },
    HTML_PARSER_OPTIONS,
  );
  parser.write(html);
  parser.end();
  if (!tree) return { full: sink.result().text, note: `no article view: ${over} (full text from a streaming parser)` };
  const doc = tree.finish();
  // The full view from the tree (before Readability changes it): content the tree builder moved
  // (a <div> in the head, text after </body>) is where a browser shows it.
  return { full: renderText(doc.body as unknown as Node), doc };
}

/** Readability's article in a parsed page (it rearranges the tree: render the full view first). */
export function articleView(doc: LightDocument): Pick<HtmlViews, 'article' | 'articleNote'> {
  try {
    const result = new Readability<Element>(doc as unknown as Document, { serializer: (el) => el as Element }).parse();
    if (result?.content) return { article: renderText(result.content) };
    return { articleNote: 'Readability found no article' };
  } catch (err) {
    return { articleNote: `Readability failed: ${(err as Error).message}` };
  }
}

/**
 * Both views of a page: parseHtml, then articleView. The reference is jsdom (a spec-compliant
 * parser) and Readability over it: on every real page of the corpus both views give the same
 * normalized text as the reference (test/html-identity.test.ts), at about a tenth of the cost.
 * Nothing runs scripts, loads resources or parses style sheets (jsdom's CSS parser throws on
 * some real pages' style sheets; text needs no CSS).
 */
export function htmlToViews(html: string, limits = DOM_LIMITS): HtmlViews {
  const page = parseHtml(html, limits);
  if (!page.doc) return { full: page.full, articleNote: page.note };
  return { full: page.full, ...articleView(page.doc) };
}
