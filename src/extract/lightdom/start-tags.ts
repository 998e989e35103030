// The rules for start tags (§13.2.6.4, each insertion mode; §13.2.6.5, foreign content).
import { InsertionModes, Mode } from './modes.js';
import { NS, type LightElement, type LightNode } from './nodes.js';
import { CLOSES_P, FOREIGN_EXIT, HEAD_IN_BODY, HEADINGS, SVG_NAMES, TABLE_CONTEXT, TABLE_BODY_CONTEXT, TABLE_PARTS, TABLE_ROW_CONTEXT, TABLE_SECTIONS } from './tags.js';
import { getAttr, NO_ATTRS, type Attrs, type StartTag } from './tokens.js';

/** The tree builder's fifth layer: what each start tag does, in each insertion mode. */
export abstract class StartTagRules extends InsertionModes {
  protected processStartTag(t: StartTag): void {
    if (this.useForeignRules(t.name)) this.startTagInForeignContent(t);
    else this.startTagInMode(t);
  }

  /** The tree construction dispatcher for start tags. */
  private useForeignRules(name: string): boolean {
    const top = this.top;
    if (top < 0 || (top === 0 && this.context)) return false;
    const ns = this.nss[top];
    if (ns === NS.HTML) return false;
    const current = this.names[top]!;
    if (ns === NS.MATHML && (current === 'mi' || current === 'mo' || current === 'mn' || current === 'ms' || current === 'mtext')) {
      return name === 'mglyph' || name === 'malignmark';
    }
    if (ns === NS.MATHML && current === 'annotation-xml' && name === 'svg') return false;
    return !this.isIntegrationPoint(top);
  }

  private startTagInForeignContent(t: StartTag): void {
    if (FOREIGN_EXIT.has(t.name) || (t.name === 'font' && (getAttr(t.attrs, 'color') !== undefined || getAttr(t.attrs, 'face') !== undefined || getAttr(t.attrs, 'size') !== undefined))) {
      while (this.top > 0 && this.nss[this.top] !== NS.HTML && !this.isIntegrationPoint(this.top)) this.pop();
      this.startTagInMode(t);
      return;
    }
    const ns = this.nss[this.top]!;
    const name = ns === NS.SVG ? (SVG_NAMES.get(t.name) ?? t.name) : t.name;
    if (t.selfClosing) this.appendElement(name, t.attrs, ns);
    else this.insertElement(name, t.attrs, ns);
  }

  /** A start tag by the rules of the current insertion mode. */
  private startTagInMode(t: StartTag): void {
    switch (this.mode) {
      case Mode.Initial:
      case Mode.BeforeHtml:
        return this.startTagBeforeHtml(t);
      case Mode.BeforeHead:
        return this.startTagBeforeHead(t);
      case Mode.InHead:
        return this.startTagInHead(t);
      case Mode.InHeadNoscript:
        return this.startTagInHeadNoscript(t);
      case Mode.AfterHead:
        return this.startTagAfterHead(t);
      case Mode.InBody:
        return this.startTagInBody(t);
      case Mode.Text:
        return;
      case Mode.InTable:
        return this.startTagInTable(t);
      case Mode.InCaption:
        return this.startTagInCaption(t);
      case Mode.InColumnGroup:
        return this.startTagInColumnGroup(t);
      case Mode.InTableBody:
        return this.startTagInTableBody(t);
      case Mode.InRow:
        return this.startTagInRow(t);
      case Mode.InCell:
        return this.startTagInCell(t);
      case Mode.InSelect:
        return this.startTagInSelect(t);
      case Mode.InSelectInTable:
        return this.startTagInSelectInTable(t);
      case Mode.InTemplate:
        return this.startTagInTemplate(t);
      case Mode.AfterBody:
      case Mode.AfterAfterBody:
        return this.startTagAfterBody(t);
      case Mode.InFrameset:
        return this.startTagInFrameset(t);
      case Mode.AfterFrameset:
      case Mode.AfterAfterFrameset:
        return this.startTagAfterFrameset(t);
    }
  }

