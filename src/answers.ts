// Answers (design.md §2), written atomically and always; and the rules every file quotecheck writes follows: output paths checked before any work, file-system errors in words.
import { accessSync, constants, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, parse as parsePath, resolve } from 'node:path';

export type Label = 'verbatim' | 'no_match';
export type AnswerFormat = 'map' | 'list';

/** Every claim starts as `no_match`: whatever happens, an answer file written now is complete and valid. */
export class AnswerBook {
  private readonly labels = new Map<string, Label>();

  constructor(ids: readonly string[]) {
    for (const id of ids) this.labels.set(id, 'no_match');
  }

  set(id: string, label: Label): void {
    if (!this.labels.has(id)) throw new Error(`unknown claim id ${JSON.stringify(id)}`);
    this.labels.set(id, label);
  }

  get size(): number {
    return this.labels.size;
  }

  /** The answers file's content: `{id: label}` or `[{id, label}]`, in input order. */
  serialize(format: AnswerFormat): string {
    const body = format === 'map'
      ? Object.fromEntries(this.labels)
      : [...this.labels].map(([id, label]) => ({ id, label }));
    return `${JSON.stringify(body, null, 2)}\n`;
  }
}

let tempCounter = 0;
function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${tempCounter++}.tmp`);
}

/** Writes via a temp file in the same folder and a rename, so readers never see half a file. */
export function writeFileAtomicSync(path: string, content: string): void {
  const tmp = tempPath(path);
  try {
    writeFileSync(tmp, content);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Keeps an answers file in step with an AnswerBook: written at once (all `no_match`), then
 * again as claims are decided (at most every `intervalMs`), so a run killed at any moment
 * leaves a valid file with everything decided so far. Writes are synchronous (a few
 * milliseconds even for 50,000 claims), so no older write can land after a newer one.
 */
export class AnswersFile {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly path: string,
    readonly format: AnswerFormat,
    readonly book: AnswerBook,
    private readonly intervalMs = 250,
  ) {}

  /** Writes the current answers now; throws if the path cannot be written. */
  write(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    writeFileAtomicSync(this.path, this.book.serialize(this.format));
  }

  /** Asks for a write soon; a burst of decisions makes one write. A failed write is retried by the next one. */
  schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      try {
        this.write();
      } catch {
        // The final write() reports the error; an intermediate one must not kill the run.
      }
    }, this.intervalMs);
  }
}

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

/** "1 claim", "2 claims"; `many` for words whose plural is not word + "s". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** An output path that cannot be written; `message` is one line naming the option and the path. */
export class OutputPathError extends Error {
  override readonly name = 'OutputPathError';
}

export interface OutputPathOptions {
  /** The writer creates missing folders (mkdir -p): a missing folder is fine when its nearest existing ancestor is a writable folder. */
  createFolders?: boolean;
  /** The path is a folder the writer fills (export --out), not a file. */
  folder?: boolean;
}

/** Can the process create and rename entries in `dir`? access(2) answers without leaving a probe file behind (and reports a read-only mount). */
function writableFolder(dir: string): boolean {
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
