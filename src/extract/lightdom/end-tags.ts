// The rules for end tags (§13.2.6.4, each insertion mode; §13.2.6.5, foreign content), as functions of the tree
// builder's state (state.ts).
import { adoptionAgency, reconstructFormatting } from './formatting.js';
import { anythingElseBeforeBody, closeCell, inTableAnythingElse, resetInsertionMode } from './modes.js';
import { NS } from './nodes.js';
import { Mode, type TreeState } from './state.js';
import { BLOCK_END, FORMATTING, HEADINGS, TABLE_BODY_CONTEXT, TABLE_ROW_CONTEXT, TABLE_SECTIONS } from './tags.js';
import { NO_ATTRS } from './tokens.js';

/**
 * What each end tag does: by the rules for foreign content when the adjusted current node is SVG or MathML, else by the
 * insertion mode's.
 */
export function processEndTag(s: TreeState, name: string): void {
  if (s.adjustedCurrentIsForeign()) return endTagInForeignContent(s, name);
  endTagInMode(s, name);
}

function endTagInForeignContent(s: TreeState, name: string): void {
  if (name === 'p' || name === 'br') {
    while (s.stack.top > 0 && s.stack.nss[s.stack.top] !== NS.HTML && !s.stack.isIntegrationPoint(s.stack.top))
      s.stack.pop();
    return endTagInMode(s, name);
  }
  for (let i = s.stack.top; i > 0; i--) {
    if (s.stack.nss[i] === NS.HTML) return endTagInMode(s, name);
    if (s.stack.names[i]!.toLowerCase() === name) {
      s.stack.popTo(i);
      return;
    }
  }
}

/** An end tag by the rules of the current insertion mode. */
function endTagInMode(s: TreeState, name: string): void {
  switch (s.mode) {
    case Mode.Initial:
    case Mode.BeforeHtml:
      return endTagBeforeHtml(s, name);
    case Mode.BeforeHead:
      return endTagBeforeHead(s, name);
    case Mode.InHead:
      return endTagInHead(s, name);
    case Mode.InHeadNoscript:
      return endTagInHeadNoscript(s, name);
    case Mode.AfterHead:
      return endTagAfterHead(s, name);
    case Mode.InBody:
      return endTagInBody(s, name);
    case Mode.Text:
      s.stack.pop();
      s.mode = s.originalMode;
      return;
    case Mode.InTable:
      return endTagInTable(s, name);
    case Mode.InCaption:
      return endTagInCaption(s, name);
    case Mode.InColumnGroup:
      return endTagInColumnGroup(s, name);
    case Mode.InTableBody:
      return endTagInTableBody(s, name);
    case Mode.InRow:
      return endTagInRow(s, name);
    case Mode.InCell:
      return endTagInCell(s, name);
    case Mode.InSelect:
      return endTagInSelect(s, name);
    case Mode.InSelectInTable:
      return endTagInSelectInTable(s, name);
    case Mode.InTemplate:
      if (name === 'template') endTemplate(s);
      return;
    case Mode.AfterBody:
      return endTagAfterBody(s, name);
    case Mode.InFrameset:
      return endTagInFrameset(s, name);
    case Mode.AfterFrameset:
      if (name === 'html') s.mode = Mode.AfterAfterFrameset;
      return;
    case Mode.AfterAfterBody:
      s.mode = Mode.InBody;
      return endTagInBody(s, name);
    case Mode.AfterAfterFrameset:
      return;
  }
}

// Before the body (§13.2.6.4.1-6) ------------------------------------------------------------------------------

/** "initial" and "before html". */
function endTagBeforeHtml(s: TreeState, name: string): void {
  if (s.mode === Mode.Initial) anythingElseBeforeBody(s);
  if (name === 'head' || name === 'body' || name === 'html' || name === 'br') {
    anythingElseBeforeBody(s);
    return endTagInMode(s, name);
  }
}

/** "before head". */
function endTagBeforeHead(s: TreeState, name: string): void {
  if (name === 'head' || name === 'body' || name === 'html' || name === 'br') {
    anythingElseBeforeBody(s);
    return endTagInMode(s, name);
  }
}

/** "in head". */
function endTagInHead(s: TreeState, name: string): void {
  if (name === 'head') {
    s.stack.pop();
    s.mode = Mode.AfterHead;
    return;
  }
  if (name === 'body' || name === 'html' || name === 'br') {
    anythingElseBeforeBody(s);
    return endTagInMode(s, name);
  }
  if (name === 'template') endTemplate(s);
}

/** "in head noscript". */
function endTagInHeadNoscript(s: TreeState, name: string): void {
  if (name === 'noscript') {
    s.stack.pop();
    s.mode = Mode.InHead;
    return;
  }
  if (name === 'br') {
    anythingElseBeforeBody(s);
    return endTagInMode(s, name);
  }
}