  // Before the body (§13.2.6.4.1-6) ------------------------------------------------------------------------------

  /** "initial" and "before html". */
  private startTagBeforeHtml(t: StartTag): void {
    if (this.mode === Mode.Initial) this.anythingElseBeforeBody();
    if (t.name === 'html') {
      const root = this.createElement('html', NS.HTML, t.attrs);
      this.appendNode(this.doc as unknown as LightNode, root);
      this.push(root, 'html', NS.HTML);
      this.mode = Mode.BeforeHead;
      return;
    }
    this.anythingElseBeforeBody();
    return this.startTagInMode(t);
  }

  /** "before head". */
  private startTagBeforeHead(t: StartTag): void {
    const name = t.name;
    if (name === 'html') return this.startTagInBody(t);
    if (name === 'head') {
      this.headElement = this.insertElement('head', t.attrs);
      this.mode = Mode.InHead;
      return;
    }
    this.anythingElseBeforeBody();
    return this.startTagInMode(t);
  }

  /** Inserts an element whose content the tokenizer reads as text (RAWTEXT, RCDATA, script data). */
  private insertTextElement(t: StartTag): void {
    this.insertElement(t.name, t.attrs);
    this.originalMode = this.mode;
    this.mode = Mode.Text;
    this.textStarted = true;
  }

  /** "in head" (and the head content other modes hand to it). */
  private startTagInHead(t: StartTag): void {
    const name = t.name;
    switch (name) {
      case 'html':
        return this.startTagInBody(t);
      case 'base':
      case 'basefont':
      case 'bgsound':
      case 'link':
      case 'meta':
        this.appendElement(name, t.attrs);
        return;
      case 'title':
      case 'noframes':
      case 'style':
      case 'script':
        return this.insertTextElement(t);
      case 'noscript':
        // Scripting disabled (jsdom's DOMParser): <noscript> holds markup, and in the head only head content.
        this.insertElement('noscript', t.attrs);
        this.mode = Mode.InHeadNoscript;
        return;
      case 'template':
        this.insertElement('template', t.attrs);
        this.insertMarker();
        this.framesetOk = false;
        this.mode = Mode.InTemplate;
        this.templateModes.push(Mode.InTemplate);
        return;
      case 'head':
        return;
      default:
        this.anythingElseBeforeBody();
        return this.startTagInMode(t);
    }
  }

  /** "in head noscript". */
  private startTagInHeadNoscript(t: StartTag): void {
    const name = t.name;
    if (name === 'html') return this.startTagInBody(t);
    if (name === 'basefont' || name === 'bgsound' || name === 'link' || name === 'meta' || name === 'noframes' || name === 'style') return this.startTagInHead(t);
    if (name === 'head' || name === 'noscript') return;
    this.anythingElseBeforeBody();
    return this.startTagInMode(t);
  }

  /** "after head". */
  private startTagAfterHead(t: StartTag): void {
    const name = t.name;
    if (name === 'html') return this.startTagInBody(t);
    if (name === 'body') {
      this.insertElement('body', t.attrs);
      this.framesetOk = false;
      this.mode = Mode.InBody;
      return;
    }
    if (name === 'frameset') {
      this.insertElement('frameset', t.attrs);
      this.mode = Mode.InFrameset;
      return;
    }
    if (HEAD_IN_BODY.has(name) && this.headElement) {
      // Head content after </head>: into the head after all.
      const head = this.headElement;
      this.push(head, 'head', NS.HTML);
      this.startTagInHead(t);
      const at = this.els.indexOf(head);
      if (at !== -1) this.removeFromStack(at);
      return;
    }
    if (name === 'head') return;
    this.anythingElseBeforeBody();
    return this.startTagInMode(t);
  }

  // In body (§13.2.6.4.7) --------------------------------------------------------------------------------------

