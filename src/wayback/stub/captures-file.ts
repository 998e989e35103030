// The captures `quotecheck wayback-stub --captures` serves, read from a JSON array, JSON Lines or a folder holding
// captures.json: each capture checked, with the line and the field of a mistake.
import fs from 'node:fs';
import path from 'node:path';
import type { Capture } from './captures.js';
import { readJsonArray } from './loopback.js';
import { TS14, clampTimestamp } from './keys.js';
import { UserError } from '../../errors.js';
/** Reads a JSON array of Capture objects (bodies inline as strings, or files relative to the stub's baseDir). */
export function loadCaptures(file: string): Capture[] {
  const data = readJsonArray(file, 'capture table', 'captures');
  data.forEach((c: unknown, i: number) => {
    const o = c as Partial<Capture> | null;
    if (
      typeof o !== 'object' ||
      o === null ||
      typeof o.url !== 'string' ||
      typeof o.timestamp !== 'string' ||
      !TS14.test(o.timestamp)
    ) {
      throw new Error(`capture table ${file}: capture #${i} needs a string "url" and a 14-digit string "timestamp"`);
    }
  });
  return data as Capture[];
}

/** A captures input that cannot be served: its message is one line naming the file, the capture and what is wrong. */
class CapturesInputError extends UserError {
  override readonly name = 'CapturesInputError';
}

/**
 * What `quotecheck wayback-stub --captures` reads: the captures, and the folder their `file` bodies are relative to.
 */
interface CapturesInput {
  captures: Capture[];
  baseDir: string;
  /** The file the captures came from. */
  file: string;
}

/** The files a captures folder may hold, tried in this order. */
const CAPTURES_FILES = ['captures.json', 'captures.jsonl'] as const;

const CAPTURE_KEYS = new Set(['url', 'timestamp', 'status', 'mimetype', 'headers', 'file', 'body', 'location']);

/** Why one capture (a parsed JSON value) cannot be served, or undefined when it can. */
function captureProblem(o: unknown, baseDir: string): string | undefined {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return 'is not a JSON object';
  const c = o as Record<string, unknown>;
  const unknownKey = Object.keys(c).find((k) => !CAPTURE_KEYS.has(k));
  if (unknownKey !== undefined)
    return `has an unknown field ${JSON.stringify(unknownKey)} (fields: ${[...CAPTURE_KEYS].join(', ')})`;
  if (typeof c.url !== 'string') return 'needs a string "url"';
  let parsed: URL | undefined;
  try {
    parsed = new URL(c.url);
  } catch {
    // said below
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    return `"url" ${JSON.stringify(c.url)} is not an http(s) URL`;
  if (typeof c.timestamp !== 'string' || !TS14.test(c.timestamp) || clampTimestamp(c.timestamp) !== c.timestamp) {
    return '"timestamp" must be a string of 14 digits, a valid UTC time (yyyyMMddhhmmss)';
  }
  if (
    c.status !== undefined &&
    (typeof c.status !== 'number' || !Number.isInteger(c.status) || c.status < 100 || c.status > 599)
  )
    return '"status" must be an HTTP status (100-599)';
  if (c.mimetype !== undefined && typeof c.mimetype !== 'string') return '"mimetype" must be a string';
  if (
    c.headers !== undefined &&
    (typeof c.headers !== 'object' ||
      c.headers === null ||
      Array.isArray(c.headers) ||
      Object.values(c.headers).some((v) => typeof v !== 'string'))
  ) {
    return '"headers" must be an object of strings';
  }
  if (c.location !== undefined && typeof c.location !== 'string') return '"location" must be a string';
  if (c.body !== undefined && typeof c.body !== 'string') return '"body" must be a string';
  if (c.file !== undefined && c.body !== undefined) return 'has both "file" and "body": give one';
  if (c.file !== undefined) {
    if (typeof c.file !== 'string' || c.file === '') return '"file" must be a path (relative to the captures file)';
    const full = path.resolve(baseDir, c.file);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(full);
    } catch {
      return `"file" ${c.file}: no such file ${full}`;
    }
    if (!stat.isFile()) return `"file" ${c.file}: ${full} is not a file`;
  }
  return undefined;
}

/**
 * The captures of a JSON array (`.json`) or of JSON Lines (one capture a line; blank lines skipped), each with where it
 * was.
 */
function parseCapturesFile(file: string, text: string): { value: unknown; where: string }[] {
  const lines = /\.jsonl$/i.test(file) || (!text.trimStart().startsWith('[') && text.trim() !== '');
  if (!lines) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new CapturesInputError(`--captures ${file}: not valid JSON: ${(err as Error).message}`);
    }
    if (!Array.isArray(data))
      throw new CapturesInputError(
        `--captures ${file}: must be a JSON array of captures (or JSON Lines, one capture a line)`,
      );
    return data.map((value, i) => ({ value, where: `capture #${i}` }));
  }
  const out: { value: unknown; where: string }[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push({ value: JSON.parse(line), where: `line ${i + 1}` });
    } catch (err) {
      throw new CapturesInputError(`--captures ${file}: line ${i + 1} is not valid JSON: ${(err as Error).message}`);
    }
  });
  return out;
}

/**
 * Reads what `quotecheck wayback-stub --captures` names: a JSON file (an array of captures, or JSON Lines with one a
 * line), or a folder holding captures.json (or captures.jsonl). Each capture is a Capture: `url`, `timestamp` (14
 * digits) and optionally `status`, `mimetype`, `headers`, `location`, and its body inline (`body`) or from `file`,
 * relative to the captures file. Every capture is checked before anything is served: the first problem is one line.
 */
export function readCapturesInput(input: string): CapturesInput {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(input);
  } catch {
    throw new CapturesInputError(`--captures ${input}: no such file or folder`);
  }
  let file = input;
  if (stat.isDirectory()) {
    const found = CAPTURES_FILES.map((name) => path.join(input, name)).find((f) => fs.existsSync(f));
    if (!found) throw new CapturesInputError(`--captures ${input}: the folder has no ${CAPTURES_FILES.join(' or ')}`);
    file = found;
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CapturesInputError(
      `--captures ${file}: cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  const baseDir = path.dirname(path.resolve(file));
  const entries = parseCapturesFile(file, text);
  if (entries.length === 0) throw new CapturesInputError(`--captures ${file}: holds no captures`);
  for (const { value, where } of entries) {
    const problem = captureProblem(value, baseDir);
    if (problem) {
      const o = value as { url?: unknown; timestamp?: unknown } | null;
      const named =
        typeof o === 'object' && o !== null && typeof o.url === 'string'
          ? ` (${o.url}${typeof o.timestamp === 'string' ? ` @ ${o.timestamp}` : ''})`
          : '';
      throw new CapturesInputError(`--captures ${file}: ${where}${named} ${problem}`);
    }
  }
  return { captures: entries.map((e) => e.value as Capture), baseDir, file };
}
