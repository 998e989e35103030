// LightTreeBuilder: tree construction (HTML standard §13.2.6, as parse5, jsdom's parser, implements it), tokens in, a
// document out.
import { processEndTag } from './end-tags.js';
import { reconstructFormatting } from './formatting.js';
import { NO_LIMITS, type TreeLimits } from './tree-limits.js';
import { anythingElseBeforeBody, inTableAnythingElse, resetInsertionMode, startFragment } from './modes.js';
import {
  createComment,
  createDoctype,
  HTML_NS,
  NS,
  TEXT_NODE,
  type LightDocument,
  type LightElement,
  type LightNode,
} from './nodes.js';
import { parseDoctype, quirksMode } from './doctype.js';
import { processStartTag } from './start-tags.js';
import { Mode, TreeState } from './state.js';
import { TABLE_STRUCTURE } from './tags.js';
import type { StartTag } from './tokens.js';
import { ASCII_WHITESPACE } from '../ascii-whitespace.js';

const WHITESPACE = new RegExp(`^[${ASCII_WHITESPACE}]*$`);
/** Only whitespace and NULs: text that leaves frameset-ok as it is in foreign content. */
const WHITESPACE_OR_NUL = new RegExp(`^[${ASCII_WHITESPACE}\0]*$`);
const LEADING_WHITESPACE = new RegExp(`^[${ASCII_WHITESPACE}]*`);
/** What is not ASCII whitespace (removed where only whitespace may be inserted). */
const NOT_WHITESPACE = new RegExp(`[^${ASCII_WHITESPACE}]`, 'g');
/** A run of ASCII whitespace (collapsed in document.title). */
const WHITESPACE_RUN = new RegExp(`[${ASCII_WHITESPACE}]+`, 'g');

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
 * pattern, and seeded random tag soup (test/extract/lightdom.test.ts).
 *
 * The builder is composed of parts, as parse5's is: the stack of open elements (stack.ts) and the list of active
 * formatting elements (formatting.ts), each owning its data, node insertion (insert.ts), and the budget against
 * the limits (tree-limits.ts), held with the insertion mode and the parser's flags in one state (state.ts). The rules
 * are functions that take that state: the insertion mode's shared steps (modes.ts), the adoption agency and
 * reconstruction (formatting.ts), the rules for start tags (start-tags.ts) and for end tags (end-tags.ts); here,
 * the tokens' entry points and the rules for text.
 */
export class LightTreeBuilder {
  private pendingText: string[] = [];
  private readonly s: TreeState;

  constructor(limits: TreeLimits = NO_LIMITS, context?: LightElement, url = 'http://localhost/') {
    this.s = new TreeState(limits, context, url);
    if (context) startFragment(this.s, context);
  }

  /** Why building stopped (a limit passed); the document is then incomplete and should be dropped. */
  get over(): string | undefined {
    return this.s.budget.over;
  }

  /**
   * Whether the last start tag switched to text (RAWTEXT, RCDATA, script data, PLAINTEXT): the tokenizer follows this.
   */
  get textStarted(): boolean {
    return this.s.textStarted;
  }

  // --- tokens ------------------------------------------------------------------------------------------------

  /** Character data (entities decoded); adjacent runs are gathered and handled at the next other token. */
  text(data: string): void {
    this.pendingText.push(data);
  }

  startTag(token: StartTag): void {
    this.flushText();
    this.s.skipNextNewline = false;
    this.s.textStarted = false;
    processStartTag(this.s, token);
  }

  endTag(name: string): void {
    this.flushText();
    this.s.skipNextNewline = false;
    processEndTag(this.s, name);
  }

  comment(data: string): void {
    this.flushText();
    this.s.skipNextNewline = false;
    const mode = this.s.mode;
    // With an SVG or MathML adjusted current node (integration points too: only start tags and text leave the rules
    // for foreign content there), the comment goes in the current node, whatever the mode: after </body> or </html>
    // foreign elements may still be open.
    const foreign = this.s.adjustedCurrentIsForeign();
    const toDocument =
      mode === Mode.Initial ||
      mode === Mode.BeforeHtml ||
      mode === Mode.AfterAfterBody ||
      mode === Mode.AfterAfterFrameset;
    const parent = foreign
      ? this.s.insert.currentTemplateContentOrNode()
      : toDocument
        ? (this.s.insert.doc as unknown as LightNode)
        : mode === Mode.AfterBody
          ? this.s.stack.els[0]!
          : this.s.insert.currentTemplateContentOrNode();
    this.s.insert.appendNode(parent, createComment(data.replace(/\0/g, '\uFFFD')));
  }