  /** "in body": one line per group of tag names, in the standard's order. */
  private startTagInBody(t: StartTag): void {
    switch (t.name) {
      case 'html':
        return this.htmlStartTagInBody(t);
      case 'base': case 'basefont': case 'bgsound': case 'link': case 'meta': case 'noframes': case 'script': case 'style': case 'template': case 'title':
        return this.startTagInHead(t);
      case 'body':
        return this.bodyStartTagInBody(t);
      case 'frameset':
        return this.framesetStartTagInBody(t);
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
        return this.headingStartTagInBody(t);
      case 'pre': case 'listing':
        return this.preStartTagInBody(t);
      case 'form':
        return this.formStartTagInBody(t);
      case 'li': case 'dd': case 'dt':
        return this.listItemStartTagInBody(t);
      case 'plaintext':
        return this.plaintextStartTagInBody(t);
      case 'button':
        return this.buttonStartTagInBody(t);
      case 'a':
        return this.aStartTagInBody(t);
      case 'b': case 'big': case 'code': case 'em': case 'font': case 'i': case 's': case 'small': case 'strike': case 'strong': case 'tt': case 'u':
        return this.formattingStartTagInBody(t);
      case 'nobr':
        return this.nobrStartTagInBody(t);
      case 'applet': case 'marquee': case 'object':
        return this.appletStartTagInBody(t);
      case 'table':
        return this.tableStartTagInBody(t);
      case 'area': case 'br': case 'embed': case 'img': case 'keygen': case 'wbr':
        return this.voidStartTagInBody(t);
      case 'input':
        return this.inputStartTagInBody(t);
      case 'param': case 'source': case 'track':
        this.appendElement(t.name, t.attrs);
        return;
      case 'hr':
        return this.hrStartTagInBody(t);
      case 'image':
        return this.startTagInBody({ ...t, name: 'img' });
      case 'textarea':
        return this.textareaStartTagInBody(t);
      case 'xmp':
        return this.xmpStartTagInBody(t);
      case 'iframe':
        this.framesetOk = false;
        return this.insertTextElement(t);
      case 'noembed':
        return this.insertTextElement(t);
      case 'select':
        return this.selectStartTagInBody(t);
      case 'optgroup': case 'option':
        return this.optionStartTagInBody(t);
      case 'rb': case 'rtc':
        return this.rubyStartTagInBody(t, undefined);
      case 'rp': case 'rt':
        return this.rubyStartTagInBody(t, 'rtc');
      case 'math': case 'svg':
        return this.foreignStartTagInBody(t);
      case 'caption': case 'col': case 'colgroup': case 'frame': case 'head': case 'tbody': case 'td': case 'tfoot': case 'th': case 'thead': case 'tr':
        return; // ignored
      default:
        return this.anyOtherStartTagInBody(t);
    }
  }

  /** html: its attributes added to the root's (not in a template). */
  private htmlStartTagInBody(t: StartTag): void {
    if (this.indexOf('template') === -1) mergeAttrs(this.els[0], t.attrs);
  }

  /** body: its attributes added to the body's, if the body is open (and not in a template). */
  private bodyStartTagInBody(t: StartTag): void {
    if (this.els.length > 1 && this.names[1] === 'body' && this.indexOf('template') === -1) {
      this.framesetOk = false;
      mergeAttrs(this.els[1], t.attrs);
    }
  }

  /** frameset: replaces the body while nothing has made the page a body page (frameset-ok). */
  private framesetStartTagInBody(t: StartTag): void {
    if (this.framesetOk && this.els.length > 1 && this.names[1] === 'body') {
      this.detach(this.els[1]!);
      this.popTo(1);
      this.insertElement('frameset', t.attrs);
      this.mode = Mode.InFrameset;
    }
  }

  /** h1, h2, h3, h4, h5, h6: a heading closes an open <p>, and a heading that is the current node. */
  private headingStartTagInBody(t: StartTag): void {
    this.closePInButtonScope();
    if (HEADINGS.has(this.currentName()) && !this.currentIsForeign()) this.pop();
    this.insertElement(t.name, t.attrs);
  }

