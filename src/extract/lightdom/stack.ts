// The stack of open elements (§13.2.4.2): pushing and popping, and whether an element is "in scope".
import type { TreeBudget } from './tree-limits.js';
import { NS, type LightElement } from './nodes.js';
import { IMPLIED_END, IMPLIED_END_THOROUGH, SCOPE_HTML, SPECIAL_HTML, SPECIAL_MATHML, SPECIAL_SVG } from './tags.js';

/**
 * One part of the tree builder (see LightTreeBuilder in tree.ts): the stack of open elements, which owns its
 * elements and reports its depth to the builder's budget as it grows. The rules read it directly (its arrays, by
 * index, are the standard's "stack of open elements", bottom first).
 */
export class OpenElements {
  // The stack of open elements, as three parallel arrays: the element, its local name, its namespace.
  readonly els: LightElement[] = [];
  readonly names: string[] = [];
  readonly nss: NS[] = [];
  /** The elements on the stack, for membership. */
  readonly open = new Set<LightElement>();

  constructor(private readonly budget: TreeBudget) {}

  /** The index of the current node (the top), -1 when the stack is empty. */
  get top(): number {
    return this.els.length - 1;
  }

  currentName(): string {
    return this.names[this.els.length - 1] ?? '';
  }

  currentIs(name: string): boolean {
    const top = this.els.length - 1;
    return top >= 0 && this.names[top] === name && this.nss[top] === NS.HTML;
  }

  currentIsForeign(): boolean {
    const top = this.els.length - 1;
    return top >= 0 && this.nss[top] !== NS.HTML;
  }

  push(el: LightElement, name: string, ns: NS): void {
    this.els.push(el);
    this.names.push(name);
    this.nss.push(ns);
    this.open.add(el);
    this.budget.depth(this.els.length);
  }

  pop(): void {
    this.open.delete(this.els.pop()!);
    this.names.pop();
    this.nss.pop();
  }

  /** Pops elements until the stack is `length` long. */
  popTo(length: number): void {
    while (this.els.length > length) this.pop();
  }

  /** Takes the element at `index` off the stack. */
  remove(index: number): void {
    this.open.delete(this.els[index]!);
    this.els.splice(index, 1);
    this.names.splice(index, 1);
    this.nss.splice(index, 1);
  }

  /** The index of the topmost HTML element with this name, or -1. */
  indexOf(name: string): number {
    for (let i = this.els.length - 1; i >= 0; i--) if (this.names[i] === name && this.nss[i] === NS.HTML) return i;
    return -1;
  }

  popUntil(name: string): void {
    const i = this.indexOf(name);
    this.popTo(i === -1 ? this.els.length : i);
  }

  isSpecial(i: number): boolean {
    const name = this.names[i]!;
    switch (this.nss[i]) {
      case NS.HTML:
        return SPECIAL_HTML.has(name);
      case NS.SVG:
        return SPECIAL_SVG.has(name);
      default:
        return SPECIAL_MATHML.has(name);
    }
  }

  /**
   * The default scope's boundaries: HTML applet, caption, html, table, td, th, marquee, object, template; MathML and
   * SVG integration points.
   */
  private isScopeBoundary(i: number): boolean {
    const ns = this.nss[i];
    if (ns === NS.HTML) return SCOPE_HTML.has(this.names[i]!);
    return ns === NS.SVG ? SPECIAL_SVG.has(this.names[i]!) : SPECIAL_MATHML.has(this.names[i]!);
  }

  /** Whether an HTML element named `name` (or any of `names`) is in scope of the given kind. */
  inScope(
    target: string | ReadonlySet<string>,
    kind: 'default' | 'list' | 'button' | 'table' | 'select' = 'default',
  ): boolean {
    for (let i = this.els.length - 1; i >= 0; i--) {
      const name = this.names[i]!;
      const html = this.nss[i] === NS.HTML;
      if (html && (typeof target === 'string' ? name === target : target.has(name))) return true;
      if (kind === 'table') {
        if (html && (name === 'html' || name === 'table' || name === 'template')) return false;
      } else if (kind === 'select') {
        if (html && name !== 'optgroup' && name !== 'option') return false;
      } else if (
        this.isScopeBoundary(i) ||
        (html && ((kind === 'list' && (name === 'ol' || name === 'ul')) || (kind === 'button' && name === 'button')))
      ) {
        return false;
      }
    }
    return false;
  }

