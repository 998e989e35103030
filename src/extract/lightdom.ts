// Readability's own light DOM (JSDOMParser's node classes, shipped with @mozilla/readability), built from htmlparser2's events.
import JSDOMParser from '@mozilla/readability/JSDOMParser.js';

/** The parts of JSDOMParser's nodes this module touches (it is plain objects and arrays, no live lists). */
export interface LightNode {
  nodeType: number;
  childNodes: LightNode[];
  textContent: string;
}

export interface LightElement extends LightNode {
  localName: string;
  tagName: string;
  children: LightElement[];
  appendChild(child: LightNode): void;
  setAttribute(name: string, value: string): void;
  getAttribute(name: string): string | undefined;
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

const TEXT_NODE = 3;

/** Elements the HTML parser puts in <head> when they come before the body starts. */
const HEAD_CONTENT: ReadonlySet<string> = new Set(['base', 'basefont', 'bgsound', 'link', 'meta', 'noframes', 'script', 'style', 'template', 'title']);
/** Subtrees in other namespaces: a <title> inside them is not the document's title. */
const FOREIGN: ReadonlySet<string> = new Set(['svg', 'math']);
const ASCII_WHITESPACE = /^[\t\n\f\r ]*$/;

// Two adjustments to the shared prototypes, made once, so that this DOM answers as the reference
// DOM (jsdom) does where Readability asks. They only affect JSDOMParser, which nothing else uses.
{
  const probe = new JSDOMParser().parse('<p></p>', 'http://localhost/') as unknown as LightDocument;
  const parserProto = Object.getPrototypeOf(new JSDOMParser()) as { error(m: string): void };
  // JSDOMParser prints markup errors to the console; in a worker that is our stdout. Keep them on
  // the parser (its errorState), which is where its own tests look.
  parserProto.error = function error(this: { errorState: string }, message: string) {
    this.errorState += `${message}\n`;
  };
  // Readability asks `style.display` and `style.visibility` of every node (_isProbablyVisible).
  // JSDOMParser answers from the style attribute verbatim ("none !important", "NONE"); a browser
  // (and jsdom) parses it: property names are case-insensitive, keywords too, `!important` is
  // not part of the value, and among repeats an important declaration wins, else the last.
  const styleProto = Object.getPrototypeOf((probe.children[0] as unknown as { style: object }).style) as { getStyle(name: string): string | undefined };
  styleProto.getStyle = function getStyle(this: { node: LightElement }, name: string) {
    return inlineStyle(this.node.getAttribute('style'), name);
  };
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

type Parent = LightElement | LightDocument;

/**
 * Builds a document from parser events (htmlparser2's onopentag/ontext/onclosetag), placing
 * nodes as the HTML standard's tree builder does where pages commonly differ from the ideal:
 * there is always one <html> holding a <head> and then a <body>, made when their tags are
 * missing; head content (<meta>, <title>, ...) goes to the head until the body starts; anything
 * else at the top level, in the head, or after </body> or </html> goes to the body; repeated
 * <html>, <head> and <body> tags are ignored. Below that, the tree is htmlparser2's. Adjacent
 * text chunks make one Text node; comments are dropped (as JSDOMParser itself does), and so are
 * <template> contents (in a browser they are not children of the template).
 */
export class LightTreeBuilder {
  readonly doc: LightDocument;
  private html?: LightElement;
  private head?: LightElement;
  private body?: LightElement;
  private parent: Parent;
  /** The parent to return to at each open element's end tag (ignored tags included). */
  private readonly stack: Parent[] = [];
  private text: string[] = [];
  /** Depth inside <template>: its content is not built. */
  private inert = 0;

  constructor(url = 'http://localhost/') {
    this.doc = new JSDOMParser().parse('', url) as unknown as LightDocument;
    this.parent = this.doc;
  }

  open(name: string, attributes: Record<string, string>): void {
    if (this.inert > 0) {
      if (name === 'template') this.inert++;
      return;
    }
    this.flush();
    this.stack.push(this.parent);
    const top = this.parent === this.doc || this.parent === this.html;
    if (name === 'html') {
      if (!this.html && this.parent === this.doc) this.parent = this.ensureHtml(attributes);
      return;
    }
    if (name === 'head') {
      if (!this.head && top) this.parent = this.ensureHead();
      return;
    }
    if (name === 'body') {
      if (!this.body && (top || this.parent === this.head)) this.parent = this.ensureBody(attributes);
      return;
    }
    const el = this.element(name, attributes);
    this.placeElement(name).appendChild(el);
    this.parent = el;
    if (name === 'template') this.inert = 1;
  }

  textChunk(text: string): void {
    if (this.inert === 0) this.text.push(text);
  }

  close(name: string): void {
    if (this.inert > 0) {
      if (name === 'template') this.inert--;
      if (this.inert > 0) return;
    }
    this.flush();
    this.parent = this.stack.pop() ?? this.doc;
  }

  /** The finished document: documentElement, head, body and title set as a browser sets them. */
  finish(): LightDocument {
    this.flush();
    const doc = this.doc;
    doc.body = this.ensureBody();
    doc.head = this.head!;
    doc.documentElement = this.html!;
    doc.title = documentTitle(this.html!);
    return doc;
  }

  private element(name: string, attributes: Record<string, string>): LightElement {
    const el = this.doc.createElement(name);
    // JSDOMParser drops a namespace prefix ("o:p" would become a <p>); the HTML parser does not.
    el.localName = name;
    el.tagName = name.toUpperCase();
    for (const key in attributes) el.setAttribute(key, attributes[key]!);
    return el;
  }

  private ensureHtml(attributes: Record<string, string> = {}): LightElement {
    if (!this.html) {
      this.html = this.element('html', attributes);
      this.doc.appendChild(this.html);
    }
    return this.html;
  }

  private ensureHead(): LightElement {
    if (!this.head) {
      this.head = this.element('head', {});
      this.ensureHtml().appendChild(this.head);
    }
    return this.head;
  }

  private ensureBody(attributes: Record<string, string> = {}): LightElement {
    if (!this.body) {
      this.ensureHead();
      this.body = this.element('body', attributes);
      this.html!.appendChild(this.body);
    }
    return this.body;
  }

  /** Where an element opened now goes. */
  private placeElement(name: string): Parent {
    const p = this.parent;
    if (p === this.doc || p === this.html) return HEAD_CONTENT.has(name) && !this.body ? this.ensureHead() : this.ensureBody();
    if (p === this.head) return HEAD_CONTENT.has(name) || name === 'noscript' ? p : this.ensureBody();
    return p;
  }

  /** Adjacent text chunks (htmlparser2 splits text at entities) make one Text node, as in a browser. */
  private flush(): void {
    if (this.text.length === 0) return;
    const text = this.text.length === 1 ? this.text[0]! : this.text.join('');
    this.text = [];
    const p = this.parent;
    const blank = ASCII_WHITESPACE.test(text);
    let target: Parent | undefined = p;
    if (p === this.doc || p === this.html) target = blank && !this.body ? undefined : this.ensureBody();
    else if (p === this.head && !blank) target = this.ensureBody();
    target?.appendChild(this.doc.createTextNode(text));
  }
}

/** document.title: the first HTML <title>'s own text, ASCII whitespace stripped and collapsed. */
function documentTitle(root: LightElement): string {
  const stack: LightElement[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (el.localName === 'title') {
      const own = el.childNodes.filter((n) => n.nodeType === TEXT_NODE).map((n) => n.textContent).join('');
      return own.replace(/[\t\n\f\r ]+/g, ' ').trim();
    }
    if (FOREIGN.has(el.localName)) continue;
    for (let i = el.children.length - 1; i >= 0; i--) stack.push(el.children[i]!);
  }
  return '';
}
