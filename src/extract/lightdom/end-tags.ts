// The rules for end tags (§13.2.6.4, each insertion mode; §13.2.6.5, foreign content).
import { Mode } from './modes.js';
import { NS } from './nodes.js';
import { StartTagRules } from './start-tags.js';
import { BLOCK_END, FORMATTING, HEADINGS, TABLE_BODY_CONTEXT, TABLE_ROW_CONTEXT, TABLE_SECTIONS } from './tags.js';
import { NO_ATTRS } from './tokens.js';

/** The tree builder's sixth layer: what each end tag does, in each insertion mode. */
export abstract class EndTagRules extends StartTagRules {
  protected processEndTag(name: string): void {
    if (this.top > 0 || (this.top === 0 && !this.context)) {
      if (this.currentIsForeign()) return this.endTagInForeignContent(name);
    }
    this.endTagInMode(name);
  }

  private endTagInForeignContent(name: string): void {
    if (name === 'p' || name === 'br') {
      while (this.top > 0 && this.nss[this.top] !== NS.HTML && !this.isIntegrationPoint(this.top)) this.pop();
      return this.endTagInMode(name);
    }
    for (let i = this.top; i > 0; i--) {
      if (this.nss[i] === NS.HTML) return this.endTagInMode(name);
      if (this.names[i]!.toLowerCase() === name) {
        this.popTo(i);
        return;
      }
    }
  }

  /** An end tag by the rules of the current insertion mode. */
  private endTagInMode(name: string): void {
    switch (this.mode) {
      case Mode.Initial:
      case Mode.BeforeHtml:
        return this.endTagBeforeHtml(name);
      case Mode.BeforeHead:
        return this.endTagBeforeHead(name);
      case Mode.InHead:
        return this.endTagInHead(name);
      case Mode.InHeadNoscript:
        return this.endTagInHeadNoscript(name);
      case Mode.AfterHead:
        return this.endTagAfterHead(name);
      case Mode.InBody:
        return this.endTagInBody(name);
      case Mode.Text:
        this.pop();
        this.mode = this.originalMode;
        return;
      case Mode.InTable:
        return this.endTagInTable(name);
      case Mode.InCaption:
        return this.endTagInCaption(name);
      case Mode.InColumnGroup:
        return this.endTagInColumnGroup(name);
      case Mode.InTableBody:
        return this.endTagInTableBody(name);
      case Mode.InRow:
        return this.endTagInRow(name);
      case Mode.InCell:
        return this.endTagInCell(name);
      case Mode.InSelect:
        return this.endTagInSelect(name);
      case Mode.InSelectInTable:
        return this.endTagInSelectInTable(name);
      case Mode.InTemplate:
        if (name === 'template') this.endTemplate();
        return;
      case Mode.AfterBody:
        return this.endTagAfterBody(name);
      case Mode.InFrameset:
        return this.endTagInFrameset(name);
      case Mode.AfterFrameset:
        if (name === 'html') this.mode = Mode.AfterAfterFrameset;
        return;
      case Mode.AfterAfterBody:
        this.mode = Mode.InBody;
        return this.endTagInBody(name);
      case Mode.AfterAfterFrameset:
        return;
    }
  }

  // Before the body (§13.2.6.4.1-6) ------------------------------------------------------------------------------

  /** "initial" and "before html". */
  private endTagBeforeHtml(name: string): void {
    if (this.mode === Mode.Initial) this.anythingElseBeforeBody();
    if (name === 'head' || name === 'body' || name === 'html' || name === 'br') {
      this.anythingElseBeforeBody();
      return this.endTagInMode(name);
    }
  }

  /** "before head". */
  private endTagBeforeHead(name: string): void {
    if (name === 'head' || name === 'body' || name === 'html' || name === 'br') {
      this.anythingElseBeforeBody();
      return this.endTagInMode(name);
    }
  }

  /** "in head". */
  private endTagInHead(name: string): void {
    if (name === 'head') {
      this.pop();
      this.mode = Mode.AfterHead;
      return;
    }
    if (name === 'body' || name === 'html' || name === 'br') {
      this.anythingElseBeforeBody();
      return this.endTagInMode(name);
    }
    if (name === 'template') this.endTemplate();
  }

  /** "in head noscript". */
  private endTagInHeadNoscript(name: string): void {
    if (name === 'noscript') {
      this.pop();
      this.mode = Mode.InHead;
      return;
    }
    if (name === 'br') {
      this.anythingElseBeforeBody();
      return this.endTagInMode(name);
    }
  }