  generateImpliedEndTags(except?: string): void {
    for (
      let top = this.top;
      top >= 0 && this.nss[top] === NS.HTML && IMPLIED_END.has(this.names[top]!) && this.names[top] !== except;
      top = this.top
    )
      this.pop();
  }

  generateImpliedEndTagsThoroughly(): void {
    for (
      let top = this.top;
      top >= 0 && this.nss[top] === NS.HTML && IMPLIED_END_THOROUGH.has(this.names[top]!);
      top = this.top
    )
      this.pop();
  }

  closeP(): void {
    this.generateImpliedEndTags('p');
    this.popUntil('p');
  }

  closePInButtonScope(): void {
    if (this.inScope('p', 'button')) this.closeP();
  }

  clearBackTo(names: ReadonlySet<string>): void {
    while (this.els.length > 0 && !(this.nss[this.top] === NS.HTML && names.has(this.currentName()))) this.pop();
  }

  /**
   * Whether the open element at `i` is an HTML or MathML text integration point (§13.2.6.5): HTML inside foreign
   * content.
   */
  isIntegrationPoint(i: number): boolean {
    return isIntegrationPoint(this.els[i]!, this.names[i]!, this.nss[i]!);
  }

  /** Whether the open element at `index` is in (default) scope: no scope boundary above it. */
  elementInScope(index: number): boolean {
    for (let i = this.els.length - 1; i > index; i--) if (this.isScopeBoundary(i)) return false;
    return true;
  }

  /**
   * Puts `el` in place of the element at `index` (the adoption agency's step for a formatting element it recreates).
   */
  replace(index: number, el: LightElement): void {
    this.open.delete(this.els[index]!);
    this.els[index] = el;
    this.open.add(el);
  }

  /**
   * Inserts an element right above the one at `index` (the adoption agency's new element, above the furthest block).
   */
  insertAbove(index: number, el: LightElement, name: string, ns: NS): void {
    this.els.splice(index + 1, 0, el);
    this.names.splice(index + 1, 0, name);
    this.nss.splice(index + 1, 0, ns);
    this.open.add(el);
  }

  /**
   * "Any other end tag" in body: closes the nearest HTML element of that name, unless a special element comes first.
   */
  anyOtherEndTagInBody(name: string): void {
    for (let i = this.top; i >= 0; i--) {
      if (this.names[i] === name && this.nss[i] === NS.HTML) {
        this.generateImpliedEndTags(name);
        this.popTo(i);
        return;
      }
      if (this.isSpecial(i)) return;
    }
  }
}

/** Whether an element (its local name, its namespace) is an HTML or a MathML text integration point. */
export function isIntegrationPoint(el: LightElement, name: string, ns: NS): boolean {
  if (ns === NS.SVG) return name === 'foreignObject' || name === 'desc' || name === 'title';
  if (ns === NS.MATHML) {
    if (name === 'annotation-xml') return isHtmlAnnotation(el);
    return isMathTextIntegrationPoint(name);
  }
  return false;
}

/** A MathML element's name that makes it a MathML text integration point. */
export function isMathTextIntegrationPoint(name: string): boolean {
  return name === 'mi' || name === 'mo' || name === 'mn' || name === 'ms' || name === 'mtext';
}

/** A MathML annotation-xml that holds HTML (an HTML integration point). */
function isHtmlAnnotation(el: LightElement): boolean {
  const encoding = (el.getAttribute('encoding') ?? '').toLowerCase();
  return encoding === 'text/html' || encoding === 'application/xhtml+xml';
}
