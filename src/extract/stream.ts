// The full view without a DOM: text gathered from a streaming tokenizer's events (htmlparser2), linear in size and depth.
import { BLOCKS, SKIPPED } from './render.js';

export interface StreamedText {
  /** The visible text, rendered as renderText() renders a DOM: blocks and <br> separate, inline elements glue. */
  text: string;
  /** Elements seen. */
  elements: number;
  /** Deepest nesting of open elements. */
  maxDepth: number;
  /** Most children (elements and text runs) of one element. */
  maxChildren: number;
}

/**
 * Gathers the full view from parser events: text outside skipped elements, a newline at every
 * block boundary and <br>. No tree is kept, so 100,000 nested elements or a 30 MB page cost time
 * linear in their size. htmlparser2 closes elements by simpler rules than the HTML standard's
 * tree construction, so on malformed markup the text could differ from a browser's in whitespace
 * or order; test/html-identity.test.ts shows it gives the same normalized text as the jsdom
 * reference on every real page shipped here. Its counts decide whether a DOM is affordable.
 */
export class FullTextSink {
  private readonly out: string[] = [];
  private skipping = 0;
  private depth = 0;
  /** Children so far of each open element, by depth (0: the document). */
  private readonly childCounts: number[] = [0];
  maxDepth = 0;
  maxChildren = 0;
  elements = 0;

  open(name: string): void {
    this.elements++;
    this.child();
    this.depth++;
    this.childCounts[this.depth] = 0;
    if (this.depth > this.maxDepth) this.maxDepth = this.depth;
    if (SKIPPED.has(name)) this.skipping++;
    else if (this.skipping === 0 && (name === 'br' || BLOCKS.has(name))) this.out.push('\n');
  }

  close(name: string): void {
    this.depth = Math.max(0, this.depth - 1);
    if (SKIPPED.has(name)) this.skipping = Math.max(0, this.skipping - 1);
    else if (this.skipping === 0 && BLOCKS.has(name)) this.out.push('\n');
  }

  textChunk(text: string): void {
    this.child();
    if (this.skipping === 0) this.out.push(text);
  }

  result(): StreamedText {
    return { text: this.out.join(''), elements: this.elements, maxDepth: this.maxDepth, maxChildren: this.maxChildren };
  }

  private child(): void {
    const n = (this.childCounts[this.depth] ?? 0) + 1;
    this.childCounts[this.depth] = n;
    if (n > this.maxChildren) this.maxChildren = n;
  }
}

/** htmlparser2's options for HTML: entities decoded, names lowercased, `<x/>` not self-closing (as in HTML). */
export const HTML_PARSER_OPTIONS = { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false } as const;
