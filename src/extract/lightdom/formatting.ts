// The list of active formatting elements (§13.2.4.3), its reconstruction, and the adoption agency algorithm (§13.2.6.4.7).
import { HTML_NS, NS, type LightElement } from './nodes.js';
import { NodeInsertion } from './insert.js';
import { sameAttrs, type Attrs } from './tokens.js';

/** An entry of the list of active formatting elements (null entries are markers). */
interface Formatting {
  el: LightElement;
  name: string;
  attrs: Attrs;
}

/**
 * The tree builder's third layer: the formatting elements (<b>, <a>, <font>...) that stay open across the
 * blocks they were misnested with, reopened by reconstruction and closed by the adoption agency.
 */
export abstract class ActiveFormatting extends NodeInsertion {
  protected readonly formatting: (Formatting | null)[] = [];

  /** "Any other end tag" in body (end-tags.ts): what the adoption agency does when no formatting element is found. */
  protected abstract anyOtherEndTagInBody(name: string): void;

  protected pushFormatting(el: LightElement, name: string, attrs: Attrs): void {
    // Noah's Ark: at most three entries with the same name and attributes after the last marker.
    let same = 0;
    let earliest = -1;
    for (let i = this.formatting.length - 1; i >= 0; i--) {
      const e = this.formatting[i];
      if (!e) break;
      if (e.name === name && sameAttrs(e.attrs, attrs)) {
        same++;
        earliest = i;
      }
    }
    if (same >= 3) this.formatting.splice(earliest, 1);
    this.formatting.push({ el, name, attrs });
  }

  protected insertMarker(): void {
    this.formatting.push(null);
  }

  protected clearFormattingToMarker(): void {
    while (this.formatting.length > 0 && this.formatting.pop() !== null);
  }

  protected formattingIndexOf(el: LightElement): number {
    for (let i = this.formatting.length - 1; i >= 0; i--) if (this.formatting[i]?.el === el) return i;
    return -1;
  }

  /** The last entry after the last marker with this name, if any. */
  protected formattingByName(name: string): number {
    for (let i = this.formatting.length - 1; i >= 0; i--) {
      const e = this.formatting[i];
      if (!e) return -1;
      if (e.name === name) return i;
    }
    return -1;
  }

  /** Reconstructs the active formatting elements (§13.2.4.3): reopens those closed by a block they were misnested with. */
  protected reconstructFormatting(): void {
    const list = this.formatting;
    let i = list.length - 1;
    if (i < 0 || list[i] === null || this.open.has(list[i]!.el)) return;
    while (i > 0 && list[i - 1] !== null && !this.open.has(list[i - 1]!.el)) i--;
    for (; i < list.length; i++) {
      const entry = list[i]!;
      entry.el = this.insertElement(entry.name, entry.attrs);
    }
  }

  /** The adoption agency algorithm (§13.2.6.4.7, "in body" end tags of formatting elements). */
  protected adoptionAgency(subject: string): void {
    const top = this.top;
    if (this.names[top] === subject && this.nss[top] === NS.HTML && this.formattingIndexOf(this.els[top]!) === -1) {
      this.pop();
      return;
    }
    for (let outer = 0; outer < 8; outer++) {
      const fIndex = this.formattingByName(subject);
      if (fIndex === -1) {
        this.anyOtherEndTagInBody(subject);
        return;
      }
      const fEntry = this.formatting[fIndex]!;
      const fe = fEntry.el;
      const feStack = this.els.lastIndexOf(fe);
      if (feStack === -1) {
        this.formatting.splice(fIndex, 1);
        return;
      }
      if (!this.elementInScope(feStack)) return;
      let fb = -1;
      for (let i = feStack + 1; i < this.els.length; i++) {
        if (this.isSpecial(i)) {
          fb = i;
          break;
        }
      }
      if (fb === -1) {
        this.popTo(feStack);
        this.formatting.splice(fIndex, 1);
        return;
      }
      const furthestBlock = this.els[fb]!;
      const commonAncestor = this.els[feStack - 1]!;
      let bookmark = fIndex;
      let lastNode: LightElement = furthestBlock;
      let nodeIndex = fb;
      for (let inner = 1; ; inner++) {
        nodeIndex--;
        const node = this.els[nodeIndex]!;
        if (node === fe) break;
        let entryIndex = this.formattingIndexOf(node);
        if (inner > 3 && entryIndex !== -1) {
          this.formatting.splice(entryIndex, 1);
          if (entryIndex < bookmark) bookmark--;
          entryIndex = -1;
        }
        if (entryIndex === -1) {
          this.removeFromStack(nodeIndex);
          continue;
        }
        const entry = this.formatting[entryIndex]!;
        const replacement = this.createElement(entry.name, NS.HTML, entry.attrs);
        entry.el = replacement;
        this.open.delete(node);
        this.els[nodeIndex] = replacement;
        this.open.add(replacement);
        if (lastNode === furthestBlock) bookmark = entryIndex + 1;
        this.detach(lastNode);
        this.appendNode(replacement, lastNode);
        lastNode = replacement;
      }
      this.detach(lastNode);
      this.insertAt(lastNode, this.placeFor(commonAncestor, commonAncestor.localName, commonAncestor.namespaceURI === HTML_NS, true));
      const newEl = this.createElement(fEntry.name, NS.HTML, fEntry.attrs);
      this.adoptChildren(furthestBlock, newEl);
      this.appendNode(furthestBlock, newEl);
      // The new element's entry takes the bookmark's place; the old entry goes.
      this.formatting.splice(bookmark, 0, { el: newEl, name: fEntry.name, attrs: fEntry.attrs });
      this.formatting.splice(this.formatting.indexOf(fEntry), 1);
      const feAt = this.els.indexOf(fe);
      this.removeFromStack(feAt);
      const fbAt = this.els.indexOf(furthestBlock);
      this.els.splice(fbAt + 1, 0, newEl);
      this.names.splice(fbAt + 1, 0, fEntry.name);
      this.nss.splice(fbAt + 1, 0, NS.HTML);
      this.open.add(newEl);
    }
  }
}
