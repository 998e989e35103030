// Every use of htmlparser2's internals, in one place: the TypeScript-private fields of its Tokenizer and Parser that
// quotecheck reads and sets at run time (plain properties there), behind typed functions. Only the exact version pin
// (package.json) keeps them where they are; test/htmlparser2-internals.test.ts checks each field listed here, by
// name, so that a version that moves one fails there and not as wrong text downstream. The rest of quotecheck uses
// htmlparser2 through this module (the light DOM's tokenizer, the streaming pass) or its public API (markup.ts).
import { Parser, Tokenizer } from 'htmlparser2';
import { scriptDataEnd } from './script-data.js';

/** The tokenizer's callbacks (public API): what the light DOM's TokenGlue implements. */
export type TokenizerCallbacks = ConstructorParameters<typeof Tokenizer>[1];
/** A tokenizer as the light DOM holds it: written to, ended and paused (public API). */
export type HtmlTokenizer = Pick<Tokenizer, 'write' | 'end' | 'pause'>;

/**
 * The internals read and set, with their run-time types: what the canary test checks on a fresh tokenizer and parser.
 * Every field the interfaces below name is listed here (the canary test checks that too).
 */
export const TOKENIZER_FIELDS = {
  buffer: 'string',
  offset: 'number',
  index: 'number',
  sectionStart: 'number',
  sequenceIndex: 'number',
  currentSequence: 'Uint8Array',
  isSpecial: 'boolean',
  /** A prototype method, overridden by ScriptAwareTokenizer. */
  stateInSpecialTag: 'function',
} as const;
export const PARSER_FIELDS = {
  stack: 'array',
  foreignContext: 'array',
  onend: 'function',
} as const;

/** htmlparser2's tokenizer internals (TypeScript-private, plain properties at run time). */
interface TokenizerInternals {
  /** Whether the tag being read switches the tokenizer to raw text, RCDATA or script data at its `>`. */
  isSpecial: boolean;
  buffer: string;
  offset: number;
  index: number;
  sectionStart: number;
  sequenceIndex: number;
  currentSequence: Uint8Array;
  stateInSpecialTag(c: number): void;
}

/** ScriptAwareTokenizer's own field: where the current script's end was looked up (its content's start), so each script is scanned once. */
interface ScriptScan {
  scriptScannedAt?: number;
}

/** The Parser internals swapped for TopFirstStacks (TypeScript-private, plain properties at run time). */
interface ParserInternals {
  stack: unknown;
  foreignContext: unknown[];
  onend(): void;
}

const internals = (t: Tokenizer): TokenizerInternals => t as unknown as TokenizerInternals;

function probeTokenizer(): Tokenizer {
  const noop = () => undefined;
  return new Tokenizer({}, new Proxy({}, { get: () => noop }) as TokenizerCallbacks);
}

/** htmlparser2's empty sequence (module-private there): a fresh tokenizer's, and an ordinary tag's. */
const EMPTY_SEQUENCE = internals(probeTokenizer()).currentSequence;

/** htmlparser2's `</script` sequence: the one a tokenizer holds right after `<script>`. */
const SCRIPT_END = (() => {
  const probe = probeTokenizer();
  probe.write('<script>');
  return internals(probe).currentSequence;
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
  proto.stateInSpecialTag = function stateInSpecialTag(this: TokenizerInternals & ScriptScan, c: number) {
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
export const HTML_PARSER_OPTIONS = {
  decodeEntities: true,
  lowerCaseTags: true,
  lowerCaseAttributeNames: true,
  recognizeSelfClosing: false,
  Tokenizer: ScriptAwareTokenizer,
} as const;

/** A tokenizer for HTML (HTML_PARSER_OPTIONS) reporting to `callbacks`. */
export function htmlTokenizer(callbacks: TokenizerCallbacks): HtmlTokenizer {
  return new ScriptAwareTokenizer(HTML_PARSER_OPTIONS, callbacks);
}

/**
 * Undoes the switch to raw text (RAWTEXT, RCDATA, script data, PLAINTEXT) the tokenizer makes at the `>` of a
 * <script>, <style>, <title>... by the tag's name alone, when the tree builder did not insert the element as one
 * whose content is text: the content stays markup. (Called from the start tag callback, before that `>`.)
 */
export function keepReadingMarkup(tokenizer: HtmlTokenizer): void {
  const t = tokenizer as unknown as TokenizerInternals;
  if (t.isSpecial) {
    t.isSpecial = false;
    t.currentSequence = EMPTY_SEQUENCE;
  }
}

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

/** The Parser events the streaming pass listens to. */
export interface ElementEvents {
  onopentagname(name: string): void;
  onclosetag(name: string): void;
  ontext(text: string): void;
}

/** A Parser for HTML (HTML_PARSER_OPTIONS) whose stacks are TopFirstStacks: time linear in the page's size, whatever its depth. */
export function linearParser(cbs: ElementEvents): Pick<Parser, 'write' | 'end'> {
  const parser = new Parser(cbs, HTML_PARSER_OPTIONS);
  const p = parser as unknown as ParserInternals;
  const stack = new TopFirstStack<string>();
  p.stack = stack;
  p.foreignContext = new TopFirstStack(p.foreignContext) as unknown as unknown[];
  // Parser's onend reads the stack by index (stack[i]): the elements still open close, top first.
  p.onend = () => {
    for (let i = 0; i < stack.length; i++) cbs.onclosetag(stack.at(i)!);
  };
  return parser;
}
