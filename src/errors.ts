// The one base of the errors quotecheck reports to its user: bad input, an unusable file, folder or option.

/**
 * An error whose message is meant for the user: one line naming the input and what is wrong. A command prints it
 * after `quotecheck: error: ` (src/cli/progress.ts, refuseInput) and exits with its `exitCode`; anything else thrown
 * is a bug, thrown on for its stack. Subclasses set `name`; the kind of error (`errorCode`) follows from it. (Not named
 * after quotecheck: the frozen edition's warc-extract.mjs bundles ArchiveError, and must not name the tool.)
 */
export class UserError extends Error {
  /** The command's exit code for it: 2, unusable input, like every usage error. */
  readonly exitCode: number = 2;

  /**
   * The kind of error in snake case, from the class's name: `ClaimsFileError` is `claims_file`. Not called `code`:
   * code that reads a failure's cause chain takes any string `code` for an errno or undici code.
   */
  get errorCode(): string {
    return this.name
      .replace(/Error$/, '')
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toLowerCase();
  }
}

/** Whether `err` is one of quotecheck's user-facing errors. */
export function isUserError(err: unknown): err is UserError {
  return err instanceof UserError;
}
