// The HTML standard's input stream preprocessing (§13.2.3.5): what the tokenizer is given is the page with CR LF and CR
// made LF.

const CR_OR_CRLF = /\r\n?/g;

/**
 * The page as the standard's tokenizer reads it: every CR LF pair and every lone CR is one LF, before any state
 * sees it, so that text, attribute values, comments, CDATA sections and the doctype all have LF alone (the
 * tokenizer's states have no CR rows). Run once on the whole page, before tokenizing: a page without CR is
 * returned as it is.
 */
export function preprocessInputStream(html: string): string {
  return html.includes('\r') ? html.replace(CR_OR_CRLF, '\n') : html;
}
