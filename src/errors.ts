// The one base of the errors quotecheck reports to its user: bad input, an unusable file, folder or option.

/**
 * An error whose message is meant for the user: one line naming the input and what is wrong. A command prints it
 * after `quotecheck: error: ` and exits 2, unusable input, like every usage error (src/cli/progress.ts, refuseInput);
 * anything else thrown is a bug, thrown on for its stack. Subclasses set `name`. (Not named after quotecheck: the
 * frozen edition's warc-extract.mjs bundles ArchiveError, and must not name the tool.)
 */
export class UserError extends Error {}
