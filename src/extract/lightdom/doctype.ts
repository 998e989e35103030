// Quirks mode from a DOCTYPE token (§13.2.6.4.1): the public and system identifiers that select it.
import { ASCII_WHITESPACE } from '../ascii-whitespace.js';

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
const QUIRKS_PUBLIC_IDS = new Set(['-//w3o//dtd w3 html strict 3.0//en//', '-/w3c/dtd html 4.0 transitional/en', 'html']);

/** A DOCTYPE token's text after `<!`: its name, and the rest. */
const DOCTYPE = new RegExp(`^doctype(?:[${ASCII_WHITESPACE}]+([^${ASCII_WHITESPACE}>]*))?(.*)$`, 'is');
/** The public identifier, and the system identifier after it if any. */
const PUBLIC_ID = new RegExp(`^[${ASCII_WHITESPACE}]*public[${ASCII_WHITESPACE}]*(["'])(.*?)\\1(?:[${ASCII_WHITESPACE}]*(["'])(.*?)\\3)?`, 'is');
/** A system identifier without a public one. */
const SYSTEM_ID = new RegExp(`^[${ASCII_WHITESPACE}]*system[${ASCII_WHITESPACE}]*(["'])(.*?)\\1`, 'is');

/** Whether a DOCTYPE (the text after `<!`) puts the document in quirks mode. */
export function quirksMode(raw: string): boolean {
  const m = DOCTYPE.exec(raw);
  if (!m) return true;
  if ((m[1] ?? '').toLowerCase() !== 'html') return true;
  const rest = m[2] ?? '';
  const pub = PUBLIC_ID.exec(rest);
  const sys = pub ? (pub[3] !== undefined ? pub[4] : undefined) : SYSTEM_ID.exec(rest)?.[2];
  if (sys !== undefined && sys.toLowerCase() === 'http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd') return true;
  if (!pub) return false;
  const id = pub[2]!.toLowerCase();
  if (QUIRKS_PUBLIC_IDS.has(id)) return true;
  const prefixes =
    sys === undefined ? [...QUIRKS_PUBLIC_PREFIXES, '-//w3c//dtd html 4.01 frameset//', '-//w3c//dtd html 4.01 transitional//'] : QUIRKS_PUBLIC_PREFIXES;
  return prefixes.some((p) => id.startsWith(p));
}