  /** "after head". */
  private endTagAfterHead(name: string): void {
    if (name === 'body' || name === 'html' || name === 'br') {
      this.anythingElseBeforeBody();
      return this.endTagInMode(name);
    }
    if (name === 'template') this.endTemplate();
  }

  /** </template> (in head, and every mode that hands it there). */
  private endTemplate(): void {
    if (this.indexOf('template') === -1) return;
    this.generateImpliedEndTagsThoroughly();
    this.popUntil('template');
    this.clearFormattingToMarker();
    this.templateModes.pop();
    this.resetInsertionMode();
  }

  // In body (§13.2.6.4.7) --------------------------------------------------------------------------------------

  /** "in body". */
  private endTagInBody(name: string): void {
    switch (name) {
      case 'template':
        return this.endTemplate();
      case 'body':
        if (this.inScope('body')) this.mode = Mode.AfterBody;
        return;
      case 'html':
        if (!this.inScope('body')) return;
        this.mode = Mode.AfterBody;
        return this.endTagInMode(name);
      case 'form':
        return this.formEndTagInBody();
      case 'p':
        if (!this.inScope('p', 'button')) this.insertElement('p', NO_ATTRS);
        this.closeP();
        return;
      case 'li':
        if (!this.inScope('li', 'list')) return;
        this.generateImpliedEndTags('li');
        this.popUntil('li');
        return;
      case 'dd':
      case 'dt':
        if (!this.inScope(name)) return;
        this.generateImpliedEndTags(name);
        this.popUntil(name);
        return;
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        return this.headingEndTagInBody();
      case 'applet':
      case 'marquee':
      case 'object':
        if (!this.inScope(name)) return;
        this.generateImpliedEndTags();
        this.popUntil(name);
        this.clearFormattingToMarker();
        return;
      case 'br':
        this.reconstructFormatting();
        this.appendElement('br', NO_ATTRS);
        this.framesetOk = false;
        return;
      default:
        if (FORMATTING.has(name)) return this.adoptionAgency(name);
        if (BLOCK_END.has(name)) {
          if (!this.inScope(name)) return;
          this.generateImpliedEndTags();
          this.popUntil(name);
          return;
        }
        return this.anyOtherEndTagInBody(name);
    }
  }

  /** </form>: outside templates it closes the form element pointer's form, wherever it is on the stack. */
  private formEndTagInBody(): void {
    if (this.indexOf('template') === -1) {
      // (parse5 asks for any form in scope, where the standard asks for this one; jsdom is the reference.)
      const form = this.formElement;
      this.formElement = undefined;
      if (!form || !this.inScope('form')) return;
      this.generateImpliedEndTags();
      const at = this.els.lastIndexOf(form);
      if (at !== -1) this.removeFromStack(at);
      return;
    }
    if (!this.inScope('form')) return;
    this.generateImpliedEndTags();
    this.popUntil('form');
  }

  /** </h1> to </h6>: closes the innermost open heading, whichever it is. */
  private headingEndTagInBody(): void {
    if (!this.inScope(HEADINGS)) return;
    this.generateImpliedEndTags();
    for (let i = this.top; i >= 0; i--) {
      if (this.nss[i] === NS.HTML && HEADINGS.has(this.names[i]!)) {
        this.popTo(i);
        break;
      }
    }
  }

  protected override anyOtherEndTagInBody(name: string): void {
    for (let i = this.top; i >= 0; i--) {
      if (this.names[i] === name && this.nss[i] === NS.HTML) {
        this.generateImpliedEndTags(name);
        this.popTo(i);
        return;
      }
      if (this.isSpecial(i)) return;
    }
  }

  // Tables (§13.2.6.4.9-15) -------------------------------------------------------------------------------------

  /** "in table". */
  private endTagInTable(name: string): void {
    if (name === 'table') {
      if (!this.inScope('table', 'table')) return;
      this.popUntil('table');
      this.resetInsertionMode();
      return;
    }
    if (name === 'template') return this.endTemplate();
    if (name === 'body' || name === 'caption' || name === 'col' || name === 'colgroup' || name === 'html' || TABLE_SECTIONS.has(name) || name === 'td' || name === 'th' || name === 'tr') return;
    this.inTableAnythingElse(() => this.endTagInBody(name));
  }

  /** "in caption". */
  private endTagInCaption(name: string): void {
    if (name === 'caption' || name === 'table') {
      if (!this.inScope('caption', 'table')) return;
      this.generateImpliedEndTags();
      this.popUntil('caption');
      this.clearFormattingToMarker();
      this.mode = Mode.InTable;
      if (name === 'table') this.endTagInTable(name);
      return;
    }
    if (name === 'body' || name === 'col' || name === 'colgroup' || name === 'html' || TABLE_SECTIONS.has(name) || name === 'td' || name === 'th' || name === 'tr') return;
    return this.endTagInBody(name);
  }

