// The rules for start tags (§13.2.6.4, each insertion mode; §13.2.6.5, foreign content), as functions of the tree
// builder's state (state.ts).
import { adoptionAgency, reconstructFormatting } from './formatting.js';
import { anythingElseBeforeBody, closeCell, inTableAnythingElse, resetInsertionMode } from './modes.js';
import { NS, type LightElement, type LightNode } from './nodes.js';
import { isMathTextIntegrationPoint } from './stack.js';
import { Mode, type TreeState } from './state.js';
import {
  CLOSES_P,
  FOREIGN_EXIT,
  HEAD_IN_BODY,
  HEADINGS,
  SVG_NAMES,
  TABLE_CONTEXT,
  TABLE_BODY_CONTEXT,
  TABLE_PARTS,
  TABLE_ROW_CONTEXT,
  TABLE_SECTIONS,
} from './tags.js';
import { getAttr, NO_ATTRS, type Attrs, type StartTag } from './tokens.js';

/** What each start tag does, in each insertion mode. */
export function processStartTag(s: TreeState, t: StartTag): void {
  if (useForeignRules(s, t.name)) startTagInForeignContent(s, t);
  else startTagInMode(s, t);
}

/**
 * The tree construction dispatcher for start tags, on the adjusted current node (the context element, in a fragment's
 * root).
 */
function useForeignRules(s: TreeState, name: string): boolean {
  const top = s.stack.top;
  if (top < 0) return false;
  const atContext = s.atContext();
  const ns = s.adjustedCurrentNs();
  if (ns === NS.HTML) return false;
  const current = atContext ? s.context!.localName : s.stack.names[top]!;
  if (ns === NS.MATHML && isMathTextIntegrationPoint(current)) return name === 'mglyph' || name === 'malignmark';
  if (ns === NS.MATHML && current === 'annotation-xml' && name === 'svg') return false;
  return atContext ? s.contextForeign : !s.stack.isIntegrationPoint(top);
}

function startTagInForeignContent(s: TreeState, t: StartTag): void {
  if (
    FOREIGN_EXIT.has(t.name) ||
    (t.name === 'font' &&
      (getAttr(t.attrs, 'color') !== undefined ||
        getAttr(t.attrs, 'face') !== undefined ||
        getAttr(t.attrs, 'size') !== undefined))
  ) {
    while (s.stack.top > 0 && s.stack.nss[s.stack.top] !== NS.HTML && !s.stack.isIntegrationPoint(s.stack.top))
      s.stack.pop();
    startTagInMode(s, t);
    return;
  }
  // "Any other start tag": an element in the adjusted current node's namespace.
  const ns = s.adjustedCurrentNs()!;
  const name = ns === NS.SVG ? (SVG_NAMES.get(t.name) ?? t.name) : t.name;
  if (t.selfClosing) s.insert.appendElement(name, t.attrs, ns);
  else s.insert.insertElement(name, t.attrs, ns);
}

/** A start tag by the rules of the current insertion mode. */
function startTagInMode(s: TreeState, t: StartTag): void {
  switch (s.mode) {
    case Mode.Initial:
    case Mode.BeforeHtml:
      return startTagBeforeHtml(s, t);
    case Mode.BeforeHead:
      return startTagBeforeHead(s, t);
    case Mode.InHead:
      return startTagInHead(s, t);
    case Mode.InHeadNoscript:
      return startTagInHeadNoscript(s, t);
    case Mode.AfterHead:
      return startTagAfterHead(s, t);
    case Mode.InBody:
      return startTagInBody(s, t);
    case Mode.Text:
      return;
    case Mode.InTable:
      return startTagInTable(s, t);
    case Mode.InCaption:
      return startTagInCaption(s, t);
    case Mode.InColumnGroup:
      return startTagInColumnGroup(s, t);
    case Mode.InTableBody:
      return startTagInTableBody(s, t);
    case Mode.InRow:
      return startTagInRow(s, t);
    case Mode.InCell:
      return startTagInCell(s, t);
    case Mode.InSelect:
      return startTagInSelect(s, t);
    case Mode.InSelectInTable:
      return startTagInSelectInTable(s, t);
    case Mode.InTemplate:
      return startTagInTemplate(s, t);
    case Mode.AfterBody:
    case Mode.AfterAfterBody:
      return startTagAfterBody(s, t);
    case Mode.InFrameset:
      return startTagInFrameset(s, t);
    case Mode.AfterFrameset:
    case Mode.AfterAfterFrameset:
      return startTagAfterFrameset(s, t);
  }
}

