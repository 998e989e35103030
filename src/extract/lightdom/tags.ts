// The tree builder's named tag sets and the SVG element name table (constants only).

const set = (...names: string[]): ReadonlySet<string> => new Set(names);

/** The "special" category (§13.2.4.2), by namespace: they end the searches of the list item start tags, of "any other end tag" and of the adoption agency. */
export const SPECIAL_HTML = set(
  'address', 'applet', 'area', 'article', 'aside', 'base', 'basefont', 'bgsound', 'blockquote', 'body', 'br', 'button', 'caption',
  'center', 'col', 'colgroup', 'dd', 'details', 'dir', 'div', 'dl', 'dt', 'embed', 'fieldset', 'figcaption', 'figure', 'footer', 'form',
  'frame', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hgroup', 'hr', 'html', 'iframe', 'img', 'input', 'keygen',
  'li', 'link', 'listing', 'main', 'marquee', 'menu', 'meta', 'nav', 'noembed', 'noframes', 'noscript', 'object', 'ol', 'p', 'param',
  'plaintext', 'pre', 'script', 'search', 'section', 'select', 'source', 'style', 'summary', 'table', 'tbody', 'td', 'template',
  'textarea', 'tfoot', 'th', 'thead', 'title', 'tr', 'track', 'ul', 'wbr', 'xmp',
);
export const SPECIAL_SVG = set('foreignObject', 'desc', 'title');
export const SPECIAL_MATHML = set('mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml');
/** Elements that end a scope (the "has an element in scope" boundaries), by namespace. */
export const SCOPE_HTML = set('applet', 'caption', 'html', 'table', 'td', 'th', 'marquee', 'object', 'template');
/** The formatting elements (§13.2.4.2): kept on the list of active formatting elements; their end tags run the adoption agency. */
export const FORMATTING = set('a', 'b', 'big', 'code', 'em', 'font', 'i', 'nobr', 's', 'small', 'strike', 'strong', 'tt', 'u');
/** What "generate implied end tags" closes (§13.2.6.3), and what it closes "thoroughly" (at the end of a template). */
export const IMPLIED_END = set('dd', 'dt', 'li', 'optgroup', 'option', 'p', 'rb', 'rp', 'rt', 'rtc');
export const IMPLIED_END_THOROUGH = set(...IMPLIED_END, 'caption', 'colgroup', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr');
/** h1 to h6: any heading's end tag closes any open heading. */
export const HEADINGS = set('h1', 'h2', 'h3', 'h4', 'h5', 'h6');
/** With one of these as the current node, foster parenting applies and text is "in table text". */
export const TABLE_STRUCTURE = set('table', 'tbody', 'tfoot', 'thead', 'tr');
export const TABLE_SECTIONS = set('tbody', 'tfoot', 'thead');
/** Start tags that close an open caption or cell first. */
export const TABLE_PARTS = set('caption', 'col', 'colgroup', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr');
/** In body: start tags that close a <p> in button scope, then insert their element ("address, article, aside, ..."). */
export const CLOSES_P = set(
  'address', 'article', 'aside', 'blockquote', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset', 'figcaption', 'figure',
  'footer', 'header', 'hgroup', 'main', 'menu', 'nav', 'ol', 'p', 'search', 'section', 'summary', 'ul',
);
/** In body: end tags that close their element when it is in scope ("address, article, aside, ..."). */
export const BLOCK_END = set(
  'address', 'article', 'aside', 'blockquote', 'button', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset', 'figcaption',
  'figure', 'footer', 'header', 'hgroup', 'listing', 'main', 'menu', 'nav', 'ol', 'pre', 'search', 'section', 'summary', 'ul',
);
/** Start tags processed by the rules for "in head" from "in body", "after head" and "in template". */
export const HEAD_IN_BODY = set('base', 'basefont', 'bgsound', 'link', 'meta', 'noframes', 'script', 'style', 'template', 'title');
/** Start tags that end foreign content (§13.2.6.5): SVG and MathML elements are popped and the tag is handled as HTML. */
export const FOREIGN_EXIT = set(
  'b', 'big', 'blockquote', 'body', 'br', 'center', 'code', 'dd', 'div', 'dl', 'dt', 'em', 'embed', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'head', 'hr', 'i', 'img', 'li', 'listing', 'menu', 'meta', 'nobr', 'ol', 'p', 'pre', 'ruby', 's', 'small', 'span', 'strong', 'strike',
  'sub', 'sup', 'table', 'tt', 'u', 'ul', 'var',
);
/** The elements "reset the insertion mode appropriately" decides by (§13.2.4.1). */
export const RESET_MODE_TAGS = set('tr', 'tbody', 'thead', 'tfoot', 'caption', 'colgroup', 'table', 'frameset', 'select', 'template', 'td', 'th', 'head', 'body', 'html');
/** SVG element names the HTML parser gives their camel case (§13.2.6.5). */
export const SVG_NAMES = new Map(
  [
    'altGlyph', 'altGlyphDef', 'altGlyphItem', 'animateColor', 'animateMotion', 'animateTransform', 'clipPath', 'feBlend', 'feColorMatrix',
    'feComponentTransfer', 'feComposite', 'feConvolveMatrix', 'feDiffuseLighting', 'feDisplacementMap', 'feDistantLight', 'feDropShadow',
    'feFlood', 'feFuncA', 'feFuncB', 'feFuncG', 'feFuncR', 'feGaussianBlur', 'feImage', 'feMerge', 'feMergeNode', 'feMorphology',
    'feOffset', 'fePointLight', 'feSpecularLighting', 'feSpotLight', 'feTile', 'feTurbulence', 'foreignObject', 'glyphRef',
    'linearGradient', 'radialGradient', 'textPath',
  ].map((n) => [n.toLowerCase(), n]),
);
/** The table contexts that "clear the stack back to a table (body, row) context" stop at. */
export const TABLE_CONTEXT = set('table', 'template', 'html');
export const TABLE_BODY_CONTEXT = set('tbody', 'tfoot', 'thead', 'template', 'html');
export const TABLE_ROW_CONTEXT = set('tr', 'template', 'html');
