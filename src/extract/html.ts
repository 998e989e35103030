// HTML to text: the page's full visible text and Readability's article view, both rendered block-aware.
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';

/**
 * Elements whose content is never rendered as text. `iframe` and `noframes` hold raw
 * fallback markup, not text; `noscript` is skipped because browsers run scripts.
 */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'noframes', 'head', 'title']);

/**
 * Elements the browser's default style sheet lays out as blocks (display: block, list-item,
 * table parts): their content is separated from what surrounds it, so the text gets a line
 * break at both ends. Everything else is inline and glues to its neighbours ("<b>a</b>b" is "ab").
 */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'col', 'colgroup', 'dd', 'details',
  'dialog', 'dir', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'frameset', 'h1', 'h2',
  'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'html', 'legend', 'li', 'listing', 'main', 'menu', 'nav', 'ol',
  'optgroup', 'option', 'p', 'plaintext', 'pre', 'search', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot',
  'th', 'thead', 'tr', 'ul', 'xmp',
]);

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;

/**
 * The text of `root` as a browser lays it out, up to whitespace: text nodes in document
 * order, a newline around every block element and at every <br>. Iterative, so a page of
 * 100,000 nested elements cannot overflow the stack. (Readability's own `textContent` glues
 * `<li>a</li><li>b</li>` into "ab", which no reader sees.)
 */
export function renderText(root: Node): string {
  const out: string[] = [];
  let node: Node | null = root.firstChild;
  while (node) {
    if (node.nodeType === TEXT_NODE) {
      out.push((node as Text).data);
    } else if (node.nodeType === ELEMENT_NODE) {
      const tag = (node as Element).localName;
      if (tag === 'br') {
        out.push('\n');
      } else if (!SKIPPED.has(tag)) {
        if (BLOCKS.has(tag)) out.push('\n');
        if (node.firstChild) {
          node = node.firstChild;
          continue;
        }
        if (BLOCKS.has(tag)) out.push('\n');
      }
    }
    // Climb until there is a next sibling, closing the blocks we leave.
    while (node && node !== root && !node.nextSibling) {
      node = node.parentNode;
      if (node && node !== root && BLOCKS.has((node as Element).localName)) out.push('\n');
    }
    if (!node || node === root) break;
    node = node.nextSibling;
  }
  return out.join('');
}

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
