// HTML to text in one parse: the page's full visible text and Readability's article view (over Readability's light DOM), both rendered block-aware.
import { Readability } from '@mozilla/readability';
import { normalize } from '../normalize.js';
import { decodeHtml, type CharsetSource } from './decode.js';
import { describeError } from './errors.js';
import { buildDocument, type LightDocument, type TreeLimits } from './lightdom/index.js';
import { markupSignals, type MarkupSignals } from './markup.js';
import { renderText, type RenderNode } from './render.js';
import { streamedText } from './streamed-text.js';

export interface HtmlViews {
  /** The whole body's visible text. */
  full: string;
  /** Readability's article content, rendered the same way; undefined when there is none. */
  article?: string;
  /** Why there is no article view, when there is none. */
  articleNote?: string;
  /** Stages whose dependency threw, and what the page kept instead (the report's note names them). */
  fallbacks?: string[];
}

/**
 * Limits past which a page gets no DOM: such a page gets its full view from the streaming pass and no
 * article view. Sized from measurements (`node --expose-gc --max-old-space-size=512
 * dist/bench/long-pages.js --heap-probe`: this project's 2-core machine, Node 20, one thread, medians of
 * three runs, the machine shared, so ±30%), so that no plausible real page reaches them while a page at
 * all of them still finishes well inside the 60 s extraction limit and the worker's 512 MB heap:
 *
 * | page (generated, seeded: test/support/hostile.ts)|    MB | elements | pairs¹ | build      | Readability        | tree heap        | needs heap² |
 * |-------------------------------------------------|-------|----------|--------|------------|--------------------|------------------|-------------|
 * | chapter, 20,000 <p> in one <div>                |  3.81 |   20,659 |  0.06M | 19 MB/s    | 0.85 s, 222 ms/MB  | 16 MB, 818 B/el  | 128 MB      |
 * | chapter, 20,000 <br><br>-separated paragraphs   |  3.85 |   40,235 |  0.12M | 18 MB/s    | 0.88 s, 228 ms/MB  | 11 MB            | 128 MB      |
 * | one-page novel, 60,000 <p> (122,411 children)   | 11.36 |   61,440 |  0.18M | 19 MB/s    | 1.9 s, 170 ms/MB   | 39 MB            | 192 MB      |
 * | report: sections, tables, 9,000 footnotes       |  6.96 |  131,218 |  1.19M | 7.2 MB/s   | 4.3 s, 612 ms/MB   | 71 MB, 569 B/el  | 192 MB      |
 * | the same report, twice as long                  | 13.68 |  249,134 |  2.24M | 8.1 MB/s   | 10–14 s, 760–995 ms/MB | 165 MB       | 320 MB      |
 * | 10,000 paragraphs in 20 wrapper <div>s each     |  4.94 |  210,003 |  2.52M | 3.5 MB/s   | 11.4 s             | 157 MB, 786 B/el | 384 MB      |
 * | 300,000 <span>s (hostile: dense)                |  4.29 |  300,004 |  0.90M | 2.1 MB/s   | 7.5 s              | 231 MB, 808 B/el | 384 MB      |
 * | 100,000 sibling <div>s (hostile /wide)          |  2.10 |  100,006 |  0.20M | 3.2 MB/s   | 2.6 s (27 s before removal was O(1)) | 34 MB | 128 MB |
 * | 50 chains 400 deep (hostile)                    |  0.21 |   20,003 |  4.03M | 1.1 MB/s   | 6.1 s              | 11 MB            | 128 MB      |
 *
 * ¹ ancestor-descendant pairs of elements (the sum of their depths, also the sum of all subtree sizes);
 * ² the smallest old-space heap, of 128, 192, ... 512 MB, in which parse and Readability complete.
 * The corpus's largest real page has 1.4 MB, 1,965 elements, depth 52, 532 children of one node, 22,812 pairs.
 *
 * So Readability costs about 25–35 µs per element plus 1.5 µs per ancestor-descendant pair (its scoring
 * walks subtrees: 400-deep chains pay for their depth squared), and its peak heap is ~2.4 times the tree's,
 * ~1.9 KB per element on element-dense pages. Hence: 16 MB (the one-page novel fits, the 30 MB hostile page
 * does not); 200,000 elements (peak heap ≤ ~400 MB of the worker's 512, ≤ ~7 s); 6 M pairs (≤ ~9 s); depth
 * 400 (real pages stay under ~250; Blink's parser stops nesting at 512); 200,000 children of one node (the
 * novel has 122,411). At all the caps at once: ~16 s on an idle core. Width costs nothing quadratic any more:
 * removal from the light DOM is O(1) (lightdom/). Past the caps: the doubled report, the dense and the
 * chained pages get the full view only.
 */
