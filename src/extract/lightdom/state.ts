// The tree builder's state (§13.2.4): its parts (the stack of open elements, the list of active formatting elements,
// node insertion, the budget against its limits), the insertion mode, and the flags and pointers the rules share.
// The rules (modes.ts, start-tags.ts, end-tags.ts, tree.ts's text rules) take it explicitly.
import { ActiveFormatting } from './formatting.js';
import { NodeInsertion } from './insert.js';
import { TreeBudget, type TreeLimits } from './tree-limits.js';
import { NS, NS_URI, type LightElement } from './nodes.js';
import { isIntegrationPoint, OpenElements } from './stack.js';

export const enum Mode {
  Initial,
  BeforeHtml,
  BeforeHead,
  InHead,
  InHeadNoscript,
  AfterHead,
  InBody,
  Text,
  InTable,
  InCaption,
  InColumnGroup,
  InTableBody,
  InRow,
  InCell,
  InSelect,
  InSelectInTable,
  InTemplate,
  AfterBody,
  InFrameset,
  AfterFrameset,
  AfterAfterBody,
  AfterAfterFrameset,
}

/**
 * The state of one tree construction: parts that own their data (as parse5's OpenElementStack and
 * FormattingElementList do), and the parser state the standard names, read and set by the rules.
 */
export class TreeState {
  readonly budget: TreeBudget;
  readonly stack: OpenElements;
  readonly formatting = new ActiveFormatting();
  readonly insert: NodeInsertion;

  /**
   * Whether the last start tag switched to text (RAWTEXT, RCDATA, script data, PLAINTEXT): the tokenizer follows this.
   */
  textStarted = false;
  mode = Mode.Initial;
  originalMode = Mode.Initial;
  readonly templateModes: Mode[] = [];
  headElement?: LightElement;
  formElement?: LightElement;
  framesetOk = true;
  quirks = false;
  skipNextNewline = false;
  /** For fragment parsing (innerHTML): the context element. */
  readonly context?: LightElement;
  /** The context element's namespace (HTML when there is none). */
  readonly contextNs: NS = NS.HTML;
  /**
   * Whether the context element is foreign content: SVG or MathML, and not an integration point (an annotation-xml
   * is one by its attributes, as the standard's context start tag token has them).
   */
  readonly contextForeign: boolean = false;

  constructor(limits: TreeLimits, context: LightElement | undefined, url: string) {
    this.budget = new TreeBudget(limits);
    this.stack = new OpenElements(this.budget);
    this.insert = new NodeInsertion(this.stack, this.budget, url);
    if (context) {
      this.context = context;
      const ns = NS_URI.indexOf(context.namespaceURI as (typeof NS_URI)[number]);
      this.contextNs = ns === -1 ? NS.HTML : (ns as NS);
      this.contextForeign =
        this.contextNs !== NS.HTML && !isIntegrationPoint(context, context.localName, this.contextNs);
    }
  }

  /**
   * Whether the adjusted current node (§13.2.4.2) is the context element: fragment parsing, with only the fragment's
   * root open. The rules that ask for the adjusted current node (the tree construction dispatcher, the namespace
   * of an element made in foreign content) read the context element then, and the current node otherwise.
   */
  atContext(): boolean {
    return this.stack.top === 0 && this.context !== undefined;
  }

  /**
   * The adjusted current node's namespace: the context element's (atContext), else the current node's; undefined with
   * nothing open.
   */
  adjustedCurrentNs(): NS | undefined {
    return this.atContext() ? this.contextNs : this.stack.nss[this.stack.top];
  }

  /** Whether the adjusted current node is SVG or MathML (integration points included). */
  adjustedCurrentIsForeign(): boolean {
    const ns = this.adjustedCurrentNs();
    return ns !== undefined && ns !== NS.HTML;
  }
}
