// Files under a namespace container's root as the host reaches it (/proc/PID/root), never through a link an agent
// made: each folder is opened from the one before it with O_DIRECTORY | O_NOFOLLOW (through /proc/self/fd, Node's
// openat), a file is read through one O_NOFOLLOW descriptor and written by O_CREAT | O_EXCL | O_NOFOLLOW. A link
// swapped in between a check and a copy is never followed: there is no check apart from the open.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  rmSync,
  symlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { dirname, join } from 'node:path';

const { O_RDONLY, O_WRONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_CREAT, O_EXCL } = constants;

/** An entry of the folder open as `fd`, by a path the kernel resolves from that folder (the last name not followed). */
const at = (fd: number, name: string): string => `/proc/self/fd/${fd}/${name}`;

/** A container path's names, refused when one would climb out (`..`). */
function partsOf(path: string): string[] {
  const parts = path.split('/').filter((p) => p && p !== '.');
  if (parts.includes('..')) throw new Error(`${path}: a path with '..'`);
  return parts;
}

/** Why a walk stopped, in a few words, with `missing` set when nothing is there. */
function walkError(err: unknown, path: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return Object.assign(new Error(`${path}: no such file`), { missing: true });
  if (code === 'ELOOP' || code === 'ENOTDIR') return new Error(`${path}: a link or a file on the way, not followed`);
  return new Error(`${path}: ${(err as Error).message}`);
}

/**
 * The folder `parts` under `root`, opened without following any link on the way; each missing folder made (0755)
 * when `create`. The caller closes the descriptor.
 */
