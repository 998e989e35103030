// Readability's own light DOM (JSDOMParser's node classes, shipped with @mozilla/readability), built by the HTML
// standard's tree construction from htmlparser2's tokens.
import JSDOMParser from '@mozilla/readability/JSDOMParser.js';
import { Tokenizer, type ParserOptions } from 'htmlparser2';
import { EMPTY_SEQUENCE, HTML_PARSER_OPTIONS, type TokenizerInternals } from './stream.js';

/** The parts of JSDOMParser's nodes this module touches (it is plain objects and arrays, no live lists). */
export interface LightNode {
  nodeType: number;
  childNodes: LightNode[];
  textContent: string;
  parentNode: LightNode | null;
  nextSibling: LightNode | null;
  previousSibling: LightNode | null;
}

export interface LightElement extends LightNode {
  localName: string;
  tagName: string;
  /** HTML_NS unless the element is SVG or MathML (as in a browser's DOM). */
  namespaceURI: string;
  children: LightElement[];
  nextElementSibling: LightElement | null;
  previousElementSibling: LightElement | null;
  attributes: { name: string; value: string }[];
  appendChild(child: LightNode): void;
  setAttribute(name: string, value: string): void;
  getAttribute(name: string): string | undefined;
  hasAttribute(name: string): boolean;
  innerHTML: string;
}

export interface LightDocument {
  childNodes: LightNode[];
  children: LightElement[];
  documentElement?: LightElement;
  head?: LightElement;
  body?: LightElement;
  title: string;
  appendChild(child: LightNode): void;
  createElement(tag: string): LightElement;
  createTextNode(text: string): LightNode;
}

export const HTML_NS = 'http://www.w3.org/1999/xhtml';
export const SVG_NS = 'http://www.w3.org/2000/svg';
export const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const COMMENT_NODE = 8;

/** A document of JSDOMParser's, for its node classes (nodes do not belong to a document: createElement is `new Element`). */
const SHARED_DOC = new JSDOMParser().parse('<p></p>', 'http://localhost/') as unknown as LightDocument;
const ElementProto = Object.getPrototypeOf(SHARED_DOC.children[0]) as Record<string, unknown>;
const TextProto = Object.getPrototypeOf(SHARED_DOC.createTextNode('')) as object;
const NodeProto = Object.getPrototypeOf(TextProto) as Record<string, unknown>;

/**
 * Comment nodes, kept where the standard puts them: Readability tells them from text and elements (a comment ends a
 * run of phrasing content it wraps in a <p>, so `a<!-- -->b` in a div is two paragraphs in its article, as in a
 * browser). JSDOMParser's own parser drops comments; its Comment class is not exported, so this is its shape.
 */
const CommentProto = Object.create(NodeProto, {
  nodeName: { value: '#comment' },
  nodeType: { value: COMMENT_NODE },
  innerHTML: {
    get(this: LightNode) {
      return `<!--${this.textContent}-->`;
    },
  },
}) as object;

function createComment(data: string): LightNode {
  const node = Object.create(CommentProto) as LightNode;
  node.childNodes = [];
  node.textContent = data;
  return node;
}

// Adjustments to the shared prototypes, made once, so that this DOM answers as the reference DOM (jsdom) does
// where Readability asks. They only affect JSDOMParser's classes, which nothing else uses.
{
  const parserProto = Object.getPrototypeOf(new JSDOMParser()) as { error(m: string): void };
  // JSDOMParser prints markup errors to the console; in a worker that is our stdout. Keep them on the parser (its
  // errorState), which is where its own tests look. (Its parser no longer runs: innerHTML is parsed below.)
  parserProto.error = function error(this: { errorState: string }, message: string) {
    this.errorState += `${message}\n`;
  };
  // Readability asks `style.display` and `style.visibility` of every node (_isProbablyVisible). JSDOMParser answers
  // from the style attribute verbatim ("none !important", "NONE"); a browser (and jsdom) parses it: property names
  // are case-insensitive, keywords too, `!important` is not part of the value, and among repeats an important
  // declaration wins, else the last.
  const styleProto = Object.getPrototypeOf((SHARED_DOC.children[0] as unknown as { style: object }).style) as { getStyle(name: string): string | undefined };
  styleProto.getStyle = function getStyle(this: { node: LightElement }, name: string) {
    return inlineStyle(this.node.getAttribute('style'), name);
  };
  ElementProto.namespaceURI = HTML_NS;
  // getElementsByTagName and querySelectorAll (tag lists only: all Readability asks) as in an HTML document: HTML
  // elements by lowercase name, SVG and MathML elements by their own name, in document order. With
  // querySelectorAll present Readability takes the same path as over jsdom (one list in document order, not one
  // list per tag name concatenated).
  const byTagName = function getElementsByTagName(this: LightElement, qualifiedName: string) {
    const out = elementsByNames(this, qualifiedName === '*' ? undefined : [qualifiedName]) as LightElement[] & { _isLiveNodeList?: boolean };
    out._isLiveNodeList = true; // as JSDOMParser marks them: Readability refuses to remove from a live list
    return out;
  };
  const querySelectorAll = function querySelectorAll(this: LightElement, selectors: string) {
    const names = selectors.split(',').map((s) => s.trim());
    if (!names.every((n) => /^[a-zA-Z][a-zA-Z0-9-]*$/.test(n))) throw new Error(`querySelectorAll: only tag names are supported, not ${selectors}`);
    return elementsByNames(this, names);
  };
  const DocumentProto = Object.getPrototypeOf(SHARED_DOC) as Record<string, unknown>;
  for (const proto of [ElementProto, DocumentProto]) {
    proto.getElementsByTagName = byTagName;
    proto.querySelectorAll = querySelectorAll;
  }
  // innerHTML as a browser has it: serialized by the HTML fragment serialization algorithm (raw text elements
  // verbatim, comments kept) and parsed by the fragment parsing algorithm with this tree builder. Readability
  // re-parses the page this way when it retries (`page.innerHTML = pageCacheHtml`) and for <noscript> images.
  const inner = Object.getOwnPropertyDescriptor(ElementProto, 'innerHTML')!;
  Object.defineProperty(ElementProto, 'innerHTML', {
    configurable: true,
    enumerable: inner.enumerable ?? true,
    get(this: LightElement) {
      return serializeChildren(this);
    },
    set(this: LightElement, html: string) {
      replaceChildren(this, parseFragment(String(html), this));
    },
  });
}

// Removal in O(1). JSDOMParser keeps a node's children in two arrays (childNodes, children) and removes a child
// with indexOf and splice, so emptying a parent of n children costs n² (V8's splice on an array of 100,000
// objects takes ~90 µs): Readability's moves (`while (page.firstChild) div.appendChild(page.firstChild)`, <br>
// chains made into paragraphs, a chapter's spacers removed) took 27 s on 100,000 siblings. Here each node
// remembers its slot in its parent's arrays; removing it leaves a hole (or pops it, at the end), and the arrays
// are compacted when they are next read whole (childNodes, children), which Readability does between moves, not
// per move. firstChild and lastChild skip holes without compacting. The arrays are the same objects JSDOMParser
// and Readability use; only their access goes through accessors.
interface Slotted {
  _cn: (Slotted | null)[];
  _ch: (Slotted | null)[];
  /** Holes in _cn and _ch; the first slot of _cn that may hold a node (all before it are holes). */
  _holes: number;
  _eholes: number;
  _front: number;
  /** This node's slot in its parent's _cn, and (elements) _ch: a hint, checked before use. */
  _i: number;
  _ei: number;
  nodeType: number;
  parentNode: Slotted | null;
  previousSibling: Slotted | null;
  nextSibling: Slotted | null;
  previousElementSibling: Slotted | null;
  nextElementSibling: Slotted | null;
}

function compactNodes(node: Slotted): (Slotted | null)[] {
  const a = node._cn;
  let w = 0;
  for (let r = 0; r < a.length; r++) {
    const c = a[r];
    if (c !== null && c !== undefined) {
      c._i = w;
      a[w++] = c;
    }
  }
  a.length = w;
  node._holes = 0;
  node._front = 0;
  return a;
}

function compactElements(node: Slotted): (Slotted | null)[] {
  const a = node._ch;
  let w = 0;
  for (let r = 0; r < a.length; r++) {
    const c = a[r];
    if (c !== null && c !== undefined) {
      c._ei = w;
      a[w++] = c;
    }
  }
  a.length = w;
  node._eholes = 0;
  return a;
}

/** The slot of `node` in `a`: its hint when that is right, else found. */
function slotOf(a: (Slotted | null)[], node: Slotted, hint: number): number {
  return a[hint] === node ? hint : a.indexOf(node);
}

{
  const proto = NodeProto as unknown as Record<string, unknown>;
  Object.defineProperty(proto, 'childNodes', {
    configurable: true,
    get(this: Slotted) {
      return this._holes > 0 ? compactNodes(this) : this._cn;
    },
    set(this: Slotted, value: (Slotted | null)[]) {
      this._cn = value;
      this._holes = 0;
      this._front = 0;
      if (this._ch === undefined) {
        // first set (a constructor): give every node the same fields, in the same order
        this._ch = undefined as unknown as Slotted[];
        this._eholes = 0;
        this._i = -1;
        this._ei = -1;
      }
      for (let i = 0; i < value.length; i++) value[i]!._i = i;
    },
  });
  Object.defineProperty(proto, 'children', {
    configurable: true,
    get(this: Slotted) {
      return this._eholes > 0 ? compactElements(this) : this._ch;
    },
    set(this: Slotted, value: (Slotted | null)[]) {
      this._ch = value;
      this._eholes = 0;
      for (let i = 0; i < value.length; i++) value[i]!._ei = i;
    },
  });
  Object.defineProperty(proto, 'firstChild', {
    configurable: true,
    get(this: Slotted) {
      const a = this._cn;
      if (this._holes === 0) return a[0] ?? null;
      let i = this._front;
      while (i < a.length && a[i] === null) i++;
      this._front = i;
      return a[i] ?? null;
    },
  });
  Object.defineProperty(proto, 'lastChild', {
    configurable: true,
    get(this: Slotted) {
      const a = this._cn;
      return a[a.length - 1] ?? null; // (trailing holes are always popped)
    },
  });
  Object.defineProperty(proto, 'firstElementChild', {
    configurable: true,
    get(this: Slotted) {
      const a = this._eholes > 0 ? compactElements(this) : this._ch;
      return a[0] ?? null;
    },
  });
  Object.defineProperty(proto, 'lastElementChild', {
    configurable: true,
    get(this: Slotted) {
      const a = this._ch;
      return a[a.length - 1] ?? null;
    },
  });

  proto.appendChild = function appendChild(this: Slotted, child: Slotted) {
    if (child.parentNode) (child as unknown as { remove(): void }).remove();
    const nodes = this._cn;
    const last = nodes[nodes.length - 1] ?? null;
    if (last) last.nextSibling = child;
    child.previousSibling = last;
    if (child.nodeType === ELEMENT_NODE) {
      const kids = this._ch;
      const lastElement = kids[kids.length - 1] ?? null;
      child.previousElementSibling = lastElement;
      child._ei = kids.length;
      kids.push(child);
      if (lastElement) lastElement.nextElementSibling = child;
    }
    child._i = nodes.length;
    nodes.push(child);
    child.parentNode = this;
  };

  /** Takes slot `i` out of `a`: popped at the end (with the holes before it), else left a hole. Returns the holes added. */
  const vacate = (a: (Slotted | null)[], i: number): number => {
    if (i !== a.length - 1) {
      a[i] = null;
      return 1;
    }
    a.pop();
    let popped = 0;
    while (a.length > 0 && a[a.length - 1] === null) {
      a.pop();
      popped--;
    }
    return popped;
  };

  proto.remove = function remove(this: Slotted) {
    const parent = this.parentNode;
    if (!parent) return this;
    const nodes = parent._cn;
    const i = slotOf(nodes, this, this._i);
    if (i === -1) throw new Error('removeChild: node not found');
    this.parentNode = null;
    const prev = this.previousSibling;
    const next = this.nextSibling;
    if (prev) prev.nextSibling = next;
    if (next) next.previousSibling = prev;
    parent._holes += vacate(nodes, i);
    if (parent._holes === 0) parent._front = 0;
    if (this.nodeType === ELEMENT_NODE) {
      const prevElement = this.previousElementSibling;
      const nextElement = this.nextElementSibling;
      if (prevElement) prevElement.nextElementSibling = nextElement;
      if (nextElement) nextElement.previousElementSibling = prevElement;
      const kids = parent._ch;
      const j = slotOf(kids, this, this._ei);
      if (j !== -1) parent._eholes += vacate(kids, j);
    }
    this.previousSibling = this.nextSibling = null;
    this.previousElementSibling = this.nextElementSibling = null;
    return this;
  };

  proto.replaceChild = function replaceChild(this: Slotted, newNode: Slotted, oldNode: Slotted) {
    if (oldNode.parentNode !== this || slotOf(this._cn, oldNode, oldNode._i) === -1) throw new Error('replaceChild: node not found');
    // This takes care of updating the new node if it was somewhere else before (here too: then the slots move).
    if (newNode.parentNode) (newNode as unknown as { remove(): void }).remove();
    const nodes = this._cn;
    const index = slotOf(nodes, oldNode, oldNode._i);
    nodes[index] = newNode;
    newNode._i = index;
    newNode.nextSibling = oldNode.nextSibling;
    newNode.previousSibling = oldNode.previousSibling;
    if (newNode.nextSibling) newNode.nextSibling.previousSibling = newNode;
    if (newNode.previousSibling) newNode.previousSibling.nextSibling = newNode;
    newNode.parentNode = this;
    if (newNode.nodeType === ELEMENT_NODE) {
      if (oldNode.nodeType === ELEMENT_NODE) {
        newNode.previousElementSibling = oldNode.previousElementSibling;
        newNode.nextElementSibling = oldNode.nextElementSibling;
        if (newNode.previousElementSibling) newNode.previousElementSibling.nextElementSibling = newNode;
        if (newNode.nextElementSibling) newNode.nextElementSibling.previousElementSibling = newNode;
        const kids = this._ch;
        const j = slotOf(kids, oldNode, oldNode._ei);
        kids[j] = newNode;
        newNode._ei = j;
      } else {
        // The new element's element siblings: the nearest elements before and after it.
        let prevElement: Slotted | null = null;
        for (let k = index - 1; k >= 0 && !prevElement; k--) if (nodes[k] && nodes[k]!.nodeType === ELEMENT_NODE) prevElement = nodes[k]!;
        let nextElement: Slotted | null = prevElement ? prevElement.nextElementSibling : null;
        if (!prevElement) for (let k = index + 1; k < nodes.length && !nextElement; k++) if (nodes[k] && nodes[k]!.nodeType === ELEMENT_NODE) nextElement = nodes[k]!;
        newNode.previousElementSibling = prevElement;
        newNode.nextElementSibling = nextElement;
        if (prevElement) prevElement.nextElementSibling = newNode;
        if (nextElement) nextElement.previousElementSibling = newNode;
        const kids = this._eholes > 0 ? compactElements(this) : this._ch;
        if (nextElement) {
          const at = slotOf(kids, nextElement, nextElement._ei);
          kids.splice(at, 0, newNode);
          for (let k = at; k < kids.length; k++) kids[k]!._ei = k;
        } else {
          newNode._ei = kids.length;
          kids.push(newNode);
        }
      }
    } else if (oldNode.nodeType === ELEMENT_NODE) {
      if (oldNode.previousElementSibling) oldNode.previousElementSibling.nextElementSibling = oldNode.nextElementSibling;
      if (oldNode.nextElementSibling) oldNode.nextElementSibling.previousElementSibling = oldNode.previousElementSibling;
      const kids = this._ch;
      const j = slotOf(kids, oldNode, oldNode._ei);
      if (j !== -1) this._eholes += vacate(kids, j);
    }
    oldNode.parentNode = null;
    oldNode.previousSibling = null;
    oldNode.nextSibling = null;
    if (oldNode.nodeType === ELEMENT_NODE) {
      oldNode.previousElementSibling = null;
      oldNode.nextElementSibling = null;
    }
    return oldNode;
  };
}

