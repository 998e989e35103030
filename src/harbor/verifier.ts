// The verifier's file rules (design.md §6): an answers file is read only when it is a regular file the agent wrote
// (never through a symlink, never blocking, never the gold itself, under a size cap), and the reward is written by
// temp file and rename, after every reward file left behind is removed. Node's own modules only: the task's
// standalone grader (tests/grade.mjs, scripts/bundle.ts) is built from this file.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { lineAndColumn, parseJsonText, tooDeepAt } from '../json-text.js';
import { formatGrade, formatReward, grade, GradeInputError, parseLabels, type Grade } from './grade.js';
import { readRegularFile, type FileIdentity } from './safe-read.js';

export type { FileIdentity } from './safe-read.js';

/**
 * Largest answers (and gold) file read: 16 MiB. An answer is about 30 bytes, so this is room for half a million
 * claims (SKBench-Env has 1,405 in all), and a file that has grown past it was not written to be graded.
 */
export const MAX_LABELS_BYTES = 16 * 1024 * 1024;

/** The reward files a harness reads (Harbor: reward.json before reward.txt): whatever the agent left under these names goes first. */
export const REWARD_FILES = ['reward.txt', 'reward.json'] as const;

/** Why a file is not graded: it is not a regular file, or it is too large, or it is the gold itself. */
export class RefusedFileError extends GradeInputError {}

export interface ReadLabelsOptions {
  /** Refused when the file is this one (by device and inode): the gold file, reached by a hard link or otherwise. */
  notSameAs?: FileIdentity;
  maxBytes?: number;
}

/**
 * A label file read the way a verifier must (safe-read.ts): the path itself a regular file (a symbolic link is refused
 * whatever it points to, and so are folders, FIFOs, devices and sockets), opened without following a link and without
 * blocking, no larger than the cap, and not the file `notSameAs` names; UTF-8 JSON in either answers format.
 * A refusal is a RefusedFileError that says what the path is; a file that cannot be read a GradeInputError.
 */
export function readLabels(path: string, what: string, opts: ReadLabelsOptions = {}): { labels: Map<string, string>; identity: FileIdentity } {
  const maxBytes = opts.maxBytes ?? MAX_LABELS_BYTES;
  const read = readRegularFile(path, maxBytes);
  if (!read.ok) {
    if (read.kind === 'missing' || read.kind === 'unreadable') throw new GradeInputError(`cannot read ${what} file ${path}: ${read.reason}`);
    throw new RefusedFileError(`${what} file ${path} ${read.reason}${read.kind === 'not-regular' ? ', not a regular file' : ''}: not graded`);
  }
  const { dev, ino } = read.identity;
  if (opts.notSameAs && dev === opts.notSameAs.dev && ino === opts.notSameAs.ino) {
    throw new RefusedFileError(`${what} file ${path} is the gold file itself (a link to it): not graded`);
  }
  return { labels: parseLabelBytes(read.bytes, `${what} file ${path}`), identity: read.identity };
}

/**
 * Deepest nesting a label file has: `{"id": "label"}` is 1, `[{"id": ..., "label": ...}]` is 2. Anything deeper is
 * not an answers file, and a few megabytes of `[[[[...` would cost gigabytes of heap to parse (claims.ts says how
 * much): it is refused before it is parsed.
 */
const MAX_LABELS_DEPTH = 2;

/** A label file's bytes (UTF-8 JSON, either answers format) as a map; every failure a GradeInputError naming `where`. */
export function parseLabelBytes(bytes: Uint8Array, where: string): Map<string, string> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new GradeInputError(`${where} is not valid UTF-8`);
  }
  const deep = tooDeepAt(text, MAX_LABELS_DEPTH);
  if (deep >= 0)
    throw new GradeInputError(
      `${where} is nested deeper than a label file is (at ${lineAndColumn(text, deep)}): expected {"<id>": "<label>"} or [{"id", "label"}]`,
    );
  return parseLabels(parseJsonText(text, GradeInputError, `${where} is not valid JSON`), where);
}

