// The light DOM's adjustments to JSDOMParser's shared prototypes, so that its DOM answers as the reference DOM (jsdom)
// does where Readability asks: made here and only here, by an explicit call (installLightDomPatches), never on import.
// They only affect JSDOMParser's classes, which nothing else uses. What each adjustment does is defined by the module
// that owns it (slots.ts: child removal; queries.ts: getElementsByTagName, querySelectorAll, style; serialize.ts and
// fragment.ts: innerHTML); this module puts them in place.
import { parseFragment } from './fragment.js';
import {
  DocumentProto,
  ElementProto,
  HTML_NS,
  NodeProto,
  ParserProto,
  StyleProto,
  type LightElement,
} from './nodes.js';
import { getElementsByTagName, getStyle, querySelectorAll } from './queries.js';
import { replaceChildren, serializeChildren } from './serialize.js';
import { SLOT_ACCESSORS, SLOT_METHODS } from './slots.js';

let installed = false;

/**
 * Adjusts JSDOMParser's shared prototypes for the light DOM, once per process (later calls do nothing). The light
 * DOM's entry point (buildDocument) calls it, so a caller need not; nodes made before it (none of the
 * tree builder's) keep JSDOMParser's own behaviour.
 */
export function installLightDomPatches(): void {
  if (installed) return;
  installed = true;

  // JSDOMParser prints markup errors to the console; in a worker that is our stdout. Keep them on the parser (its
  // errorState), which is where its own tests look. (Its parser no longer parses pages: only empty documents, see
  // nodes.ts newDocument; innerHTML is parsed by the tree builder.)
  ParserProto.error = function error(this: { errorState: string }, message: string) {
    this.errorState += `${message}\n`;
  };
  ElementProto.namespaceURI = HTML_NS;

  // O(1) child removal (slots.ts), on the prototype every node shares (elements, text, the document).
  Object.defineProperties(NodeProto, SLOT_ACCESSORS);
  Object.assign(NodeProto, SLOT_METHODS);

  // Queries and styles (queries.ts).
  StyleProto.getStyle = getStyle;
  for (const proto of [ElementProto, DocumentProto]) {
    proto.getElementsByTagName = getElementsByTagName;
    proto.querySelectorAll = querySelectorAll;
  }

  // innerHTML as a browser has it: serialized by the HTML fragment serialization algorithm (raw text elements
  // verbatim, comments kept) and parsed by the fragment parsing algorithm with this tree builder. Readability
  // re-parses the page this way when it retries (`page.innerHTML = pageCacheHtml`) and for <noscript> images.
  const inner = Object.getOwnPropertyDescriptor(ElementProto, 'innerHTML')!;
  Object.defineProperty(ElementProto, 'innerHTML', {
    configurable: true,
    enumerable: inner.enumerable ?? true,
    get(this: LightElement) {
      return serializeChildren(this);
    },
    set(this: LightElement, html: string) {
      replaceChildren(this, parseFragment(String(html), this));
    },
  });
}