export const DOM_LIMITS = { maxBytes: 16 * 1024 * 1024, maxElements: 200_000, maxDepth: 400, maxChildren: 200_000, maxDepthSum: 6_000_000 };

/** A page parsed: its full view, and the tree Readability will read (unless the page is past a DOM cap). */
export interface ParsedPage {
  full: string;
  doc?: LightDocument;
  /** Why there is no tree, when there is none. */
  note?: string;
  /** Set when the DOM build threw: the full view came from the streaming parser. */
  fallback?: string;
}

/**
 * One pass of htmlparser2's tokenizer (with the standard's script data states: htmlparser2-internals.ts, script-data.ts) builds the page
 * into JSDOMParser's light DOM by the HTML standard's tree construction (lightdom/), the DOM Readability's
 * own tests run on; the full view is that tree's body rendered. A page past a DOM cap gets no tree: over
 * `maxBytes` it is not built; past the element, depth, children or ancestor-pair cap (counted by the tree
 * builder as it builds, so the work spent is bounded by the cap) building stops. Such a page's full view
 * comes from the streaming pass (streamed-text.ts), linear in size and depth: a second pass, only for those pages.
 */
export function parseHtml(html: string, limits: TreeLimits & { maxBytes: number } = DOM_LIMITS): ParsedPage {
  let over: string | undefined;
  if (html.length > limits.maxBytes) over = `${(html.length / 1024 / 1024).toFixed(1)} MB of HTML > the ${limits.maxBytes / 1024 / 1024} MB DOM cap`;
  else {
    try {
      const built = buildDocument(html, limits);
      if (built.doc) {
        // The full view from the tree (before Readability changes it): content the tree builder moved (a <div>
        // in the head, text after </body>, a table's stray text) is where a browser shows it.
        return { full: built.doc.body ? renderText(built.doc.body) : '', doc: built.doc };
      }
      over = built.over;
    } catch (err) {
      // A fault in the tree builder or the renderer costs the page its article view, not its text (as the caps do).
      const fallback = `the DOM build threw (${describeError(err)}): full view from the streaming parser, no article view`;
      return { full: streamedText(html), note: fallback, fallback };
    }
  }
  return { full: streamedText(html), note: `no article view: ${over} (full text from a streaming parser)` };
}

/**
 * What Readability's constructor is typed to take: the DOM's Document. It reads only what JSDOMParser's light
 * DOM has (Firefox runs it over that DOM), so the light document stands in for one. src/ is compiled without
 * the DOM type library (tsconfig.src.json), where the name does not resolve and this is `any`.
 */
type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

/** Readability's article in a parsed page (it rearranges the tree: render the full view first). Readability throwing keeps the full view: `fallbacks` says so. */
export function articleView(doc: LightDocument): Pick<HtmlViews, 'article' | 'articleNote' | 'fallbacks'> {
  try {
    // The serializer hands back the article's root node itself (no HTML string): renderText reads it.
    const result = new Readability<RenderNode>(doc as unknown as ReadabilityDocument, { serializer: (node) => node as unknown as RenderNode }).parse();
    if (result?.content) return { article: renderText(result.content) };
    return { articleNote: 'Readability found no article' };
  } catch (err) {
    const fallback = `Readability threw (${describeError(err)}): the full view stands, no article view`;
    return { articleNote: fallback, fallbacks: [fallback] };
  }
}

/**
 * Both views of a page: parseHtml, then articleView (the worker runs the two steps itself). The reference
 * is jsdom (parse5, the standard's parser) with Readability over it, rendered by a renderer written from the
 * standard's rendering section: on every real page of the corpus and every malformed page of
 * test/fixtures/malformed, both views give the same normalized text (test/html-identity.test.ts).
 * Nothing runs scripts, loads resources or parses style sheets (jsdom's CSS parser throws on
 * some real pages' style sheets; text needs no CSS).
 */
