// Element queries as an HTML document answers them (getElementsByTagName, querySelectorAll), and inline styles.
import { HTML_NS, type LightElement } from './nodes.js';

/** Elements under `root` (not itself) in document order whose name matches, HTML ones case-insensitively. */
function elementsByNames(root: LightElement, names: string[] | undefined): LightElement[] {
  const out: LightElement[] = [];
  if (!names) collectAll(root, out);
  else if (names.length === 1) collectNamed(root, names[0]!.toLowerCase(), names[0]!, out);
  else {
    const lower = new Set(names.map((n) => n.toLowerCase()));
    const exact = new Set(names);
    collectIn(root, lower, exact, out);
  }
  return out;
}

function collectAll(root: LightElement, out: LightElement[]): void {
  const kids = root.children;
  for (let i = 0; i < kids.length; i++) {
    const el = kids[i]!;
    out.push(el);
    if (el.children.length > 0) collectAll(el, out);
  }
}

function collectNamed(root: LightElement, lower: string, exact: string, out: LightElement[]): void {
  const kids = root.children;
  for (let i = 0; i < kids.length; i++) {
    const el = kids[i]!;
    const name = el.localName;
    if (name === lower ? el.namespaceURI === HTML_NS || lower === exact : name === exact && el.namespaceURI !== HTML_NS)
      out.push(el);
    if (el.children.length > 0) collectNamed(el, lower, exact, out);
  }
}

function collectIn(
  root: LightElement,
  lower: ReadonlySet<string>,
  exact: ReadonlySet<string>,
  out: LightElement[],
): void {
  const kids = root.children;
  for (let i = 0; i < kids.length; i++) {
    const el = kids[i]!;
    if (el.namespaceURI === HTML_NS ? lower.has(el.localName) : exact.has(el.localName)) out.push(el);
    if (el.children.length > 0) collectIn(el, lower, exact, out);
  }
}

/**
 * The value of one property in an inline style attribute, as CSSOM reports it for keyword
 * properties: lowercased, without `!important`; undefined when the property is not set.
 */
export function inlineStyle(attribute: string | undefined | null, property: string): string | undefined {
  if (!attribute) return undefined;
  let value: string | undefined;
  let important = false;
  for (const declaration of attribute.split(';')) {
    const colon = declaration.indexOf(':');
    if (colon === -1 || declaration.slice(0, colon).trim().toLowerCase() !== property) continue;
    let v = declaration
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    const bang = /\s*!\s*important$/.exec(v);
    if (bang) v = v.slice(0, bang.index);
    if (v === '' || (important && !bang)) continue;
    value = v;
    important ||= bang !== null;
  }
  return value;
}

// What queries and styles answer, for JSDOMParser's shared prototypes: patches.ts installs them
// (installLightDomPatches).

/**
 * Style.getStyle: Readability asks `style.display` and `style.visibility` of every node (_isProbablyVisible).
 * JSDOMParser answers from the style attribute verbatim ("none !important", "NONE"); a browser (and jsdom) parses
 * it: property names are case-insensitive, keywords too, `!important` is not part of the value, and among repeats
 * an important declaration wins, else the last.
 */
export function getStyle(this: { node: LightElement }, name: string): string | undefined {
  return inlineStyle(this.node.getAttribute('style'), name);
}

/**
 * getElementsByTagName and querySelectorAll (tag lists only: all Readability asks) as in an HTML document: HTML
 * elements by lowercase name, SVG and MathML elements by their own name, in document order. With querySelectorAll
 * present Readability takes the same path as over jsdom (one list in document order, not one list per tag name
 * concatenated).
 */
export function getElementsByTagName(this: LightElement, qualifiedName: string): LightElement[] {
  const out = elementsByNames(this, qualifiedName === '*' ? undefined : [qualifiedName]) as LightElement[] & {
    _isLiveNodeList?: boolean;
  };
  out._isLiveNodeList = true; // as JSDOMParser marks them: Readability refuses to remove from a live list
  return out;
}

export function querySelectorAll(this: LightElement, selectors: string): LightElement[] {
  const names = selectors.split(',').map((s) => s.trim());
  if (!names.every((n) => /^[a-zA-Z][a-zA-Z0-9-]*$/.test(n)))
    throw new Error(`querySelectorAll: only tag names are supported, not ${selectors}`);
  return elementsByNames(this, names);
}