  /**
   * A DOCTYPE token (its text after `<!`): in the "initial" insertion mode, a doctype node appended to the document
   * (name and identifiers, empty when missing), and the quirks mode it selects; anywhere else, ignored. `atEof`:
   * the end of the input cut the DOCTYPE off.
   */
  doctype(raw: string, atEof = false): void {
    this.flushText();
    if (this.s.mode !== Mode.Initial) return;
    const token = parseDoctype(raw, atEof);
    const doc = this.s.insert.doc;
    const node = createDoctype(token.name ?? '', token.publicId ?? '', token.systemId ?? '');
    this.s.insert.appendNode(doc as unknown as LightNode, node);
    doc.doctype = node;
    this.s.quirks = quirksMode(token);
    this.s.mode = Mode.BeforeHtml;
  }

  /** The end of the input: the document, its html, head and body made if missing, its title read. */
  finish(): LightDocument {
    this.flushText();
    // The end-of-file token: in text, the element ends; open templates close; before the body, the missing
    // elements are made; after, nothing changes the tree.
    if (this.s.mode === Mode.Text) {
      this.s.stack.pop();
      this.s.mode = this.s.originalMode;
    }
    if (this.s.templateModes.length > 0) {
      while (this.s.stack.indexOf('template') !== -1) {
        this.s.stack.popUntil('template');
        this.s.formatting.clearToMarker();
      }
      this.s.templateModes.length = 0;
      resetInsertionMode(this.s);
    }
    for (let guard = 0; guard < 8 && this.s.mode <= Mode.AfterHead; guard++) anythingElseBeforeBody(this.s);
    const doc = this.s.insert.doc;
    const html = doc.children.find((c) => c.localName === 'html') ?? (this.s.stack.els[0] as LightElement);
    doc.documentElement = html;
    doc.head = this.s.headElement ?? html?.children.find((c) => c.localName === 'head');
    doc.body = html?.children.find(
      (c) => c.namespaceURI === HTML_NS && (c.localName === 'body' || c.localName === 'frameset'),
    );
    doc.title = documentTitle(html);
    return doc;
  }

  /** For the tokenizer: whether the next tag is in foreign content, where <title>, <style>, <script>... hold markup. */
  inForeignContent(): boolean {
    this.flushText();
    return this.inForeignText();
  }

  /** The fragment's root, whose children are the parsed fragment (fragment parsing). */
  fragmentRoot(): LightElement {
    this.flushText();
    return this.s.stack.els[0]!;
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
    if (this.s.skipNextNewline) {
      // A newline right after <pre>, <listing> or <textarea> is not content.
      this.s.skipNextNewline = false;
      if (text.charCodeAt(0) === 0x0a) text = text.slice(1);
    }
    if (this.s.mode === Mode.Text) {
      // RAWTEXT, RCDATA, script data, PLAINTEXT: a NUL is U+FFFD.
      this.s.insert.insertCharacters(text.replace(/\0/g, '\uFFFD'));
      return;
    }
    if (this.inForeignText()) {
      // A NUL is U+FFFD here, and leaves frameset-ok alone, as whitespace does (so `<svg>\0</svg><frameset>` is a
      // frameset).
      if (!WHITESPACE_OR_NUL.test(text)) this.s.framesetOk = false;
      this.s.insert.insertCharacters(text.includes('\0') ? text.replace(/\0/g, '\uFFFD') : text);
      return;
    }
    // In HTML content a NUL is ignored where the mode has a row for it (in body, table text, select...); before
    // the body, after it and in a column group it is "anything else", which ends the mode (charactersInMode).
    while (text !== '') text = this.charactersInMode(text);
  }

  /**
   * Whether character tokens now go by the rules for foreign content (the adjusted current node is SVG or MathML, not
   * an integration point).
   */
  private inForeignText(): boolean {
    const stack = this.s.stack;
    const top = stack.els.length - 1; // (asked before every tag: the stack's arrays read directly)
    if (top === 0 && this.s.context) return this.s.contextForeign; // the adjusted current node is the context
    return top >= 0 && stack.nss[top] !== NS.HTML && !stack.isIntegrationPoint(top);
  }

