// The light DOM's nodes: JSDOMParser's node classes as this code uses them, their namespaces, and how nodes are made.
import JSDOMParser from '@mozilla/readability/JSDOMParser.js';

/** The parts of JSDOMParser's nodes this module touches (it is plain objects and arrays, no live lists). */
export interface LightNode {
  nodeType: number;
  childNodes: LightNode[];
  textContent: string;
  parentNode: LightNode | null;
  /** A getter (JSDOMParser's, replaced in slots.ts). */
  readonly firstChild: LightNode | null;
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
  /** The doctype node, when the page has one (document.doctype). */
  doctype?: LightNode;
  head?: LightElement;
  body?: LightElement;
  title: string;
  appendChild(child: LightNode): void;
  createElement(tag: string): LightElement;
  createTextNode(text: string): LightNode;
}

export const HTML_NS = 'http://www.w3.org/1999/xhtml';
const SVG_NS = 'http://www.w3.org/2000/svg';
const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';

/** The tree builder's namespaces (an index into NS_URI), kept beside each element on its stack of open elements. */
export const enum NS {
  HTML,
  SVG,
  MATHML,
}
export const NS_URI = [HTML_NS, SVG_NS, MATHML_NS] as const;

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const COMMENT_NODE = 8;
const DOCUMENT_TYPE_NODE = 10;

// JSDOMParser's shared prototypes are found here and left as they are: patches.ts adjusts them, when asked
// (installLightDomPatches), so that this DOM answers as the reference DOM (jsdom) does where Readability asks.

/**
 * A document of JSDOMParser's, for its node classes (nodes do not belong to a document: createElement is `new
 * Element`).
 */
export const SHARED_DOC = new JSDOMParser().parse('<p></p>', 'http://localhost/') as unknown as LightDocument;
export const ElementProto = Object.getPrototypeOf(SHARED_DOC.children[0]) as Record<string, unknown>;
const TextProto = Object.getPrototypeOf(SHARED_DOC.createTextNode('')) as object;
export const NodeProto = Object.getPrototypeOf(TextProto) as Record<string, unknown>;
export const DocumentProto = Object.getPrototypeOf(SHARED_DOC) as Record<string, unknown>;
/** The prototype of an element's `style` (JSDOMParser's Style, which reads and writes the style attribute). */
export const StyleProto = Object.getPrototypeOf(
  (SHARED_DOC.children[0] as unknown as { style: object }).style,
) as Record<string, unknown>;

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

export function createComment(data: string): LightNode {
  const node = Object.create(CommentProto) as LightNode;
  node.childNodes = [];
  node.textContent = data;
  return node;
}

/**
 * The doctype node (DocumentType), the document's child where the DOCTYPE token put it: its name and identifiers,
 * empty strings when missing, as the standard's "initial" insertion mode makes it. JSDOMParser has no DocumentType;
 * this one shares its nodes' prototype, as comments do, so that it answers as JSDOMParser's nodes do where
 * Readability asks the document's first child (whether the DOM is JSDOMParser's), and nothing reads it as text
 * (its textContent is null, as in the DOM).
 */
const DoctypeProto = Object.create(NodeProto, {
  nodeType: { value: DOCUMENT_TYPE_NODE },
  nodeName: {
    get(this: LightDoctype) {
      return this.name;
    },
  },
  textContent: { value: null },
}) as object;

interface LightDoctype {
  nodeType: number;
  name: string;
  publicId: string;
  systemId: string;
  childNodes: LightNode[];
  parentNode: LightNode | null;
}

export function createDoctype(name: string, publicId: string, systemId: string): LightNode {
  const node = Object.create(DoctypeProto) as LightDoctype;
  node.childNodes = [];
  node.name = name;
  node.publicId = publicId;
  node.systemId = systemId;
  return node as unknown as LightNode;
}

/**
 * JSDOMParser's parser's prototype (the parser itself only makes the documents the tree builder fills: newDocument).
 */
export const ParserProto = Object.getPrototypeOf(new JSDOMParser()) as Record<string, unknown>;

/** A new, empty document of JSDOMParser's, for the tree builder to fill. */
export function newDocument(url: string): LightDocument {
  return new JSDOMParser().parse('', url) as unknown as LightDocument;
}

/** JSDOMParser's Attribute objects, made directly (its constructor is not exported): same prototype, same fields. */
const AttrProto = (() => {
  const probe = SHARED_DOC.createElement('p');
  probe.setAttribute('x', 'y');
  return Object.getPrototypeOf(probe.attributes[0]) as object;
})();
export interface AttrShape {
  name: string;
  _value: string;
}
export const Attr = function Attr(this: AttrShape, name: string, value: string) {
  this.name = name;
  this._value = value;
} as unknown as new (
  name: string,
  value: string,
) => AttrShape;
(Attr as unknown as { prototype: object }).prototype = AttrProto;

/**
 * An attribute in a namespace (xlink:, xml:, xmlns on SVG and MathML elements), with a DOM Attr's prefix, local name
 * and namespace.
 */
interface NamespacedAttrShape extends AttrShape {
  prefix: string | null;
  localName: string;
  namespaceURI: string;
}
/**
 * JSDOMParser's Attribute with a namespace: JSDOMParser's attributes have a name alone, which stays the qualified
 * name (`xlink:href`) that getAttribute matches; the DOM's prefix, local name and namespace are kept beside it.
 * Its own prototype (over JSDOMParser's) keeps the plain attributes' shape as it is.
 */
export const NamespacedAttr = function NamespacedAttr(
  this: NamespacedAttrShape,
  name: string,
  value: string,
  prefix: string | null,
  localName: string,
  namespaceURI: string,
) {
  this.name = name;
  this._value = value;
  this.prefix = prefix;
  this.localName = localName;
  this.namespaceURI = namespaceURI;
} as unknown as new (
  name: string,
  value: string,
  prefix: string | null,
  localName: string,
  namespaceURI: string,
) => NamespacedAttrShape;
(NamespacedAttr as unknown as { prototype: object }).prototype = Object.create(AttrProto) as object;

/** JSDOMParser's Style, made directly (its constructor is not exported). */
const Style = function Style(this: { node: unknown }, node: unknown) {
  this.node = node;
} as unknown as new (
  node: unknown,
) => object;
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
/**
 * JSDOMParser's Element, made without its constructor's name handling (it strips a prefix, and lowercases and
 * uppercases every name): the same fields in the same order, the same prototype.
 */
export const LightElementNode = function LightElementNode(this: ElementFields, localName: string, tagName: string) {
  this._matchingTag = localName;
  this.attributes = [];
  this.childNodes = [];
  this.children = [];
  this.nextElementSibling = this.previousElementSibling = null;
  this.localName = localName;
  this.tagName = tagName;
} as unknown as new (
  localName: string,
  tagName: string,
) => LightElement;
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

/** SVG elements' className in jsdom: an SVGAnimatedString, not a string. */
export class SvgAnimatedString {
  toString(): string {
    return '[object SVGAnimatedString]';
  }
}
