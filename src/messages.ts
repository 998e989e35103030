// How quotecheck words things in its one-line messages: file-system errors in words (never a raw errno code), counts with the right plural.
import { readFileSync } from 'node:fs';

/** Node's file-system error codes in words, for one-line messages that already name the file. */
const FS_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a folder',
  ENOTDIR: 'a part of the path is not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EEXIST: 'already exists',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many symbolic links',
  EBUSY: 'busy',
  ETXTBSY: 'busy',
  EIO: 'input/output error',
};

/**
 * A file-system error as a short reason ("no such file", "is a folder", "permission denied"),
 * never a raw errno code: the one wording every command uses. An unknown code keeps node's
 * own words without the code and the path (which the caller's message already names).
 */
export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code && FS_REASONS[code]) return FS_REASONS[code];
  const message = err instanceof Error ? err.message : String(err);
  // node's form is "ECODE: words, syscall 'path'": keep the words.
  const m = /^[A-Z][A-Z0-9_]+: ([^,]+)/.exec(message);
  return m?.[1] ?? message;
}

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