  /** pre, listing: a newline right after the tag is not content. */
  private preStartTagInBody(t: StartTag): void {
    this.closePInButtonScope();
    this.insertElement(t.name, t.attrs);
    this.skipNextNewline = true;
    this.framesetOk = false;
  }

  /** form: ignored while a form is open, outside templates (the form element pointer). */
  private formStartTagInBody(t: StartTag): void {
    const inTemplate = this.indexOf('template') !== -1;
    if (this.formElement && !inTemplate) return;
    this.closePInButtonScope();
    const form = this.insertElement('form', t.attrs);
    if (!inTemplate) this.formElement = form;
  }

  /** li; dd, dt: an open item of the same kind closes first, unless a special element other than address, div, p is above it. */
  private listItemStartTagInBody(t: StartTag): void {
    const name = t.name;
    this.framesetOk = false;
    for (let i = this.top; i >= 0; i--) {
      const n = this.names[i]!;
      const html = this.nss[i] === NS.HTML;
      if (html && (name === 'li' ? n === 'li' : n === 'dd' || n === 'dt')) {
        this.generateImpliedEndTags(n);
        this.popTo(i);
        break;
      }
      if (this.isSpecial(i) && !(html && (n === 'address' || n === 'div' || n === 'p'))) break;
    }
    this.closePInButtonScope();
    this.insertElement(name, t.attrs);
  }

  /** plaintext: the rest of the input is its text. */
  private plaintextStartTagInBody(t: StartTag): void {
    this.closePInButtonScope();
    this.insertElement(t.name, t.attrs);
    this.textStarted = true;
  }

  /** button: an open button closes first. */
  private buttonStartTagInBody(t: StartTag): void {
    if (this.inScope('button')) {
      this.generateImpliedEndTags();
      this.popUntil('button');
    }
    this.reconstructFormatting();
    this.insertElement(t.name, t.attrs);
    this.framesetOk = false;
  }

  /** a: an active <a> is closed first by the adoption agency, and taken off the stack and the list if still there. */
  private aStartTagInBody(t: StartTag): void {
    const active = this.formattingByName('a');
    if (active !== -1) {
      const el = this.formatting[active]!.el;
      this.adoptionAgency('a');
      const inStack = this.els.lastIndexOf(el);
      if (inStack !== -1) this.removeFromStack(inStack);
      const entry = this.formattingIndexOf(el);
      if (entry !== -1) this.formatting.splice(entry, 1);
    }
    this.reconstructFormatting();
    const a = this.insertElement('a', t.attrs);
    this.pushFormatting(a, 'a', t.attrs);
  }

  /** b, big, code, em, font, i, s, small, strike, strong, tt, u: onto the list of active formatting elements. */
  private formattingStartTagInBody(t: StartTag): void {
    const name = t.name;
    this.reconstructFormatting();
    const el = this.insertElement(name, t.attrs);
    this.pushFormatting(el, name, t.attrs);
  }

  /** nobr: an open <nobr> in scope is closed first by the adoption agency. */
  private nobrStartTagInBody(t: StartTag): void {
    const name = t.name;
    this.reconstructFormatting();
    if (this.inScope('nobr')) {
      this.adoptionAgency('nobr');
      this.reconstructFormatting();
    }
    const el = this.insertElement(name, t.attrs);
    this.pushFormatting(el, name, t.attrs);
  }

  /** applet, marquee, object: a marker on the list of active formatting elements (formatting does not leak in). */
  private appletStartTagInBody(t: StartTag): void {
    this.reconstructFormatting();
    this.insertElement(t.name, t.attrs);
    this.insertMarker();
    this.framesetOk = false;
  }

