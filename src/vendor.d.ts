// Type declarations for packages that ship none: the WHATWG decoding helper and Readability's JSDOMParser.
declare module 'whatwg-encoding' {
  /** Maps an encoding label ("latin1", "sjis") to its WHATWG name ("windows-1252", "Shift_JIS"), or null. */
  export function labelToName(label: string): string | null;
  /** The encoding a byte order mark announces, or null. */
  export function getBOMEncoding(bytes: Uint8Array): string | null;
  /** Decodes with the named encoding (a BOM overrides it), as the Encoding standard says. */
  export function decode(bytes: Uint8Array, encodingName: string): string;
  /** Whether decode() implements the named encoding. */
  export function isSupported(encodingName: string): boolean;
}

declare module '@mozilla/readability/JSDOMParser.js' {
  /**
   * Readability's own light DOM (Firefox runs Readability over it in a worker): plain objects and
   * arrays. Its parser wants well-formed markup; quotecheck builds its trees from htmlparser2 instead.
   */
  class JSDOMParser {
    errorState: string;
    parse(html: string, url?: string): unknown;
  }
  export = JSDOMParser;
}
