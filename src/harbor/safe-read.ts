// Reading a file an agent may have planted (answers, evidence report, reward): a regular file only, never through a
// symlink, never blocking, under a size cap. Node's own modules only: the verifier's standalone grader uses it.
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, type Stats } from 'node:fs';
import { describeFsError } from '../messages.js';

/** Two paths with the same device and inode are one file (a hard link, a bind mount). */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** Why a file was not read: it is not there (or cannot be opened), it is not a regular file, or it is too large. */
export type RefusalKind = 'missing' | 'unreadable' | 'not-regular' | 'too-large' | 'replaced';

/** The bytes, or why not: `reason` completes a sentence about the path ("is a named pipe (FIFO)"). */
export type SafeRead = { ok: true; bytes: Buffer; identity: FileIdentity } | { ok: false; kind: RefusalKind; reason: string; missing: boolean };

/** What a path is when it is not a regular file, in words; a link says where it points. */
export function kindOf(path: string, st: Stats): string {
  if (st.isSymbolicLink()) {
    try {
      return `a symbolic link (to ${readlinkSync(path)})`;
    } catch {
      return 'a symbolic link';
    }
  }
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

const refused = (kind: RefusalKind, reason: string): SafeRead => ({ ok: false, kind, reason, missing: kind === 'missing' });
const over = (size: string, maxBytes: number): string => `is ${size}, over the ${maxBytes.toLocaleString('en-US')}-byte limit`;

/**
 * The bytes of `path` when it is a regular file of at most `maxBytes`. The path is looked at without following it
 * first, so a device is never opened (opening one can have effects, a terminal would become ours); then opened with
 * O_NOFOLLOW|O_NONBLOCK|O_NOCTTY and checked again by fstat, in case it was swapped in between; then read to its end,
 * not to the size fstat gave, so that a file that grows past the cap while it is read is refused, not cut.
 */
export function readRegularFile(path: string, maxBytes: number): SafeRead {
  let before: Stats;
  try {
    before = lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return refused(code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable', describeFsError(err));
  }
  if (!before.isFile()) return refused('not-regular', `is ${kindOf(path, before)}`);
  if (before.size > maxBytes) return refused('too-large', over(`${before.size.toLocaleString('en-US')} bytes`, maxBytes));
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    return refused('unreadable', describeFsError(err));
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.dev !== before.dev || st.ino !== before.ino) return refused('replaced', 'was replaced while it was read');
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) return refused('too-large', over('growing', maxBytes));
      chunks.push(chunk.subarray(0, n));
    }
    return { ok: true, bytes: Buffer.concat(chunks, total), identity: { dev: st.dev, ino: st.ino } };
  } catch (err) {
    return refused('unreadable', describeFsError(err));
  } finally {
    closeSync(fd);
  }
}
