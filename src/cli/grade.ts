// `quotecheck grade`: the verifier's command; prints accuracy, the confusion matrix and the wrong ids, writes the reward.
// It reads --answers by the verifier's rules (verifier.ts): a regular file only, never the gold, under a size cap.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { describeFsError } from '../messages.js';
import { checkOutputPath } from '../outputs.js';
import { GradeInputError, formatGrade, grade } from '../harbor/grade.js';
import { readLabels, writeRewardFile } from '../harbor/verifier.js';
import { outputLine, refuseInput } from './progress.js';

export interface GradeCommandOptions {
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

export async function gradeCommand(opts: GradeCommandOptions): Promise<number> {
  try {
    // The reward's folder is created if missing (a verifier's log folder may not exist yet).
    if (opts.reward) checkOutputPath(opts.reward, '--reward', { createFolders: true });
    const gold = readLabels(opts.gold, 'gold');
    let answers: Map<string, string>;
    try {
      answers = readLabels(opts.answers, 'answers', { notSameAs: gold.identity }).labels;
    } catch (err) {
      // Answers that cannot be graded score 0: the reward says so as well as the message.
      if (err instanceof GradeInputError && opts.reward) writeReward(opts.reward, 0);
      throw err;
    }
    const g = grade(answers, gold.labels);
    outputLine(formatGrade(g));
    if (opts.reward) writeReward(opts.reward, g.reward);
    return 0;
  } catch (err) {
    return refuseInput(err);
  }
}