  /** "in column group". */
  private endTagInColumnGroup(name: string): void {
    if (name === 'colgroup') {
      if (this.currentIs('colgroup')) {
        this.pop();
        this.mode = Mode.InTable;
      }
      return;
    }
    if (name === 'col') return;
    if (name === 'template') return this.endTemplate();
    if (!this.currentIs('colgroup')) return;
    this.pop();
    this.mode = Mode.InTable;
    return this.processEndTag(name);
  }

  /** "in table body". */
  private endTagInTableBody(name: string): void {
    if (TABLE_SECTIONS.has(name)) {
      if (!this.inScope(name, 'table')) return;
      this.clearBackTo(TABLE_BODY_CONTEXT);
      this.pop();
      this.mode = Mode.InTable;
      return;
    }
    if (name === 'table') {
      if (!this.inScope(TABLE_SECTIONS, 'table')) return;
      this.clearBackTo(TABLE_BODY_CONTEXT);
      this.pop();
      this.mode = Mode.InTable;
      return this.endTagInTable(name);
    }
    if (name === 'body' || name === 'caption' || name === 'col' || name === 'colgroup' || name === 'html' || name === 'td' || name === 'th' || name === 'tr') return;
    this.endTagInTable(name);
  }

  /** "in row". */
  private endTagInRow(name: string): void {
    if (name === 'tr' || name === 'table' || TABLE_SECTIONS.has(name)) {
      // (For </tbody> parse5 closes the row when either is in table scope, the standard when both are; jsdom is the reference.)
      if (TABLE_SECTIONS.has(name) ? !this.inScope(name, 'table') && !this.inScope('tr', 'table') : !this.inScope('tr', 'table')) return;
      this.clearBackTo(TABLE_ROW_CONTEXT);
      this.pop();
      this.mode = Mode.InTableBody;
      if (name !== 'tr') this.endTagInTableBody(name);
      return;
    }
    if (name === 'body' || name === 'caption' || name === 'col' || name === 'colgroup' || name === 'html' || name === 'td' || name === 'th') return;
    this.endTagInTable(name);
  }

  /** "in cell". */
  private endTagInCell(name: string): void {
    if (name === 'td' || name === 'th') {
      if (!this.inScope(name, 'table')) return;
      this.generateImpliedEndTags();
      this.popUntil(name);
      this.clearFormattingToMarker();
      this.mode = Mode.InRow;
      return;
    }
    if (name === 'table' || TABLE_SECTIONS.has(name) || name === 'tr') {
      if (!this.inScope(name, 'table')) return;
      this.closeCell();
      return this.endTagInRow(name);
    }
    if (name === 'body' || name === 'caption' || name === 'col' || name === 'colgroup' || name === 'html') return;
    return this.endTagInBody(name);
  }

  // Select, after the body, frameset (§13.2.6.4.16-23) --------------------------------------------------------

  /** "in select". */
  private endTagInSelect(name: string): void {
    switch (name) {
      case 'optgroup':
        if (this.currentIs('option') && this.top > 0 && this.names[this.top - 1] === 'optgroup' && this.nss[this.top - 1] === NS.HTML) this.pop();
        if (this.currentIs('optgroup')) this.pop();
        return;
      case 'option':
        if (this.currentIs('option')) this.pop();
        return;
      case 'select':
        if (!this.inScope('select', 'select')) return;
        this.popUntil('select');
        this.resetInsertionMode();
        return;
      case 'template':
        return this.endTemplate();
    }
  }

  /** "in select in table". */
  private endTagInSelectInTable(name: string): void {
    if (name === 'caption' || name === 'table' || TABLE_SECTIONS.has(name) || name === 'tr' || name === 'td' || name === 'th') {
      if (!this.inScope(name, 'table')) return;
      this.popUntil('select');
      this.resetInsertionMode();
      return this.processEndTag(name);
    }
    return this.endTagInSelect(name);
  }

  /** "after body". */
  private endTagAfterBody(name: string): void {
    if (name === 'html') {
      if (!this.context) this.mode = Mode.AfterAfterBody;
      return;
    }
    this.mode = Mode.InBody;
    return this.endTagInBody(name);
  }

  /** "in frameset". */
  private endTagInFrameset(name: string): void {
    if (name === 'frameset' && this.top > 0) {
      this.pop();
      if (!this.context && !this.currentIs('frameset')) this.mode = Mode.AfterFrameset;
    }
  }
}
