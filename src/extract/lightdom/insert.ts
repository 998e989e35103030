// Creating and inserting nodes (§13.2.6.1): the appropriate place, foster parenting, template contents, and the limits
// on elements.
import { foreignAttr } from './foreign-attrs.js';
import type { TreeBudget } from './tree-limits.js';
import {
  Attr,
  ELEMENT_NODE,
  LightElementNode,
  newDocument,
  NS,
  NS_URI,
  SvgAnimatedString,
  TEXT_NODE,
  type AttrShape,
  type LightDocument,
  type LightElement,
  type LightNode,
} from './nodes.js';
import type { OpenElements } from './stack.js';
import { TABLE_STRUCTURE } from './tags.js';
import type { Attrs } from './tokens.js';

/** Where a node goes: the parent, and the child to insert it before (none: append). */
type Place = [LightNode, LightElement | undefined];

/**
 * One part of the tree builder: the document, and the nodes made and inserted into it, at the appropriate place the
 * stack of open elements gives. It reports what it makes to the builder's budget: elements, their depths, children
 * of one node.
 */
export class NodeInsertion {
  readonly doc: LightDocument;
  /** Foster parenting is on (the table modes' "anything else"). */
  fosterParenting = false;
  /** Template elements' contents: kept out of the tree (a template's content is a separate fragment). */
  private readonly contents = new WeakMap<LightElement, LightElement>();
  /**
   * The last foster parent, and the index of its table there (foster parenting inserts many nodes before one table).
   */
  private fosterCache?: { parent: LightNode; table: LightElement; index: number; childIndex: number };

  constructor(
    private readonly stack: OpenElements,
    private readonly budget: TreeBudget,
    url: string,
  ) {
    this.doc = newDocument(url);
  }

  createElement(name: string, ns: NS, attrs: Attrs): LightElement {
    // JSDOMParser's createElement drops a namespace prefix ("o:p" would become a <p>); the HTML parser does not.
    const el = new LightElementNode(name, ns === NS.HTML ? upperCase(name) : name) as LightElement & {
      style?: unknown;
      className?: unknown;
    };
    if (ns !== NS.HTML) {
      el.namespaceURI = NS_URI[ns];
      if (ns === NS.MATHML)
        // jsdom's MathML elements have no style (Readability checks)
        Object.defineProperty(el, 'style', { value: undefined, writable: true });
      // as jsdom's: not a string, so Readability's class tests skip it
      else Object.defineProperty(el, 'className', { value: new SvgAnimatedString(), writable: true });
    }
    if (attrs.length > 0) {
      const list = el.attributes as unknown as AttrShape[];
      if (ns === NS.HTML) for (let i = 0; i < attrs.length; i += 2) list.push(new Attr(attrs[i]!, attrs[i + 1]!));
      // names by the standard's tables
      else for (let i = 0; i < attrs.length; i += 2) list.push(foreignAttr(ns, attrs[i]!, attrs[i + 1]!));
    }
    this.budget.element(this.stack.els.length);
    return el;
  }

  private counted(parent: LightNode): void {
    this.budget.children(parent.childNodes.length);
  }

  appendNode(parent: LightNode, node: LightNode): void {
    (parent as LightElement).appendChild(node);
    this.counted(parent);
  }

  /** Inserts `node` into `parent` before `ref` (JSDOMParser has no insertBefore). */
  private insertBefore(parent: LightNode, node: LightNode, ref: LightElement): void {
    const nodes = parent.childNodes;
    const cache = this.fosterCache;
    let index =
      cache && cache.parent === parent && cache.table === ref && nodes[cache.index] === ref
        ? cache.index
        : nodes.indexOf(ref);
    nodes.splice(index, 0, node);
    const prev = index > 0 ? nodes[index - 1]! : null;
    node.parentNode = parent;
    node.previousSibling = prev;
    node.nextSibling = ref;
    if (prev) prev.nextSibling = node;
    ref.previousSibling = node;
    let childIndex = cache && cache.parent === parent && cache.table === ref ? cache.childIndex : -1;
    if (node.nodeType === ELEMENT_NODE) {
      const el = node as LightElement;
      const kids = (parent as LightElement).children;
      const at = kids[childIndex] === ref ? childIndex : kids.indexOf(ref);
      childIndex = at + 1;
      kids.splice(at, 0, el);
      el.previousElementSibling = at > 0 ? kids[at - 1]! : null;
      el.nextElementSibling = ref;
      if (el.previousElementSibling) el.previousElementSibling.nextElementSibling = el;
      ref.previousElementSibling = el;
    }
    index++;
    this.fosterCache = { parent, table: ref, index, childIndex };
    this.counted(parent);
  }

