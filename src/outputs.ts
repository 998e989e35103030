// Output paths checked before any work: a folder, a device or a missing or read-only folder is refused in one line, and nothing is created.
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, parse as parsePath, resolve } from 'node:path';
import { describeFsError } from './messages.js';
import { UserError } from './errors.js';

/** An output path that cannot be written; `message` is one line naming the option and the path. */
export class OutputPathError extends UserError {
  override readonly name = 'OutputPathError';
}

export interface OutputPathOptions {
  /** The writer creates missing folders (mkdir -p): a missing folder is fine when its nearest existing ancestor is a writable folder. */
  createFolders?: boolean;
  /** The path is a folder the writer fills (export --out), not a file. */
  folder?: boolean;
}

/** Can the process create and rename entries in `dir`? access(2) answers without leaving a probe file behind (and reports a read-only mount). */
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
  if (path.trim() === '') throw new OutputPathError(`${flag}: the path is empty; give a ${opts.folder ? 'folder' : 'file'} name`);
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
