// The DOCTYPE token (§13.2.5.53-68, read from the text htmlparser2 gives) and the quirks mode it selects (§13.2.6.4.1).
import { isAsciiWhitespace } from '../ascii-whitespace.js';

// Quirks mode (§13.2.6.4.1): only one thing in tree construction depends on it, <table> closing an open <p>.
const QUIRKS_PUBLIC_PREFIXES = [
  '+//silmaril//dtd html pro v0r11 19970101//',
  '-//as//dtd html 3.0 aswedit + extensions//',
  '-//advasoft ltd//dtd html 3.0 aswedit + extensions//',
  '-//ietf//dtd html 2.0 level 1//',
  '-//ietf//dtd html 2.0 level 2//',
  '-//ietf//dtd html 2.0 strict level 1//',
  '-//ietf//dtd html 2.0 strict level 2//',
  '-//ietf//dtd html 2.0 strict//',
  '-//ietf//dtd html 2.0//',
  '-//ietf//dtd html 2.1e//',
  '-//ietf//dtd html 3.0//',
  '-//ietf//dtd html 3.2 final//',
  '-//ietf//dtd html 3.2//',
  '-//ietf//dtd html 3//',
  '-//ietf//dtd html level 0//',
  '-//ietf//dtd html level 1//',
  '-//ietf//dtd html level 2//',
  '-//ietf//dtd html level 3//',
  '-//ietf//dtd html strict level 0//',
  '-//ietf//dtd html strict level 1//',
  '-//ietf//dtd html strict level 2//',
  '-//ietf//dtd html strict level 3//',
  '-//ietf//dtd html strict//',
  '-//ietf//dtd html//',
  '-//metrius//dtd metrius presentational//',
  '-//microsoft//dtd internet explorer 2.0 html strict//',
  '-//microsoft//dtd internet explorer 2.0 html//',
  '-//microsoft//dtd internet explorer 2.0 tables//',
  '-//microsoft//dtd internet explorer 3.0 html strict//',
  '-//microsoft//dtd internet explorer 3.0 html//',
  '-//microsoft//dtd internet explorer 3.0 tables//',
  '-//netscape comm. corp.//dtd html//',
  '-//netscape comm. corp.//dtd strict html//',
  "-//o'reilly and associates//dtd html 2.0//",
  "-//o'reilly and associates//dtd html extended 1.0//",
  "-//o'reilly and associates//dtd html extended relaxed 1.0//",
  '-//sq//dtd html 2.0 hotmetal + extensions//',
  '-//softquad software//dtd hotmetal pro 6.0::19990601::extensions to html 4.0//',
  '-//softquad//dtd hotmetal pro 4.0::19971010::extensions to html 4.0//',
  '-//spyglass//dtd html 2.0 extended//',
  '-//sun microsystems corp.//dtd hotjava html//',
  '-//sun microsystems corp.//dtd hotjava strict html//',
  '-//w3c//dtd html 3 1995-03-24//',
  '-//w3c//dtd html 3.2 draft//',
  '-//w3c//dtd html 3.2 final//',
  '-//w3c//dtd html 3.2//',
  '-//w3c//dtd html 3.2s draft//',
  '-//w3c//dtd html 4.0 frameset//',
  '-//w3c//dtd html 4.0 transitional//',
  '-//w3c//dtd html experimental 19960712//',
  '-//w3c//dtd html experimental 970421//',
  '-//w3c//dtd w3 html//',
  '-//w3o//dtd w3 html 3.0//',
  '-//webtechs//dtd mozilla html 2.0//',
  '-//webtechs//dtd mozilla html//',
];
const QUIRKS_PUBLIC_IDS = new Set([
  '-//w3o//dtd w3 html strict 3.0//en//',
  '-/w3c/dtd html 4.0 transitional/en',
  'html',
]);

/** A DOCTYPE token: its name, public and system identifiers (null when missing), and its force-quirks flag. */
interface DoctypeToken {
  name: string | null;
  publicId: string | null;
  systemId: string | null;
  forceQuirks: boolean;
}

/** The keyword that starts a DOCTYPE (htmlparser2 reports one only after matching it, in any case). */
const DOCTYPE_KEYWORD = 'doctype';
const PUBLIC_KEYWORD = 'public';
const SYSTEM_KEYWORD = 'system';
const UPPER_A = 0x41;
const UPPER_Z = 0x5a;
const NUL = 0;

/** A code unit of the DOCTYPE's name as the tokenizer appends it: ASCII capitals lowercased, NUL as U+FFFD. */
function nameChar(c: number): string {
  if (c === NUL) return '\uFFFD';
  return String.fromCharCode(c >= UPPER_A && c <= UPPER_Z ? c + 0x20 : c);
}

