// The stack of open elements (§13.2.4.2): pushing and popping, and whether an element is "in scope".
import type { TreeLimits } from './limits.js';
import { NS, type LightElement } from './nodes.js';
import { IMPLIED_END, IMPLIED_END_THOROUGH, SCOPE_HTML, SPECIAL_HTML, SPECIAL_MATHML, SPECIAL_SVG } from './tags.js';

/**
 * The tree builder's first layer (see LightTreeBuilder in tree.ts): the stack of open elements, whose depth is
 * checked against the limits as it grows.
 */
export abstract class OpenElements {
  /** Why building stopped (a limit passed); the document is then incomplete and should be dropped. */
  over?: string;
  maxDepth = 0;

  // The stack of open elements, as three parallel arrays: the element, its local name, its namespace.
  protected readonly els: LightElement[] = [];
  protected readonly names: string[] = [];
  protected readonly nss: NS[] = [];
  protected readonly open = new Set<LightElement>();

  constructor(protected readonly limits: TreeLimits) {}

  protected get top(): number {
    return this.els.length - 1;
  }

  protected currentName(): string {
    return this.names[this.els.length - 1] ?? '';
  }

  protected currentIs(name: string): boolean {
    const top = this.els.length - 1;
    return top >= 0 && this.names[top] === name && this.nss[top] === NS.HTML;
  }

  protected currentIsForeign(): boolean {
    const top = this.els.length - 1;
    return top >= 0 && this.nss[top] !== NS.HTML;
  }

  protected push(el: LightElement, name: string, ns: NS): void {
    this.els.push(el);
    this.names.push(name);
    this.nss.push(ns);
    this.open.add(el);
    if (this.els.length > this.maxDepth) {
      this.maxDepth = this.els.length;
      if (this.maxDepth > this.limits.maxDepth) this.over ??= `elements nested more than ${this.limits.maxDepth} deep (the DOM cap)`;
    }
  }

  protected pop(): void {
    this.open.delete(this.els.pop()!);
    this.names.pop();
    this.nss.pop();
  }

  /** Pops elements until the stack is `length` long. */
  protected popTo(length: number): void {
    while (this.els.length > length) this.pop();
  }

  protected removeFromStack(index: number): void {
    this.open.delete(this.els[index]!);
    this.els.splice(index, 1);
    this.names.splice(index, 1);
    this.nss.splice(index, 1);
  }

  /** The index of the topmost HTML element with this name, or -1. */
  protected indexOf(name: string): number {
    for (let i = this.els.length - 1; i >= 0; i--) if (this.names[i] === name && this.nss[i] === NS.HTML) return i;
    return -1;
  }

  protected popUntil(name: string): void {
    const i = this.indexOf(name);
    this.popTo(i === -1 ? this.els.length : i);
  }

  protected isSpecial(i: number): boolean {
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

  /** The default scope's boundaries: HTML applet, caption, html, table, td, th, marquee, object, template; MathML and SVG integration points. */
  private isScopeBoundary(i: number): boolean {
    const ns = this.nss[i];
    if (ns === NS.HTML) return SCOPE_HTML.has(this.names[i]!);
    return ns === NS.SVG ? SPECIAL_SVG.has(this.names[i]!) : SPECIAL_MATHML.has(this.names[i]!);
  }

  /** Whether an HTML element named `name` (or any of `names`) is in scope of the given kind. */
  protected inScope(target: string | ReadonlySet<string>, kind: 'default' | 'list' | 'button' | 'table' | 'select' = 'default'): boolean {
    for (let i = this.els.length - 1; i >= 0; i--) {
      const name = this.names[i]!;
      const html = this.nss[i] === NS.HTML;
      if (html && (typeof target === 'string' ? name === target : target.has(name))) return true;
      if (kind === 'table') {
        if (html && (name === 'html' || name === 'table' || name === 'template')) return false;
      } else if (kind === 'select') {
        if (html && name !== 'optgroup' && name !== 'option') return false;
      } else if (this.isScopeBoundary(i) || (html && ((kind === 'list' && (name === 'ol' || name === 'ul')) || (kind === 'button' && name === 'button')))) {
        return false;
      }
    }
    return false;
  }

  protected generateImpliedEndTags(except?: string): void {
    for (let top = this.top; top >= 0 && this.nss[top] === NS.HTML && IMPLIED_END.has(this.names[top]!) && this.names[top] !== except; top = this.top) this.pop();
  }

  protected generateImpliedEndTagsThoroughly(): void {
    for (let top = this.top; top >= 0 && this.nss[top] === NS.HTML && IMPLIED_END_THOROUGH.has(this.names[top]!); top = this.top) this.pop();
  }

  protected closeP(): void {
    this.generateImpliedEndTags('p');
    this.popUntil('p');
  }

  protected closePInButtonScope(): void {
    if (this.inScope('p', 'button')) this.closeP();
  }

  protected clearBackTo(names: ReadonlySet<string>): void {
    while (this.els.length > 0 && !(this.nss[this.top] === NS.HTML && names.has(this.currentName()))) this.pop();
  }

  /** Whether the open element at `i` is an HTML or MathML text integration point (§13.2.6.5): HTML inside foreign content. */
  protected isIntegrationPoint(i: number): boolean {
    const name = this.names[i]!;
    if (this.nss[i] === NS.SVG) return name === 'foreignObject' || name === 'desc' || name === 'title';
    if (this.nss[i] === NS.MATHML) {
      if (name === 'annotation-xml') return isHtmlAnnotation(this.els[i]!);
      return name === 'mi' || name === 'mo' || name === 'mn' || name === 'ms' || name === 'mtext';
    }
    return false;
  }

  /** Whether the open element at `index` is in (default) scope: no scope boundary above it. */
  protected elementInScope(index: number): boolean {
    for (let i = this.els.length - 1; i > index; i--) if (this.isScopeBoundary(i)) return false;
    return true;
  }
}

/** A MathML annotation-xml that holds HTML (an HTML integration point). */
function isHtmlAnnotation(el: LightElement): boolean {
  const encoding = (el.getAttribute('encoding') ?? '').toLowerCase();
  return encoding === 'text/html' || encoding === 'application/xhtml+xml';
}