function openDir(root: string, parts: readonly string[], create: boolean): number {
  let fd = openSync(root, O_RDONLY | O_DIRECTORY);
  try {
    for (const part of parts) {
      let next: number;
      try {
        next = openSync(at(fd, part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (err) {
        if (!create || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        // mkdir never follows its last name: a link there is EEXIST, and the open below refuses it.
        mkdirSync(at(fd, part), 0o755);
        next = openSync(at(fd, part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      }
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** A device's major and minor numbers from st_rdev, as Linux packs them. */
const deviceNumbers = (rdev: number): [number, number] => [
  Math.floor(rdev / 256) & 0xfff,
  (rdev & 0xff) | ((Math.floor(rdev / 4096) & 0xfff00) >>> 0),
];

/** A FIFO or a device node made again at `to`, of the same kind and mode. */
function remakeSpecial(st: Stats, to: string): string {
  const mode = (st.mode & 0o777).toString(8);
  if (st.isFIFO()) {
    spawnSync('mkfifo', ['-m', mode, to]);
    return 'a FIFO';
  }
  const [major, minor] = deviceNumbers(st.rdev);
  spawnSync('mknod', ['-m', mode, to, st.isCharacterDevice() ? 'c' : 'b', String(major), String(minor)]);
  return 'a device';
}

/** Up to `cap` bytes from one open file to another. */
function pump(from: number, to: number, cap: number): void {
  const buf = Buffer.alloc(Math.min(1024 * 1024, Math.max(1, cap)));
  let done = 0;
  while (done < cap) {
    const n = readSync(from, buf, 0, Math.min(buf.length, cap - done), null);
    if (n <= 0) break;
    writeSync(to, buf, 0, n);
    done += n;
  }
}

/** One entry of the folder `dirFd` out to the host path `to`, as a harness copies it: see copyOutOf. */
function copyEntryOut(dirFd: number, name: string, to: string, cap: number): string {
  const st = lstatSync(at(dirFd, name));
  if (st.isSymbolicLink()) {
    symlinkSync(readlinkSync(at(dirFd, name)), to);
    return 'a symbolic link';
  }
  if (st.isFIFO() || st.isCharacterDevice() || st.isBlockDevice()) return remakeSpecial(st, to);
  if (st.isDirectory()) {
    const sub = openSync(at(dirFd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    try {
      mkdirSync(to, { mode: st.mode & 0o777 });
      for (const child of readdirSync(`/proc/self/fd/${sub}`)) copyEntryOut(sub, child, join(to, child), cap);
    } finally {
      closeSync(sub);
    }
    return 'a folder';
  }
  if (st.isSocket()) throw new Error('a socket, not copied');
  // The one open: no link followed, no wait on a FIFO swapped in since the lstat; what it opened is what is copied.
  const fd = openSync(at(dirFd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const now = fstatSync(fd);
    if (!now.isFile()) return remakeSpecial(now, to);
    const out = openSync(to, 'wx', now.mode & 0o777);
    try {
      pump(fd, out, cap);
    } finally {
      closeSync(out);
    }
    return now.size > cap ? `a file cut at ${cap} bytes` : 'a file';
  } finally {
    closeSync(fd);
  }
}

/**
 * The entry at container path `path` under `root` copied to the host path `to` as a harness's copy carries it: a
 * regular file's bytes (up to `cap`), a link as the same link (never followed), a FIFO or a device node as a new one
 * of the same kind, a folder with what is in it. Returns what was copied, in a few words; throws why not (`missing`
 * set when nothing is there).
 */
export function copyOutOf(root: string, path: string, to: string, cap: number): string {
  const parts = partsOf(path);
  const name = parts.pop();
  if (name === undefined) throw new Error(`${path}: not a file's path`);
  let dir: number;
  try {
    dir = openDir(root, parts, false);
  } catch (err) {
    throw walkError(err, path);
  }
  try {
    mkdirSync(dirname(to), { recursive: true });
    return copyEntryOut(dir, name, to, cap);
  } catch (err) {
    throw (err as NodeJS.ErrnoException).code === 'ENOENT' ? walkError(err, path) : err;
  } finally {
    closeSync(dir);
  }
}

/** Removes what is at `name` in the folder `dirFd`: a link as a link (never followed), a folder with its contents. */
function clearEntry(dirFd: number, name: string): void {
  rmSync(at(dirFd, name), { recursive: true, force: true });
}

/** One host entry (trusted: the dataset's, or evaluate's staging) into the folder `dirFd` under `name`. */
function copyEntryIn(from: string, dirFd: number, name: string): void {
  const st = lstatSync(from);
  clearEntry(dirFd, name);
  if (st.isSymbolicLink()) symlinkSync(readlinkSync(from), at(dirFd, name));
  else if (st.isFIFO() || st.isCharacterDevice() || st.isBlockDevice()) remakeSpecial(st, at(dirFd, name));
  else if (st.isDirectory()) {
    mkdirSync(at(dirFd, name), st.mode & 0o777);
    const sub = openSync(at(dirFd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    try {
      for (const child of readdirSync(from)) copyEntryIn(join(from, child), sub, child);
    } finally {
      closeSync(sub);
    }
  } else if (st.isFile()) {
    const out = openSync(at(dirFd, name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, st.mode & 0o777);
    const src = openSync(from, 'r');
    try {
      pump(src, out, st.size);
      fchmodSync(out, st.mode & 0o777);
    } finally {
      closeSync(src);
      closeSync(out);
    }
  }
}

/**
 * A host file or folder copied to container path `path` under `root`, replacing what is there, with no link on the way
 * followed and none at the end written through: what an agent left at or above the path is a link in its own
 * container, never a host path. Missing folders on the way are made.
 */
export function copyInto(from: string, root: string, path: string): void {
  const parts = partsOf(path);
  const name = parts.pop();
  if (name === undefined) throw new Error(`${path}: not a file's path`);
  let dir: number;
  try {
    dir = openDir(root, parts, true);
  } catch (err) {
    throw walkError(err, path);
  }
  try {
    copyEntryIn(from, dir, name);
  } finally {
    closeSync(dir);
  }
}

/** Makes the file at container path `path` under `root` executable (0755), never through a link. */
export function chmodBeneath(root: string, path: string): void {
  const parts = partsOf(path);
  const name = parts.pop()!;
  const dir = openDir(root, parts, false);
  try {
    const fd = openSync(at(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    try {
      fchmodSync(fd, 0o755);
    } finally {
      closeSync(fd);
    }
  } finally {
    closeSync(dir);
  }
}
