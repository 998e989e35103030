// Bytes to text: the HTML standard's encoding sniffing (BOM, HTTP charset, <meta> prescan), then UTF-8 or windows-1252.
import sniffHTMLEncoding from 'html-encoding-sniffer';
import { decode, getBOMEncoding, isSupported, labelToName } from 'whatwg-encoding';

export interface Decoded {
  text: string;
  /** The WHATWG name of the encoding used, e.g. "UTF-8", "windows-1252", "Shift_JIS". */
  charset: string;
  /** Where the charset came from. */
  charsetSource: 'bom' | 'http' | 'meta' | 'default' | 'fallback';
}

/**
 * With no declaration at all, bytes that are valid UTF-8 are UTF-8 (most of today's web);
 * otherwise windows-1252, the web's legacy default, which decodes every byte.
 */
function undeclared(bytes: Uint8Array): Decoded {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), charset: 'UTF-8', charsetSource: 'default' };
  } catch {
    return { text: decode(bytes, 'windows-1252'), charset: 'windows-1252', charsetSource: 'fallback' };
  }
}

/**
 * UTF-8 goes through Node's TextDecoder (fast, WHATWG-exact). Legacy encodings go through
 * whatwg-encoding (iconv-lite), because Node 20's TextDecoder decodes "windows-1252" as
 * ISO-8859-1: 0x93 would become U+0093 instead of the curly quote U+201C.
 */
function decodeAs(bytes: Uint8Array, charset: string, charsetSource: Decoded['charsetSource']): Decoded | undefined {
  if (charset === 'UTF-8') return { text: new TextDecoder('utf-8').decode(bytes), charset, charsetSource };
  if (isSupported(charset)) return { text: decode(bytes, charset), charset, charsetSource };
  try {
    return { text: new TextDecoder(charset).decode(bytes), charset, charsetSource };
  } catch {
    return undefined; // an encoding no decoder here implements
  }
}

/** Decodes an HTML document as a browser would (HTML standard §13.2.3.2, without the parser's late <meta> switch). */
export function decodeHtml(bytes: Uint8Array, httpCharset?: string): Decoded {
  const bom = getBOMEncoding(bytes);
  if (bom) return decodeAs(bytes, bom, 'bom') ?? undeclared(bytes);
  const http = httpCharset ? labelToName(httpCharset) : null;
  if (http) return decodeAs(bytes, http, 'http') ?? undeclared(bytes);
  // The <meta> prescan of the first 1024 bytes (it maps a declared UTF-16 to UTF-8, as the standard says).
  const meta = sniffHTMLEncoding(bytes, { defaultEncoding: null });
  if (meta) return decodeAs(bytes, meta, 'meta') ?? undeclared(bytes);
  return undeclared(bytes);
}

/** Decodes a plain-text (or JSON, CSV, ...) body: BOM, then the HTTP charset, then UTF-8 or windows-1252. */
export function decodeText(bytes: Uint8Array, httpCharset?: string): Decoded {
  const bom = getBOMEncoding(bytes);
  if (bom) return decodeAs(bytes, bom, 'bom') ?? undeclared(bytes);
  const http = httpCharset ? labelToName(httpCharset) : null;
  if (http) return decodeAs(bytes, http, 'http') ?? undeclared(bytes);
  return undeclared(bytes);
}
