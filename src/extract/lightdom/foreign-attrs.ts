// The attributes of SVG and MathML elements (§13.2.6.3): the standard's tables that give names their case and
// namespace.
import { Attr, NamespacedAttr, NS, type AttrShape } from './nodes.js';

/** "Adjust SVG attributes": the lowercase names the tokenizer makes, and SVG's camel case for them. */
const SVG_ATTRIBUTES: ReadonlyMap<string, string> = new Map(
  [
    'attributeName',
    'attributeType',
    'baseFrequency',
    'baseProfile',
    'calcMode',
    'clipPathUnits',
    'diffuseConstant',
    'edgeMode',
    'filterUnits',
    'glyphRef',
    'gradientTransform',
    'gradientUnits',
    'kernelMatrix',
    'kernelUnitLength',
    'keyPoints',
    'keySplines',
    'keyTimes',
    'lengthAdjust',
    'limitingConeAngle',
    'markerHeight',
    'markerUnits',
    'markerWidth',
    'maskContentUnits',
    'maskUnits',
    'numOctaves',
    'pathLength',
    'patternContentUnits',
    'patternTransform',
    'patternUnits',
    'pointsAtX',
    'pointsAtY',
    'pointsAtZ',
    'preserveAlpha',
    'preserveAspectRatio',
    'primitiveUnits',
    'refX',
    'refY',
    'repeatCount',
    'repeatDur',
    'requiredExtensions',
    'requiredFeatures',
    'specularConstant',
    'specularExponent',
    'spreadMethod',
    'startOffset',
    'stdDeviation',
    'stitchTiles',
    'surfaceScale',
    'systemLanguage',
    'tableValues',
    'targetX',
    'targetY',
    'textLength',
    'viewBox',
    'viewTarget',
    'xChannelSelector',
    'yChannelSelector',
    'zoomAndPan',
  ].map((name) => [name.toLowerCase(), name]),
);

/** "Adjust MathML attributes": the one MathML attribute with a capital. */
const MATHML_DEFINITION_URL = 'definitionurl';
const MATHML_DEFINITION_URL_ADJUSTED = 'definitionURL';

const XLINK_NS = 'http://www.w3.org/1999/xlink';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** "Adjust foreign attributes": an attribute name, and its prefix (null: none), local name and namespace. */
const FOREIGN_ATTRIBUTES: ReadonlyMap<string, readonly [string | null, string, string]> = new Map([
  ['xlink:actuate', ['xlink', 'actuate', XLINK_NS]],
  ['xlink:arcrole', ['xlink', 'arcrole', XLINK_NS]],
  ['xlink:href', ['xlink', 'href', XLINK_NS]],
  ['xlink:role', ['xlink', 'role', XLINK_NS]],
  ['xlink:show', ['xlink', 'show', XLINK_NS]],
  ['xlink:title', ['xlink', 'title', XLINK_NS]],
  ['xlink:type', ['xlink', 'type', XLINK_NS]],
  ['xml:lang', ['xml', 'lang', XML_NS]],
  ['xml:space', ['xml', 'space', XML_NS]],
  ['xmlns', [null, 'xmlns', XMLNS_NS]],
  ['xmlns:xlink', ['xmlns', 'xlink', XMLNS_NS]],
]);

/**
 * The attribute an SVG or MathML element gets for a token's attribute: the SVG or MathML adjustment by the
 * element's namespace, then the foreign one. In the standard these adjust the token before "insert a foreign
 * element" (in body for <svg> and <math>, and "any other start tag" in foreign content, each by the namespace the
 * element is then made in), so they depend on that namespace alone and are made here, where the element is.
 * The attribute's name stays the qualified name (`xlink:href`), which getAttribute matches, as in the DOM.
 */
export function foreignAttr(ns: NS, name: string, value: string): AttrShape {
  const adjusted =
    ns === NS.SVG
      ? (SVG_ATTRIBUTES.get(name) ?? name)
      : name === MATHML_DEFINITION_URL
        ? MATHML_DEFINITION_URL_ADJUSTED
        : name;
  const foreign = FOREIGN_ATTRIBUTES.get(adjusted);
  if (!foreign) return new Attr(adjusted, value);
  const [prefix, localName, namespaceURI] = foreign;
  return new NamespacedAttr(adjusted, value, prefix, localName, namespaceURI);
}