/** "after head". */
function endTagAfterHead(s: TreeState, name: string): void {
  if (name === 'body' || name === 'html' || name === 'br') {
    anythingElseBeforeBody(s);
    return endTagInMode(s, name);
  }
  if (name === 'template') endTemplate(s);
}

/** </template> (in head, and every mode that hands it there). */
function endTemplate(s: TreeState): void {
  if (s.stack.indexOf('template') === -1) return;
  s.stack.generateImpliedEndTagsThoroughly();
  s.stack.popUntil('template');
  s.formatting.clearToMarker();
  s.templateModes.pop();
  resetInsertionMode(s);
}

// In body (§13.2.6.4.7) --------------------------------------------------------------------------------------

/** "in body". */
function endTagInBody(s: TreeState, name: string): void {
  switch (name) {
    case 'template':
      return endTemplate(s);
    case 'body':
      if (s.stack.inScope('body')) s.mode = Mode.AfterBody;
      return;
    case 'html':
      if (!s.stack.inScope('body')) return;
      s.mode = Mode.AfterBody;
      return endTagInMode(s, name);
    case 'form':
      return formEndTagInBody(s);
    case 'p':
      if (!s.stack.inScope('p', 'button')) s.insert.insertElement('p', NO_ATTRS);
      s.stack.closeP();
      return;
    case 'li':
      if (!s.stack.inScope('li', 'list')) return;
      s.stack.generateImpliedEndTags('li');
      s.stack.popUntil('li');
      return;
    case 'dd':
    case 'dt':
      if (!s.stack.inScope(name)) return;
      s.stack.generateImpliedEndTags(name);
      s.stack.popUntil(name);
      return;
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
      return headingEndTagInBody(s);
    case 'applet':
    case 'marquee':
    case 'object':
      if (!s.stack.inScope(name)) return;
      s.stack.generateImpliedEndTags();
      s.stack.popUntil(name);
      s.formatting.clearToMarker();
      return;
    case 'br':
      reconstructFormatting(s);
      s.insert.appendElement('br', NO_ATTRS);
      s.framesetOk = false;
      return;
    default:
      if (FORMATTING.has(name)) return adoptionAgency(s, name);
      if (BLOCK_END.has(name)) {
        if (!s.stack.inScope(name)) return;
        s.stack.generateImpliedEndTags();
        s.stack.popUntil(name);
        return;
      }
      return s.stack.anyOtherEndTagInBody(name);
  }
}

/** </form>: outside templates it closes the form element pointer's form, wherever it is on the stack. */
function formEndTagInBody(s: TreeState): void {
  if (s.stack.indexOf('template') === -1) {
    // (parse5 asks for any form in scope, where the standard asks for this one; jsdom is the reference.)
    const form = s.formElement;
    s.formElement = undefined;
    if (!form || !s.stack.inScope('form')) return;
    s.stack.generateImpliedEndTags();
    const at = s.stack.els.lastIndexOf(form);
    if (at !== -1) s.stack.remove(at);
    return;
  }
  if (!s.stack.inScope('form')) return;
  s.stack.generateImpliedEndTags();
  s.stack.popUntil('form');
}

/** </h1> to </h6>: closes the innermost open heading, whichever it is. */
function headingEndTagInBody(s: TreeState): void {
  if (!s.stack.inScope(HEADINGS)) return;
  s.stack.generateImpliedEndTags();
  for (let i = s.stack.top; i >= 0; i--) {
    if (s.stack.nss[i] === NS.HTML && HEADINGS.has(s.stack.names[i]!)) {
      s.stack.popTo(i);
      break;
    }
  }
}

// Tables (§13.2.6.4.9-15) -------------------------------------------------------------------------------------

/** "in table". */
function endTagInTable(s: TreeState, name: string): void {
  if (name === 'table') {
    if (!s.stack.inScope('table', 'table')) return;
    s.stack.popUntil('table');
    resetInsertionMode(s);
    return;
  }
  if (name === 'template') return endTemplate(s);
  if (
    name === 'body' ||
    name === 'caption' ||
    name === 'col' ||
    name === 'colgroup' ||
    name === 'html' ||
    TABLE_SECTIONS.has(name) ||
    name === 'td' ||
    name === 'th' ||
    name === 'tr'
  )
    return;
  inTableAnythingElse(s, () => endTagInBody(s, name));
}

/** "in caption". */
function endTagInCaption(s: TreeState, name: string): void {
  if (name === 'caption' || name === 'table') {
    if (!s.stack.inScope('caption', 'table')) return;
    s.stack.generateImpliedEndTags();
    s.stack.popUntil('caption');
    s.formatting.clearToMarker();
    s.mode = Mode.InTable;
    if (name === 'table') endTagInTable(s, name);
    return;
  }
  if (
    name === 'body' ||
    name === 'col' ||
    name === 'colgroup' ||
    name === 'html' ||
    TABLE_SECTIONS.has(name) ||
    name === 'td' ||
    name === 'th' ||
    name === 'tr'
  )
    return;
  return endTagInBody(s, name);
}

