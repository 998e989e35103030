// Every use of htmlparser2's internals, in one place: the TypeScript-private fields of its Tokenizer and Parser that
// quotecheck reads and sets at run time (plain properties there), behind typed functions. Only the exact version pin
// (package.json) keeps them where they are; test/extract/htmlparser2-internals.test.ts checks each field listed here,
// by name, so that a version that moves one fails there and not as wrong text downstream. The rest of quotecheck uses
// htmlparser2 through this module (the light DOM's tokenizer, the streaming pass) or its public API (markup.ts).
import { Parser, Tokenizer } from 'htmlparser2';
import { isAsciiWhitespace } from './ascii-whitespace.js';
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
  state: 'number',
  cbs: 'object',
  /** Prototype methods, overridden by ScriptAwareTokenizer. */
  stateInSpecialTag: 'function',
  stateInClosingTagName: 'function',
  stateCDATASequence: 'function',
  handleTrailingData: 'function',
  /** A prototype method, called by the overrides (the standard's before attribute name state). */
  stateBeforeAttributeName: 'function',
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
  /** The tokenizer's state (module-private enum there: the values used are read off probes, TOKENIZER_STATES). */
  state: number;
  /** The callbacks it reports to (swapped for EndTagAttributes while an end tag's attributes are read). */
  cbs: TokenizerCallbacks;
  stateInSpecialTag(c: number): void;
  stateInClosingTagName(c: number): void;
  stateCDATASequence(c: number): void;
  handleTrailingData(): void;
  stateBeforeAttributeName(c: number): void;
}

/**
 * ScriptAwareTokenizer's own field: where the current script's end was looked up (its content's start), so each script
 * is scanned once.
 */
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
const SCRIPT_END = sequenceAfter('<script>');

/**
 * The tokenizer's state after `markup`: htmlparser2's State enum is module-private, so the values compared are read off
 * probes.
 */
function stateAfter(markup: string): number {
  const probe = probeTokenizer();
  probe.write(markup);
  return internals(probe).state;
}

/** The states the overrides below compare against (the canary test checks that they are told apart). */
export const TOKENIZER_STATES = {
  /** The standard's before attribute name state, where a tag's attributes start. */
  beforeAttributeName: stateAfter('<a '),
  /** The self-closing start tag state (`/` in a tag). */
  inSelfClosingTag: stateAfter('<a /'),
  /** A start tag's name while it may still be <script>, <style>, <title>... (htmlparser2's own: a tag name state). */
  specialStartSequence: stateAfter('<scr'),
  /** The bogus comment state. */
  bogusComment: stateAfter('<?'),
  /** Comments' and CDATA sections' state (currentSequence tells which). */
  commentLike: stateAfter('<![CDATA['),
  /** Matching `doctype` after `<!` (htmlparser2's own; sequenceIndex counts the letters matched). */
  declarationSequence: stateAfter('<!doctype'),
  /** A DOCTYPE after its keyword, up to its `>`. */
  inDeclaration: stateAfter('<!doctype '),
} as const;

/** `doctype`, the keyword htmlparser2 matches after `<!` before it reads a DOCTYPE. */
const DOCTYPE_KEYWORD_LENGTH = 'doctype'.length;

/** The sequence (htmlparser2's, module-private) a tokenizer holds after `markup`. */
function sequenceAfter(markup: string): Uint8Array {
  const probe = probeTokenizer();
  probe.write(markup);
  return internals(probe).currentSequence;
}

/** htmlparser2's `]]>` sequence: the one a tokenizer holds inside a CDATA section. */
const CDATA_END = sequenceAfter('<![CDATA[');

/**
 * htmlparser2's `</title` and `</textarea` sequences: the RCDATA elements' (a tokenizer holds one right after their
 * start tag).
 */
const TITLE_END = sequenceAfter('<title>');
const TEXTAREA_END = sequenceAfter('<textarea>');

/** `[CDATA[`, the part of `<![CDATA[` after `<!`: the start of the bogus comment's data it makes in HTML content. */
const CDATA_OPEN = '[CDATA[';

const AMP = 0x26;
const SLASH = 0x2f;
const GT = 0x3e;

/**
 * The callbacks a tokenizer reports to while it reads an end tag's attributes (from the whitespace or `/` after
 * its name to its `>`). The standard reads them as a start tag's, quotes and all, and then drops them
 * (end-tag-with-attributes), as it drops the self-closing flag (end-tag-with-trailing-solidus); the end tag is
 * emitted at its `>`, and not at all when the input ends first (eof-in-tag). htmlparser2 emits the end tag at its
 * name and skips to the next `>`, wherever it is, so `</p x=">">b` left `">b` as text: here the attribute
 * states run on the real callbacks' behalf, and this object turns their events into the one end tag.
 */