  /** table: closes an open <p>, except in quirks mode. */
  private tableStartTagInBody(t: StartTag): void {
    if (!this.quirks) this.closePInButtonScope();
    this.insertElement(t.name, t.attrs);
    this.framesetOk = false;
    this.mode = Mode.InTable;
  }

  /** area, br, embed, img, keygen, wbr: void elements. */
  private voidStartTagInBody(t: StartTag): void {
    this.reconstructFormatting();
    this.appendElement(t.name, t.attrs);
    this.framesetOk = false;
  }

  /** input: a hidden input leaves frameset-ok alone. */
  private inputStartTagInBody(t: StartTag): void {
    this.reconstructFormatting();
    this.appendElement(t.name, t.attrs);
    if ((getAttr(t.attrs, 'type') ?? '').toLowerCase() !== 'hidden') this.framesetOk = false;
  }

  /** hr: closes an open <p>. */
  private hrStartTagInBody(t: StartTag): void {
    this.closePInButtonScope();
    this.appendElement(t.name, t.attrs);
    this.framesetOk = false;
  }

  /** textarea: RCDATA, and a newline right after the tag is not content. */
  private textareaStartTagInBody(t: StartTag): void {
    this.insertElement(t.name, t.attrs);
    this.skipNextNewline = true;
    this.framesetOk = false;
    this.originalMode = this.mode;
    this.mode = Mode.Text;
    this.textStarted = true;
  }

  /** xmp: RAWTEXT, after closing an open <p>. */
  private xmpStartTagInBody(t: StartTag): void {
    this.closePInButtonScope();
    this.reconstructFormatting();
    this.framesetOk = false;
    return this.insertTextElement(t);
  }

  /** select: "in select", or "in select in table" when a table mode opened it. */
  private selectStartTagInBody(t: StartTag): void {
    this.reconstructFormatting();
    this.insertElement(t.name, t.attrs);
    this.framesetOk = false;
    const m = this.mode;
    this.mode = m === Mode.InTable || m === Mode.InCaption || m === Mode.InTableBody || m === Mode.InRow || m === Mode.InCell ? Mode.InSelectInTable : Mode.InSelect;
  }

  /** optgroup, option: an open <option> closes first. */
  private optionStartTagInBody(t: StartTag): void {
    if (this.currentIs('option')) this.pop();
    this.reconstructFormatting();
    this.insertElement(t.name, t.attrs);
  }

  /** rb, rtc (implied end tags all closed); rp, rt (all but rtc): ruby annotations. */
  private rubyStartTagInBody(t: StartTag, except: string | undefined): void {
    if (this.inScope('ruby')) this.generateImpliedEndTags(except);
    this.insertElement(t.name, t.attrs);
  }

  /** math, svg: foreign content begins (a self-closing tag makes an empty element). */
  private foreignStartTagInBody(t: StartTag): void {
    const name = t.name;
    this.reconstructFormatting();
    const ns = name === 'svg' ? NS.SVG : NS.MATHML;
    if (t.selfClosing) this.appendElement(name, t.attrs, ns);
    else this.insertElement(name, t.attrs, ns);
  }

  /**
   * Any other start tag; among them the group "address, article, aside, ... ul" (CLOSES_P), which the standard
   * lists right after frameset, and which closes an open <p> first.
   */
  private anyOtherStartTagInBody(t: StartTag): void {
    const name = t.name;
    if (CLOSES_P.has(name)) {
      this.closePInButtonScope();
      this.insertElement(name, t.attrs);
      return;
    }
    this.reconstructFormatting();
    this.insertElement(name, t.attrs);
  }

  // Tables (§13.2.6.4.9-15) -------------------------------------------------------------------------------------

