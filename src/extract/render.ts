// Rendering a DOM subtree to text as a browser lays it out: blocks and <br> separate, inline elements glue.

/**
 * Elements whose content is never rendered as text. `iframe` and `noframes` hold raw
 * fallback markup, not text; `noscript` is skipped because browsers run scripts.
 */
export const SKIPPED: ReadonlySet<string> = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'noframes', 'head', 'title']);

/**
 * Elements the browser's default style sheet lays out as blocks (display: block, list-item,
 * table parts): their content is separated from what surrounds it, so the text gets a line
 * break at both ends. Everything else is inline and glues to its neighbours ("<b>a</b>b" is "ab").
 */
export const BLOCKS: ReadonlySet<string> = new Set([
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
      out.push(node.textContent ?? ''); // (not .data: Readability's light DOM has only textContent)
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