/** "in column group". */
function endTagInColumnGroup(s: TreeState, name: string): void {
  if (name === 'colgroup') {
    if (s.stack.currentIs('colgroup')) {
      s.stack.pop();
      s.mode = Mode.InTable;
    }
    return;
  }
  if (name === 'col') return;
  if (name === 'template') return endTemplate(s);
  if (!s.stack.currentIs('colgroup')) return;
  s.stack.pop();
  s.mode = Mode.InTable;
  return processEndTag(s, name);
}

/** "in table body". */
function endTagInTableBody(s: TreeState, name: string): void {
  if (TABLE_SECTIONS.has(name)) {
    if (!s.stack.inScope(name, 'table')) return;
    s.stack.clearBackTo(TABLE_BODY_CONTEXT);
    s.stack.pop();
    s.mode = Mode.InTable;
    return;
  }
  if (name === 'table') {
    if (!s.stack.inScope(TABLE_SECTIONS, 'table')) return;
    s.stack.clearBackTo(TABLE_BODY_CONTEXT);
    s.stack.pop();
    s.mode = Mode.InTable;
    return endTagInTable(s, name);
  }
  if (
    name === 'body' ||
    name === 'caption' ||
    name === 'col' ||
    name === 'colgroup' ||
    name === 'html' ||
    name === 'td' ||
    name === 'th' ||
    name === 'tr'
  )
    return;
  endTagInTable(s, name);
}

/** "in row". */
function endTagInRow(s: TreeState, name: string): void {
  if (name === 'tr' || name === 'table' || TABLE_SECTIONS.has(name)) {
    // (For </tbody> parse5 closes the row when either is in table scope, the standard when both are; jsdom is the
    // reference.)
    if (
      TABLE_SECTIONS.has(name)
        ? !s.stack.inScope(name, 'table') && !s.stack.inScope('tr', 'table')
        : !s.stack.inScope('tr', 'table')
    )
      return;
    s.stack.clearBackTo(TABLE_ROW_CONTEXT);
    s.stack.pop();
    s.mode = Mode.InTableBody;
    if (name !== 'tr') endTagInTableBody(s, name);
    return;
  }
  if (
    name === 'body' ||
    name === 'caption' ||
    name === 'col' ||
    name === 'colgroup' ||
    name === 'html' ||
    name === 'td' ||
    name === 'th'
  )
    return;
  endTagInTable(s, name);
}

/** "in cell". */
function endTagInCell(s: TreeState, name: string): void {
  if (name === 'td' || name === 'th') {
    if (!s.stack.inScope(name, 'table')) return;
    s.stack.generateImpliedEndTags();
    s.stack.popUntil(name);
    s.formatting.clearToMarker();
    s.mode = Mode.InRow;
    return;
  }
  if (name === 'table' || TABLE_SECTIONS.has(name) || name === 'tr') {
    if (!s.stack.inScope(name, 'table')) return;
    closeCell(s);
    return endTagInRow(s, name);
  }
  if (name === 'body' || name === 'caption' || name === 'col' || name === 'colgroup' || name === 'html') return;
  return endTagInBody(s, name);
}

// Select, after the body, frameset (§13.2.6.4.16-23) --------------------------------------------------------

/** "in select". */
function endTagInSelect(s: TreeState, name: string): void {
  switch (name) {
    case 'optgroup':
      if (
        s.stack.currentIs('option') &&
        s.stack.top > 0 &&
        s.stack.names[s.stack.top - 1] === 'optgroup' &&
        s.stack.nss[s.stack.top - 1] === NS.HTML
      )
        s.stack.pop();
      if (s.stack.currentIs('optgroup')) s.stack.pop();
      return;
    case 'option':
      if (s.stack.currentIs('option')) s.stack.pop();
      return;
    case 'select':
      if (!s.stack.inScope('select', 'select')) return;
      s.stack.popUntil('select');
      resetInsertionMode(s);
      return;
    case 'template':
      return endTemplate(s);
  }
}

/** "in select in table". */
function endTagInSelectInTable(s: TreeState, name: string): void {
  if (
    name === 'caption' ||
    name === 'table' ||
    TABLE_SECTIONS.has(name) ||
    name === 'tr' ||
    name === 'td' ||
    name === 'th'
  ) {
    if (!s.stack.inScope(name, 'table')) return;
    s.stack.popUntil('select');
    resetInsertionMode(s);
    return processEndTag(s, name);
  }
  return endTagInSelect(s, name);
}

/** "after body". */
function endTagAfterBody(s: TreeState, name: string): void {
  if (name === 'html') {
    if (!s.context) s.mode = Mode.AfterAfterBody;
    return;
  }
  s.mode = Mode.InBody;
  return endTagInBody(s, name);
}

/** "in frameset". */
function endTagInFrameset(s: TreeState, name: string): void {
  if (name === 'frameset' && s.stack.top > 0) {
    s.stack.pop();
    if (!s.context && !s.stack.currentIs('frameset')) s.mode = Mode.AfterFrameset;
  }
}