  /** "in table". */
  private startTagInTable(t: StartTag): void {
    const name = t.name;
    switch (name) {
      case 'caption':
        this.clearBackTo(TABLE_CONTEXT);
        this.insertMarker();
        this.insertElement(name, t.attrs);
        this.mode = Mode.InCaption;
        return;
      case 'colgroup':
        this.clearBackTo(TABLE_CONTEXT);
        this.insertElement(name, t.attrs);
        this.mode = Mode.InColumnGroup;
        return;
      case 'col':
        this.clearBackTo(TABLE_CONTEXT);
        this.insertElement('colgroup', NO_ATTRS);
        this.mode = Mode.InColumnGroup;
        return this.startTagInColumnGroup(t);
      case 'tbody':
      case 'tfoot':
      case 'thead':
        this.clearBackTo(TABLE_CONTEXT);
        this.insertElement(name, t.attrs);
        this.mode = Mode.InTableBody;
        return;
      case 'td':
      case 'th':
      case 'tr':
        this.clearBackTo(TABLE_CONTEXT);
        this.insertElement('tbody', NO_ATTRS);
        this.mode = Mode.InTableBody;
        return this.startTagInTableBody(t);
      case 'table':
        if (!this.inScope('table', 'table')) return;
        this.popUntil('table');
        this.resetInsertionMode();
        return this.processStartTag(t);
      case 'style':
      case 'script':
      case 'template':
        return this.startTagInHead(t);
      case 'input':
        if ((getAttr(t.attrs, 'type') ?? '').toLowerCase() === 'hidden') {
          this.appendElement(name, t.attrs);
          return;
        }
        return this.inTableAnythingElse(() => this.startTagInBody(t));
      case 'form':
        if (this.formElement || this.indexOf('template') !== -1) return;
        this.formElement = this.insertElement(name, t.attrs);
        this.pop();
        return;
      default:
        return this.inTableAnythingElse(() => this.startTagInBody(t));
    }
  }

  /** "in caption". */
  private startTagInCaption(t: StartTag): void {
    if (TABLE_PARTS.has(t.name)) {
      if (!this.inScope('caption', 'table')) return;
      this.generateImpliedEndTags();
      this.popUntil('caption');
      this.clearFormattingToMarker();
      this.mode = Mode.InTable;
      return this.startTagInTable(t);
    }
    return this.startTagInBody(t);
  }

  /** "in column group". */
  private startTagInColumnGroup(t: StartTag): void {
    switch (t.name) {
      case 'html':
        return this.startTagInBody(t);
      case 'col':
        this.appendElement('col', t.attrs);
        return;
      case 'template':
        return this.startTagInHead(t);
      default:
        if (!this.currentIs('colgroup')) return;
        this.pop();
        this.mode = Mode.InTable;
        return this.processStartTag(t);
    }
  }

  /** "in table body". */
  private startTagInTableBody(t: StartTag): void {
    const name = t.name;
    if (name === 'tr') {
      this.clearBackTo(TABLE_BODY_CONTEXT);
      this.insertElement(name, t.attrs);
      this.mode = Mode.InRow;
      return;
    }
    if (name === 'th' || name === 'td') {
      this.clearBackTo(TABLE_BODY_CONTEXT);
      this.insertElement('tr', NO_ATTRS);
      this.mode = Mode.InRow;
      return this.startTagInRow(t);
    }
    if (name === 'caption' || name === 'col' || name === 'colgroup' || TABLE_SECTIONS.has(name)) {
      if (!this.inScope(TABLE_SECTIONS, 'table')) return;
      this.clearBackTo(TABLE_BODY_CONTEXT);
      this.pop();
      this.mode = Mode.InTable;
      return this.startTagInTable(t);
    }
    return this.startTagInTable(t);
  }

  /** "in row". */
  private startTagInRow(t: StartTag): void {
    const name = t.name;
    if (name === 'th' || name === 'td') {
      this.clearBackTo(TABLE_ROW_CONTEXT);
      this.insertElement(name, t.attrs);
      this.mode = Mode.InCell;
      this.insertMarker();
      return;
    }
    if (name === 'caption' || name === 'col' || name === 'colgroup' || TABLE_SECTIONS.has(name) || name === 'tr') {
      if (!this.inScope('tr', 'table')) return;
      this.clearBackTo(TABLE_ROW_CONTEXT);
      this.pop();
      this.mode = Mode.InTableBody;
      return this.startTagInTableBody(t);
    }
    return this.startTagInTable(t);
  }