/**
 * The DOCTYPE token from its text after `<!` (htmlparser2's declaration: `doctype` in any case, up to the first
 * `>`, which ends a DOCTYPE in every one of its states), by the standard's DOCTYPE states (§13.2.5.53-68) from the
 * DOCTYPE state on: the name lowercased, `PUBLIC` and `SYSTEM` in any case, identifiers in either quotes, missing
 * whitespace tolerated where the standard tolerates it, anything else making a bogus DOCTYPE (force-quirks, except
 * after the system identifier). Its CRs are LFs already (input-stream.ts, §13.2.3.5); NULs are U+FFFD. `atEof`: the end
 * of the input, not a `>`, ended it (eof-in-doctype): every DOCTYPE state but the bogus one then sets force-quirks.
 */
export function parseDoctype(declaration: string, atEof = false): DoctypeToken {
  const text = declaration.slice(DOCTYPE_KEYWORD.length);
  const token: DoctypeToken = { name: null, publicId: null, systemId: null, forceQuirks: false };
  const n = text.length;
  let i = 0;
  const skipWhitespace = () => {
    while (i < n && isAsciiWhitespace(text.charCodeAt(i))) i++;
  };
  /**
   * The text ran out outside the bogus DOCTYPE state: at a `>`, the token as it is; at the input's end, force-quirks.
   */
  const ended = (): DoctypeToken => {
    if (atEof) token.forceQuirks = true;
    return token;
  };
  // DOCTYPE state, before DOCTYPE name state: whitespace (or none) before the name; none at all is a missing name.
  skipWhitespace();
  if (i === n) {
    token.forceQuirks = true;
    return token;
  }
  // DOCTYPE name state: up to whitespace.
  let name = '';
  while (i < n && !isAsciiWhitespace(text.charCodeAt(i))) name += nameChar(text.charCodeAt(i++));
  token.name = name;
  // After DOCTYPE name state.
  skipWhitespace();
  if (i === n) return ended();
  const keyword = text.slice(i, i + PUBLIC_KEYWORD.length).toLowerCase();
  if (keyword !== PUBLIC_KEYWORD && keyword !== SYSTEM_KEYWORD) {
    token.forceQuirks = true; // invalid character sequence after the name: bogus DOCTYPE
    return token;
  }
  i += keyword.length;
  // After the keyword, before the identifier: whitespace may be missing; a quote must come.
  skipWhitespace();
  const first = readIdentifier(text, i);
  if (!first) {
    token.forceQuirks = true; // missing identifier or missing quote: bogus DOCTYPE (or the end: abrupt)
    return token;
  }
  if (keyword === SYSTEM_KEYWORD) token.systemId = first.value;
  else token.publicId = first.value;
  if (first.end === -1) {
    token.forceQuirks = true; // `>` inside the quotes: an abrupt identifier
    return token;
  }
  i = first.end;
  skipWhitespace();
  if (i === n) return ended();
  // after the system identifier, anything else: bogus DOCTYPE, quirks flag left
  if (keyword === SYSTEM_KEYWORD) return token;
  // After the public identifier, between the identifiers: a system identifier in quotes, or anything else is bogus.
  const second = readIdentifier(text, i);
  if (!second) {
    token.forceQuirks = true;
    return token;
  }
  token.systemId = second.value;
  if (second.end === -1) token.forceQuirks = true;
  // After the system identifier: anything but whitespace is a bogus DOCTYPE (no force-quirks); whitespace alone, the
  // end.
  i = second.end === -1 ? n : second.end;
  skipWhitespace();
  return i === n ? ended() : token;
}

/**
 * A quoted identifier at `at`: its value and the index after its closing quote (-1: none, the DOCTYPE ended inside).
 */
function readIdentifier(text: string, at: number): { value: string; end: number } | undefined {
  const quote = text[at];
  if (quote !== '"' && quote !== "'") return undefined;
  const close = text.indexOf(quote, at + 1);
  const raw = text.slice(at + 1, close === -1 ? text.length : close);
  return { value: raw.includes('\0') ? raw.replace(/\0/g, '\uFFFD') : raw, end: close === -1 ? -1 : close + 1 };
}

/** The IBM XHTML system identifier that selects quirks mode on its own. */
const QUIRKS_SYSTEM_ID = 'http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd';
/** Public identifier prefixes that select quirks mode only when the system identifier is missing. */
const QUIRKS_PREFIXES_WITHOUT_SYSTEM_ID = ['-//w3c//dtd html 4.01 frameset//', '-//w3c//dtd html 4.01 transitional//'];

/**
 * Whether a DOCTYPE token puts the document in quirks mode ("initial", a DOCTYPE token; identifiers compared ASCII
 * case-insensitively).
 */
export function quirksMode(token: DoctypeToken): boolean {
  if (token.forceQuirks || token.name !== 'html') return true;
  const sys = token.systemId?.toLowerCase();
  if (sys === QUIRKS_SYSTEM_ID) return true;
  if (token.publicId === null) return false;
  const id = token.publicId.toLowerCase();
  if (QUIRKS_PUBLIC_IDS.has(id)) return true;
  if (QUIRKS_PUBLIC_PREFIXES.some((p) => id.startsWith(p))) return true;
  return sys === undefined && QUIRKS_PREFIXES_WITHOUT_SYSTEM_ID.some((p) => id.startsWith(p));
}
