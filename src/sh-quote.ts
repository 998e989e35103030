// Quoting for sh: one module that imports nothing, for the extraction shells (src/extract/pdf/command-shells.ts) and
// the Harbor scripts (src/harbor).

/** One shell word: plain when it is safe as is, else single-quoted (a `'` inside becomes `'\''`). */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}