class EndTagAttributes implements TokenizerCallbacks {
  /** The end tag's name, as indices into the input. */
  nameStart = 0;
  nameEnd = 0;

  constructor(
    private readonly tokenizer: TokenizerInternals,
    readonly real: TokenizerCallbacks,
  ) {}

  /** The end tag's `>`: the real callbacks are back, and get the end tag. */
  onopentagend(): void {
    this.tokenizer.cbs = this.real;
    this.real.onclosetag(this.nameStart, this.nameEnd);
  }

  /** `/>`: the same end tag (the flag is dropped). */
  onselfclosingtag(): void {
    this.onopentagend();
  }

  // The attributes are read and dropped.
  onattribname(): void {}
  onattribdata(): void {}
  onattribentity(): void {}
  onattribend(): void {}

  // The attribute states report nothing else, and the end of input restores the real callbacks before it reports
  // (handleTrailingData below); these pass anything else on, unchanged.
  oncdata(start: number, end: number, offset: number): void {
    this.real.oncdata(start, end, offset);
  }
  onclosetag(start: number, end: number): void {
    this.real.onclosetag(start, end);
  }
  oncomment(start: number, end: number, offset: number): void {
    this.real.oncomment(start, end, offset);
  }
  ondeclaration(start: number, end: number): void {
    this.real.ondeclaration(start, end);
  }
  onend(): void {
    this.real.onend();
  }
  onopentagname(start: number, end: number): void {
    this.real.onopentagname(start, end);
  }
  onprocessinginstruction(start: number, end: number): void {
    this.real.onprocessinginstruction(start, end);
  }
  ontext(start: number, end: number): void {
    this.real.ontext(start, end);
  }
  ontextentity(cp: number, end: number): void {
    this.real.ontextentity(cp, end);
  }
  isInForeignContext(): boolean {
    return this.real.isInForeignContext?.() ?? false;
  }
}

/** ScriptAwareTokenizer's own field: the callbacks its end tags' attributes go to. */
interface EndTagState {
  endTagAttributes: EndTagAttributes;
}

/**
 * htmlparser2's tokenizer, with the HTML standard's tokenization (§13.2.5) where htmlparser2's differs:
 *
 * - Inside <script>: htmlparser2 ends a script at the first `</script`, while the standard does not when it
 *   comes after `<!--` and `<script` (the old way of hiding scripts from browsers that had none, still on real
 *   pages: `<script><!-- document.write("<script ...></script>") -->`). On entering a script's content, the
 *   content's end is found once with scriptDataEnd() (the standard's script data states), and the tokenizer
 *   jumps there: it then emits the content as one text event and the end tag as usual.
 * - End tags: their attributes are read by the attribute states, quotes and all, and dropped; the end tag is
 *   emitted at its `>` (EndTagAttributes).
 * - `<![CDATA[` in HTML content (cdata-in-html-content): a bogus comment, which the first `>` ends, and not a
 *   section up to `]]>`. (Foreign content is what the callbacks' isInForeignContext says, as for the names
 *   <title>, <style>... that switch to text: parse5's rule, where an integration point such as
 *   <foreignObject> is HTML content.)
 * - The end of the input inside a start tag's `/` or a name that may be <script>, <title>... (eof-in-tag): the
 *   tag is dropped, as htmlparser2 already drops it in the other tag states (it emitted the tag's last
 *   character, or the partial name, as text); inside a CDATA section (eof-in-cdata), its characters so far are
 *   text, where htmlparser2 made a comment of them.
 *
 * The rest (the raw text of <style>, <xmp>, <iframe>, <noembed>, <noframes>, the RCDATA of <title> and
 * <textarea>, <plaintext>, comments, scripts in SVG, which are ordinary markup) is htmlparser2's, which follows
 * the standard there. Pages are written to it in one piece, after the standard's input stream preprocessing
 * (input-stream.ts): CR is never seen here. (NULs are passed through as they come: which of them become U+FFFD
 * and which are dropped is decided where the text goes, the tree builder or the streaming pass.)
 */
