// HTML to text in one parse: the page's full visible text and Readability's article view (over Readability's light
// DOM), both rendered block-aware.
import { Readability } from '@mozilla/readability';
import { normalize } from '../normalize.js';
import { decodeHtml, type CharsetSource } from './decode.js';
import { collectGarbage } from './collect.js';
import { unitsOf, type TextUnits } from './worker/units.js';
import { describeError } from './errors.js';
import { buildDocument, type LightDocument, type TreeLimits } from './lightdom/index.js';
import { MarkupReader, readTree, type MarkupSignals } from './markup.js';
import { renderText, type RenderNode } from './render.js';
import { streamedText } from './streamed-text.js';

interface HtmlViews {
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
 * Limits past which a page gets no DOM: such a page gets its full view from the streaming pass and no article view.
 * Sized from measurements of long pages shaped like real ones (a 20,000-paragraph chapter, a 60,000-paragraph novel,
 * long reports) and of the hostile shapes (siblings, nesting, chains, dense markup): bench/long-pages.ts, whose
 * figures are bench/results.json `long_pages` (per page: MB, elements, ancestor-descendant pairs, build and Readability
 * time, the tree's heap, the smallest heap it needs, and whether the caps let it have a tree), made by
 * `node --expose-gc --max-old-space-size=512 dist/bench/long-pages.js --heap-probe --save`. test/readme-figures.test.ts
 * holds these caps to that file: every page it says fits has a tree, and every page it says is past a cap has none.
 *
 * What the figures show: Readability's time grows with the elements and with the ancestor-descendant pairs (its
 * scoring walks subtrees, so deep chains pay for their depth squared), and its peak heap is a few times the tree's.
 * Hence a byte cap (the one-page novel fits, the 30 MB hostile page does not), an element cap and a pairs cap that
 * keep a page at all of them inside the 60 s extraction limit and the worker's 512 MB heap, a depth cap of 400 (real
 * pages stay far under it; Blink's parser stops nesting at 512), and a children cap above the novel's. Width costs
 * nothing quadratic: removal from the light DOM is O(1) (lightdom/slots.ts). Past the caps: the doubled report, the
 * dense page, the wrapped paragraphs and the chained page get the full view only. The corpus's largest real page has
 * 1.4 MB, 1,965 elements, depth 52, 532 children of one node and 22,812 pairs.
 */
export const DOM_LIMITS = {
  maxBytes: 16 * 1024 * 1024,
  maxElements: 200_000,
  maxDepth: 400,
  maxChildren: 200_000,
  maxDepthSum: 6_000_000,
};

/** A page parsed: its full view, and the tree Readability will read (unless the page is past a DOM cap). */
interface ParsedPage {
  full: string;
  doc?: LightDocument;
  /** Why there is no tree, when there is none. */
  note?: string;
  /** Set when the DOM build threw: the full view came from the streaming parser. */
  fallback?: string;
}

/**
 * One pass of htmlparser2's tokenizer (with the standard's script data states: htmlparser2-internals.ts,
 * script-data.ts) builds the page into JSDOMParser's light DOM by the HTML standard's tree construction (lightdom/),
 * the DOM Readability's own tests run on; the full view is that tree's body rendered. A page past a DOM cap gets no
 * tree: over `maxBytes` it is not built; past the element, depth, children or ancestor-pair cap (counted by the tree
 * builder as it builds, so the work spent is bounded by the cap) building stops. Such a page's full view comes from the
 * streaming pass (streamed-text.ts), linear in size and depth: a second pass, only for those pages. `markup`, when
 * given, reads the markup signals from that streaming pass (from a built tree, its reader is readTree).
 */
export function parseHtml(
  html: string,
  limits: TreeLimits & { maxBytes: number } = DOM_LIMITS,
  markup?: MarkupReader,
): ParsedPage {
  let over: string | undefined;
  if (html.length > limits.maxBytes)
    over = `${(html.length / 1024 / 1024).toFixed(1)} MB of HTML > the ${limits.maxBytes / 1024 / 1024} MB DOM cap`;
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
      const fallback =
        `the DOM build threw (${describeError(err)}): full view from the streaming parser, no ` + `article view`;
      return { full: streamedText(html, markup), note: fallback, fallback };
    }
  }
  return { full: streamedText(html, markup), note: `no article view: ${over} (full text from a streaming parser)` };
}

/**
 * What Readability's constructor is typed to take: the DOM's Document. It reads only what JSDOMParser's light
 * DOM has (Firefox runs it over that DOM), so the light document stands in for one. src/ is compiled without
 * the DOM type library (tsconfig.src.json), where the name does not resolve and this is `any`.
 */
type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

/**
 * Readability's article in a parsed page (it rearranges the tree: render the full view first). Readability throwing
 * keeps the full view: `fallbacks` says so.
 */
