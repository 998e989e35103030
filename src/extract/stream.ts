// The full view without a DOM: text gathered from a streaming tokenizer's events (htmlparser2), linear in size and depth;
// and the tokenizer both passes use, htmlparser2's with the HTML standard's script data states.
import { Parser, Tokenizer } from 'htmlparser2';
import { isAsciiWhitespace } from './ascii-whitespace.js';
import { BLOCKS, FOREIGN_SKIPPED, SKIPPED } from './render.js';

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
 * Gathers the full view from parser events (htmlparser2's Parser): text outside skipped elements, a
 * newline at every block boundary and <br>. No tree is kept, so 100,000 nested elements or a 30 MB page
 * cost time linear in their size: this is the full view of pages past a DOM cap. htmlparser2 closes
 * elements by simpler rules than the HTML standard's tree construction and moves nothing (no foster
 * parenting, no adoption agency), so on malformed markup the text can differ from a browser's in
 * whitespace or order; test/html-identity.test.ts shows it gives the same normalized text as the
 * reference on every real page shipped here.
 */
export class FullTextSink {
  private readonly out: string[] = [];
  private skipping = 0;
  private depth = 0;
  /** Open <svg> and <math> elements (their title, desc, annotations... are not rendered). */
  private foreign = 0;
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
    if (this.skips(name)) this.skipping++;
    else if (this.skipping === 0 && (name === 'br' || BLOCKS.has(name))) this.out.push('\n');
    if (name === 'svg' || name === 'math') this.foreign++;
  }

  close(name: string): void {
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
    // (A NUL in text is dropped, as the standard's tree builder drops it.)
    if (this.skipping === 0) this.out.push(text.includes('\0') ? text.replace(/\0/g, '') : text);
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

const LT = 0x3c;
const BANG = 0x21;
const DASH = 0x2d;
const SLASH = 0x2f;
const GT = 0x3e;

/** Whitespace, `/` or `>`: what may follow a tag name (CR counts: the standard's input stream has none, it is LF by then). */
function endsTagName(c: number): boolean {
  return isAsciiWhitespace(c) || c === SLASH || c === GT;
}

/** Whether `s` has "script" (any case) at `at`, followed by whitespace, `/` or `>`. */
function scriptNameAt(s: string, at: number): boolean {
  return (
    (s.charCodeAt(at) | 0x20) === 0x73 && // s
    (s.charCodeAt(at + 1) | 0x20) === 0x63 && // c
    (s.charCodeAt(at + 2) | 0x20) === 0x72 && // r
    (s.charCodeAt(at + 3) | 0x20) === 0x69 && // i
    (s.charCodeAt(at + 4) | 0x20) === 0x70 && // p
    (s.charCodeAt(at + 5) | 0x20) === 0x74 && // t
    endsTagName(s.charCodeAt(at + 6))
  );
}

const enum ScriptState { Data, Escaped, EscapedDash, EscapedDashDash, DoubleEscaped, DoubleEscapedDash, DoubleEscapedDashDash }

/**
 * Where a script element's content ends: the index of the `<` of the `</script` that closes it, or -1 when
 * it runs to the end of the input. This is the HTML standard's tokenizer from the script data state
 * (§13.2.5.4) through the script data escaped and double escaped states (§13.2.5.15–13.2.5.31), reduced to
 * what decides the end; everything before it is the script's text.
 *
 * - script data: `</script` followed by whitespace, `/` or `>` ends the script; `<!--` enters the escaped
 *   states (script data escape start, escape start dash, escaped dash dash);
 * - escaped (`<!--` seen): `-->` returns to script data; `</script` still ends the script; `<script` followed
 *   by whitespace, `/` or `>` enters the double escaped states (script data double escape start);
 * - double escaped: `</script` does NOT end the script, it returns to escaped (script data double escape
 *   end); `-->` returns to script data.
 *
 * So in `<script><!-- document.write("<script src=x></script>") --></script>` the first `</script>` is
 * script text and the second ends the element, as in every browser (and jsdom, through parse5). One pass
 * over the content, jumping from `<` to `<` in script data: linear, and as fast as htmlparser2's own scan.
 */
export function scriptDataEnd(s: string, from: number): number {
  const n = s.length;
  let state = ScriptState.Data;
  let i = from;
  while (i < n) {
    if (state === ScriptState.Data) {
      // script data state: only `<` matters.
      const lt = s.indexOf('<', i);
      if (lt === -1) return -1;
      i = lt + 1;
      const c = s.charCodeAt(i);
      if (c === SLASH) {
        // script data end tag open / end tag name: the appropriate end tag ends the script.
        if (scriptNameAt(s, i + 1)) return lt;
      } else if (c === BANG && s.charCodeAt(i + 1) === DASH && s.charCodeAt(i + 2) === DASH) {
        // script data escape start, escape start dash: `<!--` puts us in script data escaped dash dash.
        i += 3;
        state = ScriptState.EscapedDashDash;
      }
      continue;
    }
    const c = s.charCodeAt(i);
    if (state <= ScriptState.EscapedDashDash) {
      if (c === DASH) {
        state = state === ScriptState.Escaped ? ScriptState.EscapedDash : ScriptState.EscapedDashDash;
        i++;
      } else if (c === LT) {
        // script data escaped less-than sign state.
        const next = s.charCodeAt(i + 1);
        if (next === SLASH && scriptNameAt(s, i + 2)) return i; // escaped end tag name: appropriate, so the script ends
        state = ScriptState.Escaped;
        if ((next | 0x20) >= 0x61 && (next | 0x20) <= 0x7a && scriptNameAt(s, i + 1)) {
          // script data double escape start: `<script` + whitespace, `/` or `>` (that character is consumed).
          state = ScriptState.DoubleEscaped;
          i += 8;
        } else {
          i++; // `<`, `</` and tag names are text here; the next character is reconsumed in script data escaped.
        }
      } else if (c === GT && state === ScriptState.EscapedDashDash) {
        state = ScriptState.Data; // `-->`
        i++;
      } else {
        state = ScriptState.Escaped;
        i++;
      }
      continue;
    }
    // script data double escaped, double escaped dash, double escaped dash dash.
    if (c === DASH) {
      state = state === ScriptState.DoubleEscaped ? ScriptState.DoubleEscapedDash : ScriptState.DoubleEscapedDashDash;
      i++;
    } else if (c === LT) {
      // script data double escaped less-than sign; `</script` + whitespace, `/` or `>` is the double escape end.
      if (s.charCodeAt(i + 1) === SLASH && scriptNameAt(s, i + 2)) {
        state = ScriptState.Escaped;
        i += 9;
      } else {
        state = ScriptState.DoubleEscaped;
        i++;
      }
    } else if (c === GT && state === ScriptState.DoubleEscapedDashDash) {
      state = ScriptState.Data;
      i++;
    } else {
      state = ScriptState.DoubleEscaped;
      i++;
    }
  }
  return -1;
}

/** htmlparser2's tokenizer internals read and set here and in lightdom/tokenizer.ts (TypeScript-private, plain properties at run time). */
export interface TokenizerInternals {
  /** Whether the tag being read switches the tokenizer to raw text, RCDATA or script data at its `>`. */
  isSpecial: boolean;
  buffer: string;
  offset: number;
  index: number;
  sectionStart: number;
  sequenceIndex: number;
  currentSequence: Uint8Array;
  stateInSpecialTag(c: number): void;
  /** Where the current script's end was looked up (its content's start), so each script is scanned once. */
  scriptScannedAt?: number;
}

function probeTokenizer(): TokenizerInternals {
  const noop = () => undefined;
  return new Tokenizer({}, new Proxy({}, { get: () => noop }) as ConstructorParameters<typeof Tokenizer>[1]) as unknown as TokenizerInternals;
}

/** htmlparser2's empty sequence (module-private there): a fresh tokenizer's, and an ordinary tag's. */
export const EMPTY_SEQUENCE = probeTokenizer().currentSequence;

/** htmlparser2's `</script` sequence: the one a tokenizer holds right after `<script>`. */
const SCRIPT_END = (() => {
  const probe = probeTokenizer();
  (probe as unknown as Tokenizer).write('<script>');
  return probe.currentSequence;
})();

/**
 * htmlparser2's tokenizer, except inside <script>: htmlparser2 ends a script at the first `</script`, while
 * the HTML standard does not when it comes after `<!--` and `<script` (the old way of hiding scripts from
 * browsers that had none, still on real pages: `<script><!-- document.write("<script ...></script>") -->`).
 * On entering a script's content, the content's end is found once with scriptDataEnd() (the standard's
 * script data states), and the tokenizer jumps there: it then emits the content as one text event and the
 * end tag as usual. Everything else (the raw text of <style>, <xmp>, <iframe>, <noembed>, <noframes>, the
 * RCDATA of <title> and <textarea>, <plaintext>, and scripts in SVG, which are ordinary markup) is
 * htmlparser2's, which follows the standard there. Pages are written to it in one piece.
 */
export class ScriptAwareTokenizer extends Tokenizer {}
{
  const proto = ScriptAwareTokenizer.prototype as unknown as TokenizerInternals;
  const base = (Tokenizer.prototype as unknown as TokenizerInternals).stateInSpecialTag;
  proto.stateInSpecialTag = function stateInSpecialTag(this: TokenizerInternals, c: number) {
    if (this.currentSequence === SCRIPT_END && this.sequenceIndex === 0 && this.scriptScannedAt !== this.sectionStart) {
      this.scriptScannedAt = this.sectionStart;
      const end = scriptDataEnd(this.buffer, this.index - this.offset);
      if (end === -1) {
        // The script runs to the end of the input: its text is emitted when the buffer is flushed.
        this.index = this.offset + this.buffer.length - 1;
        return;
      }
      // Resume at the last character of `</script`, as if htmlparser2 had matched it there itself: the next
      // character (whitespace, `/` or `>`) ends the text and starts the end tag.
      this.index = this.offset + end + SCRIPT_END.length - 1;
      this.sequenceIndex = SCRIPT_END.length;
      return;
    }
    base.call(this, c);
  };
}

/** htmlparser2's options for HTML: entities decoded, names lowercased, `<x/>` not self-closing (as in HTML), scripts ended as the standard says. */
export const HTML_PARSER_OPTIONS = { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false, Tokenizer: ScriptAwareTokenizer } as const;

/**
 * htmlparser2's Parser keeps its open elements (and foreign contexts) in arrays with the top at index 0, pushed
 * with unshift and popped with shift, and looks names up with includes and indexOf: each O(depth), so 200,000
 * `<b>` (600 KB) took 14 s and 400,000 over a minute. This stack answers what Parser asks of those arrays
 * (unshift, shift, [0], length, includes, indexOf, and `length = 0`) with the top at the end of an array, and
 * counts its values, so that a name not on the stack (a stray end tag) costs nothing to look up.
 */
export class TopFirstStack<T> {
  private readonly items: T[] = [];
  private readonly counts = new Map<T, number>();

  constructor(initial: readonly T[] = []) {
    for (let i = initial.length - 1; i >= 0; i--) this.unshift(initial[i]!);
  }

  get length(): number {
    return this.items.length;
  }

  /** Parser only ever empties the stack (reset). */
  set length(n: number) {
    if (n !== 0) throw new RangeError('TopFirstStack can only be emptied');
    this.items.length = 0;
    this.counts.clear();
  }

  /** The top. */
  get 0(): T | undefined {
    return this.items[this.items.length - 1];
  }

  /** The i-th value from the top. */
  at(i: number): T | undefined {
    return this.items[this.items.length - 1 - i];
  }

  unshift(value: T): number {
    this.items.push(value);
    this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
    return this.items.length;
  }

  shift(): T | undefined {
    if (this.items.length === 0) return undefined;
    const value = this.items.pop()!;
    const n = this.counts.get(value)!;
    if (n === 1) this.counts.delete(value);
    else this.counts.set(value, n - 1);
    return value;
  }

  includes(value: T): boolean {
    return this.counts.has(value);
  }

  /** Distance from the top of the nearest `value`: the elements popped before it, so the scan costs what the pops do. */
  indexOf(value: T): number {
    if (!this.counts.has(value)) return -1;
    const last = this.items.length - 1;
    for (let i = last; i >= 0; i--) if (this.items[i] === value) return last - i;
    return -1;
  }
}

/** The Parser internals swapped for TopFirstStacks (TypeScript-private, plain properties at run time). */
interface ParserInternals {
  stack: unknown;
  foreignContext: unknown[];
  onend(): void;
}

/** A Parser whose stacks are TopFirstStacks: time linear in the page's size, whatever its depth. */
function linearParser(cbs: { onopentagname(name: string): void; onclosetag(name: string): void; ontext(text: string): void }): Parser {
  const parser = new Parser(cbs, HTML_PARSER_OPTIONS);
  const internals = parser as unknown as ParserInternals;
  const stack = new TopFirstStack<string>();
  internals.stack = stack;
  internals.foreignContext = new TopFirstStack(internals.foreignContext) as unknown as unknown[];
  // Parser's onend reads the stack by index (stack[i]): the elements still open close, top first.
  internals.onend = () => {
    for (let i = 0; i < stack.length; i++) cbs.onclosetag(stack.at(i)!);
  };
  return parser;
}

/** The full view from the streaming pass: htmlparser2's Parser and a text sink, linear in size and depth (pages past a DOM cap, error pages). */
export function streamedText(html: string): string {
  const sink = new FullTextSink();
  const parser = linearParser({
    onopentagname: (name) => sink.open(name),
    onclosetag: (name) => sink.close(name),
    ontext: (text) => sink.textChunk(text),
  });
  parser.write(html);
  parser.end();
  return sink.result().text;
}
