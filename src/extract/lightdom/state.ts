// The tree builder's state (§13.2.4): its parts (the stack of open elements, the list of active formatting elements,
// node insertion, the budget against its limits), the insertion mode, and the flags and pointers the rules share.
// The rules (modes.ts, start-tags.ts, end-tags.ts, tree.ts's text rules) take it explicitly.
import { ActiveFormatting } from './formatting.js';
import { NodeInsertion } from './insert.js';
import { TreeBudget, type TreeLimits } from './tree-limits.js';
import type { LightElement } from './nodes.js';
import { OpenElements } from './stack.js';

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

  /** Whether the last start tag switched to text (RAWTEXT, RCDATA, script data, PLAINTEXT): the tokenizer follows this. */
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

  constructor(limits: TreeLimits, context: LightElement | undefined, url: string) {
    this.budget = new TreeBudget(limits);
    this.stack = new OpenElements(this.budget);
    this.insert = new NodeInsertion(this.stack, this.budget, url);
    if (context) this.context = context;
  }
}
