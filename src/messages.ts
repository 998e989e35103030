// How quotecheck words things in its one-line messages: file-system errors in words (never a raw errno code), counts
// with the right plural.
import { readFileSync } from 'node:fs';
// A file-system error in words is the task's grader's describeFsError (src/grader/grade.mjs: it imports nothing of
// quotecheck, so quotecheck imports it from there): the one wording every command uses.
import { describeFsError } from './grader/grade.mjs';

/**
 * Reads a UTF-8 text file; when the file system refuses, throws what `fail` makes of the reason in
 * words (describeFsError) and the error's code, so each caller words it for its own input.
 */
export function readTextFile(path: string, fail: (reason: string, code: string | undefined) => Error): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw fail(describeFsError(err), (err as NodeJS.ErrnoException).code);
  }
}

/** A whole number's digits in groups of three ("-1,234,567"). */
const THOUSANDS = /\B(?=(\d{3})+$)/g;

/**
 * `n` as en-US writes it ("1,234"). Whole numbers are grouped here: the process's first toLocaleString loads ICU's
 * locale data, about 15 ms, and every run's summary line counts something; other numbers are left to toLocaleString.
 */
export function thousands(n: number): string {
  return Number.isSafeInteger(n) && !Object.is(n, -0) ? String(n).replace(THOUSANDS, ',') : n.toLocaleString('en-US');
}

/** "1 claim", "2 claims"; `many` for words whose plural is not word + "s". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${thousands(n)} ${n === 1 ? one : many}`;
}

/** How messages name a URL's host: host:port, or the URL itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