export class ScriptAwareTokenizer extends Tokenizer {
  constructor(...args: ConstructorParameters<typeof Tokenizer>) {
    super(...args);
    const self = this as unknown as TokenizerInternals & EndTagState;
    self.endTagAttributes = new EndTagAttributes(self, args[1]);
  }
}
{
  const proto = ScriptAwareTokenizer.prototype as unknown as TokenizerInternals;
  const baseProto = Tokenizer.prototype as unknown as TokenizerInternals;
  const base = baseProto.stateInSpecialTag;
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
    // RCDATA: a `&` that breaks off a partial `</title` or `</textarea` starts a character reference (the RCDATA
    // less-than sign and end tag states reconsume it in the RCDATA state); htmlparser2 read it as a plain character.
    if (
      c === AMP &&
      this.sequenceIndex > 0 &&
      this.sequenceIndex < this.currentSequence.length &&
      (this.currentSequence === TITLE_END || this.currentSequence === TEXTAREA_END)
    ) {
      this.sequenceIndex = 0;
    }
    base.call(this, c);
  };

  // The end tag name state: whitespace, `/` or `>` end the name, and the attribute states follow (the standard's
  // before attribute name state, reconsuming), reporting to EndTagAttributes.
  proto.stateInClosingTagName = function stateInClosingTagName(this: TokenizerInternals & EndTagState, c: number) {
    if (c === GT || c === SLASH || isAsciiWhitespace(c)) {
      const endTag = this.endTagAttributes;
      endTag.nameStart = this.sectionStart;
      endTag.nameEnd = this.index;
      this.cbs = endTag;
      this.sectionStart = -1;
      this.state = TOKENIZER_STATES.beforeAttributeName;
      this.stateBeforeAttributeName(c);
    }
  };

  // The markup declaration open state's `[CDATA[` row: a CDATA section in foreign content; in HTML content a bogus
  // comment whose data starts with `[CDATA[`.
  const baseCdata = baseProto.stateCDATASequence;
  proto.stateCDATASequence = function stateCDATASequence(this: TokenizerInternals, c: number) {
    baseCdata.call(this, c);
    if (this.state === TOKENIZER_STATES.commentLike && !this.cbs.isInForeignContext?.()) {
      this.state = TOKENIZER_STATES.bogusComment;
      this.sectionStart = this.index - CDATA_OPEN.length + 1;
    }
  };

  // The end of the input: the EOF rows htmlparser2 reads otherwise.
  const baseTrailing = baseProto.handleTrailingData;
  proto.handleTrailingData = function handleTrailingData(this: TokenizerInternals) {
    // Inside an end tag: it is dropped (below, or by htmlparser2 in the attribute states), and the end of the
    // input goes to the real callbacks.
    if (this.cbs instanceof EndTagAttributes) this.cbs = this.cbs.real;
    const state = this.state;
    // eof-in-tag
    if (state === TOKENIZER_STATES.inSelfClosingTag || state === TOKENIZER_STATES.specialStartSequence) return;
    const end = this.offset + this.buffer.length;
    if (
      state === TOKENIZER_STATES.inDeclaration ||
      (state === TOKENIZER_STATES.declarationSequence && this.sequenceIndex === DOCTYPE_KEYWORD_LENGTH)
    ) {
      // eof-in-doctype: the DOCTYPE is emitted (htmlparser2 dropped it); its end at the input's end is how the
      // callbacks tell that the input cut it off (a `>` ends every other one inside the input), and so set
      // force-quirks.
      this.cbs.ondeclaration(this.sectionStart, end);
      return;
    }
    if (state === TOKENIZER_STATES.commentLike && this.currentSequence === CDATA_END) {
      // eof-in-cdata: what the section held is text (with any `]` of an unfinished `]]>`).
      if (this.sectionStart < end) this.cbs.oncdata(this.sectionStart, end, 0);
      return;
    }
    baseTrailing.call(this);
  };
}

/**
 * htmlparser2's options for HTML: entities decoded, names lowercased, `<x/>` not self-closing (as in HTML), scripts
 * ended as the standard says.
 */
const HTML_PARSER_OPTIONS = {
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
class TopFirstStack<T> {
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

  /**
   * Distance from the top of the nearest `value`: the elements popped before it, so the scan costs what the pops do.
   */
  indexOf(value: T): number {
    if (!this.counts.has(value)) return -1;
    const last = this.items.length - 1;
    for (let i = last; i >= 0; i--) if (this.items[i] === value) return last - i;
    return -1;
  }
}

/** The Parser events the streaming pass listens to. */
interface ElementEvents {
  onopentagname(name: string): void;
  /**
   * An element's start tag ends, with its attributes (the first of each name, entities decoded): listened to only when
   * given.
   */
  onopentag?(name: string, attributes: Record<string, string>): void;
  onclosetag(name: string): void;
  ontext(text: string): void;
}

/**
 * A Parser for HTML (HTML_PARSER_OPTIONS) whose stacks are TopFirstStacks: time linear in the page's size, whatever its
 * depth.
 */
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
