// HTML to text: the page's full visible text and Readability's article view, both rendered block-aware.
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import { renderText } from './render.js';

/**
 * One window, reused: documents made by its DOMParser have no browsing context, so jsdom
 * neither runs scripts nor loads resources nor parses style sheets. (jsdom's CSS parser
 * throws on some real pages' style sheets; text needs no CSS.) Its virtual console is
 * silent, so page errors never reach our output.
 */
let parser: DOMParser | undefined;
function domParser(): DOMParser {
  if (!parser) {
    const { window } = new JSDOM('', { virtualConsole: new VirtualConsole() });
    parser = new window.DOMParser();
  }
  return parser;
}

export interface HtmlViews {
  /** The whole body's visible text. */
  full: string;
  /** Readability's article content, rendered the same way; undefined when it finds no article. */
  article?: string;
  /** Why there is no article view, when there is none. */
  articleNote?: string;
}

/** Parses once, renders the full view, then lets Readability (which rewrites the DOM) find the article. */
export function htmlToViews(html: string): HtmlViews {
  const doc = domParser().parseFromString(html, 'text/html');
  const full = doc.body ? renderText(doc.body) : '';
  let article: string | undefined;
  let articleNote: string | undefined;
  try {
    const result = new Readability<Element>(doc, { serializer: (el) => el as Element }).parse();
    if (result?.content) article = renderText(result.content);
    else articleNote = 'Readability found no article';
  } catch (err) {
    articleNote = `Readability failed: ${(err as Error).message}`;
  }
  return { full, article, articleNote };
}