  /** Handles text in the current mode; returns what is left to reprocess (after a mode change), or ''. */
  private charactersInMode(text: string): string {
    switch (this.s.mode) {
      case Mode.Initial:
      case Mode.BeforeHtml:
      case Mode.BeforeHead: {
        const ws = LEADING_WHITESPACE.exec(text)![0].length;
        if (ws === text.length) return '';
        anythingElseBeforeBody(this.s);
        return text.slice(ws);
      }
      case Mode.InHead:
      case Mode.InHeadNoscript:
      case Mode.AfterHead: {
        const ws = LEADING_WHITESPACE.exec(text)![0].length;
        this.s.insert.insertCharacters(text.slice(0, ws));
        if (ws === text.length) return '';
        anythingElseBeforeBody(this.s);
        return text.slice(ws);
      }
      case Mode.InBody:
      case Mode.InCaption:
      case Mode.InCell:
      case Mode.InTemplate:
        this.charactersInBody(text);
        return '';
      case Mode.InSelect:
      case Mode.InSelectInTable:
        this.s.insert.insertCharacters(withoutNul(text));
        return '';
      case Mode.InTable:
      case Mode.InTableBody:
      case Mode.InRow:
        if (TABLE_STRUCTURE.has(this.s.stack.currentName()) && !this.s.stack.currentIsForeign()) {
          // "in table text": NULs are ignored; whitespace stays in the table; anything else is foster parented, all of
          // it.
          text = withoutNul(text);
          if (WHITESPACE.test(text)) this.s.insert.insertCharacters(text);
          else inTableAnythingElse(this.s, () => this.charactersInBody(text));
        } else {
          inTableAnythingElse(this.s, () => this.charactersInBody(text));
        }
        return '';
      case Mode.InColumnGroup: {
        const ws = LEADING_WHITESPACE.exec(text)![0].length;
        this.s.insert.insertCharacters(text.slice(0, ws));
        if (ws === text.length) return '';
        if (!this.s.stack.currentIs('colgroup')) return '';
        this.s.stack.pop();
        this.s.mode = Mode.InTable;
        return text.slice(ws);
      }
      case Mode.AfterBody:
      case Mode.AfterAfterBody: {
        const ws = LEADING_WHITESPACE.exec(text)![0].length;
        if (ws > 0) this.charactersInBody(text.slice(0, ws));
        if (ws === text.length) return '';
        this.s.mode = Mode.InBody;
        return text.slice(ws);
      }
      case Mode.InFrameset:
      case Mode.AfterFrameset:
        this.s.insert.insertCharacters(text.replace(NOT_WHITESPACE, ''));
        return '';
      case Mode.AfterAfterFrameset: {
        const ws = text.replace(NOT_WHITESPACE, '');
        if (ws) this.charactersInBody(ws);
        return '';
      }
      default:
        this.s.insert.insertCharacters(text);
        return '';
    }
  }

  /**
   * "in body": a NUL is ignored, and text of NULs alone does nothing (not even reconstructing the formatting elements).
   */
  private charactersInBody(input: string): void {
    const text = withoutNul(input);
    if (text === '') return;
    reconstructFormatting(this.s);
    this.s.insert.insertCharacters(text);
    if (!WHITESPACE.test(text)) this.s.framesetOk = false;
  }
}

/** Text without its NULs (most text has none: returned as it is). */
function withoutNul(text: string): string {
  return text.includes('\0') ? text.replace(/\0/g, '') : text;
}

/** document.title: the first HTML <title>'s own text, ASCII whitespace stripped and collapsed. */
function documentTitle(root: LightElement | undefined): string {
  if (!root) return '';
  const stack: LightElement[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (el.localName === 'title' && el.namespaceURI === HTML_NS) {
      const own = el.childNodes
        .filter((n) => n.nodeType === TEXT_NODE)
        .map((n) => n.textContent)
        .join('');
      return own.replace(WHITESPACE_RUN, ' ').trim();
    }
    for (let i = el.children.length - 1; i >= 0; i--) stack.push(el.children[i]!);
  }
  return '';
}
