// How short a page must be to stand in for a document: the text-length thresholds shared by reading markup
// (extract/markup.ts) and classifying shells (diagnose/shells.ts). Constants only, importing nothing.

/** Pages with less text than this (normalized characters) cannot be the article they stand for. */
export const SHELL_MAX_TEXT = 2_500;
/** Pages with less text than this are empty for a reader, whatever their markup. */
export const JS_SHELL_MAX_TEXT = 200;
