// Output files: paths checked before any work (a folder, a device or a missing or read-only folder is refused in one
// line, and nothing is created), and written atomically (a temp file renamed over the path).
import { randomBytes } from 'node:crypto';
import { accessSync, constants, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, parse as parsePath, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { describeFsError } from '../grader/grade.mjs';

/** An output path that cannot be written; `message` is one line naming the option and the path. */
export class OutputPathError extends UserError {
  override readonly name = 'OutputPathError';
}

interface OutputPathOptions {
  /**
   * The writer creates missing folders (mkdir -p): a missing folder is fine when its nearest existing ancestor is a
   * writable folder.
   */
  createFolders?: boolean;
  /** The path is a folder the writer fills (export --out), not a file. */
  folder?: boolean;
}

/**
 * Can the process create and rename entries in `dir`? access(2) answers without leaving a probe file behind (and
 * reports a read-only mount).
 */
export function writableFolder(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Checks, before any work, that `path` (given as option `flag`) can be written the way quotecheck
 * writes it: a temp file in the same folder renamed over it, so what matters is that the path is
 * not a folder or a device and that its folder exists and is writable. Nothing is created: a run
 * refused later leaves no file behind. Throws OutputPathError with one line, e.g.
 * `--report /tmp/x: is a folder` or `--report /a/b/r.jsonl: folder /a/b does not exist`.
 */
export function checkOutputPath(path: string, flag: string, opts: OutputPathOptions = {}): void {
  const fail = (why: string): never => {
    throw new OutputPathError(`${flag} ${path}: ${why}`);
  };
  if (path.trim() === '')
    throw new OutputPathError(`${flag}: the path is empty; give a ${opts.folder ? 'folder' : 'file'} name`);
  const full = resolve(path);
  try {
    const info = statOrUndefined(full);
    if (info) {
      if (opts.folder) {
        if (!info.isDirectory()) fail('exists and is not a folder');
        if (!writableFolder(full)) fail('folder is not writable (permission denied)');
        return;
      }
      if (info.isDirectory()) fail('is a folder; give a file name');
      // The temp file + rename would replace a device or a pipe (as root, even /dev/null) with a regular file.
      if (!info.isFile()) fail('is not a regular file');
    }
    let dir = dirname(full);
    const root = parsePath(full).root;
    for (;;) {
      const dirInfo = statOrUndefined(dir);
      if (dirInfo) {
        if (!dirInfo.isDirectory()) fail(`${dir} is not a folder`);
        if (!writableFolder(dir)) fail(`folder ${dir} is not writable (permission denied)`);
        return;
      }
      if (!opts.createFolders || dir === root) fail(`folder ${dir} does not exist`);
      dir = dirname(dir);
    }
  } catch (err) {
    if (err instanceof OutputPathError) throw err;
    fail(describeFsError(err));
  }
}

/**
 * Every file a command will write (`[flag, path]`, unset ones skipped), checked before any work: each can be written
 * (checkOutputPath), none is the claims file it reads, and no two are the same file. Throws OutputPathError.
 */
export function checkOutputPaths(outputs: readonly [flag: string, path: string | undefined][], claims: string): void {
  const given = outputs.filter((o): o is [string, string] => o[1] !== undefined);
  for (const [flag, path] of given) checkOutputPath(path, flag);
  for (const [i, [flag, path]] of given.entries()) {
    if (resolve(path) === resolve(claims))
      throw new OutputPathError(`${flag} ${path}: is the claims file; writing it would destroy the claims`);
    for (const [other, otherPath] of given.slice(i + 1))
      if (resolve(path) === resolve(otherPath))
        throw new OutputPathError(`${flag} and ${other} name the same file ${path}; give each its own`);
  }
}

/**
 * A temp file's path beside `path` (same folder, so a rename over `path` is atomic), under a name nobody can guess:
 * opened with O_CREAT|O_EXCL ('wx'), it is never a link or a pipe planted there.
 */
export function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path).slice(0, 64)}.${randomBytes(8).toString('hex')}.tmp`);
}

/**
 * Where an answers file goes: its path, and optionally the folder it must still be in when written (a real path,
 * checked at each write).
 */
export interface AnswersTarget {
  path: string;
  /**
   * The folder's real path as checked when the target was chosen (the MCP server's root rules): a write refuses when it
   * moved.
   */
  pinnedFolder?: string;
}

/**
 * Writes `content` to `target` atomically: a new temp file in the same folder, made with O_CREAT|O_EXCL under an
 * unguessable name (never through a link or a pipe planted there), renamed over the target (which replaces the name
 * and never opens what was there). Readers never see half a file.
 */
export function writeFileAtomicSync(target: string | AnswersTarget, content: string): void {
  const { path, pinnedFolder } = typeof target === 'string' ? { path: target, pinnedFolder: undefined } : target;
  if (pinnedFolder !== undefined && realpathSync.native(pinnedFolder) !== pinnedFolder)
    throw new Error(`folder ${pinnedFolder} was moved or replaced`);
  const tmp = tempPath(path);
  try {
    writeFileSync(tmp, content, { flag: 'wx' });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
