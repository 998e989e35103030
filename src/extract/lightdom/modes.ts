// The insertion mode (§13.2.4.1): starting a fragment, resetting the mode, and the steps several modes share; each a
// function of the tree builder's state (state.ts).
import { HTML_NS, NS, type LightElement, type LightNode } from './nodes.js';
import { Mode, type TreeState } from './state.js';
import { RESET_MODE_TAGS } from './tags.js';
import { NO_ATTRS } from './tokens.js';

/**
 * The HTML fragment parsing algorithm's start, given a context element: a root <html> on the stack, modes reset from
 * the context.
 */
export function startFragment(s: TreeState, context: LightElement): void {
  const root = s.insert.createElement('html', NS.HTML, NO_ATTRS);
  s.stack.push(root, 'html', NS.HTML);
  if (context.localName === 'template' && context.namespaceURI === HTML_NS) s.templateModes.push(Mode.InTemplate);
  resetInsertionMode(s);
  for (let node: LightNode | null = context; node; node = node.parentNode) {
    if ((node as LightElement).localName === 'form' && (node as LightElement).namespaceURI === HTML_NS) {
      s.formElement = node as LightElement;
      break;
    }
  }
}

/**
 * "Reset the insertion mode appropriately": from the open elements, the innermost that decides (the context element for
 * the root).
 */
export function resetInsertionMode(s: TreeState): void {
  for (let i = s.stack.top; i >= 0; i--) {
    const useContext = i === 0 && s.context !== undefined;
    const name = useContext ? s.context!.localName : s.stack.names[i]!;
    const html = useContext ? s.context!.namespaceURI === HTML_NS : s.stack.nss[i] === NS.HTML;
    if (!html || !RESET_MODE_TAGS.has(name)) continue;
    switch (name) {
      case 'select': {
        for (let j = i - 1; j > 0; j--) {
          if (s.stack.nss[j] !== NS.HTML) continue;
          if (s.stack.names[j] === 'template') break;
          if (s.stack.names[j] === 'table') {
            s.mode = Mode.InSelectInTable;
            return;
          }
        }
        s.mode = Mode.InSelect;
        return;
      }
      case 'td':
      case 'th':
        if (i > 0) {
          s.mode = Mode.InCell;
          return;
        }
        break;
      case 'tr':
        s.mode = Mode.InRow;
        return;
      case 'tbody':
      case 'thead':
      case 'tfoot':
        s.mode = Mode.InTableBody;
        return;
      case 'caption':
        s.mode = Mode.InCaption;
        return;
      case 'colgroup':
        s.mode = Mode.InColumnGroup;
        return;
      case 'table':
        s.mode = Mode.InTable;
        return;
      case 'template':
        s.mode = s.templateModes[s.templateModes.length - 1] ?? Mode.InBody;
        return;
      case 'head':
        if (i > 0) {
          s.mode = Mode.InHead;
          return;
        }
        break;
      case 'body':
        s.mode = Mode.InBody;
        return;
      case 'frameset':
        s.mode = Mode.InFrameset;
        return;
      case 'html':
        s.mode = s.headElement ? Mode.AfterHead : Mode.BeforeHead;
        return;
    }
    break;
  }
  s.mode = Mode.InBody;
}

/** Before the body: the "anything else" steps, which make the missing html, head and body elements. */
export function anythingElseBeforeBody(s: TreeState): void {
  switch (s.mode) {
    case Mode.Initial:
      s.quirks = true;
      s.mode = Mode.BeforeHtml;
      break;
    case Mode.BeforeHtml: {
      const root = s.insert.createElement('html', NS.HTML, NO_ATTRS);
      s.insert.appendNode(s.insert.doc as unknown as LightNode, root);
      s.stack.push(root, 'html', NS.HTML);
      s.mode = Mode.BeforeHead;
      break;
    }
    case Mode.BeforeHead:
      s.headElement = s.insert.insertElement('head', NO_ATTRS);
      s.mode = Mode.InHead;
      break;
    case Mode.InHead:
      s.stack.pop();
      s.mode = Mode.AfterHead;
      break;
    case Mode.InHeadNoscript:
      s.stack.pop();
      s.mode = Mode.InHead;
      break;
    case Mode.AfterHead:
      s.insert.insertElement('body', NO_ATTRS);
      s.mode = Mode.InBody;
      break;
  }
}

/** "in table", anything else: processed as in body, with foster parenting on. */
export function inTableAnythingElse(s: TreeState, process: () => void): void {
  const saved = s.insert.fosterParenting;
  s.insert.fosterParenting = true;
  process();
  s.insert.fosterParenting = saved;
}

/** "Close the cell": the open <td> or <th> and what is inside it, and its formatting elements. */
export function closeCell(s: TreeState): void {
  s.stack.generateImpliedEndTags();
  while (
    s.stack.top > 0 &&
    !(s.stack.nss[s.stack.top] === NS.HTML && (s.stack.currentName() === 'td' || s.stack.currentName() === 'th'))
  )
    s.stack.pop();
  s.stack.pop();
  s.formatting.clearToMarker();
  s.mode = Mode.InRow;
}
