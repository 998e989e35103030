// HTML to text without a DOM: a streaming tokenizer (htmlparser2), linear in size and depth: the full view of every page.
import { Parser } from 'htmlparser2';
import { BLOCKS, SKIPPED } from './render.js';

export interface StreamedText {
  /** The visible text, rendered as renderText() renders a DOM: blocks and <br> separate, inline elements glue. */
  text: string;
  /** Elements seen. */
  elements: number;
  /** Deepest nesting of open elements. */
  maxDepth: number;
}

/**
 * One pass over the markup: text outside skipped elements, a newline at every block boundary
 * and <br>. No tree is built, so 100,000 nested elements or a 30 MB page cost time linear in
 * their size. htmlparser2 closes elements by simpler rules than the HTML standard's tree
 * construction, so on malformed markup the text could differ from a browser's in whitespace or
 * order; test/html-identity.test.ts shows it gives the same normalized text as the jsdom
 * reference on every real page shipped here. Its stats decide whether a DOM is affordable.
 */
export function streamText(html: string): StreamedText {
  const out: string[] = [];
  let skipping = 0;
  let depth = 0;
  let maxDepth = 0;
  let elements = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        elements++;
        depth++;
        if (depth > maxDepth) maxDepth = depth;
        if (SKIPPED.has(name)) skipping++;
        else if (skipping === 0 && (name === 'br' || BLOCKS.has(name))) out.push('\n');
      },
      onclosetag(name) {
        depth = Math.max(0, depth - 1);
        if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1);
        else if (skipping === 0 && BLOCKS.has(name)) out.push('\n');
      },
      ontext(text) {
        if (skipping === 0) out.push(text);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: false },
  );
  parser.write(html);
  parser.end();
  return { text: out.join(''), elements, maxDepth };
}
