// `quotecheck grade`: the verifier's command; prints accuracy, the confusion matrix and the wrong ids, writes the reward.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describeFsError } from '../messages.js';
import { OutputPathError, checkOutputPath } from '../outputs.js';
import { GradeInputError, formatGrade, formatReward, grade, readLabelFile } from '../harbor/grade.js';
import { refuseInput } from './progress.js';

export interface GradeCommandOptions {
  answers: string;
  gold: string;
  reward?: string;
}

export async function gradeCommand(opts: GradeCommandOptions): Promise<number> {
  try {
    // The reward's folder is created if missing (a verifier's log folder may not exist yet).
    if (opts.reward) checkOutputPath(opts.reward, '--reward', { createFolders: true });
    const gold = await readLabelFile(opts.gold, 'gold');
    const answers = await readLabelFile(opts.answers, 'answers');
    const g = grade(answers, gold);
    process.stdout.write(`${formatGrade(g)}\n`);
    if (opts.reward) {
      try {
        mkdirSync(dirname(opts.reward), { recursive: true });
        writeFileSync(opts.reward, `${formatReward(g.reward)}\n`);
      } catch (err) {
        throw new GradeInputError(`cannot write --reward ${opts.reward}: ${describeFsError(err)}`);
      }
    }
    return 0;
  } catch (err) {
    return refuseInput(err, GradeInputError, OutputPathError);
  }
}