  /** Takes `node` out of its parent (fast when it is the last child, as open elements usually are). */
  detach(node: LightNode): void {
    const parent = node.parentNode as LightElement | null;
    if (!parent) return;
    const nodes = parent.childNodes;
    if (nodes[nodes.length - 1] === node) {
      nodes.pop();
      const prev = node.previousSibling;
      if (prev) prev.nextSibling = null;
      if (node.nodeType === ELEMENT_NODE) {
        const el = node as LightElement;
        parent.children.pop();
        if (el.previousElementSibling) el.previousElementSibling.nextElementSibling = null;
        el.previousElementSibling = el.nextElementSibling = null;
      }
      node.parentNode = node.previousSibling = node.nextSibling = null;
      return;
    }
    (node as unknown as { remove(): void }).remove();
  }

  /** Moves all children of `from` to `to` (the adoption agency's step), in one go. */
  adoptChildren(from: LightElement, to: LightElement): void {
    const nodes = from.childNodes;
    const kids = from.children;
    from.childNodes = [];
    from.children = [];
    for (const n of nodes) n.parentNode = to;
    if (to.childNodes.length === 0) {
      to.childNodes = nodes;
      to.children = kids;
    } else {
      for (const n of nodes) to.appendChild(n);
    }
  }

  /** The appropriate place for inserting a node (§13.2.6.1): the parent, and the node to insert before, if any. */
  private insertionPlace(): Place {
    const stack = this.stack;
    const top = stack.els.length - 1;
    if (top < 0) return [this.doc as unknown as LightNode, undefined];
    return this.placeFor(stack.els[top]!, stack.names[top]!, stack.nss[top] === NS.HTML, this.fosterParenting);
  }

  /**
   * The appropriate place with `el` as the target (the adoption agency's override target fosters whatever the flag
   * says, as in parse5).
   */
  placeFor(el: LightElement, name: string, html: boolean, foster: boolean): Place {
    if (foster && html && TABLE_STRUCTURE.has(name)) {
      const stack = this.stack;
      const table = stack.indexOf('table');
      const template = stack.indexOf('template');
      if (template > table) return [this.contentOf(stack.els[template]!), undefined];
      if (table === -1) return [stack.els[0]!, undefined];
      const tableEl = stack.els[table]!;
      if (tableEl.parentNode) return [tableEl.parentNode, tableEl];
      return [stack.els[table - 1]!, undefined];
    }
    if (html && name === 'template') return [this.contentOf(el), undefined];
    return [el, undefined];
  }

  private contentOf(template: LightElement): LightElement {
    let content = this.contents.get(template);
    if (!content) {
      content = this.doc.createElement('#document-fragment');
      this.contents.set(template, content);
    }
    return content;
  }

  currentTemplateContentOrNode(): LightNode {
    const stack = this.stack;
    const top = stack.els.length - 1;
    if (top < 0) return this.doc as unknown as LightNode;
    const el = stack.els[top]!;
    return stack.names[top] === 'template' && stack.nss[top] === NS.HTML ? this.contentOf(el) : el;
  }

  insertAt(node: LightNode, place: Place): void {
    if (place[1]) this.insertBefore(place[0], node, place[1]);
    else this.appendNode(place[0], node);
  }

  /** Inserts an element for the token where it belongs and pushes it on the stack. */
  insertElement(name: string, attrs: Attrs, ns: NS = NS.HTML): LightElement {
    const el = this.createElement(name, ns, attrs);
    this.insertAt(el, this.insertionPlace());
    this.stack.push(el, name, ns);
    return el;
  }

  /** Inserts a void element (not pushed). */
  appendElement(name: string, attrs: Attrs, ns: NS = NS.HTML): LightElement {
    const el = this.createElement(name, ns, attrs);
    this.insertAt(el, this.insertionPlace());
    return el;
  }

  insertCharacters(data: string): void {
    if (data === '') return;
    const [parent, before] = this.insertionPlace();
    if (parent.nodeType === 9 /* document */) return;
    const prev = before ? before.previousSibling : parent.childNodes[parent.childNodes.length - 1];
    if (prev && prev.nodeType === TEXT_NODE) {
      prev.textContent += data;
      return;
    }
    const node = this.doc.createTextNode(data);
    if (before) this.insertBefore(parent, node, before);
    else this.appendNode(parent, node);
  }
}

/** An HTML element's tagName: its name uppercased, cached for the first thousand names a process sees. */
const UPPER = new Map<string, string>();
function upperCase(name: string): string {
  let upper = UPPER.get(name);
  if (upper === undefined) {
    upper = name.toUpperCase();
    if (UPPER.size < 1000) UPPER.set(name, upper);
  }
  return upper;
}
