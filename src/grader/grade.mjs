// @ts-check
// The verifier's grader: `node grade.mjs --answers FILE --gold FILE --logs DIR`.
//
// What it does (verify, below):
//   1. Writes a reward of 0 to DIR first. Whatever is at DIR/reward.txt or DIR/reward.json (a stale 1, a symbolic link,
//      a FIFO, a folder) is removed, never followed. If anything fails or hangs after this, the 0 stands.
//   2. Reads the gold labels and the answers, each only when its path is a regular file (not a link, a folder, a FIFO
//      or a device), at most 16 MiB, and not nested deeper than a label file. Answers that are the gold file itself
//      (a hard link to it) are refused.
//   3. Grades: reward = correct answers / gold claims. A claim answered with something other than "verbatim" or
//      "no_match", or not answered, is wrong; answers for ids that are not in the gold are ignored.
//   4. Writes DIR/reward.txt (the reward) and DIR/reward.json (the reward and how the answers failed: see
//      failureShape), each to a new temp file that is then renamed into place.
// It prints the grade, or the reason for a 0. Exit status: 0 when the answers were graded or refused (the reward
// says which), 1 when the gold file or DIR failed it (the task's fault), 2 for wrong arguments.
//
// Node.js's own modules only, in one file, with no build step: test.sh runs it by absolute path under `env -i`.
// quotecheck itself (`quotecheck grade`, evaluate) imports these same functions from this file
// (src/grader/grade.mjs in its repository); the types are JSDoc, checked by TypeScript.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
} from 'node:fs';
import { realpathSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** Largest answers (and gold) file read: 16 MiB. An answer is about 30 bytes: room for half a million claims. */
export const MAX_LABELS_BYTES = 16 * 1024 * 1024;

/** Deepest nesting of a label file: `{"id": "label"}` is 1, `[{"id": ..., "label": ...}]` is 2. */
const MAX_LABELS_DEPTH = 2;

/** The two labels. */
export const LABELS = /** @type {const} */ (['verbatim', 'no_match']);

/** The reward files a harness reads (Harbor reads reward.json before reward.txt). */
const REWARD_FILES = /** @type {const} */ (['reward.txt', 'reward.json']);

/** Why answers (or gold) cannot be graded: one line that names the file. */
export class GradeInputError extends Error {
  /** @override */
  name = 'GradeInputError';
}

// ---------------------------------------------------------------------------------------------------------------------
// The verifier.

/**
 * @typedef {object} Verdict
 * @property {number} reward
 * @property {FailureShape} shape what reward.json says
 * @property {string} [refused] set when the answers were not graded (reward 0): why, in one line
 * @property {Grade} [grade]
 * @property {string} text what the verifier prints: the grade, or the reason for 0
 */

/**
 * The verifier: resets the rewards (0 from the start), reads the gold, reads and grades the answers (answers that are
 * refused score 0, with the reason as the text), writes both reward files. A gold file that cannot be read or graded
 * is thrown: that is the task's fault, not the agent's, and no reward should hide it (the 0 stands).
 * @param {{ answers: string, gold: string, logsDir: string }} opts
 * @returns {Verdict}
 */
export function verify(opts) {
  resetRewards(opts.logsDir);
  const gold = readLabels(opts.gold, 'gold');
  /** @type {Verdict} */
  let verdict;
  try {
    const { labels } = readLabels(opts.answers, 'answers', { notSameAs: gold.identity });
    const g = grade(labels, gold.labels);
    verdict = { reward: g.reward, shape: failureShape(g), grade: g, text: formatGrade(g) };
  } catch (err) {
    if (!(err instanceof GradeInputError)) throw err;
    verdict = { reward: 0, shape: ZERO_SHAPE, refused: err.message, text: `reward 0: ${err.message}` };
  }
  writeRewards(opts.logsDir, verdict.shape);
  return verdict;
}

/**
 * The command line. Returns the exit status.
 * @param {string[]} argv
 * @returns {number}
 */
function main(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { answers: { type: 'string' }, gold: { type: 'string' }, logs: { type: 'string' } },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`grade: ${/** @type {Error} */ (err).message}\n`);
    return 2;
  }
  const { answers, gold, logs } = values;
  if (!answers || !gold || !logs) {
    process.stderr.write('usage: grade.mjs --answers FILE --gold FILE --logs DIR\n');
    return 2;
  }
  try {
    process.stdout.write(`${verify({ answers, gold, logsDir: logs }).text}\n`);
    return 0;
  } catch (err) {
    // The gold file or the log folder failed: the task's fault, said plainly; test.sh writes the 0 again.
    process.stderr.write(`grade: ${/** @type {Error} */ (err).message}\n`);
    return 1;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Grading.

/** @typedef {(typeof LABELS)[number]} Label */
/** @typedef {Label | 'missing' | 'invalid'} Answered What a gold claim got: a label, no answer, or something else. */
/** @typedef {Record<Label, Record<Answered, number>>} Confusion confusion[gold label][what was answered] */
/**
 * @typedef {{ id: string, expected: Label, given: string | undefined }} Mistake `given` is undefined when unanswered.
 */
/**
 * @typedef {object} Grade
 * @property {number} gold how many gold claims
 * @property {number} correct
 * @property {number} reward correct / gold (0 when there is no gold)
 * @property {Confusion} confusion
 * @property {string[]} extra answer ids with no gold label: reported, ignored
 * @property {string[]} wrong gold ids answered wrongly, not answered, or answered with something else
 * @property {Mistake[]} mistakes the same, in gold order, each with what was expected and given
 */
/**
 * How the answers failed, each a share from 0 to 1 (reward.json's fields).
 * @typedef {object} FailureShape
 * @property {number} reward correct / gold claims
 * @property {number} answered gold claims answered "verbatim" or "no_match" / gold claims
 * @property {number} overclaim gold "no_match" claims answered "verbatim" / gold "no_match" claims (0 when there are
 * none)
 * @property {number} missed gold "verbatim" claims answered "no_match" / gold "verbatim" claims (0 when there are none)
 */

/** @param {unknown} value @returns {value is Label} */
const isLabel = (value) => value === 'verbatim' || value === 'no_match';

/** A confusion matrix with every count at 0. @returns {Confusion} */
export function emptyConfusion() {
  const row = () => ({ verbatim: 0, no_match: 0, missing: 0, invalid: 0 });
  return { verbatim: row(), no_match: row() };
}

/**
 * Answers against gold labels. A gold label that is not one of the two labels is an error (the task's).
 * @param {ReadonlyMap<string, string>} answers
 * @param {ReadonlyMap<string, string>} gold
 * @returns {Grade}
 */
export function grade(answers, gold) {
  const confusion = emptyConfusion();
  /** @type {Mistake[]} */
  const mistakes = [];
  let correct = 0;
  for (const [id, expected] of gold) {
    if (!isLabel(expected))
      throw new GradeInputError(
        `gold label for ${JSON.stringify(id)} is ${JSON.stringify(expected)}, not verbatim or no_match`,
      );
    const given = answers.get(id);
    confusion[expected][given === undefined ? 'missing' : isLabel(given) ? given : 'invalid']++;
    if (given === expected) correct++;
    else mistakes.push({ id, expected, given });
  }
  const extra = [...answers.keys()].filter((id) => !gold.has(id));
  const wrong = mistakes.map((m) => m.id);
  return {
    gold: gold.size,
    correct,
    reward: gold.size === 0 ? 0 : correct / gold.size,
    confusion,
    extra,
    wrong,
    mistakes,
  };
}

/**
 * How the answers failed (reward.json): the reward, the share of claims answered at all, and the two ways a label can
 * be wrong, each as a share of the gold claims it could happen to.
 * @param {Pick<Grade, 'reward' | 'confusion'>} g
 * @returns {FailureShape}
 */
export function failureShape(g) {
  const c = g.confusion;
  /** @param {number} n @param {number} of */
  const share = (n, of) => (of === 0 ? 0 : n / of);
  /** @param {Label} label */
  const goldOf = (label) => c[label].verbatim + c[label].no_match + c[label].missing + c[label].invalid;
  const answered = c.verbatim.verbatim + c.verbatim.no_match + c.no_match.verbatim + c.no_match.no_match;
  return {
    reward: g.reward,
    answered: share(answered, goldOf('verbatim') + goldOf('no_match')),
    overclaim: share(c.no_match.verbatim, goldOf('no_match')),
    missed: share(c.verbatim.no_match, goldOf('verbatim')),
  };
}

/** What reward.json says when nothing was graded: all 0. @type {Readonly<FailureShape>} */
export const ZERO_SHAPE = Object.freeze({ reward: 0, answered: 0, overclaim: 0, missed: 0 });

/** A share as the reward files write it: a plain decimal, six places at most. @param {number} x */
const formatReward = (x) => String(Number(x.toFixed(6)));

/** reward.json's text: one line, every field a number, rounded as reward.txt is. @param {FailureShape} shape */
export function rewardJson(shape) {
  /** @param {number} x */
  const round = (x) => Number(formatReward(x));
  const { reward, answered, overclaim, missed } = shape;
  const rounded = {
    reward: round(reward),
    answered: round(answered),
    overclaim: round(overclaim),
    missed: round(missed),
  };
  return `${JSON.stringify(rounded)}\n`;
}

/** How many wrong ids formatGrade names before "and N more". */
export const WRONG_IDS_SHOWN = 20;

/** "1 wrong answer", "1,234 wrong answers". @param {number} n @param {string} one */
const counted = (n, one) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;

/** The gold × answered confusion matrix as text: a header, then one row per gold label. @param {Confusion} c */
export function confusionLines(c) {
  /** @param {number} n @param {number} width */
  const cell = (n, width) => String(n).padStart(width);
  /** @param {Label} gold */
  const row = (gold) =>
    `gold ${gold.padEnd(24)}${cell(c[gold].verbatim, 9)} ${cell(c[gold].no_match, 9)} ${cell(c[gold].missing, 8)} ` +
    `${cell(c[gold].invalid, 8)}`;
  return ['confusion (gold \\ answered)   verbatim  no_match  missing  invalid', ...LABELS.map(row)];
}

/** The grade as the verifier prints it: accuracy, the shares, the matrix, the wrong ids. @param {Grade} g */
export function formatGrade(g) {
  const shape = failureShape(g);
  const lines = [
    `accuracy ${g.reward.toFixed(3)} (${g.correct}/${g.gold} correct)`,
    `answered ${shape.answered.toFixed(3)}, overclaim ${shape.overclaim.toFixed(3)}, missed ${shape.missed.toFixed(3)}`,
    ...confusionLines(g.confusion),
  ];
  const shown = g.mistakes.slice(0, WRONG_IDS_SHOWN);
  if (shown.length) {
    const first = g.mistakes.length > WRONG_IDS_SHOWN ? ` (the first ${WRONG_IDS_SHOWN})` : '';
    lines.push(`${counted(g.mistakes.length, 'wrong answer')}${first}:`);
    for (const m of shown) {
      const given =
        m.given === undefined ? 'no answer' : isLabel(m.given) ? m.given : `${JSON.stringify(m.given)} (not a label)`;
      lines.push(`  ${JSON.stringify(m.id)}: expected ${m.expected}, given ${given}`);
    }
    if (g.mistakes.length > WRONG_IDS_SHOWN) lines.push(`  and ${g.mistakes.length - WRONG_IDS_SHOWN} more`);
  }
  if (g.extra.length) {
    const ids = g.extra.slice(0, WRONG_IDS_SHOWN).map((id) => JSON.stringify(id));
    const more = g.extra.length > WRONG_IDS_SHOWN ? ` and ${g.extra.length - WRONG_IDS_SHOWN} more` : '';
    lines.push(`${counted(g.extra.length, 'answer')} with no gold label, ignored: ${ids.join(', ')}${more}`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------------
// Label files: `{"<id>": "<label>"}` or `[{"id": "<id>", "label": "<label>"}]`.

/**
 * A label as given: a string as it is (grade judges it); anything else (a number, null, a list, an object) as its JSON,
 * which is never a label: `["verbatim"]` is not "verbatim", and an object is never asked to turn itself into text.
 * @param {unknown} label
 * @returns {string}
 */
const labelText = (label) => (typeof label === 'string' ? label : (JSON.stringify(label) ?? '(no label)'));

/**
 * Either answers format as a map of id to label; labels are kept as given (grade judges them).
 * @param {unknown} json
 * @param {string} where names the file in errors
 * @returns {Map<string, string>}
 */
export function parseLabels(json, where) {
  /** @type {Map<string, string>} */
  const labels = new Map();
  if (Array.isArray(json)) {
    json.forEach((row, i) => {
      const id = row && typeof row === 'object' ? row.id : undefined;
      if (typeof id !== 'string' && typeof id !== 'number')
        throw new GradeInputError(`${where}: entry #${i + 1} has no "id"`);
      labels.set(String(id), labelText(row.label));
    });
  } else if (json && typeof json === 'object') {
    for (const [id, label] of Object.entries(json)) labels.set(id, labelText(label));
  } else {
    throw new GradeInputError(`${where}: expected {"<id>": "<label>"} or [{"id", "label"}]`);
  }
  return labels;
}

/**
 * A label file's bytes (UTF-8 JSON, either format) as a map; refused before parsing when nested deeper than a label
 * file.
 * @param {Uint8Array} bytes
 * @param {string} where names the file in errors
 */
export function parseLabelBytes(bytes, where) {
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new GradeInputError(`${where} is not valid UTF-8`);
  }
  const deep = tooDeepAt(text, MAX_LABELS_DEPTH);
  if (deep >= 0)
    throw new GradeInputError(
      `${where} is nested deeper than a label file is (at ${lineAndColumn(text, deep)}): expected {"<id>": ` +
        `"<label>"} or [{"id", "label"}]`,
    );
  return parseLabels(parseJsonText(text, GradeInputError, `${where} is not valid JSON`), where);
}

/**
 * A label file read by the rules above (readRegularFile); `notSameAs` refuses the gold file reached by another name.
 * @param {string} path
 * @param {string} what "answers" or "gold"
 * @param {{ notSameAs?: FileIdentity, maxBytes?: number }} [opts]
 * @returns {{ labels: Map<string, string>, identity: FileIdentity }}
 */
export function readLabels(path, what, opts = {}) {
  const read = readRegularFile(path, opts.maxBytes ?? MAX_LABELS_BYTES);
  if (!read.ok) {
    if (read.kind === 'missing' || read.kind === 'unreadable')
      throw new GradeInputError(`cannot read ${what} file ${path}: ${read.reason}`);
    throw new GradeInputError(
      `${what} file ${path} ${read.reason}${read.kind === 'not-regular' ? ', not a regular file' : ''}: not graded`,
    );
  }
  const { dev, ino } = read.identity;
  if (opts.notSameAs && dev === opts.notSameAs.dev && ino === opts.notSameAs.ino)
    throw new GradeInputError(`${what} file ${path} is the gold file itself (a link to it): not graded`);
  return { labels: parseLabelBytes(read.bytes, `${what} file ${path}`), identity: read.identity };
}

// ---------------------------------------------------------------------------------------------------------------------
// Reading a file the agent may have planted: a regular file only, never through a link, never blocking, size-capped.

/** File-system error codes in words, for messages that already name the file. */
const FS_REASONS = /** @type {Readonly<Record<string, string>>} */ ({
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
});

/**
 * A file-system error as a short reason ("no such file", "permission denied"), never a raw code; an unknown code keeps
 * Node's words without the code and the path.
 * @param {unknown} err
 * @returns {string}
 */
export function describeFsError(err) {
  const code = /** @type {NodeJS.ErrnoException | undefined} */ (err)?.code;
  const known = code === undefined ? undefined : FS_REASONS[code];
  if (known) return known;
  const message = err instanceof Error ? err.message : String(err);
  return /^[A-Z][A-Z0-9_]+: ([^,]+)/.exec(message)?.[1] ?? message; // "ECODE: words, syscall 'path'": the words
}

/** @typedef {{ dev: number, ino: number }} FileIdentity Two paths with the same device and inode are one file. */
/** @typedef {'missing' | 'unreadable' | 'not-regular' | 'too-large' | 'replaced'} RefusalKind */
/**
 * The bytes, or why not: `reason` completes a sentence about the path ("is a named pipe (FIFO)").
 * @typedef {{ ok: true, bytes: Buffer, identity: FileIdentity }
 *   | { ok: false, kind: RefusalKind, reason: string, missing: boolean }} SafeRead
 */

/**
 * What a path is when it is not a regular file, in words; a link says where it points.
 * @param {string} path
 * @param {import('node:fs').Stats} st its lstat
 */
export function kindOf(path, st) {
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

/** @param {RefusalKind} kind @param {string} reason @returns {SafeRead} */
const refused = (kind, reason) => ({ ok: false, kind, reason, missing: kind === 'missing' });
/** @param {string} size @param {number} maxBytes */
const over = (size, maxBytes) => `is ${size}, over the ${maxBytes.toLocaleString('en-US')}-byte limit`;

/**
 * The bytes of `path` when it is a regular file of at most `maxBytes`. The path is looked at first without following
 * it, so a device is never opened (opening one can have effects); then opened with O_NOFOLLOW | O_NONBLOCK | O_NOCTTY
 * and checked again by fstat, in case it was swapped in between; then read to its end, not to the size fstat gave, so a
 * file that grows past the cap while it is read is refused, not cut.
 * @param {string} path
 * @param {number} maxBytes
 * @returns {SafeRead}
 */
export function readRegularFile(path, maxBytes) {
  let before;
  try {
    before = lstatSync(path);
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    return refused(code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable', describeFsError(err));
  }
  if (!before.isFile()) return refused('not-regular', `is ${kindOf(path, before)}`);
  if (before.size > maxBytes)
    return refused('too-large', over(`${before.size.toLocaleString('en-US')} bytes`, maxBytes));
  let fd;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    return refused('unreadable', describeFsError(err));
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.dev !== before.dev || st.ino !== before.ino)
      return refused('replaced', 'was replaced while it was read');
    /** @type {Buffer[]} */
    const chunks = [];
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

// ---------------------------------------------------------------------------------------------------------------------
// Writing the reward where the agent may have left anything: never through a link, always whole.

/**
 * A fresh name in `dir`: a reward's temp file, or the new name of a stale entry. @param {string} dir @param {string}
 * stem
 */
const freshName = (dir, stem) => join(dir, `.${stem}-${randomBytes(6).toString('hex')}`);

/** lstat, or undefined when there is nothing there. @param {string} path */
function lstatOrNone(path) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Makes `dir` a real, writable folder: a link or a file in its place is removed and a folder made; a folder this
 * process owns but cannot write (made read-only) gets its owner's write permission back. Root needs no permission.
 * @param {string} dir
 */
function prepareFolder(dir) {
  let st = lstatOrNone(dir);
  if (st && !st.isDirectory()) {
    unlinkSync(dir);
    st = undefined;
  }
  if (!st) {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    return;
  }
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && st.uid === uid && (st.mode & 0o300) !== 0o300)
    chmodSync(dir, (st.mode & 0o7777) | 0o700);
}

/**
 * Removes whatever is at `path` without following it: a file, a link (not its target), a FIFO, a device, a folder
 * with all it holds. What cannot be removed (read-only folders inside, when not root) is renamed to a hidden name.
 * @param {string} path
 */
export function removeEntry(path) {
  const st = lstatOrNone(path);
  if (!st) return;
  try {
    if (st.isDirectory()) rmSync(path, { recursive: true, force: true });
    else unlinkSync(path);
    return;
  } catch {
    renameSync(path, freshName(dirname(path), `stale-${basename(path)}`));
  }
}

/**
 * Writes `content` to `path` so that it is either the old entry or the whole new file, never through a link: a new
 * temp file beside it (created exclusively, not following links), synced, then renamed over `path` (which replaces a
 * link or a file; anything else there is removed first).
 * @param {string} path
 * @param {string} content
 */
export function replaceFile(path, content) {
  const st = lstatOrNone(path);
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

/**
 * Writes a reward (a decimal and a newline) to `path`: reward.txt's format. @param {string} path @param {number} reward
 */
export function writeRewardFile(path, reward) {
  replaceFile(path, `${formatReward(reward)}\n`);
}

/**
 * Writes both reward files in `logsDir`: reward.txt, then reward.json (which Harbor reads first, so it says the new
 * reward only once reward.txt does too).
 * @param {string} logsDir
 * @param {FailureShape} shape
 */
function writeRewards(logsDir, shape) {
  writeRewardFile(join(logsDir, REWARD_FILES[0]), shape.reward);
  replaceFile(join(logsDir, REWARD_FILES[1]), rewardJson(shape));
}

/**
 * Every reward file in `logsDir` removed, then both written as 0: what stands until the grade is known. @param {string}
 * logsDir
 */
function resetRewards(logsDir) {
  prepareFolder(logsDir);
  for (const name of REWARD_FILES) removeEntry(join(logsDir, name));
  writeRewards(logsDir, ZERO_SHAPE);
}

// ---------------------------------------------------------------------------------------------------------------------
// JSON text: where a syntax error is, and how deep the nesting goes.

/**
 * Where the nesting of `text` first goes deeper than `max` levels (outside strings), or -1. One pass, no parsing: a few
 * megabytes of `[[[[` would cost gigabytes of memory to parse, so depth is checked first.
 * @param {string} text
 * @param {number} max
 * @returns {number}
 */
export function tooDeepAt(text, max) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/**
 * `line 3, column 7` of a 0-based offset (columns count UTF-16 units from 1).
 * @param {string} text
 * @param {number} offset
 */
export function lineAndColumn(text, offset) {
  const before = text.slice(0, offset);
  return `line ${before.split('\n').length}, column ${offset - before.lastIndexOf('\n')}`;
}

const JSON_WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Thrown inside the scanner to stop at the first mistake. */
class JsonStop {
  /** @param {number} offset @param {string} reason */
  constructor(offset, reason) {
    this.offset = offset;
    this.reason = reason;
  }
}

/**
 * A scanner of the JSON grammar (RFC 8259): each method reads one part of it from `i` on, and stops (throws JsonStop)
 * at the first character that cannot belong to it. It checks and keeps nothing.
 */
class JsonScanner {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
    this.i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte order mark: TextDecoder drops it, a hand-read file may not
  }

  /** @param {string} reason @returns {never} */
  stop(reason) {
    const { text, i } = this;
    const found =
      i >= text.length
        ? 'the end of the file'
        : JSON.stringify(String.fromCodePoint(/** @type {number} */ (text.codePointAt(i))));
    throw new JsonStop(i, `${reason}, found ${found}`);
  }

  ws() {
    while (this.i < this.text.length && JSON_WS.has(this.text.charCodeAt(this.i))) this.i++;
  }

  /** Consumes `c` when it is next. @param {string} c */
  eat(c) {
    if (this.text[this.i] !== c) return false;
    this.i++;
    return true;
  }

  /**
   * An object's members or an array's elements, from the opening bracket to `close`.
   * @param {string} close @param {() => void} item @param {string} expected
   */
  sequence(close, item, expected) {
    this.i++;
    this.ws();
    if (this.eat(close)) return;
    for (;;) {
      item();
      this.ws();
      if (this.eat(',')) continue;
      if (this.eat(close)) return;
      this.stop(expected);
    }
  }

  string() {
    const { text } = this;
    this.i++; // the opening quote
    for (;;) {
      if (this.i >= text.length) this.stop("expected the string's closing '\"'");
      const c = text.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c < 0x20) this.stop('a line break or control character inside a string must be escaped');
      if (c !== 0x5c) this.i++;
      else this.escape();
    }
  }

  /** A backslash escape inside a string: \uXXXX or one of "\/bfnrt. */
  escape() {
    const { text, i } = this;
    if (text[i + 1] === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        this.i += 2;
        this.stop('expected four hex digits after \\u');
      }
      this.i += 6;
    } else if (text[i + 1] !== undefined && '"\\/bfnrt'.includes(/** @type {string} */ (text[i + 1]))) this.i += 2;
    else {
      this.i++;
      this.stop('invalid escape in a string');
    }
  }

  /** @returns {void} */
  value() {
    this.ws();
    const c = this.text[this.i];
    if (c === '{') return this.sequence('}', () => this.member(), "expected ',' or '}' after a property value");
    if (c === '[') return this.sequence(']', () => this.value(), "expected ',' or ']' after an array element");
    if (c === '"') return this.string();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return;
      }
    }
    JSON_NUMBER.lastIndex = this.i;
    if (!JSON_NUMBER.test(this.text)) this.stop('expected a value');
    this.i = JSON_NUMBER.lastIndex;
  }

  member() {
    this.ws();
    if (this.text[this.i] !== '"') this.stop('expected a property name in double quotes');
    this.string();
    this.ws();
    if (!this.eat(':')) this.stop("expected ':' after a property name");
    this.value();
  }

  /** The whole text: one value, then nothing but whitespace. */
  document() {
    this.value();
    this.ws();
    if (this.i < this.text.length) this.stop('expected the end of the file after the JSON value');
  }
}