/** Elements under `root` (not itself) in document order whose name matches, HTML ones case-insensitively. */
function elementsByNames(root: LightElement, names: string[] | undefined): LightElement[] {
  const out: LightElement[] = [];
  if (!names) collectAll(root, out);
  else if (names.length === 1) collectNamed(root, names[0]!.toLowerCase(), names[0]!, out);
  else {
    const lower = new Set(names.map((n) => n.toLowerCase()));
    const exact = new Set(names);
    collectIn(root, lower, exact, out);
  }
  return out;
}

function collectAll(root: LightElement, out: LightElement[]): void {
  const kids = root.children;
  for (let i = 0; i < kids.length; i++) {
    const el = kids[i]!;
    out.push(el);
    if (el.children.length > 0) collectAll(el, out);
  }
}

function collectNamed(root: LightElement, lower: string, exact: string, out: LightElement[]): void {
  const kids = root.children;
  for (let i = 0; i < kids.length; i++) {
    const el = kids[i]!;
    const name = el.localName;
    if (name === lower ? el.namespaceURI === HTML_NS || lower === exact : name === exact && el.namespaceURI !== HTML_NS) out.push(el);
    if (el.children.length > 0) collectNamed(el, lower, exact, out);
  }
}

function collectIn(root: LightElement, lower: ReadonlySet<string>, exact: ReadonlySet<string>, out: LightElement[]): void {
  const kids = root.children;
  for (let i = 0; i < kids.length; i++) {
    const el = kids[i]!;
    if (el.namespaceURI === HTML_NS ? lower.has(el.localName) : exact.has(el.localName)) out.push(el);
    if (el.children.length > 0) collectIn(el, lower, exact, out);
  }
}

/**
 * The value of one property in an inline style attribute, as CSSOM reports it for keyword
 * properties: lowercased, without `!important`; undefined when the property is not set.
 */
