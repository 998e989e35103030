// WHATWG Infra's "ASCII whitespace" (TAB, LF, FF, CR, SPACE): the whitespace of HTML's tokenizer, tree builder and the
// Encoding standard, defined once.

/**
 * ASCII whitespace as the body of a regular-expression character class: `[${ASCII_WHITESPACE}]`,
 * `[^${ASCII_WHITESPACE}]`.
 */
export const ASCII_WHITESPACE = '\\t\\n\\f\\r ';

/** Whether a UTF-16 code unit (or a byte of an ASCII-compatible encoding) is ASCII whitespace. */
export function isAsciiWhitespace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}