/**
 * Where JSON `text` first goes wrong and why, or undefined. Node's JSON.parse gives no position for some mistakes, so
 * the small scanner above (JsonScanner) finds it.
 * @param {string} text
 * @returns {{ offset: number, reason: string } | undefined}
 */
export function jsonSyntaxErrorAt(text) {
  try {
    new JsonScanner(text).document();
    return undefined;
  } catch (err) {
    if (err instanceof JsonStop) return { offset: err.offset, reason: err.reason };
    throw err;
  }
}

/**
 * Parses JSON; a syntax error is thrown as `new make(...)` with one line saying where and why, e.g.
 * `PREFIX: line 3, column 12: expected ',' or '}' after a property value, found "\""`.
 * @template {Error} E
 * @param {string} text
 * @param {new (message: string) => E} make
 * @param {string} prefix
 * @returns {unknown}
 */
export function parseJsonText(text, make, prefix) {
  try {
    return JSON.parse(text);
  } catch (err) {
    const at = jsonSyntaxErrorAt(text);
    if (at) throw new make(`${prefix}: ${lineAndColumn(text, at.offset)}: ${at.reason}`);
    throw new make(`${prefix}: ${/** @type {Error} */ (err).message}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Run as a program.

/**
 * Whether Node was started on this very file (`node grade.mjs ...`), not merely importing it. The name is checked too:
 * quotecheck's own builds inline these functions into files of other names, which must never start grading.
 */
function startedAsProgram() {
  const here = fileURLToPath(import.meta.url);
  const script = process.argv[1];
  if (basename(here) !== 'grade.mjs' || !script) return false;
  try {
    return realpathSync(script) === realpathSync(here);
  } catch {
    return false;
  }
}

/** Runs the command line when Node was started on this file. */
function runIfStarted() {
  if (startedAsProgram()) process.exitCode = main(process.argv.slice(2));
}

// The annotation lets a bundler that inlines these functions into another build (quotecheck's own) drop this call and
// the code only it uses; run as `node grade.mjs`, it is a comment, and the call runs.
/* @__PURE__ */ runIfStarted();
