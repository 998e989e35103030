// From htmlparser2's tokenizer to the tree builder (TokenGlue, driven by tokenizeInto): its callbacks made into the
// tree builder's tokens.
import {
  htmlTokenizer,
  keepReadingMarkup,
  type HtmlTokenizer,
  type TokenizerCallbacks,
} from '../htmlparser2-internals.js';
import { preprocessInputStream } from '../input-stream.js';
import type { LightTreeBuilder } from './tree.js';

/**
 * htmlparser2's tokenizer callbacks turned into the tree builder's tokens: tag names and attribute names
 * lowercased, the first of repeated attributes kept, NULs in names and values made U+FFFD, text and entities
 * as they come (NULs too, but in PLAINTEXT), CDATA sections as text, comments, the doctype. The input is the
 * page after input stream preprocessing (no CR). Indices are into the one string the tokenizer is given (pages and
 * fragments are tokenized in one write). As in the standard, the tree builder decides after each start tag
 * whether the tokenizer reads what follows as text (see startTag), and whether a tag is in foreign content.
 */
class TokenGlue implements TokenizerCallbacks {
  private tagName = '';
  private attrs: string[] = [];
  private attrName = '';
  private attrValue = '';
  /**
   * Whether the tokenizer is in the PLAINTEXT state (after a <plaintext> the tree builder inserted): to the end, text.
   */
  private plaintext = false;
  /** The tokenizer, whose state the tree builder sets after a start tag, as the standard's does. */
  tokenizer?: HtmlTokenizer;

  constructor(
    private readonly html: string,
    public tree: LightTreeBuilder | undefined,
  ) {}

  /**
   * htmlparser2 switches to raw text (or RCDATA, script data, PLAINTEXT) after <script>, <style>, <title>,
   * <textarea>, <xmp>, <iframe>, <noembed>, <noframes> and <plaintext> by their name alone; in the standard it
   * is the tree builder that switches, when it inserts one of them. Where it ignores the tag (a <style> or
   * <plaintext> in a <select>, a <script> in a frameset), the content stays markup: undo the switch.
   */
  private startTag(selfClosing: boolean): void {
    const tree = this.tree;
    if (!tree) return;
    tree.startTag({ name: this.tagName, attrs: this.attrs, selfClosing });
    const t = this.tokenizer;
    if (!t) return;
    if (!tree.textStarted) keepReadingMarkup(t);
    else if (this.tagName === 'plaintext') this.plaintext = true;
    if (tree.over) t.pause(); // past a cap: stop here
  }

  onopentagname(start: number, end: number): void {
    this.tagName = cleanName(this.html.slice(start, end));
    this.attrs = [];
  }

  onattribname(start: number, end: number): void {
    this.attrName = cleanName(this.html.slice(start, end));
    this.attrValue = '';
  }

  onattribdata(start: number, end: number): void {
    this.attrValue += this.html.slice(start, end);
  }

  onattribentity(cp: number): void {
    this.attrValue += String.fromCodePoint(cp);
  }

  onattribend(): void {
    const attrs = this.attrs;
    const name = this.attrName;
    for (let i = 0; i < attrs.length; i += 2) {
      if (attrs[i] === name) {
        this.attrValue = '';
        return;
      }
    }
    const value = this.attrValue;
    attrs.push(name, value.includes('\0') ? value.replace(/\0/g, '\uFFFD') : value);
    this.attrValue = '';
  }

  onopentagend(): void {
    this.startTag(false);
  }

  onselfclosingtag(): void {
    this.startTag(true);
  }

  onclosetag(start: number, end: number): void {
    this.tree?.endTag(cleanName(this.html.slice(start, end)));
    if (this.tree?.over) this.tokenizer?.pause();
  }

  ontext(start: number, end: number): void {
    if (!this.tree) return;
    const text = this.html.slice(start, end);
    // The PLAINTEXT state makes a NUL U+FFFD (unexpected-null-character); the data state passes it on, for the
    // tree builder to drop or replace (RCDATA, RAWTEXT and script data text is replaced there too, in its text mode).
    this.tree.text(this.plaintext && text.includes('\0') ? text.replace(/\0/g, '\uFFFD') : text);
  }

  ontextentity(cp: number): void {
    this.tree?.text(String.fromCodePoint(cp));
  }

  oncomment(start: number, end: number, offset: number): void {
    this.tree?.comment(this.html.slice(start, end - offset));
    if (this.tree?.over) this.tokenizer?.pause();
  }

  oncdata(start: number, end: number, offset: number): void {
    // A CDATA section, which the tokenizer reads only in foreign content (in HTML content `<![CDATA[` starts a bogus
    // comment): its characters are text, a NUL among them too (foreign content's rules make it U+FFFD).
    this.tree?.text(this.html.slice(start, end - offset));
  }

  ondeclaration(start: number, end: number): void {
    // A DOCTYPE's `>` is inside the input; one that runs to the input's end was cut off by it (eof-in-doctype).
    this.tree?.doctype(this.html.slice(start, end), end === this.html.length);
  }

  onprocessinginstruction(): void {}

  onend(): void {}

  isInForeignContext(): boolean {
    return this.tree?.inForeignContent() ?? false;
  }
}

function cleanName(raw: string): string {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || c === 0) {
      const name = raw.toLowerCase();
      return name.includes('\0') ? name.replace(/\0/g, '\uFFFD') : name;
    }
  }
  return raw;
}

/**
 * `html` through the tree builder in one tokenizer pass (a page or a fragment): the input stream preprocessed
 * (input-stream.ts), its tokens given to `tree`, and the end of the input unless the tree stopped at a cap.
 */
export function tokenizeInto(html: string, tree: LightTreeBuilder): void {
  const input = preprocessInputStream(html);
  const glue = new TokenGlue(input, tree);
  const tokenizer = htmlTokenizer(glue);
  glue.tokenizer = tokenizer;
  tokenizer.write(input);
  if (!tree.over) tokenizer.end();
}