export function articleView(doc: LightDocument): Pick<HtmlViews, 'article' | 'articleNote' | 'fallbacks'> {
  try {
    // The serializer hands back the article's root node itself (no HTML string): renderText reads it.
    const result = new Readability<RenderNode>(doc as unknown as ReadabilityDocument, {
      serializer: (node) => node as unknown as RenderNode,
    }).parse();
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
  if (!page.doc)
    return { full: page.full, articleNote: page.note, ...(page.fallback ? { fallbacks: [page.fallback] } : {}) };
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
  /** The views normalized (docs/how-it-decides.md#normalization-and-the-label), so the main thread need not. */
  normalized: { full: string; article?: string };
  charset: string;
  /** Where the charset came from (docs/how-it-decides.md#decoding: bom, http, meta, detected, default). */
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
      /** A large page's two texts handed over as their code units (then `full` and `normalizedFull` are empty). */
      units?: { full: TextUnits; normalizedFull: TextUnits };
      articleNote?: string;
      charset: string;
      charsetSource: CharsetSource;
      markup: MarkupSignals;
      fallbacks?: string[];
    }
  | {
      id: number;
      ok: true;
      stage: 'article';
      article?: string;
      normalizedArticle?: string;
      articleNote?: string;
      fallbacks?: string[];
    }
  | { id: number; ok: false; message: string };

/**
 * Pages of this many bytes or more whose full view is their only one (past the DOM caps) collect their garbage before
 * the reply: the HTML of a 30 MB page and the pieces of its text held some 100 MB beside its texts (Issue 46).
 */
const COLLECT_BEFORE_REPLY_BYTES = 8 * 1024 * 1024;

const NO_BYTES = new Uint8Array(0);

/**
 * A large page's full view sent as its code units: the worker lets its own texts go before they cross, where a
 * message of the texts held them three times at once (the worker's, the message's copy, the main thread's): some 250
 * MB for a 30 MB page, the MCP server's peak (Issue 46).
 */
function sendLarge(
  reply: Extract<HtmlJobReply, { stage: 'full' }>,
  send: (reply: HtmlJobReply, transfer?: ArrayBuffer[]) => void,
): void {
  const units = { full: unitsOf(reply.full), normalizedFull: unitsOf(reply.normalizedFull) };
  const sent = { ...reply, full: '', normalizedFull: '', units };
  reply.full = reply.normalizedFull = '';
  collectGarbage();
  send(sent, [units.full.units, units.normalizedFull.units]);
}

/** The request's bytes, taken from it: once decoded nothing holds them (the job's request lives as long as the job). */
function takeBytes(request: HtmlJobRequest): Uint8Array {
  const { bytes } = request;
  request.bytes = NO_BYTES;
  return bytes;
}

/** The page decoded and parsed: the decoded text is let go once parsed (a tree or the full view holds what counts). */
function decodeAndParse(bytes: Uint8Array, httpCharset: string | undefined, reader: MarkupReader) {
  const decoded = decodeHtml(bytes, httpCharset);
  const fallbacks = [...(decoded.fallbacks ?? [])];
  const page = parseHtml(decoded.text, DOM_LIMITS, reader);
  if (page.fallback) fallbacks.push(page.fallback);
  return { page, charset: decoded.charset, charsetSource: decoded.charsetSource, fallbacks };
}

/** Signals that claim nothing: a page whose markup could not be read is judged by its text alone. */
const NO_SIGNALS: MarkupSignals = { notFree: false, scripted: false };

/**
 * Decodes, parses and normalizes one page, sending its replies: every stage that throws falls back
 * to the next (decoding order, streamed full view, no article view), and only a page no stage got text
 * from answers `ok: false`.
 */
export function runHtmlJob(
  request: HtmlJobRequest,
  send: (reply: HtmlJobReply, transfer?: ArrayBuffer[]) => void,
): void {
  const { id, httpCharset } = request;
  const size = request.bytes.byteLength;
  let sentFull = false;
  try {
    const reader = new MarkupReader();
    const { page, charset, charsetSource, fallbacks } = decodeAndParse(takeBytes(request), httpCharset, reader);
    // A large page's bytes, its markup and the pieces its text was gathered from go before it is normalized, and
    // normalizing's copies before its texts are sent (copied once more): the heap need not hold them all at once.
    const large = size >= COLLECT_BEFORE_REPLY_BYTES && !page.doc;
    if (large) collectGarbage();
    let normalizedFull = normalize(page.full);
    if (large) collectGarbage();
    let markup = NO_SIGNALS;
    try {
      // From the tree before Readability rearranges it; a page with no tree was read by the streaming pass.
      if (page.doc) readTree(page.doc, reader);
      markup = reader.signals(normalizedFull.length);
    } catch (err) {
      fallbacks.push(`reading the markup's shell signals threw (${describeError(err)}): none assumed`);
    }
    const full: Extract<HtmlJobReply, { stage: 'full' }> = {
      id,
      ok: true,
      stage: 'full',
      final: !page.doc,
      full: page.full,
      normalizedFull,
      articleNote: page.note,
      charset,
      charsetSource,
      markup,
      ...(fallbacks.length ? { fallbacks } : {}),
    };
    if (large) {
      // The reply alone holds the texts now: sendLarge lets them go once they are in its buffers.
      page.full = normalizedFull = '';
      sendLarge(full, send);
    } else send(full);
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
