// The MCP server's files: paths resolved under one root folder, read only when they are regular files there, answers
// written there only under plain names.
import { accessSync, constants, lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { AnswersTarget } from '../output/answers.js';
import { echo } from './bounds.js';
import { UserError } from '../errors.js';
import { kindOf, readRegularFile, type FileIdentity, describeFsError } from '../grader/grade.mjs';

/** A path the tools refuse; the message is one line naming the field, the path and why. */
export class PathError extends UserError {
  override readonly name = 'PathError';
}

/**
 * Characters no path handed to the tools may hold: C0 controls (NUL, newline, escape, ...), DEL, C1 controls,
 * the line and paragraph separators, and the bidirectional controls that make a name display as another
 * (U+061C, U+200E/F, U+202A-E, U+2066-9). Any of them in a file name is a trap for whoever lists the folder.
 */
const UNPLAIN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/**
 * A path as messages show it: quoted, shortened when long, every character that could break or disguise the line
 * escaped.
 */
export function shownPath(path: string): string {
  return JSON.stringify(echo(path, 300)).replace(
    new RegExp(UNPLAIN.source, 'gu'),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * What an unplain character is, in words: "a NUL byte", "the control character U+001B", "the bidirectional control
 * U+202E".
 */
function unplainText(c: string): string {
  if (c === '\u0000') return 'a NUL byte';
  const code = c.codePointAt(0)!;
  const point = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (code === 0x2028 || code === 0x2029) return `the line separator ${point}`;
  return code >= 0x600 ? `the bidirectional control ${point}` : `the control character ${point}`;
}

/** A regular file read under the root: its bytes, its real path and its identity (device and inode). */
interface RootFile {
  path: string;
  bytes: Buffer;
  identity: FileIdentity;
}

/**
 * Where an answers file goes (src/output/answers.ts AnswersTarget): a plain name in a folder under the root, the folder
 * pinned by its real path, so that each write (O_EXCL temp file, then rename) finds it where it was, or refuses.
 */
export type { AnswersTarget } from '../output/answers.js';

function within(parent: string, child: string): boolean {
  if (child === parent) return true;
  const rel = relative(parent, child);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The folder the MCP server's files live in (docs/agent-tools.md#mcp-server: `--root`, the working directory by
 * default). Every path is resolved there: relative paths from it, absolute ones only when they lie in it; a `..`
 * component is refused outright, and a path whose real location (symbolic links resolved) is outside the root is
 * refused. Only regular files are read, and never by a blocking open: a named pipe or a device is looked at (lstat),
 * never opened. All file system calls are synchronous and none can wait on a peer, so no call holds the thread pool.
 */
export class RootFolder {
  private constructor(
    /** The root as given (absolute). */
    readonly given: string,
    /** Its real path: what every resolved path is compared with. */
    readonly path: string,
  ) {}

  /** The root folder `dir` (resolved from the working directory); a PathError when it is not an existing folder. */
  static open(dir: string): RootFolder {
    const given = resolve(dir);
    let real: string;
    try {
      real = realpathSync.native(given);
      if (!statSync(real).isDirectory()) throw new PathError(`--root ${shownPath(dir)}: is not a folder`);
    } catch (err) {
      if (err instanceof PathError) throw err;
      const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : describeFsError(err);
      throw new PathError(`--root ${shownPath(dir)}: ${why}`);
    }
    return new RootFolder(given, real);
  }

  /** The path made absolute under the root, after the checks that need no file system: plain, no `..`, not outside. */
  #lexical(input: string, field: string): string {
    const fail = (why: string): never => {
      throw new PathError(`${field} ${shownPath(input)}: ${why}`);
    };
    if (input === '') fail('is empty; give a path under the root folder');
    const bad = UNPLAIN.exec(input);
    if (bad) fail(`contains ${unplainText(bad[0])}; give a plain path`);
    if (input.split('/').includes('..')) fail(`".." is not allowed; give a path under the root folder ${this.path}`);
    const full = isAbsolute(input) ? resolve(input) : resolve(this.path, input);
    if (!within(this.path, full) && !within(this.given, full)) fail(`is outside the root folder ${this.path}`);
    return full;
  }

  /** The real path of `full`, which must exist and lie in the root once its symbolic links are followed. */
  #real(full: string, input: string, field: string, what: string): string {
    let real: string;
    try {
      real = realpathSync.native(full);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? `no such ${what}` : describeFsError(err);
      throw new PathError(`${field} ${shownPath(input)}: ${why}`);
    }
    if (!within(this.path, real)) {
      throw new PathError(
        `${field} ${shownPath(input)}: leads outside the root folder ${this.path} (through a symbolic link, to ` +
          `${shownPath(real)})`,
      );
    }
    return real;
  }

  /**
   * Reads a regular file under the root of at most `maxBytes`: lstat first (a FIFO, a device, a folder is refused
   * unopened), then open with O_NONBLOCK|O_NOFOLLOW|O_NOCTTY and fstat (src/grader/safe-read.ts).
   */
  read(input: string, field: string, maxBytes: number): RootFile {
    const real = this.#real(this.#lexical(input, field), input, field, 'file');
    const got = readRegularFile(real, maxBytes);
    if (!got.ok) {
      const why = got.kind === 'not-regular' ? `${got.reason}; give a regular file` : got.reason;
      throw new PathError(`${field} ${shownPath(input)}: ${why}`);
    }
    return { path: real, bytes: got.bytes, identity: got.identity };
  }

  /**
   * Where an answers file may be written: its folder exists, is writable and lies in the root (real path), its name
   * is plain, and what is there now, if anything, is a regular file that is not `keep` (the claims file, by identity:
   * a hard link to it is the same file). A symbolic link, a FIFO, a device or a folder there is refused.
   */
  answersTarget(input: string, field: string, keep: FileIdentity): AnswersTarget {
    const full = this.#lexical(input, field);
    const name = basename(full);
    const fail = (why: string): never => {
      throw new PathError(`${field} ${shownPath(input)}: ${why}`);
    };
    if (full === this.path || full === this.given || input.endsWith('/') || input === '.' || input.endsWith('/.'))
      fail('is a folder; give a file name');
    const dir = this.#real(dirname(full), input, field, 'folder');
    const path = join(dir, name);
    try {
      if (!statSync(dir).isDirectory()) fail(`${dir} is not a folder`);
      const there = lstatOrUndefined(path);
      if (there) {
        if (there.isDirectory()) fail('is a folder; give a file name');
        if (!there.isFile()) fail(`is ${kindOf(path, there)}; answers are written only as a new or regular file`);
        if (there.dev === keep.dev && there.ino === keep.ino) fail('is the claims file; give another file');
      }
      accessSync(dir, constants.W_OK | constants.X_OK);
    } catch (err) {
      if (err instanceof PathError) throw err;
      fail(describeFsError(err));
    }
    return { path, pinnedFolder: dir };
  }
}