export function inlineStyle(attribute: string | undefined | null, property: string): string | undefined {
  if (!attribute) return undefined;
  let value: string | undefined;
  let important = false;
  for (const declaration of attribute.split(';')) {
    const colon = declaration.indexOf(':');
    if (colon === -1 || declaration.slice(0, colon).trim().toLowerCase() !== property) continue;
    let v = declaration.slice(colon + 1).trim().toLowerCase();
    const bang = /\s*!\s*important$/.exec(v);
    if (bang) v = v.slice(0, bang.index);
    if (v === '' || (important && !bang)) continue;
    value = v;
    important ||= bang !== null;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// Serialization (the HTML fragment serialization algorithm, for innerHTML).

const VOID: ReadonlySet<string> = new Set(['area', 'base', 'basefont', 'bgsound', 'br', 'col', 'embed', 'frame', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const RAW_TEXT_PARENTS: ReadonlySet<string> = new Set(['style', 'script', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);

const TEXT_ESCAPES = /[&<>\u00a0]/g;
const ATTRIBUTE_ESCAPES = /[&"\u00a0]/g;
const ESCAPED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\u00a0': '&nbsp;' };
const escapeChar = (c: string) => ESCAPED[c]!;

function serializeChildren(root: LightElement): string {
  return serializeInto(root, '');
}

function serializeInto(parent: LightNode, out: string): string {
  const rawParent = (parent as LightElement).namespaceURI === HTML_NS && RAW_TEXT_PARENTS.has((parent as LightElement).localName);
  const nodes = parent.childNodes;
  for (let i = 0; i < nodes.length; i++) {
    const child = nodes[i]!;
    if (child.nodeType === TEXT_NODE) out += rawParent ? child.textContent : child.textContent.replace(TEXT_ESCAPES, escapeChar);
    else if (child.nodeType === ELEMENT_NODE) {
      const el = child as LightElement;
      out += `<${el.localName}`;
      const attrs = el.attributes;
      for (let j = 0; j < attrs.length; j++) out += ` ${attrs[j]!.name}="${attrs[j]!.value.replace(ATTRIBUTE_ESCAPES, escapeChar)}"`;
      out += '>';
      if (el.namespaceURI === HTML_NS && VOID.has(el.localName)) continue;
      out = serializeInto(el, out);
      out += `</${el.localName}>`;
    } else if (child.nodeType === COMMENT_NODE) out += `<!--${child.textContent}-->`;
  }
  return out;
}

/** Gives `el` the children of `holder` (a parsed fragment's root), dropping its own. */
function replaceChildren(el: LightElement, holder: LightElement): void {
  for (const child of el.childNodes) child.parentNode = null;
  el.childNodes = holder.childNodes;
  el.children = holder.children;
  for (const child of el.childNodes) child.parentNode = el;
  holder.childNodes = [];
  holder.children = [];
}

// ---------------------------------------------------------------------------------------------------------------
// Tree construction (HTML standard §13.2.6), as parse5 (jsdom's parser) implements it.

const enum NS { HTML, SVG, MATHML }
const NS_URI = [HTML_NS, SVG_NS, MATHML_NS] as const;

const enum Mode {
  Initial, BeforeHtml, BeforeHead, InHead, InHeadNoscript, AfterHead, InBody, Text, InTable, InCaption, InColumnGroup,
  InTableBody, InRow, InCell, InSelect, InSelectInTable, InTemplate, AfterBody, InFrameset, AfterFrameset, AfterAfterBody,
  AfterAfterFrameset,
}

/** A tag's attributes as a flat list: name, value, name, value... (names unique, first kept). */
type Attrs = readonly string[];
const NO_ATTRS: Attrs = [];

function getAttr(attrs: Attrs, name: string): string | undefined {
  for (let i = 0; i < attrs.length; i += 2) if (attrs[i] === name) return attrs[i + 1];
  return undefined;
}

/** JSDOMParser's Attribute objects, made directly (its constructor is not exported): same prototype, same fields. */
const AttrProto = (() => {
  const probe = SHARED_DOC.createElement('p');
  probe.setAttribute('x', 'y');
  return Object.getPrototypeOf(probe.attributes[0]) as object;
})();
interface AttrShape {
  name: string;
  _value: string;
}
const Attr = function Attr(this: AttrShape, name: string, value: string) {
  this.name = name;
  this._value = value;
} as unknown as new (name: string, value: string) => AttrShape;
(Attr as unknown as { prototype: object }).prototype = AttrProto;
/** Where a node goes: the parent, and the child to insert it before (none: append). */
type Place = [LightNode, LightElement | undefined];

/** A start tag token. */
export interface StartTag {
  name: string;
  attrs: Attrs;
  selfClosing: boolean;
}

/** An entry of the list of active formatting elements (null entries are markers). */
interface Formatting {
  el: LightElement;
  name: string;
  attrs: Attrs;
}

const set = (...names: string[]): ReadonlySet<string> => new Set(names);

const SPECIAL_HTML = set(
  'address', 'applet', 'area', 'article', 'aside', 'base', 'basefont', 'bgsound', 'blockquote', 'body', 'br', 'button', 'caption',
  'center', 'col', 'colgroup', 'dd', 'details', 'dir', 'div', 'dl', 'dt', 'embed', 'fieldset', 'figcaption', 'figure', 'footer', 'form',
  'frame', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hgroup', 'hr', 'html', 'iframe', 'img', 'input', 'keygen',
  'li', 'link', 'listing', 'main', 'marquee', 'menu', 'meta', 'nav', 'noembed', 'noframes', 'noscript', 'object', 'ol', 'p', 'param',
  'plaintext', 'pre', 'script', 'search', 'section', 'select', 'source', 'style', 'summary', 'table', 'tbody', 'td', 'template',
  'textarea', 'tfoot', 'th', 'thead', 'title', 'tr', 'track', 'ul', 'wbr', 'xmp',
);
const SPECIAL_SVG = set('foreignObject', 'desc', 'title');
const SPECIAL_MATHML = set('mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml');
/** Elements that end a scope (the "has an element in scope" boundaries), by namespace. */
const SCOPE_HTML = set('applet', 'caption', 'html', 'table', 'td', 'th', 'marquee', 'object', 'template');
const FORMATTING = set('a', 'b', 'big', 'code', 'em', 'font', 'i', 'nobr', 's', 'small', 'strike', 'strong', 'tt', 'u');
const IMPLIED_END = set('dd', 'dt', 'li', 'optgroup', 'option', 'p', 'rb', 'rp', 'rt', 'rtc');
const IMPLIED_END_THOROUGH = set(...IMPLIED_END, 'caption', 'colgroup', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr');
const HEADINGS = set('h1', 'h2', 'h3', 'h4', 'h5', 'h6');
const TABLE_STRUCTURE = set('table', 'tbody', 'tfoot', 'thead', 'tr');
const TABLE_SECTIONS = set('tbody', 'tfoot', 'thead');
const TABLE_PARTS = set('caption', 'col', 'colgroup', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr');
const CLOSES_P = set(
  'address', 'article', 'aside', 'blockquote', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset', 'figcaption', 'figure',
  'footer', 'header', 'hgroup', 'main', 'menu', 'nav', 'ol', 'p', 'search', 'section', 'summary', 'ul',
);
const BLOCK_END = set(
  'address', 'article', 'aside', 'blockquote', 'button', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset', 'figcaption',
  'figure', 'footer', 'header', 'hgroup', 'listing', 'main', 'menu', 'nav', 'ol', 'pre', 'search', 'section', 'summary', 'ul',
);
const HEAD_IN_BODY = set('base', 'basefont', 'bgsound', 'link', 'meta', 'noframes', 'script', 'style', 'template', 'title');
const FOREIGN_EXIT = set(
  'b', 'big', 'blockquote', 'body', 'br', 'center', 'code', 'dd', 'div', 'dl', 'dt', 'em', 'embed', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'head', 'hr', 'i', 'img', 'li', 'listing', 'menu', 'meta', 'nobr', 'ol', 'p', 'pre', 'ruby', 's', 'small', 'span', 'strong', 'strike',
  'sub', 'sup', 'table', 'tt', 'u', 'ul', 'var',
);
const RESET_MODE_TAGS = set('tr', 'tbody', 'thead', 'tfoot', 'caption', 'colgroup', 'table', 'frameset', 'select', 'template', 'td', 'th', 'head', 'body', 'html');
/** SVG element names the HTML parser gives their camel case (§13.2.6.5). */
const SVG_NAMES = new Map(
  [
    'altGlyph', 'altGlyphDef', 'altGlyphItem', 'animateColor', 'animateMotion', 'animateTransform', 'clipPath', 'feBlend', 'feColorMatrix',
    'feComponentTransfer', 'feComposite', 'feConvolveMatrix', 'feDiffuseLighting', 'feDisplacementMap', 'feDistantLight', 'feDropShadow',
    'feFlood', 'feFuncA', 'feFuncB', 'feFuncG', 'feFuncR', 'feGaussianBlur', 'feImage', 'feMerge', 'feMergeNode', 'feMorphology',
    'feOffset', 'fePointLight', 'feSpecularLighting', 'feSpotLight', 'feTile', 'feTurbulence', 'foreignObject', 'glyphRef',
    'linearGradient', 'radialGradient', 'textPath',
  ].map((n) => [n.toLowerCase(), n]),
);

const WHITESPACE = /^[\t\n\f\r ]*$/;
const LEADING_WHITESPACE = /^[\t\n\f\r ]*/;

/** Limits past which a tree is not worth building; the builder stops and says which it passed (`over`). */
export interface TreeLimits {
  maxElements: number;
  maxDepth: number;
  maxChildren: number;
  /**
   * Most ancestor-descendant pairs: the sum over elements of their depth, which is also the sum of the sizes of
   * all subtrees, what Readability's per-node subtree walks (textContent, getElementsByTagName) cost in all.
   */
  maxDepthSum?: number;
}

const NO_LIMITS: TreeLimits = { maxElements: Infinity, maxDepth: Infinity, maxChildren: Infinity };

/**
 * Builds a document from tokens (start tags, end tags, text, comments, the doctype; see TokenGlue for
 * htmlparser2's) by the HTML standard's tree construction stage: the insertion modes, the stack of open
 * elements, the list of active formatting elements with the adoption agency algorithm, foster parenting,
 * implied and ignored tags, <template> contents kept out of the tree, foreign (SVG, MathML) content, frameset
 * documents, and a scripting-disabled parser, as jsdom's DOMParser (parse5) builds its documents: <noscript>
 * holds markup. Its element, text and comment nodes are JSDOMParser's (comments made in their shape).
 *
 * It counts what it builds and stops building (setting `over`) past its limits: elements made, depth of
 * the stack of open elements, children of one node, ancestor-descendant pairs. Every search of the stack is
 * bounded by the depth limit, so a page costs at most its tokens times that.
 *
 * Checked against jsdom node for node: every page of test/fixtures/malformed, one case per error-handling
 * pattern, and seeded random tag soup (test/lightdom.test.ts).
 */
export class LightTreeBuilder {
  readonly doc: LightDocument;
  /** Why building stopped (a limit passed); the document is then incomplete and should be dropped. */
  over?: string;
  /** Elements made so far. */
  elements = 0;
  /** The sum of the elements' depths when made (their ancestor-descendant pairs). */
  depthSum = 0;
  /** Whether the last start tag switched to text (RAWTEXT, RCDATA, script data, PLAINTEXT): the tokenizer follows this. */
  textStarted = false;
  maxDepth = 0;
  maxChildren = 0;

  private mode = Mode.Initial;
  private originalMode = Mode.Initial;
  private readonly templateModes: Mode[] = [];
  // The stack of open elements, as three parallel arrays: the element, its local name, its namespace.
  private readonly els: LightElement[] = [];
  private readonly names: string[] = [];
  private readonly nss: NS[] = [];
  private readonly open = new Set<LightElement>();
  private readonly formatting: (Formatting | null)[] = [];
  private headElement?: LightElement;
  private formElement?: LightElement;
  private framesetOk = true;
  private quirks = false;
  private fosterParenting = false;
  private skipNextNewline = false;
  private pendingText: string[] = [];
  /** Template elements' contents: kept out of the tree (a template's content is a separate fragment). */
  private readonly contents = new WeakMap<LightElement, LightElement>();
  /** The last foster parent, and the index of its table there (foster parenting inserts many nodes before one table). */
  private fosterCache?: { parent: LightNode; table: LightElement; index: number; childIndex: number };
  /** For fragment parsing (innerHTML): the context element. */
  private readonly context?: LightElement;

  constructor(
    private readonly limits: TreeLimits = NO_LIMITS,
    context?: LightElement,
    url = 'http://localhost/',
  ) {
    this.doc = new JSDOMParser().parse('', url) as unknown as LightDocument;
    if (context) {
      // The HTML fragment parsing algorithm: a root <html> on the stack, modes reset from the context.
      this.context = context;
      const root = this.createElement('html', NS.HTML, NO_ATTRS);
      this.push(root, 'html', NS.HTML);
      if (context.localName === 'template' && context.namespaceURI === HTML_NS) this.templateModes.push(Mode.InTemplate);
      this.resetInsertionMode();
      for (let node: LightNode | null = context; node; node = node.parentNode) {
        if ((node as LightElement).localName === 'form' && (node as LightElement).namespaceURI === HTML_NS) {
          this.formElement = node as LightElement;
          break;
        }
      }
    }
  }

  // --- tokens ------------------------------------------------------------------------------------------------

  /** Character data (entities decoded); adjacent runs are gathered and handled at the next other token. */
  text(data: string): void {
    this.pendingText.push(data);
  }

  startTag(token: StartTag): void {
    this.flushText();
    this.skipNextNewline = false;
    this.textStarted = false;
    this.processStartTag(token);
  }

  endTag(name: string): void {
    this.flushText();
    this.skipNextNewline = false;
    this.processEndTag(name);
  }

  comment(data: string): void {
    this.flushText();
    this.skipNextNewline = false;
    const mode = this.mode;
    const toDocument = mode === Mode.Initial || mode === Mode.BeforeHtml || mode === Mode.AfterAfterBody || mode === Mode.AfterAfterFrameset;
    const parent = toDocument ? (this.doc as unknown as LightNode) : mode === Mode.AfterBody && !this.currentIsForeign() ? this.els[0]! : this.currentTemplateContentOrNode();
    this.appendNode(parent, createComment(data.replace(/\0/g, '\uFFFD')));
  }

  /** A DOCTYPE token (its text after `<!`), which decides quirks mode. */
  doctype(raw: string): void {
    this.flushText();
    if (this.mode !== Mode.Initial) return;
    this.quirks = quirksMode(raw);
    this.mode = Mode.BeforeHtml;
  }

  /** The end of the input: the document, its html, head and body made if missing, its title read. */
  finish(): LightDocument {
    this.flushText();
    // The end-of-file token: in text, the element ends; open templates close; before the body, the missing
    // elements are made; after, nothing changes the tree.
    if (this.mode === Mode.Text) {
      this.pop();
      this.mode = this.originalMode;
    }
    if (this.templateModes.length > 0) {
      while (this.indexOf('template') !== -1) {
        this.popUntil('template');
        this.clearFormattingToMarker();
      }
      this.templateModes.length = 0;
      this.resetInsertionMode();
    }
    for (let guard = 0; guard < 8 && this.mode <= Mode.AfterHead; guard++) this.anythingElseBeforeBody();
    const doc = this.doc;
    const html = doc.children.find((c) => c.localName === 'html') ?? (this.els[0] as LightElement);
    doc.documentElement = html;
    doc.head = this.headElement ?? html?.children.find((c) => c.localName === 'head');
    doc.body = html?.children.find((c) => c.namespaceURI === HTML_NS && (c.localName === 'body' || c.localName === 'frameset'));
    doc.title = documentTitle(html);
    return doc;
  }

  /** For the tokenizer: whether the next tag is in foreign content, where <title>, <style>, <script>... hold markup. */
  inForeignContent(): boolean {
    this.flushText();
    const top = this.els.length - 1;
    if (top < 0) return false;
    if (top === 0 && this.context) return this.context.namespaceURI !== HTML_NS;
    return this.nss[top] !== NS.HTML && !this.isIntegrationPoint(top);
  }

  /** The fragment's root, whose children are the parsed fragment (fragment parsing). */
  fragmentRoot(): LightElement {
    this.flushText();
    return this.els[0]!;
  }

  // --- the stack of open elements ------------------------------------------------------------------------------

  private get top(): number {
    return this.els.length - 1;
  }

  private currentName(): string {
    return this.names[this.els.length - 1] ?? '';
  }

  private currentIs(name: string): boolean {
    const top = this.els.length - 1;
    return top >= 0 && this.names[top] === name && this.nss[top] === NS.HTML;
  }

  private currentIsForeign(): boolean {
    const top = this.els.length - 1;
    return top >= 0 && this.nss[top] !== NS.HTML;
  }

  private push(el: LightElement, name: string, ns: NS): void {
    this.els.push(el);
    this.names.push(name);
    this.nss.push(ns);
    this.open.add(el);
    if (this.els.length > this.maxDepth) {
      this.maxDepth = this.els.length;
      if (this.maxDepth > this.limits.maxDepth) this.over ??= `elements nested more than ${this.limits.maxDepth} deep (the DOM cap)`;
    }
  }

  private pop(): void {
    this.open.delete(this.els.pop()!);
    this.names.pop();
    this.nss.pop();
  }

  /** Pops elements until the stack is `length` long. */
  private popTo(length: number): void {
    while (this.els.length > length) this.pop();
  }

  private removeFromStack(index: number): void {
    this.open.delete(this.els[index]!);
    this.els.splice(index, 1);
    this.names.splice(index, 1);
    this.nss.splice(index, 1);
  }

  /** The index of the topmost HTML element with this name, or -1. */
  private indexOf(name: string): number {
    for (let i = this.els.length - 1; i >= 0; i--) if (this.names[i] === name && this.nss[i] === NS.HTML) return i;
    return -1;
  }

  private popUntil(name: string): void {
    const i = this.indexOf(name);
    this.popTo(i === -1 ? this.els.length : i);
  }

  private isSpecial(i: number): boolean {
    const name = this.names[i]!;
    switch (this.nss[i]) {
      case NS.HTML:
        return SPECIAL_HTML.has(name);
      case NS.SVG:
        return SPECIAL_SVG.has(name);
      default:
        return SPECIAL_MATHML.has(name);
    }
  }

  /** The default scope's boundaries: HTML applet, caption, html, table, td, th, marquee, object, template; MathML and SVG integration points. */
  private isScopeBoundary(i: number): boolean {
    const ns = this.nss[i];
    if (ns === NS.HTML) return SCOPE_HTML.has(this.names[i]!);
    return ns === NS.SVG ? SPECIAL_SVG.has(this.names[i]!) : SPECIAL_MATHML.has(this.names[i]!);
  }

  /** Whether an HTML element named `name` (or any of `names`) is in scope of the given kind. */
  private inScope(target: string | ReadonlySet<string>, kind: 'default' | 'list' | 'button' | 'table' | 'select' = 'default'): boolean {
    for (let i = this.els.length - 1; i >= 0; i--) {
      const name = this.names[i]!;
      const html = this.nss[i] === NS.HTML;
      if (html && (typeof target === 'string' ? name === target : target.has(name))) return true;
      if (kind === 'table') {
        if (html && (name === 'html' || name === 'table' || name === 'template')) return false;
      } else if (kind === 'select') {
        if (html && name !== 'optgroup' && name !== 'option') return false;
      } else if (this.isScopeBoundary(i) || (html && ((kind === 'list' && (name === 'ol' || name === 'ul')) || (kind === 'button' && name === 'button')))) {
        return false;
      }
    }
    return false;
  }

  private generateImpliedEndTags(except?: string): void {
    for (let top = this.top; top >= 0 && this.nss[top] === NS.HTML && IMPLIED_END.has(this.names[top]!) && this.names[top] !== except; top = this.top) this.pop();
  }

  private generateImpliedEndTagsThoroughly(): void {
    for (let top = this.top; top >= 0 && this.nss[top] === NS.HTML && IMPLIED_END_THOROUGH.has(this.names[top]!); top = this.top) this.pop();
  }

  private closeP(): void {
    this.generateImpliedEndTags('p');
    this.popUntil('p');
  }

  private closePInButtonScope(): void {
    if (this.inScope('p', 'button')) this.closeP();
  }

  private clearBackTo(names: ReadonlySet<string>): void {
    while (this.els.length > 0 && !(this.nss[this.top] === NS.HTML && names.has(this.currentName()))) this.pop();
  }

  private isIntegrationPoint(i: number): boolean {
    const name = this.names[i]!;
    if (this.nss[i] === NS.SVG) return name === 'foreignObject' || name === 'desc' || name === 'title';
    if (this.nss[i] === NS.MATHML) {
      if (name === 'annotation-xml') return isHtmlAnnotation(this.els[i]!);
      return name === 'mi' || name === 'mo' || name === 'mn' || name === 'ms' || name === 'mtext';
    }
    return false;
  }

  // --- nodes -----------------------------------------------------------------------------------------------

  private createElement(name: string, ns: NS, attrs: Attrs): LightElement {
    // JSDOMParser's createElement drops a namespace prefix ("o:p" would become a <p>); the HTML parser does not.
    const el = new LightElementNode(name, ns === NS.HTML ? upperCase(name) : name) as LightElement & { style?: unknown; className?: unknown };
    if (ns !== NS.HTML) {
      el.namespaceURI = NS_URI[ns];
      if (ns === NS.MATHML) Object.defineProperty(el, 'style', { value: undefined, writable: true }); // jsdom's MathML elements have no style (Readability checks)
      else Object.defineProperty(el, 'className', { value: new SvgAnimatedString(), writable: true }); // as jsdom's: not a string, so Readability's class tests skip it
    }
    if (attrs.length > 0) {
      const list = el.attributes as unknown as AttrShape[];
      for (let i = 0; i < attrs.length; i += 2) list.push(new Attr(attrs[i]!, attrs[i + 1]!));
    }
    if (++this.elements > this.limits.maxElements) this.over ??= `more than ${this.limits.maxElements} elements (the DOM cap)`;
    this.depthSum += this.els.length;
    if (this.depthSum > (this.limits.maxDepthSum ?? Infinity)) this.over ??= `more than ${this.limits.maxDepthSum} ancestor-descendant pairs of elements (the DOM cap)`;
    return el;
  }

  private counted(parent: LightNode): void {
    const n = parent.childNodes.length;
    if (n > this.maxChildren) {
      this.maxChildren = n;
      if (n > this.limits.maxChildren) this.over ??= `more than ${this.limits.maxChildren} children in one element (the DOM cap)`;
    }
  }

  private appendNode(parent: LightNode, node: LightNode): void {
    (parent as LightElement).appendChild(node);
    this.counted(parent);
  }

  /** Inserts `node` into `parent` before `ref` (JSDOMParser has no insertBefore). */
  private insertBefore(parent: LightNode, node: LightNode, ref: LightElement): void {
    const nodes = parent.childNodes;
    const cache = this.fosterCache;
    let index = cache && cache.parent === parent && cache.table === ref && nodes[cache.index] === ref ? cache.index : nodes.indexOf(ref);
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
  private detach(node: LightNode): void {
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
  private adoptChildren(from: LightElement, to: LightElement): void {
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
    const top = this.top;
    if (top < 0) return [this.doc as unknown as LightNode, undefined];
    return this.placeFor(this.els[top]!, this.names[top]!, this.nss[top] === NS.HTML, this.fosterParenting);
  }

  /** The appropriate place with `el` as the target (the adoption agency's override target fosters whatever the flag says, as in parse5). */
  private placeFor(el: LightElement, name: string, html: boolean, foster: boolean): Place {
    if (foster && html && TABLE_STRUCTURE.has(name)) {
      const table = this.indexOf('table');
      const template = this.indexOf('template');
      if (template > table) return [this.contentOf(this.els[template]!), undefined];
      if (table === -1) return [this.els[0]!, undefined];
      const tableEl = this.els[table]!;
      if (tableEl.parentNode) return [tableEl.parentNode, tableEl];
      return [this.els[table - 1]!, undefined];
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

  private currentTemplateContentOrNode(): LightNode {
    const top = this.top;
    if (top < 0) return this.doc as unknown as LightNode;
    const el = this.els[top]!;
    return this.names[top] === 'template' && this.nss[top] === NS.HTML ? this.contentOf(el) : el;
  }

  private insertAt(node: LightNode, place: Place): void {
    if (place[1]) this.insertBefore(place[0], node, place[1]);
    else this.appendNode(place[0], node);
  }

  /** Inserts an element for the token where it belongs and pushes it on the stack. */
  private insertElement(name: string, attrs: Attrs, ns: NS = NS.HTML): LightElement {
    const el = this.createElement(name, ns, attrs);
    this.insertAt(el, this.insertionPlace());
    this.push(el, name, ns);
    return el;
  }

  /** Inserts a void element (not pushed). */
  private appendElement(name: string, attrs: Attrs, ns: NS = NS.HTML): LightElement {
    const el = this.createElement(name, ns, attrs);
    this.insertAt(el, this.insertionPlace());
    return el;
  }

  private insertCharacters(data: string): void {
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

  // --- active formatting elements -------------------------------------------------------------------------

  private pushFormatting(el: LightElement, name: string, attrs: Attrs): void {
    // Noah's Ark: at most three entries with the same name and attributes after the last marker.
    let same = 0;
    let earliest = -1;
    for (let i = this.formatting.length - 1; i >= 0; i--) {
      const e = this.formatting[i];
      if (!e) break;
      if (e.name === name && sameAttrs(e.attrs, attrs)) {
        same++;
        earliest = i;
      }
    }
    if (same >= 3) this.formatting.splice(earliest, 1);
    this.formatting.push({ el, name, attrs });
  }

  private insertMarker(): void {
    this.formatting.push(null);
  }

  private clearFormattingToMarker(): void {
    while (this.formatting.length > 0 && this.formatting.pop() !== null);
  }

  private formattingIndexOf(el: LightElement): number {
    for (let i = this.formatting.length - 1; i >= 0; i--) if (this.formatting[i]?.el === el) return i;
    return -1;
  }

  /** The last entry after the last marker with this name, if any. */
  private formattingByName(name: string): number {
    for (let i = this.formatting.length - 1; i >= 0; i--) {
      const e = this.formatting[i];
      if (!e) return -1;
      if (e.name === name) return i;
    }
    return -1;
  }

  /** Reconstructs the active formatting elements (§13.2.4.3): reopens those closed by a block they were misnested with. */
  private reconstructFormatting(): void {
    const list = this.formatting;
    let i = list.length - 1;
    if (i < 0 || list[i] === null || this.open.has(list[i]!.el)) return;
    while (i > 0 && list[i - 1] !== null && !this.open.has(list[i - 1]!.el)) i--;
    for (; i < list.length; i++) {
      const entry = list[i]!;
      entry.el = this.insertElement(entry.name, entry.attrs);
    }
  }

  /** The adoption agency algorithm (§13.2.6.4.7, "in body" end tags of formatting elements). */
  private adoptionAgency(subject: string): void {
    const top = this.top;
    if (this.names[top] === subject && this.nss[top] === NS.HTML && this.formattingIndexOf(this.els[top]!) === -1) {
      this.pop();
      return;
    }
    for (let outer = 0; outer < 8; outer++) {
      const fIndex = this.formattingByName(subject);
      if (fIndex === -1) {
        this.anyOtherEndTagInBody(subject);
        return;
      }
      const fEntry = this.formatting[fIndex]!;
      const fe = fEntry.el;
      const feStack = this.els.lastIndexOf(fe);
      if (feStack === -1) {
        this.formatting.splice(fIndex, 1);
        return;
      }
      if (!this.elementInScope(feStack)) return;
      let fb = -1;
      for (let i = feStack + 1; i < this.els.length; i++) {
        if (this.isSpecial(i)) {
          fb = i;
          break;
        }
      }
      if (fb === -1) {
        this.popTo(feStack);
        this.formatting.splice(fIndex, 1);
        return;
      }
      const furthestBlock = this.els[fb]!;
      const commonAncestor = this.els[feStack - 1]!;
      let bookmark = fIndex;
      let lastNode: LightElement = furthestBlock;
      let nodeIndex = fb;
      for (let inner = 1; ; inner++) {
        nodeIndex--;
        const node = this.els[nodeIndex]!;
        if (node === fe) break;
        let entryIndex = this.formattingIndexOf(node);
        if (inner > 3 && entryIndex !== -1) {
          this.formatting.splice(entryIndex, 1);
          if (entryIndex < bookmark) bookmark--;
          entryIndex = -1;
        }
        if (entryIndex === -1) {
          this.removeFromStack(nodeIndex);
          continue;
        }
        const entry = this.formatting[entryIndex]!;
        const replacement = this.createElement(entry.name, NS.HTML, entry.attrs);
        entry.el = replacement;
        this.open.delete(node);
        this.els[nodeIndex] = replacement;
        this.open.add(replacement);
        if (lastNode === furthestBlock) bookmark = entryIndex + 1;
        this.detach(lastNode);
        this.appendNode(replacement, lastNode);
        lastNode = replacement;
      }
      this.detach(lastNode);
      this.insertAt(lastNode, this.placeFor(commonAncestor, commonAncestor.localName, commonAncestor.namespaceURI === HTML_NS, true));
      const newEl = this.createElement(fEntry.name, NS.HTML, fEntry.attrs);
      this.adoptChildren(furthestBlock, newEl);
      this.appendNode(furthestBlock, newEl);
      // The new element's entry takes the bookmark's place; the old entry goes.
      this.formatting.splice(bookmark, 0, { el: newEl, name: fEntry.name, attrs: fEntry.attrs });
      this.formatting.splice(this.formatting.indexOf(fEntry), 1);
      const feAt = this.els.indexOf(fe);
      this.removeFromStack(feAt);
      const fbAt = this.els.indexOf(furthestBlock);
      this.els.splice(fbAt + 1, 0, newEl);
      this.names.splice(fbAt + 1, 0, fEntry.name);
      this.nss.splice(fbAt + 1, 0, NS.HTML);
      this.open.add(newEl);
    }
  }

  /** Whether the open element at `index` is in (default) scope: no scope boundary above it. */
  private elementInScope(index: number): boolean {
    for (let i = this.els.length - 1; i > index; i--) if (this.isScopeBoundary(i)) return false;
    return true;
  }

  // --- the insertion modes ---------------------------------------------------------------------------------

  private resetInsertionMode(): void {
    for (let i = this.top; i >= 0; i--) {
      const useContext = i === 0 && this.context !== undefined;
      const name = useContext ? this.context!.localName : this.names[i]!;
      const html = useContext ? this.context!.namespaceURI === HTML_NS : this.nss[i] === NS.HTML;
      if (!html || !RESET_MODE_TAGS.has(name)) continue;
      switch (name) {
        case 'select': {
          for (let j = i - 1; j > 0; j--) {
            if (this.nss[j] !== NS.HTML) continue;
            if (this.names[j] === 'template') break;
            if (this.names[j] === 'table') {
              this.mode = Mode.InSelectInTable;
              return;
            }
          }
          this.mode = Mode.InSelect;
          return;
        }
        case 'td':
        case 'th':
          if (i > 0) {
            this.mode = Mode.InCell;
            return;
          }
          break;
        case 'tr':
          this.mode = Mode.InRow;
          return;
        case 'tbody':
        case 'thead':
        case 'tfoot':
          this.mode = Mode.InTableBody;
          return;
        case 'caption':
          this.mode = Mode.InCaption;
          return;
        case 'colgroup':
          this.mode = Mode.InColumnGroup;
          return;
        case 'table':
          this.mode = Mode.InTable;
          return;
        case 'template':
          this.mode = this.templateModes[this.templateModes.length - 1] ?? Mode.InBody;
          return;
        case 'head':
          if (i > 0) {
            this.mode = Mode.InHead;
            return;
          }
          break;
        case 'body':
          this.mode = Mode.InBody;
          return;
        case 'frameset':
          this.mode = Mode.InFrameset;
          return;
        case 'html':
          this.mode = this.headElement ? Mode.AfterHead : Mode.BeforeHead;
          return;
      }
      break;
    }
    this.mode = Mode.InBody;
  }

  /** Before the body: the "anything else" steps, which make the missing html, head and body elements. */
  private anythingElseBeforeBody(): void {
    switch (this.mode) {
      case Mode.Initial:
        this.quirks = true;
        this.mode = Mode.BeforeHtml;
        break;
      case Mode.BeforeHtml: {
        const root = this.createElement('html', NS.HTML, NO_ATTRS);
        this.appendNode(this.doc as unknown as LightNode, root);
        this.push(root, 'html', NS.HTML);
        this.mode = Mode.BeforeHead;
        break;
      }
      case Mode.BeforeHead:
        this.headElement = this.insertElement('head', NO_ATTRS);
        this.mode = Mode.InHead;
        break;
      case Mode.InHead:
        this.pop();
        this.mode = Mode.AfterHead;
        break;
      case Mode.InHeadNoscript:
        this.pop();
        this.mode = Mode.InHead;
        break;
      case Mode.AfterHead:
        this.insertElement('body', NO_ATTRS);
        this.mode = Mode.InBody;
        break;
    }
  }

  // Characters ----------------------------------------------------------------------------------------------

  private flushText(): void {
    if (this.pendingText.length === 0) return;
    const text = this.pendingText.length === 1 ? this.pendingText[0]! : this.pendingText.join('');
    this.pendingText = [];
    this.characters(text);
  }

  private characters(input: string): void {
    let text = input;
    if (this.skipNextNewline) {
      // A newline right after <pre>, <listing> or <textarea> is not content.
      this.skipNextNewline = false;
      if (text.charCodeAt(0) === 0x0a) text = text.slice(1);
    }
    if (this.mode === Mode.Text) {
      // RAWTEXT, RCDATA, script data, PLAINTEXT: a NUL is U+FFFD.
      this.insertCharacters(text.replace(/\0/g, '\uFFFD'));
      return;
    }
    if (this.inForeignText()) {
      text = text.replace(/\0/g, '\uFFFD');
      this.insertCharacters(text);
      if (!WHITESPACE.test(text)) this.framesetOk = false;
      return;
    }
    // In HTML content a NUL character is dropped (ignored by every insertion mode that sees one).
    if (text.includes('\0')) text = text.replace(/\0/g, '');
    while (text !== '') text = this.charactersInMode(text);
  }

  /** Whether character tokens now go by the rules for foreign content. */
  private inForeignText(): boolean {
    const top = this.top;
    return top >= 0 && this.nss[top] !== NS.HTML && !this.isIntegrationPoint(top);
  }

  /** Handles text in the current mode; returns what is left to reprocess (after a mode change), or ''. */
  private charactersInMode(text: string): string {
    switch (this.mode) {
      case Mode.Initial:
      case Mode.BeforeHtml:
      case Mode.BeforeHead: {
        const ws = LEADING_WHITESPACE.exec(text)![0].length;
        if (ws === text.length) return '';
        this.anythingElseBeforeBody();
        return text.slice(ws);
      }
      case Mode.InHead:
      case Mode.InHeadNoscript:
      case Mode.AfterHead: {
        const ws = LEADING_WHITESPACE.exec(text)![0].length;
        this.insertCharacters(text.slice(0, ws));
        if (ws === text.length) return '';
        this.anythingElseBeforeBody();
        return text.slice(ws);
      }
      case Mode.InBody:
      case Mode.InCaption:
      case Mode.InCell:
      case Mode.InTemplate:
        this.reconstructFormatting();
        this.insertCharacters(text);
        if (!WHITESPACE.test(text)) this.framesetOk = false;
        return '';
      case Mode.InSelect:
      case Mode.InSelectInTable:
        this.insertCharacters(text);
        return '';
      case Mode.InTable:
      case Mode.InTableBody:
      case Mode.InRow:
        if (TABLE_STRUCTURE.has(this.currentName()) && !this.currentIsForeign()) {
          // "in table text": whitespace stays in the table; anything else is foster parented, all of it.
          if (WHITESPACE.test(text)) this.insertCharacters(text);
          else this.inTableAnythingElse(() => this.charactersInBody(text));
        } else {
          this.inTableAnythingElse(() => this.charactersInBody(text));
        }
        return '';
      case Mode.InColumnGroup: {
        const ws = LEADING_WHITESPACE.exec(text)![0].length;
        this.insertCharacters(text.slice(0, ws));
        if (ws === text.length) return '';
        if (!this.currentIs('colgroup')) return '';
        this.pop();
        this.mode = Mode.InTable;
        return text.slice(ws);
      }
      case Mode.AfterBody:
      case Mode.AfterAfterBody: {
        const ws = LEADING_WHITESPACE.exec(text)![0].length;
        if (ws > 0) this.charactersInBody(text.slice(0, ws));
        if (ws === text.length) return '';
        this.mode = Mode.InBody;
        return text.slice(ws);
      }
      case Mode.InFrameset:
      case Mode.AfterFrameset:
        this.insertCharacters(text.replace(/[^\t\n\f\r ]/g, ''));
        return '';
      case Mode.AfterAfterFrameset: {
        const ws = text.replace(/[^\t\n\f\r ]/g, '');
        if (ws) this.charactersInBody(ws);
        return '';
      }
      default:
        this.insertCharacters(text);
        return '';
    }
  }

  private charactersInBody(text: string): void {
    this.reconstructFormatting();
    this.insertCharacters(text);
    if (!WHITESPACE.test(text)) this.framesetOk = false;
  }

  /** "in table", anything else: processed as in body, with foster parenting on. */
  private inTableAnythingElse(process: () => void): void {
    const saved = this.fosterParenting;
    this.fosterParenting = true;
    process();
    this.fosterParenting = saved;
  }

  // Start tags -----------------------------------------------------------------------------------------------

  private processStartTag(t: StartTag): void {
    if (this.useForeignRules(t.name)) this.startTagInForeignContent(t);
    else this.startTagInMode(t);
  }

  /** The tree construction dispatcher for start tags. */
  private useForeignRules(name: string): boolean {
    const top = this.top;
    if (top < 0 || (top === 0 && this.context)) return false;
    const ns = this.nss[top];
    if (ns === NS.HTML) return false;
    const current = this.names[top]!;
    if (ns === NS.MATHML && (current === 'mi' || current === 'mo' || current === 'mn' || current === 'ms' || current === 'mtext')) {
      return name === 'mglyph' || name === 'malignmark';
    }
    if (ns === NS.MATHML && current === 'annotation-xml' && name === 'svg') return false;
    return !this.isIntegrationPoint(top);
  }

  private startTagInForeignContent(t: StartTag): void {
    if (FOREIGN_EXIT.has(t.name) || (t.name === 'font' && (getAttr(t.attrs, 'color') !== undefined || getAttr(t.attrs, 'face') !== undefined || getAttr(t.attrs, 'size') !== undefined))) {
      while (this.top > 0 && this.nss[this.top] !== NS.HTML && !this.isIntegrationPoint(this.top)) this.pop();
      this.startTagInMode(t);
      return;
    }
    const ns = this.nss[this.top]!;
    const name = ns === NS.SVG ? (SVG_NAMES.get(t.name) ?? t.name) : t.name;
    if (t.selfClosing) this.appendElement(name, t.attrs, ns);
    else this.insertElement(name, t.attrs, ns);
  }

  private startTagInMode(t: StartTag): void {
    const name = t.name;
    switch (this.mode) {
      case Mode.Initial:
      case Mode.BeforeHtml:
        if (this.mode === Mode.Initial) this.anythingElseBeforeBody();
        if (name === 'html') {
          const root = this.createElement('html', NS.HTML, t.attrs);
          this.appendNode(this.doc as unknown as LightNode, root);
          this.push(root, 'html', NS.HTML);
          this.mode = Mode.BeforeHead;
          return;
        }
        this.anythingElseBeforeBody();
        return this.startTagInMode(t);
      case Mode.BeforeHead:
        if (name === 'html') return this.startTagInBody(t);
        if (name === 'head') {
          this.headElement = this.insertElement('head', t.attrs);
          this.mode = Mode.InHead;
          return;
        }
        this.anythingElseBeforeBody();
        return this.startTagInMode(t);
      case Mode.InHead:
        return this.startTagInHead(t);
      case Mode.InHeadNoscript:
        if (name === 'html') return this.startTagInBody(t);
        if (name === 'basefont' || name === 'bgsound' || name === 'link' || name === 'meta' || name === 'noframes' || name === 'style') return this.startTagInHead(t);
        if (name === 'head' || name === 'noscript') return;
        this.anythingElseBeforeBody();
        return this.startTagInMode(t);
      case Mode.AfterHead:
        if (name === 'html') return this.startTagInBody(t);
        if (name === 'body') {
          this.insertElement('body', t.attrs);
          this.framesetOk = false;
          this.mode = Mode.InBody;
          return;
        }
        if (name === 'frameset') {
          this.insertElement('frameset', t.attrs);
          this.mode = Mode.InFrameset;
          return;
        }
        if (HEAD_IN_BODY.has(name) && this.headElement) {
          // Head content after </head>: into the head after all.
          const head = this.headElement;
          this.push(head, 'head', NS.HTML);
          this.startTagInHead(t);
          const at = this.els.indexOf(head);
          if (at !== -1) this.removeFromStack(at);
          return;
        }
        if (name === 'head') return;
        this.anythingElseBeforeBody();
        return this.startTagInMode(t);
      case Mode.InBody:
        return this.startTagInBody(t);
      case Mode.Text:
        return;
      case Mode.InTable:
        return this.startTagInTable(t);
      case Mode.InCaption:
        if (TABLE_PARTS.has(name)) {
          if (!this.inScope('caption', 'table')) return;
          this.generateImpliedEndTags();
          this.popUntil('caption');
          this.clearFormattingToMarker();
          this.mode = Mode.InTable;
          return this.startTagInTable(t);
        }
        return this.startTagInBody(t);
      case Mode.InColumnGroup:
        return this.startTagInColumnGroup(t);
      case Mode.InTableBody:
        return this.startTagInTableBody(t);
      case Mode.InRow:
        return this.startTagInRow(t);
      case Mode.InCell:
        if (TABLE_PARTS.has(name)) {
          if (this.inScope('td', 'table') || this.inScope('th', 'table')) {
            this.closeCell();
            this.startTagInRow(t);
          }
          return;
        }
        return this.startTagInBody(t);
      case Mode.InSelect:
        return this.startTagInSelect(t);
      case Mode.InSelectInTable:
        if (name === 'caption' || name === 'table' || TABLE_SECTIONS.has(name) || name === 'tr' || name === 'td' || name === 'th') {
          this.popUntil('select');
          this.resetInsertionMode();
          return this.processStartTag(t);
        }
        return this.startTagInSelect(t);
      case Mode.InTemplate:
        return this.startTagInTemplate(t);
      case Mode.AfterBody:
      case Mode.AfterAfterBody:
        if (name === 'html') return this.startTagInBody(t);
        this.mode = Mode.InBody;
        return this.startTagInBody(t);
      case Mode.InFrameset:
        if (name === 'html') return this.startTagInBody(t);
        if (name === 'frameset') this.insertElement('frameset', t.attrs);
        else if (name === 'frame') this.appendElement('frame', t.attrs);
        else if (name === 'noframes') this.startTagInHead(t);
        return;
      case Mode.AfterFrameset:
      case Mode.AfterAfterFrameset:
        if (name === 'html') return this.startTagInBody(t);
        if (name === 'noframes') this.startTagInHead(t);
        return;
    }
  }

  /** Inserts an element whose content the tokenizer reads as text (RAWTEXT, RCDATA, script data). */
  private insertTextElement(t: StartTag): void {
    this.insertElement(t.name, t.attrs);
    this.originalMode = this.mode;
    this.mode = Mode.Text;
    this.textStarted = true;
  }

  private startTagInHead(t: StartTag): void {
    const name = t.name;
    switch (name) {
      case 'html':
        return this.startTagInBody(t);
      case 'base':
      case 'basefont':
      case 'bgsound':
      case 'link':
      case 'meta':
        this.appendElement(name, t.attrs);
        return;
      case 'title':
      case 'noframes':
      case 'style':
      case 'script':
        return this.insertTextElement(t);
      case 'noscript':
        // Scripting disabled (jsdom's DOMParser): <noscript> holds markup, and in the head only head content.
        this.insertElement('noscript', t.attrs);
        this.mode = Mode.InHeadNoscript;
        return;
      case 'template':
        this.insertElement('template', t.attrs);
        this.insertMarker();
        this.framesetOk = false;
        this.mode = Mode.InTemplate;
        this.templateModes.push(Mode.InTemplate);
        return;
      case 'head':
        return;
      default:
        this.anythingElseBeforeBody();
        return this.startTagInMode(t);
    }
  }

  private startTagInBody(t: StartTag): void {
    const name = t.name;
    switch (name) {
      case 'html':
        if (this.indexOf('template') === -1) mergeAttrs(this.els[0], t.attrs);
        return;
      case 'base':
      case 'basefont':
      case 'bgsound':
      case 'link':
      case 'meta':
      case 'noframes':
      case 'script':
      case 'style':
      case 'template':
      case 'title':
        return this.startTagInHead(t);
      case 'body':
        if (this.els.length > 1 && this.names[1] === 'body' && this.indexOf('template') === -1) {
          this.framesetOk = false;
          mergeAttrs(this.els[1], t.attrs);
        }
        return;
      case 'frameset':
        if (this.framesetOk && this.els.length > 1 && this.names[1] === 'body') {
          this.detach(this.els[1]!);
          this.popTo(1);
          this.insertElement('frameset', t.attrs);
          this.mode = Mode.InFrameset;
        }
        return;
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        this.closePInButtonScope();
        if (HEADINGS.has(this.currentName()) && !this.currentIsForeign()) this.pop();
        this.insertElement(name, t.attrs);
        return;
      case 'pre':
      case 'listing':
        this.closePInButtonScope();
        this.insertElement(name, t.attrs);
        this.skipNextNewline = true;
        this.framesetOk = false;
        return;
      case 'form': {
        const inTemplate = this.indexOf('template') !== -1;
        if (this.formElement && !inTemplate) return;
        this.closePInButtonScope();
        const form = this.insertElement('form', t.attrs);
        if (!inTemplate) this.formElement = form;
        return;
      }
      case 'li':
      case 'dd':
      case 'dt': {
        this.framesetOk = false;
        for (let i = this.top; i >= 0; i--) {
          const n = this.names[i]!;
          const html = this.nss[i] === NS.HTML;
          if (html && (name === 'li' ? n === 'li' : n === 'dd' || n === 'dt')) {
            this.generateImpliedEndTags(n);
            this.popTo(i);
            break;
          }
          if (this.isSpecial(i) && !(html && (n === 'address' || n === 'div' || n === 'p'))) break;
        }
        this.closePInButtonScope();
        this.insertElement(name, t.attrs);
        return;
      }
      case 'plaintext':
        this.closePInButtonScope();
        this.insertElement(name, t.attrs);
        this.textStarted = true;
        return;
      case 'button':
        if (this.inScope('button')) {
          this.generateImpliedEndTags();
          this.popUntil('button');
        }
        this.reconstructFormatting();
        this.insertElement(name, t.attrs);
        this.framesetOk = false;
        return;
      case 'a': {
        const active = this.formattingByName('a');
        if (active !== -1) {
          const el = this.formatting[active]!.el;
          this.adoptionAgency('a');
          const inStack = this.els.lastIndexOf(el);
          if (inStack !== -1) this.removeFromStack(inStack);
          const entry = this.formattingIndexOf(el);
          if (entry !== -1) this.formatting.splice(entry, 1);
        }
        this.reconstructFormatting();
        const a = this.insertElement('a', t.attrs);
        this.pushFormatting(a, 'a', t.attrs);
        return;
      }
      case 'b':
      case 'big':
      case 'code':
      case 'em':
      case 'font':
      case 'i':
      case 's':
      case 'small':
      case 'strike':
      case 'strong':
      case 'tt':
      case 'u': {
        this.reconstructFormatting();
        const el = this.insertElement(name, t.attrs);
        this.pushFormatting(el, name, t.attrs);
        return;
      }
      case 'nobr': {
        this.reconstructFormatting();
        if (this.inScope('nobr')) {
          this.adoptionAgency('nobr');
          this.reconstructFormatting();
        }
        const el = this.insertElement(name, t.attrs);
        this.pushFormatting(el, name, t.attrs);
        return;
      }
      case 'applet':
      case 'marquee':
      case 'object':
        this.reconstructFormatting();
        this.insertElement(name, t.attrs);
        this.insertMarker();
        this.framesetOk = false;
        return;
      case 'table':
        if (!this.quirks) this.closePInButtonScope();
        this.insertElement(name, t.attrs);
        this.framesetOk = false;
        this.mode = Mode.InTable;
        return;
      case 'area':
      case 'br':
      case 'embed':
      case 'img':
      case 'keygen':
      case 'wbr':
        this.reconstructFormatting();
        this.appendElement(name, t.attrs);
        this.framesetOk = false;
        return;
      case 'input':
        this.reconstructFormatting();
        this.appendElement(name, t.attrs);
        if ((getAttr(t.attrs, 'type') ?? '').toLowerCase() !== 'hidden') this.framesetOk = false;
        return;
      case 'param':
      case 'source':
      case 'track':
        this.appendElement(name, t.attrs);
        return;
      case 'hr':
        this.closePInButtonScope();
        this.appendElement(name, t.attrs);
        this.framesetOk = false;
        return;
      case 'image':
        return this.startTagInBody({ ...t, name: 'img' });
      case 'textarea':
        this.insertElement(name, t.attrs);
        this.skipNextNewline = true;
        this.framesetOk = false;
        this.originalMode = this.mode;
        this.mode = Mode.Text;
        this.textStarted = true;
        return;
      case 'xmp':
        this.closePInButtonScope();
        this.reconstructFormatting();
        this.framesetOk = false;
        return this.insertTextElement(t);
      case 'iframe':
        this.framesetOk = false;
        return this.insertTextElement(t);
      case 'noembed':
        return this.insertTextElement(t);
      case 'select': {
        this.reconstructFormatting();
        this.insertElement(name, t.attrs);
        this.framesetOk = false;
        const m = this.mode;
        this.mode = m === Mode.InTable || m === Mode.InCaption || m === Mode.InTableBody || m === Mode.InRow || m === Mode.InCell ? Mode.InSelectInTable : Mode.InSelect;
        return;
      }
      case 'optgroup':
      case 'option':
        if (this.currentIs('option')) this.pop();
        this.reconstructFormatting();
        this.insertElement(name, t.attrs);
        return;
      case 'rb':
      case 'rtc':
        if (this.inScope('ruby')) this.generateImpliedEndTags();
        this.insertElement(name, t.attrs);
        return;
      case 'rp':
      case 'rt':
        if (this.inScope('ruby')) this.generateImpliedEndTags('rtc');
        this.insertElement(name, t.attrs);
        return;
      case 'math':
      case 'svg': {
        this.reconstructFormatting();
        const ns = name === 'svg' ? NS.SVG : NS.MATHML;
        if (t.selfClosing) this.appendElement(name, t.attrs, ns);
        else this.insertElement(name, t.attrs, ns);
        return;
      }
      case 'caption':
      case 'col':
      case 'colgroup':
      case 'frame':
      case 'head':
      case 'tbody':
      case 'td':
      case 'tfoot':
      case 'th':
      case 'thead':
      case 'tr':
        return;
      default:
        if (CLOSES_P.has(name)) {
          this.closePInButtonScope();
          this.insertElement(name, t.attrs);
          return;
        }
        this.reconstructFormatting();
        this.insertElement(name, t.attrs);
    }
  }

  private startTagInTable(t: StartTag): void {
    const name = t.name;
    switch (name) {
      case 'caption':
        this.clearBackTo(TABLE_CONTEXT);
        this.insertMarker();
        this.insertElement(name, t.attrs);
        this.mode = Mode.InCaption;
        return;
      case 'colgroup':
        this.clearBackTo(TABLE_CONTEXT);
        this.insertElement(name, t.attrs);
        this.mode = Mode.InColumnGroup;
        return;
      case 'col':
        this.clearBackTo(TABLE_CONTEXT);
        this.insertElement('colgroup', NO_ATTRS);
        this.mode = Mode.InColumnGroup;
        return this.startTagInColumnGroup(t);
      case 'tbody':
      case 'tfoot':
      case 'thead':
        this.clearBackTo(TABLE_CONTEXT);
        this.insertElement(name, t.attrs);
        this.mode = Mode.InTableBody;
        return;
      case 'td':
      case 'th':
      case 'tr':
        this.clearBackTo(TABLE_CONTEXT);
        this.insertElement('tbody', NO_ATTRS);
        this.mode = Mode.InTableBody;
        return this.startTagInTableBody(t);
      case 'table':
        if (!this.inScope('table', 'table')) return;
        this.popUntil('table');
        this.resetInsertionMode();
        return this.processStartTag(t);
      case 'style':
      case 'script':
      case 'template':
        return this.startTagInHead(t);
      case 'input':
        if ((getAttr(t.attrs, 'type') ?? '').toLowerCase() === 'hidden') {
          this.appendElement(name, t.attrs);
          return;
        }
        return this.inTableAnythingElse(() => this.startTagInBody(t));
      case 'form':
        if (this.formElement || this.indexOf('template') !== -1) return;
        this.formElement = this.insertElement(name, t.attrs);
        this.pop();
        return;
      default:
        return this.inTableAnythingElse(() => this.startTagInBody(t));
    }
  }

  private startTagInColumnGroup(t: StartTag): void {
    switch (t.name) {
      case 'html':
        return this.startTagInBody(t);
      case 'col':
        this.appendElement('col', t.attrs);
        return;
      case 'template':
        return this.startTagInHead(t);
      default:
        if (!this.currentIs('colgroup')) return;
        this.pop();
        this.mode = Mode.InTable;
        return this.processStartTag(t);
    }
  }

  private startTagInTableBody(t: StartTag): void {
    const name = t.name;
    if (name === 'tr') {
      this.clearBackTo(TABLE_BODY_CONTEXT);
      this.insertElement(name, t.attrs);
      this.mode = Mode.InRow;
      return;
    }
    if (name === 'th' || name === 'td') {
      this.clearBackTo(TABLE_BODY_CONTEXT);
      this.insertElement('tr', NO_ATTRS);
      this.mode = Mode.InRow;
      return this.startTagInRow(t);
    }
    if (name === 'caption' || name === 'col' || name === 'colgroup' || TABLE_SECTIONS.has(name)) {
      if (!this.inScope(TABLE_SECTIONS, 'table')) return;
      this.clearBackTo(TABLE_BODY_CONTEXT);
      this.pop();
      this.mode = Mode.InTable;
      return this.startTagInTable(t);
    }
    return this.startTagInTable(t);
  }

  private startTagInRow(t: StartTag): void {
    const name = t.name;
    if (name === 'th' || name === 'td') {
      this.clearBackTo(TABLE_ROW_CONTEXT);
      this.insertElement(name, t.attrs);
      this.mode = Mode.InCell;
      this.insertMarker();
      return;
    }
    if (name === 'caption' || name === 'col' || name === 'colgroup' || TABLE_SECTIONS.has(name) || name === 'tr') {
      if (!this.inScope('tr', 'table')) return;
      this.clearBackTo(TABLE_ROW_CONTEXT);
      this.pop();
      this.mode = Mode.InTableBody;
      return this.startTagInTableBody(t);
    }
    return this.startTagInTable(t);
  }

  private closeCell(): void {
    this.generateImpliedEndTags();
    while (this.top > 0 && !(this.nss[this.top] === NS.HTML && (this.currentName() === 'td' || this.currentName() === 'th'))) this.pop();
    this.pop();
    this.clearFormattingToMarker();
    this.mode = Mode.InRow;
  }

  private startTagInSelect(t: StartTag): void {
    const name = t.name;
    switch (name) {
      case 'html':
        return this.startTagInBody(t);
      case 'option':
        if (this.currentIs('option')) this.pop();
        this.insertElement(name, t.attrs);
        return;
      case 'optgroup':
        if (this.currentIs('option')) this.pop();
        if (this.currentIs('optgroup')) this.pop();
        this.insertElement(name, t.attrs);
        return;
      case 'hr':
        if (this.currentIs('option')) this.pop();
        if (this.currentIs('optgroup')) this.pop();
        this.appendElement(name, t.attrs);
        return;
      case 'input':
      case 'keygen':
      case 'textarea':
      case 'select':
        if (!this.inScope('select', 'select')) return;
        this.popUntil('select');
        this.resetInsertionMode();
        if (name !== 'select') this.processStartTag(t);
        return;
      case 'script':
      case 'template':
        return this.startTagInHead(t);
    }
  }

  private startTagInTemplate(t: StartTag): void {
    const name = t.name;
    let mode: Mode;
    if (HEAD_IN_BODY.has(name)) return this.startTagInHead(t);
    if (name === 'caption' || name === 'colgroup' || TABLE_SECTIONS.has(name)) mode = Mode.InTable;
    else if (name === 'col') mode = Mode.InColumnGroup;
    else if (name === 'tr') mode = Mode.InTableBody;
    else if (name === 'td' || name === 'th') mode = Mode.InRow;
    else mode = Mode.InBody;
    this.templateModes[this.templateModes.length - 1] = mode;
    this.mode = mode;
    this.startTagInMode(t);
  }

  // End tags -------------------------------------------------------------------------------------------------

  private processEndTag(name: string): void {
    if (this.top > 0 || (this.top === 0 && !this.context)) {
      if (this.currentIsForeign()) return this.endTagInForeignContent(name);
    }
    this.endTagInMode(name);
  }

  private endTagInForeignContent(name: string): void {
    if (name === 'p' || name === 'br') {
      while (this.top > 0 && this.nss[this.top] !== NS.HTML && !this.isIntegrationPoint(this.top)) this.pop();
      return this.endTagInMode(name);
    }
    for (let i = this.top; i > 0; i--) {
      if (this.nss[i] === NS.HTML) return this.endTagInMode(name);
      if (this.names[i]!.toLowerCase() === name) {
        this.popTo(i);
        return;
      }
    }
  }

  private endTagInMode(name: string): void {
    switch (this.mode) {
      case Mode.Initial:
      case Mode.BeforeHtml:
        if (this.mode === Mode.Initial) this.anythingElseBeforeBody();
        if (name === 'head' || name === 'body' || name === 'html' || name === 'br') {
          this.anythingElseBeforeBody();
          return this.endTagInMode(name);
        }
        return;
      case Mode.BeforeHead:
        if (name === 'head' || name === 'body' || name === 'html' || name === 'br') {
          this.anythingElseBeforeBody();
          return this.endTagInMode(name);
        }
        return;
      case Mode.InHead:
        if (name === 'head') {
          this.pop();
          this.mode = Mode.AfterHead;
          return;
        }
        if (name === 'body' || name === 'html' || name === 'br') {
          this.anythingElseBeforeBody();
          return this.endTagInMode(name);
        }
        if (name === 'template') this.endTemplate();
        return;
      case Mode.InHeadNoscript:
        if (name === 'noscript') {
          this.pop();
          this.mode = Mode.InHead;
          return;
        }
        if (name === 'br') {
          this.anythingElseBeforeBody();
          return this.endTagInMode(name);
        }
        return;
      case Mode.AfterHead:
        if (name === 'body' || name === 'html' || name === 'br') {
          this.anythingElseBeforeBody();
          return this.endTagInMode(name);
        }
        if (name === 'template') this.endTemplate();
        return;
      case Mode.InBody:
        return this.endTagInBody(name);
      case Mode.Text:
        this.pop();
        this.mode = this.originalMode;
        return;
      case Mode.InTable:
        return this.endTagInTable(name);
      case Mode.InCaption:
        if (name === 'caption' || name === 'table') {
          if (!this.inScope('caption', 'table')) return;
          this.generateImpliedEndTags();
          this.popUntil('caption');
          this.clearFormattingToMarker();
          this.mode = Mode.InTable;
          if (name === 'table') this.endTagInTable(name);
          return;
        }
        if (name === 'body' || name === 'col' || name === 'colgroup' || name === 'html' || TABLE_SECTIONS.has(name) || name === 'td' || name === 'th' || name === 'tr') return;
        return this.endTagInBody(name);
      case Mode.InColumnGroup:
        if (name === 'colgroup') {
          if (this.currentIs('colgroup')) {
            this.pop();
            this.mode = Mode.InTable;
          }
          return;
        }
        if (name === 'col') return;
        if (name === 'template') return this.endTemplate();
        if (!this.currentIs('colgroup')) return;
        this.pop();
        this.mode = Mode.InTable;
        return this.processEndTag(name);
      case Mode.InTableBody:
        return this.endTagInTableBody(name);
      case Mode.InRow:
        return this.endTagInRow(name);
      case Mode.InCell:
        if (name === 'td' || name === 'th') {
          if (!this.inScope(name, 'table')) return;
          this.generateImpliedEndTags();
          this.popUntil(name);
          this.clearFormattingToMarker();
          this.mode = Mode.InRow;
          return;
        }
        if (name === 'table' || TABLE_SECTIONS.has(name) || name === 'tr') {
          if (!this.inScope(name, 'table')) return;
          this.closeCell();
          return this.endTagInRow(name);
        }
        if (name === 'body' || name === 'caption' || name === 'col' || name === 'colgroup' || name === 'html') return;
        return this.endTagInBody(name);
      case Mode.InSelect:
        return this.endTagInSelect(name);
      case Mode.InSelectInTable:
        if (name === 'caption' || name === 'table' || TABLE_SECTIONS.has(name) || name === 'tr' || name === 'td' || name === 'th') {
          if (!this.inScope(name, 'table')) return;
          this.popUntil('select');
          this.resetInsertionMode();
          return this.processEndTag(name);
        }
        return this.endTagInSelect(name);
      case Mode.InTemplate:
        if (name === 'template') this.endTemplate();
        return;
      case Mode.AfterBody:
        if (name === 'html') {
          if (!this.context) this.mode = Mode.AfterAfterBody;
          return;
        }
        this.mode = Mode.InBody;
        return this.endTagInBody(name);
      case Mode.InFrameset:
        if (name === 'frameset' && this.top > 0) {
          this.pop();
          if (!this.context && !this.currentIs('frameset')) this.mode = Mode.AfterFrameset;
        }
        return;
      case Mode.AfterFrameset:
        if (name === 'html') this.mode = Mode.AfterAfterFrameset;
        return;
      case Mode.AfterAfterBody:
        this.mode = Mode.InBody;
        return this.endTagInBody(name);
      case Mode.AfterAfterFrameset:
        return;
    }
  }

  private endTemplate(): void {
    if (this.indexOf('template') === -1) return;
    this.generateImpliedEndTagsThoroughly();
    this.popUntil('template');
    this.clearFormattingToMarker();
    this.templateModes.pop();
    this.resetInsertionMode();
  }

  private endTagInBody(name: string): void {
    switch (name) {
      case 'template':
        return this.endTemplate();
      case 'body':
        if (this.inScope('body')) this.mode = Mode.AfterBody;
        return;
      case 'html':
        if (!this.inScope('body')) return;
        this.mode = Mode.AfterBody;
        return this.endTagInMode(name);
      case 'form': {
        if (this.indexOf('template') === -1) {
          // (parse5 asks for any form in scope, where the standard asks for this one; jsdom is the reference.)
          const form = this.formElement;
          this.formElement = undefined;
          if (!form || !this.inScope('form')) return;
          this.generateImpliedEndTags();
          const at = this.els.lastIndexOf(form);
          if (at !== -1) this.removeFromStack(at);
          return;
        }
        if (!this.inScope('form')) return;
        this.generateImpliedEndTags();
        this.popUntil('form');
        return;
      }
      case 'p':
        if (!this.inScope('p', 'button')) this.insertElement('p', NO_ATTRS);
        this.closeP();
        return;
      case 'li':
        if (!this.inScope('li', 'list')) return;
        this.generateImpliedEndTags('li');
        this.popUntil('li');
        return;
      case 'dd':
      case 'dt':
        if (!this.inScope(name)) return;
        this.generateImpliedEndTags(name);
        this.popUntil(name);
        return;
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6': {
        if (!this.inScope(HEADINGS)) return;
        this.generateImpliedEndTags();
        for (let i = this.top; i >= 0; i--) {
          if (this.nss[i] === NS.HTML && HEADINGS.has(this.names[i]!)) {
            this.popTo(i);
            break;
          }
        }
        return;
      }
      case 'applet':
      case 'marquee':
      case 'object':
        if (!this.inScope(name)) return;
        this.generateImpliedEndTags();
        this.popUntil(name);
        this.clearFormattingToMarker();
        return;
      case 'br':
        this.reconstructFormatting();
        this.appendElement('br', NO_ATTRS);
        this.framesetOk = false;
        return;
      default:
        if (FORMATTING.has(name)) return this.adoptionAgency(name);
        if (BLOCK_END.has(name)) {
          if (!this.inScope(name)) return;
          this.generateImpliedEndTags();
          this.popUntil(name);
          return;
        }
        return this.anyOtherEndTagInBody(name);
    }
  }

  private anyOtherEndTagInBody(name: string): void {
    for (let i = this.top; i >= 0; i--) {
      if (this.names[i] === name && this.nss[i] === NS.HTML) {
        this.generateImpliedEndTags(name);
        this.popTo(i);
        return;
      }
      if (this.isSpecial(i)) return;
    }
  }

  private endTagInTable(name: string): void {
    if (name === 'table') {
      if (!this.inScope('table', 'table')) return;
      this.popUntil('table');
      this.resetInsertionMode();
      return;
    }
    if (name === 'template') return this.endTemplate();
    if (name === 'body' || name === 'caption' || name === 'col' || name === 'colgroup' || name === 'html' || TABLE_SECTIONS.has(name) || name === 'td' || name === 'th' || name === 'tr') return;
    this.inTableAnythingElse(() => this.endTagInBody(name));
  }

  private endTagInTableBody(name: string): void {
    if (TABLE_SECTIONS.has(name)) {
      if (!this.inScope(name, 'table')) return;
      this.clearBackTo(TABLE_BODY_CONTEXT);
      this.pop();
      this.mode = Mode.InTable;
      return;
    }
    if (name === 'table') {
      if (!this.inScope(TABLE_SECTIONS, 'table')) return;
      this.clearBackTo(TABLE_BODY_CONTEXT);
      this.pop();
      this.mode = Mode.InTable;
      return this.endTagInTable(name);
    }
    if (name === 'body' || name === 'caption' || name === 'col' || name === 'colgroup' || name === 'html' || name === 'td' || name === 'th' || name === 'tr') return;
    this.endTagInTable(name);
  }

  private endTagInRow(name: string): void {
    if (name === 'tr' || name === 'table' || TABLE_SECTIONS.has(name)) {
      // (For </tbody> parse5 closes the row when either is in table scope, the standard when both are; jsdom is the reference.)
      if (TABLE_SECTIONS.has(name) ? !this.inScope(name, 'table') && !this.inScope('tr', 'table') : !this.inScope('tr', 'table')) return;
      this.clearBackTo(TABLE_ROW_CONTEXT);
      this.pop();
      this.mode = Mode.InTableBody;
      if (name !== 'tr') this.endTagInTableBody(name);
      return;
    }
    if (name === 'body' || name === 'caption' || name === 'col' || name === 'colgroup' || name === 'html' || name === 'td' || name === 'th') return;
    this.endTagInTable(name);
  }

  private endTagInSelect(name: string): void {
    switch (name) {
      case 'optgroup':
        if (this.currentIs('option') && this.top > 0 && this.names[this.top - 1] === 'optgroup' && this.nss[this.top - 1] === NS.HTML) this.pop();
        if (this.currentIs('optgroup')) this.pop();
        return;
      case 'option':
        if (this.currentIs('option')) this.pop();
        return;
      case 'select':
        if (!this.inScope('select', 'select')) return;
        this.popUntil('select');
        this.resetInsertionMode();
        return;
      case 'template':
        return this.endTemplate();
    }
  }
}

const TABLE_CONTEXT = set('table', 'template', 'html');
const TABLE_BODY_CONTEXT = set('tbody', 'tfoot', 'thead', 'template', 'html');
const TABLE_ROW_CONTEXT = set('tr', 'template', 'html');

/**
 * JSDOMParser's Element, made without its constructor's name handling (it strips a prefix, and lowercases and
 * uppercases every name): the same fields in the same order, the same prototype.
 */
const StyleProto = Object.getPrototypeOf((SHARED_DOC.children[0] as unknown as { style: object }).style) as object;
const Style = function Style(this: { node: unknown }, node: unknown) {
  this.node = node;
} as unknown as new (node: unknown) => object;
(Style as unknown as { prototype: object }).prototype = StyleProto;
interface ElementFields {
  _matchingTag: string;
  attributes: unknown[];
  childNodes: unknown[];
  children: unknown[];
  nextElementSibling: unknown;
  previousElementSibling: unknown;
  localName: string;
  tagName: string;
}
const LightElementNode = function LightElementNode(this: ElementFields, localName: string, tagName: string) {
  this._matchingTag = localName;
  this.attributes = [];
  this.childNodes = [];
  this.children = [];
  this.nextElementSibling = this.previousElementSibling = null;
  this.localName = localName;
  this.tagName = tagName;
} as unknown as new (localName: string, tagName: string) => LightElement;
/**
 * The element's style, made when asked for (JSDOMParser makes one per element up front: an object per element
 * kept for the page's life, which costs the parse a tenth of its time in garbage collection). A style only reads
 * and writes its element's style attribute, so a new one per access behaves the same.
 */
const LightElementProto = Object.create(ElementProto, {
  style: {
    configurable: true,
    get(this: LightElement) {
      return new Style(this);
    },
  },
}) as object;
(LightElementNode as unknown as { prototype: object }).prototype = LightElementProto;

const UPPER = new Map<string, string>();
function upperCase(name: string): string {
  let upper = UPPER.get(name);
  if (upper === undefined) {
    upper = name.toUpperCase();
    if (UPPER.size < 1000) UPPER.set(name, upper);
  }
  return upper;
}

/** SVG elements' className in jsdom: an SVGAnimatedString, not a string. */
class SvgAnimatedString {
  toString(): string {
    return '[object SVGAnimatedString]';
  }
}

function isHtmlAnnotation(el: LightElement): boolean {
  const encoding = (el.getAttribute('encoding') ?? '').toLowerCase();
  return encoding === 'text/html' || encoding === 'application/xhtml+xml';
}

function sameAttrs(a: Attrs, b: Attrs): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 2) if (getAttr(b, a[i]!) !== a[i + 1]) return false;
  return true;
}

/** A repeated <html> or <body> tag adds the attributes its element lacks. */
function mergeAttrs(el: LightElement | undefined, attrs: Attrs): void {
  if (!el) return;
  for (let i = 0; i < attrs.length; i += 2) if (!el.hasAttribute(attrs[i]!)) el.setAttribute(attrs[i]!, attrs[i + 1]!);
}

/** document.title: the first HTML <title>'s own text, ASCII whitespace stripped and collapsed. */
function documentTitle(root: LightElement | undefined): string {
  if (!root) return '';
  const stack: LightElement[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (el.localName === 'title' && el.namespaceURI === HTML_NS) {
      const own = el.childNodes.filter((n) => n.nodeType === TEXT_NODE).map((n) => n.textContent).join('');
      return own.replace(/[\t\n\f\r ]+/g, ' ').trim();
    }
    for (let i = el.children.length - 1; i >= 0; i--) stack.push(el.children[i]!);
  }
  return '';
}

// Quirks mode (§13.2.6.4.1): only one thing in tree construction depends on it, <table> closing an open <p>.
const QUIRKS_PUBLIC_PREFIXES = [
  '+//silmaril//dtd html pro v0r11 19970101//', '-//as//dtd html 3.0 aswedit + extensions//', '-//advasoft ltd//dtd html 3.0 aswedit + extensions//',
  '-//ietf//dtd html 2.0 level 1//', '-//ietf//dtd html 2.0 level 2//', '-//ietf//dtd html 2.0 strict level 1//', '-//ietf//dtd html 2.0 strict level 2//',
  '-//ietf//dtd html 2.0 strict//', '-//ietf//dtd html 2.0//', '-//ietf//dtd html 2.1e//', '-//ietf//dtd html 3.0//', '-//ietf//dtd html 3.2 final//',
  '-//ietf//dtd html 3.2//', '-//ietf//dtd html 3//', '-//ietf//dtd html level 0//', '-//ietf//dtd html level 1//', '-//ietf//dtd html level 2//',
  '-//ietf//dtd html level 3//', '-//ietf//dtd html strict level 0//', '-//ietf//dtd html strict level 1//', '-//ietf//dtd html strict level 2//',
  '-//ietf//dtd html strict level 3//', '-//ietf//dtd html strict//', '-//ietf//dtd html//', '-//metrius//dtd metrius presentational//',
  '-//microsoft//dtd internet explorer 2.0 html strict//', '-//microsoft//dtd internet explorer 2.0 html//', '-//microsoft//dtd internet explorer 2.0 tables//',
  '-//microsoft//dtd internet explorer 3.0 html strict//', '-//microsoft//dtd internet explorer 3.0 html//', '-//microsoft//dtd internet explorer 3.0 tables//',
  '-//netscape comm. corp.//dtd html//', '-//netscape comm. corp.//dtd strict html//', "-//o'reilly and associates//dtd html 2.0//",
  "-//o'reilly and associates//dtd html extended 1.0//", "-//o'reilly and associates//dtd html extended relaxed 1.0//",
  '-//sq//dtd html 2.0 hotmetal + extensions//', '-//softquad software//dtd hotmetal pro 6.0::19990601::extensions to html 4.0//',
  '-//softquad//dtd hotmetal pro 4.0::19971010::extensions to html 4.0//', '-//spyglass//dtd html 2.0 extended//', '-//sun microsystems corp.//dtd hotjava html//',
  '-//sun microsystems corp.//dtd hotjava strict html//', '-//w3c//dtd html 3 1995-03-24//', '-//w3c//dtd html 3.2 draft//', '-//w3c//dtd html 3.2 final//',
  '-//w3c//dtd html 3.2//', '-//w3c//dtd html 3.2s draft//', '-//w3c//dtd html 4.0 frameset//', '-//w3c//dtd html 4.0 transitional//',
  '-//w3c//dtd html experimental 19960712//', '-//w3c//dtd html experimental 970421//', '-//w3c//dtd w3 html//', '-//w3o//dtd w3 html 3.0//',
  '-//webtechs//dtd mozilla html 2.0//', '-//webtechs//dtd mozilla html//',
];
const QUIRKS_PUBLIC_IDS = new Set(['-//w3o//dtd w3 html strict 3.0//en//', '-/w3c/dtd html 4.0 transitional/en', 'html']);

/** Whether a DOCTYPE (the text after `<!`) puts the document in quirks mode. */
export function quirksMode(raw: string): boolean {
  const m = /^doctype(?:[\t\n\f\r ]+([^\t\n\f\r >]*))?(.*)$/is.exec(raw);
  if (!m) return true;
  if ((m[1] ?? '').toLowerCase() !== 'html') return true;
  const rest = m[2] ?? '';
  const pub = /^[\t\n\f\r ]*public[\t\n\f\r ]*(["'])(.*?)\1(?:[\t\n\f\r ]*(["'])(.*?)\3)?/is.exec(rest);
  const sys = pub ? (pub[3] !== undefined ? pub[4] : undefined) : /^[\t\n\f\r ]*system[\t\n\f\r ]*(["'])(.*?)\1/is.exec(rest)?.[2];
  if (sys !== undefined && sys.toLowerCase() === 'http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd') return true;
  if (!pub) return false;
  const id = pub[2]!.toLowerCase();
  if (QUIRKS_PUBLIC_IDS.has(id)) return true;
  const prefixes = sys === undefined ? [...QUIRKS_PUBLIC_PREFIXES, '-//w3c//dtd html 4.01 frameset//', '-//w3c//dtd html 4.01 transitional//'] : QUIRKS_PUBLIC_PREFIXES;
  return prefixes.some((p) => id.startsWith(p));
}

// ---------------------------------------------------------------------------------------------------------------
// From htmlparser2's tokenizer to the tree builder.

type TokenizerCallbacks = ConstructorParameters<typeof Tokenizer>[1];

/**
 * htmlparser2's tokenizer callbacks turned into the tree builder's tokens: tag names and attribute names
 * lowercased, the first of repeated attributes kept, NULs in names and values made U+FFFD, text and entities
 * as they come, comments, the doctype. Indices are into the one string the tokenizer is given (pages and
 * fragments are tokenized in one write). As in the standard, the tree builder decides after each start tag
 * whether the tokenizer reads what follows as text (see startTag), and whether a tag is in foreign content.
 */
export class TokenGlue implements TokenizerCallbacks {
  private tagName = '';
  private attrs: string[] = [];
  private attrName = '';
  private attrValue = '';
  /** The tokenizer, whose state the tree builder sets after a start tag, as the standard's does. */
  tokenizer?: unknown;

  constructor(
    private readonly html: string,
    public tree: LightTreeBuilder | undefined,
  ) {}

  /**
   * htmlparser2 switches to raw text (or RCDATA, script data, PLAINTEXT) after <script>, <style>, <title>,
   * <textarea>, <xmp>, <iframe>, <noembed>, <noframes> and <plaintext> by their name alone; in the standard it
   * is the tree builder that switches, when it inserts one of them. Where it ignores the tag (a <style> or
   * <plaintext> in a <select>, a <script> in a frameset), the content stays markup: undo the switch.
   */
  private startTag(selfClosing: boolean): void {
    const tree = this.tree;
    if (!tree) return;
    tree.startTag({ name: this.tagName, attrs: this.attrs, selfClosing });
    const t = this.tokenizer as (TokenizerInternals & { pause(): void }) | undefined;
    if (!t) return;
    if (t.isSpecial && !tree.textStarted) {
      t.isSpecial = false;
      t.currentSequence = EMPTY_SEQUENCE;
    }
    if (tree.over) t.pause(); // past a cap: stop here
  }

  onopentagname(start: number, end: number): void {
    this.tagName = cleanName(this.html.slice(start, end));
    this.attrs = [];
  }

  onattribname(start: number, end: number): void {
    this.attrName = cleanName(this.html.slice(start, end));
    this.attrValue = '';
  }

  onattribdata(start: number, end: number): void {
    this.attrValue += this.html.slice(start, end);
  }

  onattribentity(cp: number): void {
    this.attrValue += String.fromCodePoint(cp);
  }

  onattribend(): void {
    const attrs = this.attrs;
    const name = this.attrName;
    for (let i = 0; i < attrs.length; i += 2) {
      if (attrs[i] === name) {
        this.attrValue = '';
        return;
      }
    }
    const value = this.attrValue;
    attrs.push(name, value.includes('\0') ? value.replace(/\0/g, '\uFFFD') : value);
    this.attrValue = '';
  }

  onopentagend(): void {
    this.startTag(false);
  }

  onselfclosingtag(): void {
    this.startTag(true);
  }

  onclosetag(start: number, end: number): void {
    this.tree?.endTag(cleanName(this.html.slice(start, end)));
    if (this.tree?.over) (this.tokenizer as { pause(): void } | undefined)?.pause();
  }

  ontext(start: number, end: number): void {
    if (!this.tree) return;
    const text = this.html.slice(start, end);
    // The standard's input stream has no CR: CRLF and CR are LF (§13.2.3.5).
    this.tree.text(text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text);
  }

  ontextentity(cp: number): void {
    this.tree?.text(String.fromCodePoint(cp));
  }

  oncomment(start: number, end: number, offset: number): void {
    this.tree?.comment(this.html.slice(start, end - offset));
    if (this.tree?.over) (this.tokenizer as { pause(): void } | undefined)?.pause();
  }

  oncdata(start: number, end: number, offset: number): void {
    // CDATA sections are text in foreign content, bogus comments elsewhere.
    const data = this.html.slice(start, end - offset);
    if (this.tree?.inForeignContent()) this.tree.text(data);
    else this.tree?.comment(`[CDATA[${data}]]`);
  }

  ondeclaration(start: number, end: number): void {
    this.tree?.doctype(this.html.slice(start, end));
  }

  onprocessinginstruction(): void {}

  onend(): void {}

  isInForeignContext(): boolean {
    return this.tree?.inForeignContent() ?? false;
  }
}

function cleanName(raw: string): string {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || c === 0) {
      const name = raw.toLowerCase();
      return name.includes('\0') ? name.replace(/\0/g, '\uFFFD') : name;
    }
  }
  return raw;
}

const RAW_CONTEXTS: ReadonlySet<string> = new Set(['title', 'textarea', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'script', 'plaintext']);

/** The HTML fragment parsing algorithm (innerHTML), with `context` as the context element: the new children. */
export function parseFragment(html: string, context: LightElement): LightElement {
  const tree = new LightTreeBuilder(NO_LIMITS, context);
  if (context.namespaceURI === HTML_NS && RAW_CONTEXTS.has(context.localName)) {
    // Contexts whose content the tokenizer reads as text (Readability never sets these).
    const root = tree.fragmentRoot();
    root.appendChild(SHARED_DOC.createTextNode(html));
    return root;
  }
  const glue = new TokenGlue(html, tree);
  const tokenizer = new (HTML_PARSER_OPTIONS.Tokenizer)(HTML_PARSER_OPTIONS as ParserOptions, glue);
  glue.tokenizer = tokenizer;
  tokenizer.write(html);
  tokenizer.end();
  return tree.fragmentRoot();
}

/**
 * Builds a page's light document in one tokenizer pass; stops (no document, `over` says why) as soon as the
 * tree passes one of `limits`.
 */
export function buildDocument(html: string, limits: TreeLimits = NO_LIMITS): { doc?: LightDocument; over?: string } {
  const tree = new LightTreeBuilder(limits);
  const glue = new TokenGlue(html, tree);
  const tokenizer = new (HTML_PARSER_OPTIONS.Tokenizer)(HTML_PARSER_OPTIONS as ParserOptions, glue);
  glue.tokenizer = tokenizer;
  tokenizer.write(html);
  if (!tree.over) tokenizer.end();
  const doc = tree.over ? undefined : tree.finish();
  return tree.over ? { over: tree.over } : { doc };
}

/** Parses a whole page into a light document, without limits. */
export function parseDocument(html: string): LightDocument {
  return buildDocument(html).doc!;
}
