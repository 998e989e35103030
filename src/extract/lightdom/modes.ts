// The insertion mode (§13.2.4.1): the parser's state across tokens, resetting the mode, and the steps several modes share.
import { ActiveFormatting } from './formatting.js';
import type { TreeLimits } from './limits.js';
import { HTML_NS, NS, type LightElement, type LightNode } from './nodes.js';
import { RESET_MODE_TAGS } from './tags.js';
import { NO_ATTRS } from './tokens.js';

export const enum Mode {
  Initial, BeforeHtml, BeforeHead, InHead, InHeadNoscript, AfterHead, InBody, Text, InTable, InCaption, InColumnGroup,
  InTableBody, InRow, InCell, InSelect, InSelectInTable, InTemplate, AfterBody, InFrameset, AfterFrameset, AfterAfterBody,
  AfterAfterFrameset,
}

/**
 * The tree builder's fourth layer: the insertion mode and the state the modes' rules share (start-tags.ts and
 * end-tags.ts hold the rules, tree.ts the rules for text). Given a context element, it starts as the HTML
 * fragment parsing algorithm does.
 */
export abstract class InsertionModes extends ActiveFormatting {
  /** Whether the last start tag switched to text (RAWTEXT, RCDATA, script data, PLAINTEXT): the tokenizer follows this. */
  textStarted = false;

  protected mode = Mode.Initial;
  protected originalMode = Mode.Initial;
  protected readonly templateModes: Mode[] = [];
  protected headElement?: LightElement;
  protected formElement?: LightElement;
  protected framesetOk = true;
  protected quirks = false;
  protected skipNextNewline = false;
  /** For fragment parsing (innerHTML): the context element. */
  protected readonly context?: LightElement;

  constructor(limits: TreeLimits, context: LightElement | undefined, url: string) {
    super(limits, url);
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

  /** "Reset the insertion mode appropriately": from the open elements, the innermost that decides (the context element for the root). */
  protected resetInsertionMode(): void {
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
  protected anythingElseBeforeBody(): void {
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

  /** "in table", anything else: processed as in body, with foster parenting on. */
  protected inTableAnythingElse(process: () => void): void {
    const saved = this.fosterParenting;
    this.fosterParenting = true;
    process();
    this.fosterParenting = saved;
  }

  /** "Close the cell": the open <td> or <th> and what is inside it, and its formatting elements. */
  protected closeCell(): void {
    this.generateImpliedEndTags();
    while (this.top > 0 && !(this.nss[this.top] === NS.HTML && (this.currentName() === 'td' || this.currentName() === 'th'))) this.pop();
    this.pop();
    this.clearFormattingToMarker();
    this.mode = Mode.InRow;
  }
}
