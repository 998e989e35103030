// A claims file read from disk or bytes: size-limited, UTF-8, nesting-limited, JSON with a located syntax error, then
// claims.ts's schema.
import { open, type FileHandle } from 'node:fs/promises';
import { thousands } from '../messages.js';
import { CLI_DEFAULTS } from '../config/defaults.js';
import { ClaimsFileError, parseClaims, type ClaimSet } from './schema.js';
import { lineAndColumn, parseJsonText, tooDeepAt, describeFsError } from '../grader/grade.mjs';

/** Largest claims file readClaimsFile reads unless told otherwise (defaults.ts CLI_DEFAULTS.maxClaimsMb). */
export const DEFAULT_MAX_CLAIMS_BYTES = CLI_DEFAULTS.maxClaimsMb * 1024 * 1024;

/**
 * Deepest nesting of arrays and objects read. A claims file needs three levels; V8 parses any
 * depth, but a few megabytes of `[[[[...` become millions of nested arrays and gigabytes of heap
 * and tens of seconds, more than a task container has. Python's json module
 * stops near this depth too (its default recursion limit), so no file it wrote is refused.
 */
const MAX_CLAIMS_JSON_DEPTH = 1000;

export interface ReadClaimsOptions {
  /** Largest file read, in bytes (default DEFAULT_MAX_CLAIMS_BYTES); a larger one is a ClaimsFileError. */
  maxBytes?: number;
}

const MB = 1024 * 1024;

function megabytesText(bytes: number): string {
  return `${Number((bytes / MB).toPrecision(3))} MB`;
}

function tooLarge(path: string, size: number | undefined, maxBytes: number): ClaimsFileError {
  const what = size === undefined ? 'is larger than' : `is ${megabytesText(size)} (${thousands(size)} bytes), over`;
  return new ClaimsFileError(
    `${path}: claims file ${what} the ${megabytesText(maxBytes)} limit for claims files; ` +
      `if it really is that large, raise the limit with --max-claims-mb (option maxBytes of readClaimsFile)`,
  );
}

/** Reads at most `limit` bytes; null when there are more (a pipe or a growing file has no size to stat). */
async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  const chunkSize = Math.min(1 << 20, limit + 1);
  for (;;) {
    const buf = Buffer.allocUnsafe(chunkSize);
    const { bytesRead } = await handle.read(buf, 0, chunkSize, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    total += bytesRead;
    if (total > limit) return null;
    chunks.push(bytesRead === chunkSize ? buf : buf.subarray(0, bytesRead));
  }
}

/** Decodes claims file bytes: UTF-8 only (a BOM is allowed); the error names where decoding first fails. */
function decodeUtf8(bytes: Uint8Array, source: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const lenient = new TextDecoder('utf-8').decode(bytes);
    const bad = lenient.indexOf('\uFFFD');
    const line = lenient.slice(0, bad).split('\n').length;
    throw new ClaimsFileError(`${source}: is not valid UTF-8 (first bad byte on line ${line}); save it as UTF-8`);
  }
}

/**
 * Reads and validates a claims file; every failure is a ClaimsFileError naming the file.
 * Files over `maxBytes` (default 64 MB) are refused before they are read.
 */
export async function readClaimsFile(path: string, options: ReadClaimsOptions = {}): Promise<ClaimSet> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_CLAIMS_BYTES;
  let bytes: Buffer | null;
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    const info = await handle.stat();
    if (info.isFile() && info.size > maxBytes) throw tooLarge(path, info.size, maxBytes);
    bytes = await readAtMost(handle, maxBytes);
  } catch (err) {
    if (err instanceof ClaimsFileError) throw err;
    throw new ClaimsFileError(`${path}: cannot read claims file: ${describeFsError(err)}`);
  } finally {
    await handle?.close();
  }
  if (bytes === null) throw tooLarge(path, undefined, maxBytes);
  return parseClaimsBytes(bytes, path);
}

/**
 * A claims file's bytes, however they were read (readClaimsFile; the MCP server reads under its root): UTF-8
 * (a BOM allowed), nested no deeper than MAX_CLAIMS_JSON_DEPTH, JSON, then the claims. Errors name `source`.
 */
export function parseClaimsBytes(bytes: Buffer, source: string): ClaimSet {
  let text: string;
  try {
    text = decodeUtf8(bytes, source);
  } catch (err) {
    if (err instanceof ClaimsFileError) throw err;
    // e.g. more text than a JavaScript string holds, when the size limit was raised far enough
    throw new ClaimsFileError(`${source}: cannot be decoded as text: ${(err as Error).message}`);
  }
  const deep = tooDeepAt(text, MAX_CLAIMS_JSON_DEPTH);
  if (deep !== -1) {
    throw new ClaimsFileError(
      `${source}: JSON nested more than ${MAX_CLAIMS_JSON_DEPTH} levels deep (at ${lineAndColumn(text, deep)}); ` +
        `a claims file is an array of claim objects (or {"claims": [...]}) and needs only a few levels`,
    );
  }
  const json = parseJsonText(text, ClaimsFileError, `${source}: is not valid JSON`);
  return parseClaims(json, source);
}