/** A fresh name in `dir` that nothing else uses: a reward's temp file, or the new name of a stale one. */
const freshName = (dir: string, stem: string): string => join(dir, `.${stem}-${randomBytes(6).toString('hex')}`);

/**
 * Makes `dir` a real, writable folder: a symbolic link or a file in its place is removed (a folder is made there
 * instead), and a folder this process owns but cannot write (the agent made it read-only) gets its owner's
 * write permission back. A folder owned by someone else that this process cannot write stays an error.
 */
export function prepareFolder(dir: string): void {
  let st: Stats | undefined;
  try {
    st = lstatSync(dir);
  } catch {
    st = undefined;
  }
  if (st && !st.isDirectory()) {
    unlinkSync(dir);
    st = undefined;
  }
  if (!st) {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    return;
  }
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && st.uid === uid && (st.mode & 0o300) !== 0o300) chmodSync(dir, (st.mode & 0o7777) | 0o700);
}

/**
 * Removes whatever is at `path` without following it: a file, a symbolic link (not its target), a FIFO, a device,
 * or a folder with all it holds. What cannot be removed (a folder the agent filled with read-only folders, when this
 * process is not root) is renamed out of the way to a hidden name, which no harness reads.
 */
export function removeEntry(path: string): void {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  try {
    if (st.isDirectory()) rmSync(path, { recursive: true, force: true });
    else unlinkSync(path);
    return;
  } catch {
    // fall through: move it aside
  }
  renameSync(path, freshName(dirname(path), `stale-${basename(path)}`));
}

/**
 * Writes `content` to `path` so that it is either the old entry or the whole new file, never a mix, and never
 * through a symbolic link: a new temp file beside it (created exclusively, not following links), synced, then
 * renamed over `path` (rename replaces a link or a file; a folder, a FIFO or anything else there is removed first).
 */
export function replaceFile(path: string, content: string): void {
  let st: Stats | undefined;
  try {
    st = lstatSync(path);
  } catch {
    st = undefined;
  }
  if (st && !st.isFile() && !st.isSymbolicLink()) removeEntry(path);
  const tmp = freshName(dirname(path), basename(path));
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Writes the reward (a decimal and a newline) to `path` by replaceFile. */
export function writeRewardFile(path: string, reward: number): void {
  replaceFile(path, `${formatReward(reward)}\n`);
}

/** Every reward file a harness could read in `logsDir` removed, and reward.txt written as 0: what stands until the grade is known. */
export function resetRewards(logsDir: string): void {
  prepareFolder(logsDir);
  for (const name of REWARD_FILES) removeEntry(join(logsDir, name));
  writeRewardFile(join(logsDir, REWARD_FILES[0]), 0);
}

export interface VerifyOptions {
  answers: string;
  gold: string;
  /** The verifier's log folder: stale reward files there are removed and reward.txt is written. */
  logsDir: string;
}

export interface Verdict {
  reward: number;
  /** Set when the answers were not graded (reward 0): why, in one line. */
  refused?: string;
  grade?: Grade;
  /** What the verifier prints: the grade, or the reason for 0. */
  text: string;
}

/**
 * The verifier: resets the rewards (0 stands from the start), reads the gold (its own file, by the same rules),
 * reads the answers (refused: reward 0, and the reason is the verdict's text), grades and writes the reward.
 * A broken gold file is thrown: that is the task's fault, not the agent's, and no reward should hide it.
 */
export function verify(opts: VerifyOptions): Verdict {
  resetRewards(opts.logsDir);
  const gold = readLabels(opts.gold, 'gold');
  let verdict: Verdict;
  try {
    const { labels } = readLabels(opts.answers, 'answers', { notSameAs: gold.identity });
    const g = grade(labels, gold.labels);
    verdict = { reward: g.reward, grade: g, text: formatGrade(g) };
  } catch (err) {
    if (!(err instanceof GradeInputError)) throw err;
    verdict = { reward: 0, refused: err.message, text: `reward 0: ${err.message}` };
  }
  writeRewardFile(join(opts.logsDir, REWARD_FILES[0]), verdict.reward);
  return verdict;
}
