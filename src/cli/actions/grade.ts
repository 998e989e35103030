// `quotecheck grade`: the verifier's command; prints accuracy, the confusion matrix and the wrong ids, writes the
// reward. It reads --answers by the verifier's rules (verifier.ts): a regular file only, never the gold, under a size
// cap; --gold is a label file, or the labelled claims `label` writes and `export` reads (docs/datasets.md).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { plural, thousands } from '../../messages.js';
import { checkOutputPath } from '../../output/output-files.js';
import { DEFAULT_MAX_CLAIMS_BYTES } from '../../claims/claims-file.js';
import { LABEL_FIELDS, goldOfRows, readClaimRows } from '../../dataset/labelled.js';
import { outputLine, refuseInput } from '../progress.js';
import {
  GradeInputError,
  formatGrade,
  grade,
  parseLabels,
  readLabels,
  writeRewardFile,
  readRegularFile,
  type FileIdentity,
  describeFsError,
} from '../../grader/grade.mjs';

interface GradeCommandOptions {
  answers: string;
  gold: string;
  reward?: string;
}

/** Writes the reward by temp file and rename (never through a symbolic link), its folder made if missing. */
function writeReward(path: string, reward: number): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeRewardFile(path, reward);
  } catch (err) {
    throw new GradeInputError(`cannot write --reward ${path}: ${describeFsError(err)}`);
  }
}

/**
 * The gold file is the builder's own, as large as a labelled claims file may be (the answers keep the verifier's cap).
 */
const MAX_GOLD_BYTES = DEFAULT_MAX_CLAIMS_BYTES;

/** Whether a JSON object is one labelled claim (a JSON Lines file of one line), not a map of ids to labels. */
const isClaimRow = (obj: Record<string, unknown>): boolean =>
  (obj.id !== undefined || obj.claim_id !== undefined) && LABEL_FIELDS.some((f) => obj[f] !== undefined);

/**
 * The gold labels: `{id: label}`, `[{id, label}]`, or labelled claims (JSON Lines or a JSON array of claim objects,
 * each with its `label`, as `label` writes them). Read as the verifier reads files (a regular file, no link followed).
 */
function readGold(path: string): { labels: Map<string, string>; identity: FileIdentity } {
  const read = readRegularFile(path, MAX_GOLD_BYTES);
  if (!read.ok) throw new GradeInputError(`cannot read gold file ${path}: ${read.reason}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(read.bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new GradeInputError(`gold file ${path} is not valid UTF-8`);
  }
  const where = `gold file ${path}`;
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch {
    // Not one JSON document: JSON Lines of labelled claims (readClaimRows names the line that does not parse).
  }
  const isMap =
    whole !== null &&
    typeof whole === 'object' &&
    !Array.isArray(whole) &&
    !('claims' in whole) &&
    !isClaimRow(whole as Record<string, unknown>);
  const labels = isMap
    ? parseLabels(whole, where)
    : goldOfRows(readClaimRows(where, text, GradeInputError), GradeInputError);
  if (labels.size === 0) throw new GradeInputError(`${where} has no labels`);
  return { labels, identity: read.identity };
}

/**
 * When the answers cover only some gold ids (one task's answers against the whole labelled file): how many, first, so
 * that a low accuracy is read as what it is. Undefined when every gold id has an answer.
 */
function coverage(answers: ReadonlyMap<string, string>, gold: ReadonlyMap<string, string>): string | undefined {
  let answered = 0;
  for (const id of gold.keys()) if (answers.has(id)) answered++;
  if (answered === gold.size) return undefined;
  const none = gold.size - answered;
  return (
    `the answers cover ${thousands(answered)} of the ${plural(gold.size, 'gold id')}: the ${thousands(none)} ` +
    `without an answer ${none === 1 ? 'counts' : 'count'} as wrong` +
    `${answered > 0 ? ' (grading one task against a whole labelled file?)' : ''}`
  );
}

export async function gradeCommand(opts: GradeCommandOptions): Promise<number> {
  try {
    // The reward's folder is created if missing (a verifier's log folder may not exist yet).
    if (opts.reward) checkOutputPath(opts.reward, '--reward', { createFolders: true });
    const gold = readGold(opts.gold);
    let answers: Map<string, string>;
    try {
      answers = readLabels(opts.answers, 'answers', { notSameAs: gold.identity }).labels;
    } catch (err) {
      // Answers that cannot be graded score 0: the reward says so as well as the message.
      if (err instanceof GradeInputError && opts.reward) writeReward(opts.reward, 0);
      throw err;
    }
    const g = grade(answers, gold.labels);
    const covered = coverage(answers, gold.labels);
    if (covered) outputLine(covered);
    outputLine(formatGrade(g));
    if (opts.reward) writeReward(opts.reward, g.reward);
    return 0;
  } catch (err) {
    return refuseInput(err);
  }
}
