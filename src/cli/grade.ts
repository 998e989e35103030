// `quotecheck grade`: the verifier's command; prints accuracy and the confusion matrix, writes the reward.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { GradeInputError, formatGrade, formatReward, grade, readLabelFile } from '../harbor/grade.js';

export interface GradeCommandOptions {
  answers: string;
  gold: string;
  reward?: string;
}

export async function gradeCommand(opts: GradeCommandOptions): Promise<number> {
  try {
    const gold = await readLabelFile(opts.gold, 'gold');
    const answers = await readLabelFile(opts.answers, 'answers');
    const g = grade(answers, gold);
    process.stdout.write(`${formatGrade(g)}\n`);
    if (opts.reward) {
      mkdirSync(dirname(opts.reward), { recursive: true });
      writeFileSync(opts.reward, `${formatReward(g.reward)}\n`);
    }
    return 0;
  } catch (err) {
    if (!(err instanceof GradeInputError)) throw err;
    process.stderr.write(`quotecheck grade: error: ${err.message}\n`);
    return 2;
  }
}
