// Files between a trial's containers and the host, as the engine's tar streams carry them (`cp CONTAINER:PATH -`): kept
// as a tar file (an artifact, handed to the verifier's container exactly as it came), or unpacked on the host as
// regular files and folders only, under size caps, never a link, a FIFO or a device, never outside the folder given.
import { closeSync, createReadStream, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { Writable } from 'node:stream';
import { Parser, type ReadEntry } from 'tar';
import { copyIn, copyOut, type CliResult, type Container } from './engine.js';

/** How long one copy may take. */
const COPY_TIMEOUT_SEC = 300;

/** The words a copy's failure is said in when the path is not there (Podman's and Docker's). */
const MISSING = /no such file|could not find the file|not found/i;

/** What a tar entry is, in a few words (the notes say what an artifact was when it was not a file). */
const KINDS: Readonly<Record<string, string>> = {
  SymbolicLink: 'a symbolic link',
  Link: 'a hard link',
  FIFO: 'a FIFO',
  CharacterDevice: 'a device',
  BlockDevice: 'a device',
  Directory: 'a folder',
};
const entryKind = (type: string): string => KINDS[type] ?? (type === 'File' ? 'a file' : 'a special file');

/** A copy out of a container: kept, missing, over its cap, or failed with the engine's words. */
type TakeOut = { ok: true; bytes: number } | { ok: false; missing: boolean; reason: string };

/** A sink that writes to a host file opened for it alone, and stops the copy past `cap` bytes. */
class CappedFile extends Writable {
  readonly #fd: number;
  bytes = 0;
  over = false;
  constructor(
    path: string,
    readonly cap: number,
    readonly stop: AbortController,
  ) {
    super();
    this.#fd = openSync(path, 'wx', 0o600);
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, next: (err?: Error | null) => void): void {
    this.bytes += chunk.length;
    if (this.bytes > this.cap) {
      this.over = true;
      this.stop.abort();
      next();
      return;
    }
    writeSync(this.#fd, chunk);
    next();
  }
  close(): void {
    closeSync(this.#fd);
  }
}

/** Why a copy out failed, from its result. */
function failure(r: CliResult, path: string, cap: number, over: boolean): TakeOut {
  if (over) return { ok: false, missing: false, reason: `${path} is over ${cap} bytes: not copied` };
  const said = r.output.toString('utf8').trim().split('\n').slice(-1)[0] ?? '';
  if (MISSING.test(said)) return { ok: false, missing: true, reason: `${path}: no such file` };
  return { ok: false, missing: false, reason: `${path} not copied: ${r.timedOut ? 'the copy timed out' : said}` };
}

/** A container's path into a host tar file (made for it, never an existing one), at most `cap` bytes of tar. */
export async function takeOut(c: Container, path: string, tarFile: string, cap: number): Promise<TakeOut> {
  mkdirSync(dirname(tarFile), { recursive: true });
  const stop = new AbortController();
  const sink = new CappedFile(tarFile, cap, stop);
  const r = await copyOut(c, path, sink, COPY_TIMEOUT_SEC, stop.signal);
  sink.close();
  if (r.code === 0 && !sink.over) return { ok: true, bytes: sink.bytes };
  rmSync(tarFile, { force: true });
  return failure(r, path, cap, sink.over);
}

/** A tar file taken out of one container, unpacked by the engine into a folder of another (its parent must exist). */
export function handIn(c: Container, dir: string, tarFile: string): Promise<CliResult> {
  return copyIn(c, dir, createReadStream(tarFile), COPY_TIMEOUT_SEC);
}

/** The caps of an unpacking: per file, and over all files. */
export interface UnpackCaps {
  fileBytes: number;
  totalBytes: number;
}

/** What was unpacked and what was left out (by path, with why). */
interface Unpacked {
  files: string[];
  skipped: { path: string; why: string }[];
}

/** An entry's path under the folder, or undefined when it would lead out of it (absolute, or through `..`). */
function entryPath(raw: string): string | undefined {
  const path = normalize(raw.replace(/^(\.\/)+/, '')).replace(/\/+$/, '');
  if (path === '' || path === '.' || path.startsWith('/') || path === '..' || path.startsWith('../')) return undefined;
  return path;
}

/** Unpacks one entry into `dir` as the rule says: folders and regular files only, within the caps. */
function unpackEntry(e: ReadEntry, dir: string, caps: UnpackCaps, out: Unpacked, total: { bytes: number }): void {
  const path = entryPath(e.path);
  if (path === undefined) {
    if (e.path.replace(/^(\.\/)+/, '') !== '') out.skipped.push({ path: e.path, why: 'a path leading out' });
    e.resume();
    return;
  }
  if (e.type === 'Directory') {
    mkdirSync(join(dir, path), { recursive: true });
    e.resume();
    return;
  }
  if (e.type !== 'File' && e.type !== 'OldFile') {
    out.skipped.push({ path, why: entryKind(e.type) });
    e.resume();
    return;
  }
  if (e.size > caps.fileBytes || total.bytes + e.size > caps.totalBytes) {
    out.skipped.push({ path, why: `over ${Math.min(caps.fileBytes, caps.totalBytes - total.bytes)} bytes` });
    e.resume();
    return;
  }
  total.bytes += e.size;
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  // A fresh file of this folder (made by evaluate, written by it alone): never one that is there.
  const fd = openSync(join(dir, path), 'wx', 0o600);
  e.on('data', (d: Buffer) => writeSync(fd, d));
  e.on('end', () => closeSync(fd));
  out.files.push(path);
}

/** A tar stream's folders and regular files unpacked into `dir`; everything else skipped and said. */
function unpackInto(dir: string, caps: UnpackCaps): { sink: Writable; done: Promise<Unpacked> } {
  mkdirSync(dir, { recursive: true });
  const out: Unpacked = { files: [], skipped: [] };
  const total = { bytes: 0 };
  const parser = new Parser({ strict: false, onReadEntry: (e) => unpackEntry(e, dir, caps, out, total) });
  const done = new Promise<Unpacked>((resolveUnpack) => {
    parser.on('end', () => resolveUnpack(out));
    parser.on('close', () => resolveUnpack(out));
    parser.on('error', () => resolveUnpack(out));
  });
  return { sink: parser as unknown as Writable, done };
}

/** A host tar file unpacked (unpackInto's rule) into `dir`. */
export async function unpackFile(tarFile: string, dir: string, caps: UnpackCaps): Promise<Unpacked> {
  const { sink, done } = unpackInto(dir, caps);
  createReadStream(tarFile).pipe(sink);
  return done;
}

/** A container's folder (its contents) unpacked on the host by unpackInto's rule; the copy's failure said. */
export async function downloadDir(
  c: Container,
  from: string,
  dir: string,
  caps: UnpackCaps,
): Promise<{ unpacked: Unpacked; problem?: string }> {
  const { sink, done } = unpackInto(dir, caps);
  const r = await copyOut(c, `${from}/.`, sink, COPY_TIMEOUT_SEC);
  sink.end();
  const unpacked = await done;
  if (r.code === 0) return { unpacked };
  const said = r.output.toString('utf8').trim().split('\n').slice(-1)[0] ?? '';
  return { unpacked, ...(MISSING.test(said) ? {} : { problem: `${from} not copied: ${said}` }) };
}