  /** "in cell". */
  private startTagInCell(t: StartTag): void {
    if (TABLE_PARTS.has(t.name)) {
      if (this.inScope('td', 'table') || this.inScope('th', 'table')) {
        this.closeCell();
        this.startTagInRow(t);
      }
      return;
    }
    return this.startTagInBody(t);
  }

  // Select, template, after the body (§13.2.6.4.16-23) --------------------------------------------------------

  /** "in select". */
  private startTagInSelect(t: StartTag): void {
    const name = t.name;
    switch (name) {
      case 'html':
        return this.startTagInBody(t);
      case 'option':
        if (this.currentIs('option')) this.pop();
        this.insertElement(name, t.attrs);
        return;
      case 'optgroup':
        if (this.currentIs('option')) this.pop();
        if (this.currentIs('optgroup')) this.pop();
        this.insertElement(name, t.attrs);
        return;
      case 'hr':
        if (this.currentIs('option')) this.pop();
        if (this.currentIs('optgroup')) this.pop();
        this.appendElement(name, t.attrs);
        return;
      case 'input':
      case 'keygen':
      case 'textarea':
      case 'select':
        if (!this.inScope('select', 'select')) return;
        this.popUntil('select');
        this.resetInsertionMode();
        if (name !== 'select') this.processStartTag(t);
        return;
      case 'script':
      case 'template':
        return this.startTagInHead(t);
    }
  }

  /** "in select in table". */
  private startTagInSelectInTable(t: StartTag): void {
    const name = t.name;
    if (name === 'caption' || name === 'table' || TABLE_SECTIONS.has(name) || name === 'tr' || name === 'td' || name === 'th') {
      this.popUntil('select');
      this.resetInsertionMode();
      return this.processStartTag(t);
    }
    return this.startTagInSelect(t);
  }

  /** "in template". */
  private startTagInTemplate(t: StartTag): void {
    const name = t.name;
    let mode: Mode;
    if (HEAD_IN_BODY.has(name)) return this.startTagInHead(t);
    if (name === 'caption' || name === 'colgroup' || TABLE_SECTIONS.has(name)) mode = Mode.InTable;
    else if (name === 'col') mode = Mode.InColumnGroup;
    else if (name === 'tr') mode = Mode.InTableBody;
    else if (name === 'td' || name === 'th') mode = Mode.InRow;
    else mode = Mode.InBody;
    this.templateModes[this.templateModes.length - 1] = mode;
    this.mode = mode;
    this.startTagInMode(t);
  }

  /** "after body" and "after after body". */
  private startTagAfterBody(t: StartTag): void {
    if (t.name === 'html') return this.startTagInBody(t);
    this.mode = Mode.InBody;
    return this.startTagInBody(t);
  }

  /** "in frameset". */
  private startTagInFrameset(t: StartTag): void {
    const name = t.name;
    if (name === 'html') return this.startTagInBody(t);
    if (name === 'frameset') this.insertElement('frameset', t.attrs);
    else if (name === 'frame') this.appendElement('frame', t.attrs);
    else if (name === 'noframes') this.startTagInHead(t);
  }

  /** "after frameset" and "after after frameset". */
  private startTagAfterFrameset(t: StartTag): void {
    const name = t.name;
    if (name === 'html') return this.startTagInBody(t);
    if (name === 'noframes') this.startTagInHead(t);
  }
}

/** A repeated <html> or <body> tag adds the attributes its element lacks. */
function mergeAttrs(el: LightElement | undefined, attrs: Attrs): void {
  if (!el) return;
  for (let i = 0; i < attrs.length; i += 2) if (!el.hasAttribute(attrs[i]!)) el.setAttribute(attrs[i]!, attrs[i + 1]!);
}
