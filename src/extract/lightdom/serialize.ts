// innerHTML as a browser has it: the HTML fragment serialization algorithm, and the children a parsed fragment gives
// (patches.ts makes them JSDOMParser's innerHTML, with fragment.ts parsing for the setter).
import { COMMENT_NODE, ELEMENT_NODE, HTML_NS, TEXT_NODE, type LightElement, type LightNode } from './nodes.js';

const VOID: ReadonlySet<string> = new Set([
  'area',
  'base',
  'basefont',
  'bgsound',
  'br',
  'col',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const RAW_TEXT_PARENTS: ReadonlySet<string> = new Set([
  'style',
  'script',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'plaintext',
]);

const TEXT_ESCAPES = /[&<>\u00a0]/g;
const ATTRIBUTE_ESCAPES = /[&"\u00a0]/g;
const ESCAPED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\u00a0': '&nbsp;' };
const escapeChar = (c: string) => ESCAPED[c]!;

/** innerHTML's getter: the children of `root`, serialized (raw text elements verbatim, comments kept). */
export function serializeChildren(root: LightElement): string {
  return serializeInto(root, '');
}

function serializeInto(parent: LightNode, out: string): string {
  const rawParent =
    (parent as LightElement).namespaceURI === HTML_NS && RAW_TEXT_PARENTS.has((parent as LightElement).localName);
  const nodes = parent.childNodes;
  for (let i = 0; i < nodes.length; i++) {
    const child = nodes[i]!;
    if (child.nodeType === TEXT_NODE)
      out += rawParent ? child.textContent : child.textContent.replace(TEXT_ESCAPES, escapeChar);
    else if (child.nodeType === ELEMENT_NODE) {
      const el = child as LightElement;
      out += `<${el.localName}`;
      const attrs = el.attributes;
      for (let j = 0; j < attrs.length; j++)
        out += ` ${attrs[j]!.name}="${attrs[j]!.value.replace(ATTRIBUTE_ESCAPES, escapeChar)}"`;
      out += '>';
      if (el.namespaceURI === HTML_NS && VOID.has(el.localName)) continue;
      out = serializeInto(el, out);
      out += `</${el.localName}>`;
    } else if (child.nodeType === COMMENT_NODE) out += `<!--${child.textContent}-->`;
  }
  return out;
}

/**
 * innerHTML's setter, once the fragment is parsed: gives `el` the children of `holder` (the fragment's root), dropping
 * its own.
 */
export function replaceChildren(el: LightElement, holder: LightElement): void {
  for (const child of el.childNodes) child.parentNode = null;
  el.childNodes = holder.childNodes;
  el.children = holder.children;
  for (const child of el.childNodes) child.parentNode = el;
  holder.childNodes = [];
  holder.children = [];
}