// Before the body (§13.2.6.4.1-6) ------------------------------------------------------------------------------

/** "initial" and "before html". */
function startTagBeforeHtml(s: TreeState, t: StartTag): void {
  if (s.mode === Mode.Initial) anythingElseBeforeBody(s);
  if (t.name === 'html') {
    const root = s.insert.createElement('html', NS.HTML, t.attrs);
    s.insert.appendNode(s.insert.doc as unknown as LightNode, root);
    s.stack.push(root, 'html', NS.HTML);
    s.mode = Mode.BeforeHead;
    return;
  }
  anythingElseBeforeBody(s);
  return startTagInMode(s, t);
}

/** "before head". */
function startTagBeforeHead(s: TreeState, t: StartTag): void {
  const name = t.name;
  if (name === 'html') return startTagInBody(s, t);
  if (name === 'head') {
    s.headElement = s.insert.insertElement('head', t.attrs);
    s.mode = Mode.InHead;
    return;
  }
  anythingElseBeforeBody(s);
  return startTagInMode(s, t);
}

/** Inserts an element whose content the tokenizer reads as text (RAWTEXT, RCDATA, script data). */
function insertTextElement(s: TreeState, t: StartTag): void {
  s.insert.insertElement(t.name, t.attrs);
  s.originalMode = s.mode;
  s.mode = Mode.Text;
  s.textStarted = true;
}

/** "in head" (and the head content other modes hand to it). */
function startTagInHead(s: TreeState, t: StartTag): void {
  const name = t.name;
  switch (name) {
    case 'html':
      return startTagInBody(s, t);
    case 'base':
    case 'basefont':
    case 'bgsound':
    case 'link':
    case 'meta':
      s.insert.appendElement(name, t.attrs);
      return;
    case 'title':
    case 'noframes':
    case 'style':
    case 'script':
      return insertTextElement(s, t);
    case 'noscript':
      // Scripting disabled (jsdom's DOMParser): <noscript> holds markup, and in the head only head content.
      s.insert.insertElement('noscript', t.attrs);
      s.mode = Mode.InHeadNoscript;
      return;
    case 'template':
      s.insert.insertElement('template', t.attrs);
      s.formatting.insertMarker();
      s.framesetOk = false;
      s.mode = Mode.InTemplate;
      s.templateModes.push(Mode.InTemplate);
      return;
    case 'head':
      return;
    default:
      anythingElseBeforeBody(s);
      return startTagInMode(s, t);
  }
}

/** "in head noscript". */
function startTagInHeadNoscript(s: TreeState, t: StartTag): void {
  const name = t.name;
  if (name === 'html') return startTagInBody(s, t);
  if (
    name === 'basefont' ||
    name === 'bgsound' ||
    name === 'link' ||
    name === 'meta' ||
    name === 'noframes' ||
    name === 'style'
  )
    return startTagInHead(s, t);
  if (name === 'head' || name === 'noscript') return;
  anythingElseBeforeBody(s);
  return startTagInMode(s, t);
}

/** "after head". */
function startTagAfterHead(s: TreeState, t: StartTag): void {
  const name = t.name;
  if (name === 'html') return startTagInBody(s, t);
  if (name === 'body') {
    s.insert.insertElement('body', t.attrs);
    s.framesetOk = false;
    s.mode = Mode.InBody;
    return;
  }
  if (name === 'frameset') {
    s.insert.insertElement('frameset', t.attrs);
    s.mode = Mode.InFrameset;
    return;
  }
  if (HEAD_IN_BODY.has(name) && s.headElement) {
    // Head content after </head>: into the head after all.
    const head = s.headElement;
    s.stack.push(head, 'head', NS.HTML);
    startTagInHead(s, t);
    const at = s.stack.els.indexOf(head);
    if (at !== -1) s.stack.remove(at);
    return;
  }
  if (name === 'head') return;
  anythingElseBeforeBody(s);
  return startTagInMode(s, t);
}

