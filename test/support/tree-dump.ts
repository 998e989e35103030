// A document tree as text, for comparing the light DOM's tree with a reference's (jsdom's DOM, parse5's own tree adapted).
const XHTML = 'http://www.w3.org/1999/xhtml';

/** An attribute as the dump reads it: a namespaced one shows its namespace and prefix (jsdom's and the light DOM's Attr shape). */
export interface DumpAttr {
  name: string;
  value: string;
  namespaceURI?: string | null;
  prefix?: string | null;
  localName?: string;
}

/** A node of either tree as the dump reads it. */
export interface DumpNode {
  nodeType: number;
  childNodes: ArrayLike<DumpNode>;
  textContent: string | null;
  localName?: string;
  namespaceURI?: string | null;
  attributes?: ArrayLike<DumpAttr>;
  /** A doctype's name and identifiers. */
  name?: string;
  publicId?: string;
  systemId?: string;
}

function dumpAttr(a: DumpAttr): string {
  const name = a.namespaceURI ? `{${a.namespaceURI}}${a.prefix ? `${a.prefix}:` : ''}${a.localName}` : a.name;
  return ` ${name}=${JSON.stringify(a.value)}`;
}

/**
 * The tree below `node`, one line per node, indented by depth: the doctype (name, public and system identifiers),
 * elements (with their namespace when not HTML, and their attributes in order), text and comments quoted as JSON (so
 * that NULs, U+FFFD and line breaks show).
 */
export function dump(node: DumpNode, depth = 0, out: string[] = []): string {
  for (const c of Array.from(node.childNodes)) {
    const pad = '  '.repeat(depth);
    if (c.nodeType === 1) {
      const ns = c.namespaceURI && c.namespaceURI !== XHTML ? ` (${c.namespaceURI.split('/').pop()})` : '';
      out.push(`${pad}<${c.localName}${ns}${Array.from(c.attributes ?? [], dumpAttr).join('')}>`);
      dump(c, depth + 1, out);
    } else if (c.nodeType === 3) out.push(`${pad}${JSON.stringify(c.textContent)}`);
    else if (c.nodeType === 8) out.push(`${pad}<!--${JSON.stringify(c.textContent)}-->`);
    else if (c.nodeType === 10)
      out.push(
        `${pad}<!DOCTYPE ${JSON.stringify(c.name)} ${JSON.stringify(c.publicId)} ${JSON.stringify(c.systemId)}>`,
      );
    else out.push(`${pad}(node type ${c.nodeType})`);
  }
  return out.join('\n');
}