export function htmlToViews(html: string, limits: TreeLimits & { maxBytes: number } = DOM_LIMITS): HtmlViews {
  const page = parseHtml(html, limits);
  if (!page.doc) return { full: page.full, articleNote: page.note, ...(page.fallback ? { fallbacks: [page.fallback] } : {}) };
  return { full: page.full, ...articleView(page.doc) };
}

// ---------------------------------------------------------------------------------------------
// The worker's job (html-worker.ts runs it on its thread; tests may run it in-process)

export interface HtmlJobRequest {
  id: number;
  bytes: Uint8Array;
  /** The charset of the HTTP Content-Type, if any. */
  httpCharset?: string;
}

export interface HtmlJobResult {
  views: HtmlViews;
  /** The views normalized (design.md §3), so the main thread need not. */
  normalized: { full: string; article?: string };
  charset: string;
  /** Where the charset came from (design.md §2: bom, http, meta, detected, default). */
  charsetSource: CharsetSource;
  /** The markup's shell signals, read here so the main thread never decodes the page again. */
  markup: MarkupSignals;
  /** Stages whose dependency threw, and what the page kept instead (decoding, DOM build, Readability, the worker). */
  fallbacks?: string[];
}

/**
 * A job answers in two messages: the full view as soon as the page is parsed (`final` when
 * there is no article to look for), then the article view. If Readability overruns the time
 * limit, or anything throws after the full view, the page keeps its full view. `fallbacks` in
 * each message: the stages that threw before it was sent.
 */
export type HtmlJobReply =
  | {
      id: number;
      ok: true;
      stage: 'full';
      final: boolean;
      full: string;
      normalizedFull: string;
      articleNote?: string;
      charset: string;
      charsetSource: CharsetSource;
      markup: MarkupSignals;
      fallbacks?: string[];
    }
  | { id: number; ok: true; stage: 'article'; article?: string; normalizedArticle?: string; articleNote?: string; fallbacks?: string[] }
  | { id: number; ok: false; message: string };

/** Signals that claim nothing: a page whose markup could not be read is judged by its text alone. */
const NO_SIGNALS: MarkupSignals = { notFree: false, scripted: false };

/**
 * Decodes, parses and normalizes one page, sending its replies: every stage that throws falls back
 * to the next (decoding order, streamed full view, no article view), and only a page no stage got text
 * from answers `ok: false`.
 */
export function runHtmlJob({ id, bytes, httpCharset }: HtmlJobRequest, send: (reply: HtmlJobReply) => void): void {
  let sentFull = false;
  try {
    const decoded = decodeHtml(bytes, httpCharset);
    const fallbacks = [...(decoded.fallbacks ?? [])];
    const page = parseHtml(decoded.text);
    if (page.fallback) fallbacks.push(page.fallback);
    const normalizedFull = normalize(page.full);
    let markup = NO_SIGNALS;
    try {
      markup = markupSignals(decoded.text, normalizedFull.length);
    } catch (err) {
      fallbacks.push(`reading the markup's shell signals threw (${describeError(err)}): none assumed`);
    }
    send({
      id,
      ok: true,
      stage: 'full',
      final: !page.doc,
      full: page.full,
      normalizedFull,
      articleNote: page.note,
      charset: decoded.charset,
      charsetSource: decoded.charsetSource,
      markup,
      ...(fallbacks.length ? { fallbacks } : {}),
    });
    sentFull = true;
    if (!page.doc) return;
    const { article, articleNote, fallbacks: articleFallbacks } = articleView(page.doc);
    send({
      id,
      ok: true,
      stage: 'article',
      article,
      normalizedArticle: article !== undefined ? normalize(article) : undefined,
      articleNote,
      ...(articleFallbacks ? { fallbacks: articleFallbacks } : {}),
    });
  } catch (err) {
    if (sentFull) {
      const fallback = `the article stage threw (${describeError(err)}): the full view stands, no article view`;
      send({ id, ok: true, stage: 'article', articleNote: fallback, fallbacks: [fallback] });
    } else {
      send({ id, ok: false, message: describeError(err) });
    }
  }
}