// In body (§13.2.6.4.7) --------------------------------------------------------------------------------------

/** A start tag's rule in one insertion mode. */
type StartTagRule = (s: TreeState, t: StartTag) => void;

/**
 * "in body": the rule of each tag name, one line per group of tag names, in the standard's order; any other tag:
 * anyOtherStartTagInBody.
 */
const IN_BODY: ReadonlyMap<string, StartTagRule> = new Map(
  (
    [
      [['html'], htmlStartTagInBody],
      [
        ['base', 'basefont', 'bgsound', 'link', 'meta', 'noframes', 'script', 'style', 'template', 'title'],
        startTagInHead,
      ],
      [['body'], bodyStartTagInBody],
      [['frameset'], framesetStartTagInBody],
      [['h1', 'h2', 'h3', 'h4', 'h5', 'h6'], headingStartTagInBody],
      [['pre', 'listing'], preStartTagInBody],
      [['form'], formStartTagInBody],
      [['li', 'dd', 'dt'], listItemStartTagInBody],
      [['plaintext'], plaintextStartTagInBody],
      [['button'], buttonStartTagInBody],
      [['a'], aStartTagInBody],
      [['b', 'big', 'code', 'em', 'font', 'i', 's', 'small', 'strike', 'strong', 'tt', 'u'], formattingStartTagInBody],
      [['nobr'], nobrStartTagInBody],
      [['applet', 'marquee', 'object'], appletStartTagInBody],
      [['table'], tableStartTagInBody],
      [['area', 'br', 'embed', 'img', 'keygen', 'wbr'], voidStartTagInBody],
      [['input'], inputStartTagInBody],
      [['param', 'source', 'track'], (s, t) => s.insert.appendElement(t.name, t.attrs)],
      [['hr'], hrStartTagInBody],
      [['image'], (s, t) => startTagInBody(s, { ...t, name: 'img' })],
      [['textarea'], textareaStartTagInBody],
      [['xmp'], xmpStartTagInBody],
      [
        ['iframe'],
        (s, t) => {
          s.framesetOk = false;
          insertTextElement(s, t);
        },
      ],
      [['noembed'], insertTextElement],
      [['select'], selectStartTagInBody],
      [['optgroup', 'option'], optionStartTagInBody],
      [['rb', 'rtc'], (s, t) => rubyStartTagInBody(s, t, undefined)],
      [['rp', 'rt'], (s, t) => rubyStartTagInBody(s, t, 'rtc')],
      [['math', 'svg'], foreignStartTagInBody],
      // ignored
      [['caption', 'col', 'colgroup', 'frame', 'head', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr'], () => {}],
    ] satisfies [string[], StartTagRule][]
  ).flatMap(([names, rule]) => names.map((name): [string, StartTagRule] => [name, rule])),
);

/** "in body": the tag name's rule (IN_BODY), as parse5 dispatches on the tag. */
function startTagInBody(s: TreeState, t: StartTag): void {
  (IN_BODY.get(t.name) ?? anyOtherStartTagInBody)(s, t);
}

/** html: its attributes added to the root's (not in a template). */
function htmlStartTagInBody(s: TreeState, t: StartTag): void {
  if (s.stack.indexOf('template') === -1) mergeAttrs(s.stack.els[0], t.attrs);
}

/** body: its attributes added to the body's, if the body is open (and not in a template). */
function bodyStartTagInBody(s: TreeState, t: StartTag): void {
  if (s.stack.els.length > 1 && s.stack.names[1] === 'body' && s.stack.indexOf('template') === -1) {
    s.framesetOk = false;
    mergeAttrs(s.stack.els[1], t.attrs);
  }
}

/** frameset: replaces the body while nothing has made the page a body page (frameset-ok). */
function framesetStartTagInBody(s: TreeState, t: StartTag): void {
  if (s.framesetOk && s.stack.els.length > 1 && s.stack.names[1] === 'body') {
    s.insert.detach(s.stack.els[1]!);
    s.stack.popTo(1);
    s.insert.insertElement('frameset', t.attrs);
    s.mode = Mode.InFrameset;
  }
}

/** h1, h2, h3, h4, h5, h6: a heading closes an open <p>, and a heading that is the current node. */
function headingStartTagInBody(s: TreeState, t: StartTag): void {
  s.stack.closePInButtonScope();
  if (HEADINGS.has(s.stack.currentName()) && !s.stack.currentIsForeign()) s.stack.pop();
  s.insert.insertElement(t.name, t.attrs);
}

/** pre, listing: a newline right after the tag is not content. */
function preStartTagInBody(s: TreeState, t: StartTag): void {
  s.stack.closePInButtonScope();
  s.insert.insertElement(t.name, t.attrs);
  s.skipNextNewline = true;
  s.framesetOk = false;
}

/** form: ignored while a form is open, outside templates (the form element pointer). */
function formStartTagInBody(s: TreeState, t: StartTag): void {
  const inTemplate = s.stack.indexOf('template') !== -1;
  if (s.formElement && !inTemplate) return;
  s.stack.closePInButtonScope();
  const form = s.insert.insertElement('form', t.attrs);
  if (!inTemplate) s.formElement = form;
}

/**
 * li; dd, dt: an open item of the same kind closes first, unless a special element other than address, div, p is above
 * it.
 */
function listItemStartTagInBody(s: TreeState, t: StartTag): void {
  const name = t.name;
  s.framesetOk = false;
  for (let i = s.stack.top; i >= 0; i--) {
    const n = s.stack.names[i]!;
    const html = s.stack.nss[i] === NS.HTML;
    if (html && (name === 'li' ? n === 'li' : n === 'dd' || n === 'dt')) {
      s.stack.generateImpliedEndTags(n);
      s.stack.popTo(i);
      break;
    }
    if (s.stack.isSpecial(i) && !(html && (n === 'address' || n === 'div' || n === 'p'))) break;
  }
  s.stack.closePInButtonScope();
  s.insert.insertElement(name, t.attrs);
}

/** plaintext: the rest of the input is its text. */
function plaintextStartTagInBody(s: TreeState, t: StartTag): void {
  s.stack.closePInButtonScope();
  s.insert.insertElement(t.name, t.attrs);
  s.textStarted = true;
}

/** button: an open button closes first. */
function buttonStartTagInBody(s: TreeState, t: StartTag): void {
  if (s.stack.inScope('button')) {
    s.stack.generateImpliedEndTags();
    s.stack.popUntil('button');
  }
  reconstructFormatting(s);
  s.insert.insertElement(t.name, t.attrs);
  s.framesetOk = false;
}

/** a: an active <a> is closed first by the adoption agency, and taken off the stack and the list if still there. */
function aStartTagInBody(s: TreeState, t: StartTag): void {
  const active = s.formatting.byName('a');
  if (active !== -1) {
    const el = s.formatting.entries[active]!.el;
    adoptionAgency(s, 'a');
    const inStack = s.stack.els.lastIndexOf(el);
    if (inStack !== -1) s.stack.remove(inStack);
    const entry = s.formatting.indexOf(el);
    if (entry !== -1) s.formatting.remove(entry);
  }
  reconstructFormatting(s);
  const a = s.insert.insertElement('a', t.attrs);
  s.formatting.push(a, 'a', t.attrs);
}

/** b, big, code, em, font, i, s, small, strike, strong, tt, u: onto the list of active formatting elements. */
function formattingStartTagInBody(s: TreeState, t: StartTag): void {
  const name = t.name;
  reconstructFormatting(s);
  const el = s.insert.insertElement(name, t.attrs);
  s.formatting.push(el, name, t.attrs);
}

/** nobr: an open <nobr> in scope is closed first by the adoption agency. */
function nobrStartTagInBody(s: TreeState, t: StartTag): void {
  const name = t.name;
  reconstructFormatting(s);
  if (s.stack.inScope('nobr')) {
    adoptionAgency(s, 'nobr');
    reconstructFormatting(s);
  }
  const el = s.insert.insertElement(name, t.attrs);
  s.formatting.push(el, name, t.attrs);
}

/** applet, marquee, object: a marker on the list of active formatting elements (formatting does not leak in). */
function appletStartTagInBody(s: TreeState, t: StartTag): void {
  reconstructFormatting(s);
  s.insert.insertElement(t.name, t.attrs);
  s.formatting.insertMarker();
  s.framesetOk = false;
}

/** table: closes an open <p>, except in quirks mode. */
function tableStartTagInBody(s: TreeState, t: StartTag): void {
  if (!s.quirks) s.stack.closePInButtonScope();
  s.insert.insertElement(t.name, t.attrs);
  s.framesetOk = false;
  s.mode = Mode.InTable;
}

/** area, br, embed, img, keygen, wbr: void elements. */
function voidStartTagInBody(s: TreeState, t: StartTag): void {
  reconstructFormatting(s);
  s.insert.appendElement(t.name, t.attrs);
  s.framesetOk = false;
}

/** input: a hidden input leaves frameset-ok alone. */
function inputStartTagInBody(s: TreeState, t: StartTag): void {
  reconstructFormatting(s);
  s.insert.appendElement(t.name, t.attrs);
  if ((getAttr(t.attrs, 'type') ?? '').toLowerCase() !== 'hidden') s.framesetOk = false;
}

/** hr: closes an open <p>. */
function hrStartTagInBody(s: TreeState, t: StartTag): void {
  s.stack.closePInButtonScope();
  s.insert.appendElement(t.name, t.attrs);
  s.framesetOk = false;
}

/** textarea: RCDATA, and a newline right after the tag is not content. */
function textareaStartTagInBody(s: TreeState, t: StartTag): void {
  s.insert.insertElement(t.name, t.attrs);
  s.skipNextNewline = true;
  s.framesetOk = false;
  s.originalMode = s.mode;
  s.mode = Mode.Text;
  s.textStarted = true;
}

/** xmp: RAWTEXT, after closing an open <p>. */
function xmpStartTagInBody(s: TreeState, t: StartTag): void {
  s.stack.closePInButtonScope();
  reconstructFormatting(s);
  s.framesetOk = false;
  return insertTextElement(s, t);
}

/** select: "in select", or "in select in table" when a table mode opened it. */
function selectStartTagInBody(s: TreeState, t: StartTag): void {
  reconstructFormatting(s);
  s.insert.insertElement(t.name, t.attrs);
  s.framesetOk = false;
  const m = s.mode;
  s.mode =
    m === Mode.InTable || m === Mode.InCaption || m === Mode.InTableBody || m === Mode.InRow || m === Mode.InCell
      ? Mode.InSelectInTable
      : Mode.InSelect;
}

/** optgroup, option: an open <option> closes first. */
function optionStartTagInBody(s: TreeState, t: StartTag): void {
  if (s.stack.currentIs('option')) s.stack.pop();
  reconstructFormatting(s);
  s.insert.insertElement(t.name, t.attrs);
}

/** rb, rtc (implied end tags all closed); rp, rt (all but rtc): ruby annotations. */
function rubyStartTagInBody(s: TreeState, t: StartTag, except: string | undefined): void {
  if (s.stack.inScope('ruby')) s.stack.generateImpliedEndTags(except);
  s.insert.insertElement(t.name, t.attrs);
}

/** math, svg: foreign content begins (a self-closing tag makes an empty element). */
function foreignStartTagInBody(s: TreeState, t: StartTag): void {
  const name = t.name;
  reconstructFormatting(s);
  const ns = name === 'svg' ? NS.SVG : NS.MATHML;
  if (t.selfClosing) s.insert.appendElement(name, t.attrs, ns);
  else s.insert.insertElement(name, t.attrs, ns);
}

/**
 * Any other start tag; among them the group "address, article, aside, ... ul" (CLOSES_P), which the standard
 * lists right after frameset, and which closes an open <p> first.
 */
function anyOtherStartTagInBody(s: TreeState, t: StartTag): void {
  const name = t.name;
  if (CLOSES_P.has(name)) {
    s.stack.closePInButtonScope();
    s.insert.insertElement(name, t.attrs);
    return;
  }
  reconstructFormatting(s);
  s.insert.insertElement(name, t.attrs);
}

// Tables (§13.2.6.4.9-15) -------------------------------------------------------------------------------------

/** "in table". */
function startTagInTable(s: TreeState, t: StartTag): void {
  const name = t.name;
  switch (name) {
    case 'caption':
      s.stack.clearBackTo(TABLE_CONTEXT);
      s.formatting.insertMarker();
      s.insert.insertElement(name, t.attrs);
      s.mode = Mode.InCaption;
      return;
    case 'colgroup':
      s.stack.clearBackTo(TABLE_CONTEXT);
      s.insert.insertElement(name, t.attrs);
      s.mode = Mode.InColumnGroup;
      return;
    case 'col':
      s.stack.clearBackTo(TABLE_CONTEXT);
      s.insert.insertElement('colgroup', NO_ATTRS);
      s.mode = Mode.InColumnGroup;
      return startTagInColumnGroup(s, t);
    case 'tbody':
    case 'tfoot':
    case 'thead':
      s.stack.clearBackTo(TABLE_CONTEXT);
      s.insert.insertElement(name, t.attrs);
      s.mode = Mode.InTableBody;
      return;
    case 'td':
    case 'th':
    case 'tr':
      s.stack.clearBackTo(TABLE_CONTEXT);
      s.insert.insertElement('tbody', NO_ATTRS);
      s.mode = Mode.InTableBody;
      return startTagInTableBody(s, t);
    case 'table':
      if (!s.stack.inScope('table', 'table')) return;
      s.stack.popUntil('table');
      resetInsertionMode(s);
      return processStartTag(s, t);
    case 'style':
    case 'script':
    case 'template':
      return startTagInHead(s, t);
    case 'input':
      if ((getAttr(t.attrs, 'type') ?? '').toLowerCase() === 'hidden') {
        s.insert.appendElement(name, t.attrs);
        return;
      }
      return inTableAnythingElse(s, () => startTagInBody(s, t));
    case 'form':
      if (s.formElement || s.stack.indexOf('template') !== -1) return;
      s.formElement = s.insert.insertElement(name, t.attrs);
      s.stack.pop();
      return;
    default:
      return inTableAnythingElse(s, () => startTagInBody(s, t));
  }
}

/** "in caption". */
function startTagInCaption(s: TreeState, t: StartTag): void {
  if (TABLE_PARTS.has(t.name)) {
    if (!s.stack.inScope('caption', 'table')) return;
    s.stack.generateImpliedEndTags();
    s.stack.popUntil('caption');
    s.formatting.clearToMarker();
    s.mode = Mode.InTable;
    return startTagInTable(s, t);
  }
  return startTagInBody(s, t);
}

/** "in column group". */
function startTagInColumnGroup(s: TreeState, t: StartTag): void {
  switch (t.name) {
    case 'html':
      return startTagInBody(s, t);
    case 'col':
      s.insert.appendElement('col', t.attrs);
      return;
    case 'template':
      return startTagInHead(s, t);
    default:
      if (!s.stack.currentIs('colgroup')) return;
      s.stack.pop();
      s.mode = Mode.InTable;
      return processStartTag(s, t);
  }
}

/** "in table body". */
function startTagInTableBody(s: TreeState, t: StartTag): void {
  const name = t.name;
  if (name === 'tr') {
    s.stack.clearBackTo(TABLE_BODY_CONTEXT);
    s.insert.insertElement(name, t.attrs);
    s.mode = Mode.InRow;
    return;
  }
  if (name === 'th' || name === 'td') {
    s.stack.clearBackTo(TABLE_BODY_CONTEXT);
    s.insert.insertElement('tr', NO_ATTRS);
    s.mode = Mode.InRow;
    return startTagInRow(s, t);
  }
  if (name === 'caption' || name === 'col' || name === 'colgroup' || TABLE_SECTIONS.has(name)) {
    if (!s.stack.inScope(TABLE_SECTIONS, 'table')) return;
    s.stack.clearBackTo(TABLE_BODY_CONTEXT);
    s.stack.pop();
    s.mode = Mode.InTable;
    return startTagInTable(s, t);
  }
  return startTagInTable(s, t);
}

/** "in row". */
function startTagInRow(s: TreeState, t: StartTag): void {
  const name = t.name;
  if (name === 'th' || name === 'td') {
    s.stack.clearBackTo(TABLE_ROW_CONTEXT);
    s.insert.insertElement(name, t.attrs);
    s.mode = Mode.InCell;
    s.formatting.insertMarker();
    return;
  }
  if (name === 'caption' || name === 'col' || name === 'colgroup' || TABLE_SECTIONS.has(name) || name === 'tr') {
    if (!s.stack.inScope('tr', 'table')) return;
    s.stack.clearBackTo(TABLE_ROW_CONTEXT);
    s.stack.pop();
    s.mode = Mode.InTableBody;
    return startTagInTableBody(s, t);
  }
  return startTagInTable(s, t);
}

/** "in cell". */
function startTagInCell(s: TreeState, t: StartTag): void {
  if (TABLE_PARTS.has(t.name)) {
    if (s.stack.inScope('td', 'table') || s.stack.inScope('th', 'table')) {
      closeCell(s);
      startTagInRow(s, t);
    }
    return;
  }
  return startTagInBody(s, t);
}

// Select, template, after the body (§13.2.6.4.16-23) --------------------------------------------------------

/** "in select". */
function startTagInSelect(s: TreeState, t: StartTag): void {
  const name = t.name;
  switch (name) {
    case 'html':
      return startTagInBody(s, t);
    case 'option':
      if (s.stack.currentIs('option')) s.stack.pop();
      s.insert.insertElement(name, t.attrs);
      return;
    case 'optgroup':
      if (s.stack.currentIs('option')) s.stack.pop();
      if (s.stack.currentIs('optgroup')) s.stack.pop();
      s.insert.insertElement(name, t.attrs);
      return;
    case 'hr':
      if (s.stack.currentIs('option')) s.stack.pop();
      if (s.stack.currentIs('optgroup')) s.stack.pop();
      s.insert.appendElement(name, t.attrs);
      return;
    case 'input':
    case 'keygen':
    case 'textarea':
    case 'select':
      if (!s.stack.inScope('select', 'select')) return;
      s.stack.popUntil('select');
      resetInsertionMode(s);
      if (name !== 'select') processStartTag(s, t);
      return;
    case 'script':
    case 'template':
      return startTagInHead(s, t);
  }
}

/** "in select in table". */
function startTagInSelectInTable(s: TreeState, t: StartTag): void {
  const name = t.name;
  if (
    name === 'caption' ||
    name === 'table' ||
    TABLE_SECTIONS.has(name) ||
    name === 'tr' ||
    name === 'td' ||
    name === 'th'
  ) {
    s.stack.popUntil('select');
    resetInsertionMode(s);
    return processStartTag(s, t);
  }
  return startTagInSelect(s, t);
}

/** "in template". */
function startTagInTemplate(s: TreeState, t: StartTag): void {
  const name = t.name;
  let mode: Mode;
  if (HEAD_IN_BODY.has(name)) return startTagInHead(s, t);
  if (name === 'caption' || name === 'colgroup' || TABLE_SECTIONS.has(name)) mode = Mode.InTable;
  else if (name === 'col') mode = Mode.InColumnGroup;
  else if (name === 'tr') mode = Mode.InTableBody;
  else if (name === 'td' || name === 'th') mode = Mode.InRow;
  else mode = Mode.InBody;
  s.templateModes[s.templateModes.length - 1] = mode;
  s.mode = mode;
  startTagInMode(s, t);
}

/** "after body" and "after after body". */
function startTagAfterBody(s: TreeState, t: StartTag): void {
  if (t.name === 'html') return startTagInBody(s, t);
  s.mode = Mode.InBody;
  return startTagInBody(s, t);
}

/** "in frameset". */
function startTagInFrameset(s: TreeState, t: StartTag): void {
  const name = t.name;
  if (name === 'html') return startTagInBody(s, t);
  if (name === 'frameset') s.insert.insertElement('frameset', t.attrs);
  else if (name === 'frame') s.insert.appendElement('frame', t.attrs);
  else if (name === 'noframes') startTagInHead(s, t);
}

/** "after frameset" and "after after frameset". */
function startTagAfterFrameset(s: TreeState, t: StartTag): void {
  const name = t.name;
  if (name === 'html') return startTagInBody(s, t);
  if (name === 'noframes') startTagInHead(s, t);
}

/** A repeated <html> or <body> tag adds the attributes its element lacks. */
function mergeAttrs(el: LightElement | undefined, attrs: Attrs): void {
  if (!el) return;
  for (let i = 0; i < attrs.length; i += 2) if (!el.hasAttribute(attrs[i]!)) el.setAttribute(attrs[i]!, attrs[i + 1]!);
}
