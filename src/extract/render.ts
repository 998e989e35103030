// Rendering a DOM subtree to text as a browser lays it out: blocks and <br> separate, inline elements glue.

/**
 * HTML elements whose content is never rendered as text (HTML standard §15, Rendering):
 * - `display: none` in the user agent style sheet (§15.3.1): head, title, script, style, template, noframes,
 *   noembed, datalist, rp (and area, base, basefont, link, meta, param, which hold nothing);
 * - noscript: a browser runs scripts (§15.3.1, `@media (scripting)`), so it never shows it
 *   (docs/how-it-decides.md#extraction);
 * - replaced elements, whose children are fallback content a browser does not render: iframe (its content is
 *   raw text), video, audio, canvas (§15.4).
 * Content hidden by the page itself (the `hidden` attribute, `display: none` in a style attribute, a closed
 * <details> or <dialog>) stays: the full view is the body's text (docs/how-it-decides.md#extraction), and such content
 * is often real text a reader reveals (tabs, accordions, "read more"). The article view drops it where Readability
 * does.
 */
export const SKIPPED: ReadonlySet<string> = new Set([
  'head',
  'title',
  'script',
  'style',
  'template',
  'noframes',
  'noembed',
  'datalist',
  'rp',
  'noscript',
  'iframe',
  'video',
  'audio',
  'canvas',
]);

/**
 * SVG and MathML elements whose content is never rendered: SVG title, desc and metadata (SVG 2 §5.9: not
 * rendered as part of the graphics), style and script; MathML annotations (MathML Core's user agent style
 * sheet shows only the first child of <semantics>, the annotations being the rest).
 */
export const FOREIGN_SKIPPED: ReadonlySet<string> = new Set([
  'title',
  'desc',
  'metadata',
  'style',
  'script',
  'annotation',
  'annotation-xml',
]);

/**
 * Elements the browser's default style sheet lays out as blocks (HTML standard §15.3: display block,
 * list-item, table and its parts; the options of a select listed as a list box shows them), so their content
 * is separated from what surrounds it: the text gets a line break at both ends. Everything else is inline
 * and glues to its neighbours ("<b>a</b>b" is "ab").
 */
export const BLOCKS: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'col',
  'colgroup',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'frameset',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'listing',
  'main',
  'menu',
  'nav',
  'ol',
  'optgroup',
  'option',
  'p',
  'plaintext',
  'pre',
  'search',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'xmp',
]);

/**
 * The parts of a DOM node renderText reads: nodes of a browser's DOM, of jsdom's and of the light DOM
 * (lightdom/) all have them. Declared here so that src/ needs no DOM type library (tsconfig.src.json).
 */
export interface RenderNode {
  readonly nodeType: number;
  readonly textContent: string | null;
  readonly firstChild: RenderNode | null;
  readonly nextSibling: RenderNode | null;
  readonly parentNode: RenderNode | null;
}

/** An element as renderText reads it: its local name, and its namespace (null or absent in DOMs without namespaces). */
export interface RenderElement extends RenderNode {
  readonly localName: string;
  readonly namespaceURI?: string | null;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** HTML elements, and elements of DOMs that have no namespaces. */
function isHtml(el: RenderElement): boolean {
  const ns = el.namespaceURI;
  return ns === HTML_NS || ns === null || ns === undefined;
}

/** Whether an element's content is not rendered (HTML elements by SKIPPED, SVG and MathML ones by FOREIGN_SKIPPED). */
function skipped(el: RenderElement): boolean {
  return isHtml(el) ? SKIPPED.has(el.localName) : FOREIGN_SKIPPED.has(el.localName);
}

function isBlock(el: RenderElement): boolean {
  return isHtml(el) && BLOCKS.has(el.localName);
}

/**
 * The text of `root` as a browser lays it out, up to whitespace: text nodes in document
 * order, a newline around every block element and at every <br>. Iterative, so a page of
 * 100,000 nested elements cannot overflow the stack. (Readability's own `textContent` glues
 * `<li>a</li><li>b</li>` into "ab", which no reader sees.)
 */
export function renderText(root: RenderNode): string {
  const out: string[] = [];
  let node: RenderNode | null = root.firstChild;
  while (node) {
    if (node.nodeType === TEXT_NODE) {
      out.push(node.textContent ?? ''); // (not .data: Readability's light DOM has only textContent)
    } else if (node.nodeType === ELEMENT_NODE) {
      const el = node as RenderElement;
      if (el.localName === 'br' && isHtml(el)) {
        out.push('\n');
      } else if (!skipped(el)) {
        const block = isBlock(el);
        if (block) out.push('\n');
        if (node.firstChild) {
          node = node.firstChild;
          continue;
        }
        if (block) out.push('\n');
      }
    }
    // Climb until there is a next sibling, closing the blocks we leave.
    while (node && node !== root && !node.nextSibling) {
      node = node.parentNode;
      if (node && node !== root && isBlock(node as RenderElement)) out.push('\n');
    }
    if (!node || node === root) break;
    node = node.nextSibling;
  }
  return out.join('');
}
