// The full view without a DOM: text gathered from a streaming parser's events (htmlparser2's Parser, made linear in
// depth by htmlparser2-internals.ts, with its tokenizer that follows the HTML standard's script data states).
import { linearParser } from './htmlparser2-internals.js';
import type { MarkupReader } from './markup.js';
import { preprocessInputStream } from './input-stream.js';
import { BLOCKS, FOREIGN_SKIPPED, SKIPPED } from './render.js';

interface StreamedText {
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
 * Shown HTML elements whose content the tokenizer reads as text (RCDATA, RAWTEXT, PLAINTEXT), where a NUL is U+FFFD.
 */
const SHOWN_TEXT_ELEMENTS: ReadonlySet<string> = new Set(['textarea', 'xmp', 'plaintext']);

/**
 * Gathers the full view from parser events (htmlparser2's Parser): text outside skipped elements, a
 * newline at every block boundary and <br>. No tree is kept, so 100,000 nested elements or a 30 MB page
 * cost time linear in their size: this is the full view of pages past a DOM cap. htmlparser2 closes
 * elements by simpler rules than the HTML standard's tree construction and moves nothing (no foster
 * parenting, no adoption agency), so on malformed markup the text can differ from a browser's in
 * whitespace or order; test/html-identity.test.ts shows it gives the same normalized text as the
 * reference on every real page shipped here.
 */
class FullTextSink {
  private readonly out: string[] = [];
  private skipping = 0;
  private depth = 0;
  /** Open <svg> and <math> elements (their title, desc, annotations... are not rendered). */
  private foreign = 0;
  /** The depth of the open <textarea>, <xmp> or <plaintext> (HTML), or -1. */
  private shownTextAt = -1;
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
    if (this.foreign === 0 && SHOWN_TEXT_ELEMENTS.has(name)) this.shownTextAt = this.depth;
    if (this.skips(name)) this.skipping++;
    else if (this.skipping === 0 && (name === 'br' || BLOCKS.has(name))) this.out.push('\n');
    if (name === 'svg' || name === 'math') this.foreign++;
  }

  close(name: string): void {
    if (this.depth === this.shownTextAt) this.shownTextAt = -1;
    this.depth = Math.max(0, this.depth - 1);
    if (name === 'svg' || name === 'math') this.foreign = Math.max(0, this.foreign - 1);
    if (this.skips(name)) this.skipping = Math.max(0, this.skipping - 1);
    else if (this.skipping === 0 && BLOCKS.has(name)) this.out.push('\n');
  }

  private skips(name: string): boolean {
    return this.foreign > 0 ? FOREIGN_SKIPPED.has(name) : SKIPPED.has(name);
  }

  textChunk(text: string): void {
    this.child();
    if (this.skipping === 0) this.out.push(text.includes('\0') ? this.withNuls(text) : text);
  }

  /**
   * Text with NULs as the standard has them: U+FFFD in text elements (the tokenizer's) and foreign content (the tree
   * builder's), dropped elsewhere.
   */
  private withNuls(text: string): string {
    return text.replace(/\0/g, this.shownTextAt !== -1 || this.foreign > 0 ? '\uFFFD' : '');
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

/**
 * The full view from the streaming pass: htmlparser2's Parser and a text sink, linear in size and depth (pages past
 * a DOM cap, error pages). `markup`, when given, reads the page's markup signals from the same events.
 */
export function streamedText(html: string, markup?: MarkupReader): string {
  const sink = new FullTextSink();
  const parser = linearParser({
    onopentagname: (name) => sink.open(name),
    // Only with a reader: the parser gathers attributes only for a listener that takes them.
    ...(markup
      ? {
          onopentag: (name: string, attribs: Record<string, string>) =>
            markup.open(
              name,
              Object.entries(attribs).map(([key, value]) => ({ name: key, value })),
            ),
        }
      : {}),
    onclosetag: (name) => {
      sink.close(name);
      markup?.close(name);
    },
    ontext: (text) => {
      sink.textChunk(text);
      markup?.text(text);
    },
  });
  parser.write(preprocessInputStream(html));
  parser.end();
  return sink.result().text;
}
