// The list of active formatting elements (§13.2.4.3), its reconstruction, and the adoption agency algorithm
// (§13.2.6.4.7).
import type { NodeInsertion } from './insert.js';
import { HTML_NS, NS, type LightElement } from './nodes.js';
import type { OpenElements } from './stack.js';
import { sameAttrs, type Attrs } from './tokens.js';

/** An entry of the list of active formatting elements (null entries are markers). */
interface Formatting {
  el: LightElement;
  name: string;
  attrs: Attrs;
}

/**
 * One part of the tree builder: the list of active formatting elements (<b>, <a>, <font>...), which stay open
 * across the blocks they were misnested with, reopened by reconstruction and closed by the adoption agency. It owns
 * its entries; what needs the stack and the tree too (reconstruction, the adoption agency) takes them explicitly.
 */
export class ActiveFormatting {
  /** The list, oldest first; null entries are markers. */
  readonly entries: (Formatting | null)[] = [];

  push(el: LightElement, name: string, attrs: Attrs): void {
    const list = this.entries;
    // Noah's Ark: at most three entries with the same name and attributes after the last marker.
    let same = 0;
    let earliest = -1;
    for (let i = list.length - 1; i >= 0; i--) {
      const e = list[i];
      if (!e) break;
      if (e.name === name && sameAttrs(e.attrs, attrs)) {
        same++;
        earliest = i;
      }
    }
    if (same >= 3) list.splice(earliest, 1);
    list.push({ el, name, attrs });
  }

  insertMarker(): void {
    this.entries.push(null);
  }

  clearToMarker(): void {
    const list = this.entries;
    while (list.length > 0 && list.pop() !== null);
  }

  indexOf(el: LightElement): number {
    const list = this.entries;
    for (let i = list.length - 1; i >= 0; i--) if (list[i]?.el === el) return i;
    return -1;
  }

  /** The last entry after the last marker with this name, if any. */
  byName(name: string): number {
    const list = this.entries;
    for (let i = list.length - 1; i >= 0; i--) {
      const e = list[i];
      if (!e) return -1;
      if (e.name === name) return i;
    }
    return -1;
  }

  remove(index: number): void {
    this.entries.splice(index, 1);
  }
}

/** The parts of the tree builder reconstruction and the adoption agency work on. */
interface FormattingParts {
  readonly stack: OpenElements;
  readonly formatting: ActiveFormatting;
  readonly insert: NodeInsertion;
}

/**
 * Reconstructs the active formatting elements (§13.2.4.3): reopens those closed by a block they were misnested with.
 */
export function reconstructFormatting({ stack, formatting, insert }: FormattingParts): void {
  const list = formatting.entries;
  let i = list.length - 1;
  if (i < 0 || list[i] === null || stack.open.has(list[i]!.el)) return;
  while (i > 0 && list[i - 1] !== null && !stack.open.has(list[i - 1]!.el)) i--;
  for (; i < list.length; i++) {
    const entry = list[i]!;
    entry.el = insert.insertElement(entry.name, entry.attrs);
  }
}

/** The adoption agency algorithm (§13.2.6.4.7, "in body" end tags of formatting elements). */
export function adoptionAgency({ stack, formatting, insert }: FormattingParts, subject: string): void {
  const els = stack.els;
  const list = formatting.entries;
  const top = stack.top;
  if (stack.names[top] === subject && stack.nss[top] === NS.HTML && formatting.indexOf(els[top]!) === -1) {
    stack.pop();
    return;
  }
  for (let outer = 0; outer < 8; outer++) {
    const fIndex = formatting.byName(subject);
    if (fIndex === -1) {
      stack.anyOtherEndTagInBody(subject);
      return;
    }
    const fEntry = list[fIndex]!;
    const fe = fEntry.el;
    const feStack = els.lastIndexOf(fe);
    if (feStack === -1) {
      list.splice(fIndex, 1);
      return;
    }
    if (!stack.elementInScope(feStack)) return;
    let fb = -1;
    for (let i = feStack + 1; i < els.length; i++) {
      if (stack.isSpecial(i)) {
        fb = i;
        break;
      }
    }
    if (fb === -1) {
      stack.popTo(feStack);
      list.splice(fIndex, 1);
      return;
    }
    const furthestBlock = els[fb]!;
    const commonAncestor = els[feStack - 1]!;
    let bookmark = fIndex;
    let lastNode: LightElement = furthestBlock;
    let nodeIndex = fb;
    for (let inner = 1; ; inner++) {
      nodeIndex--;
      const node = els[nodeIndex]!;
      if (node === fe) break;
      let entryIndex = formatting.indexOf(node);
      if (inner > 3 && entryIndex !== -1) {
        list.splice(entryIndex, 1);
        if (entryIndex < bookmark) bookmark--;
        entryIndex = -1;
      }
      if (entryIndex === -1) {
        stack.remove(nodeIndex);
        continue;
      }
      const entry = list[entryIndex]!;
      const replacement = insert.createElement(entry.name, NS.HTML, entry.attrs);
      entry.el = replacement;
      stack.replace(nodeIndex, replacement);
      if (lastNode === furthestBlock) bookmark = entryIndex + 1;
      insert.detach(lastNode);
      insert.appendNode(replacement, lastNode);
      lastNode = replacement;
    }
    insert.detach(lastNode);
    insert.insertAt(
      lastNode,
      insert.placeFor(commonAncestor, commonAncestor.localName, commonAncestor.namespaceURI === HTML_NS, true),
    );
    const newEl = insert.createElement(fEntry.name, NS.HTML, fEntry.attrs);
    insert.adoptChildren(furthestBlock, newEl);
    insert.appendNode(furthestBlock, newEl);
    // The new element's entry takes the bookmark's place; the old entry goes.
    list.splice(bookmark, 0, { el: newEl, name: fEntry.name, attrs: fEntry.attrs });
    list.splice(list.indexOf(fEntry), 1);
    const feAt = els.indexOf(fe);
    stack.remove(feAt);
    const fbAt = els.indexOf(furthestBlock);
    stack.insertAbove(fbAt, newEl, fEntry.name, NS.HTML);
  }
}
