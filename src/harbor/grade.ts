// Grading: answers against gold labels; reward = correct / gold claims. The rules are the task's own grader's
// (src/harbor/grader/grade.mjs, which tests/ ships as it is): imported from it, never restated here. This module gives
// them quotecheck's error class: an answers or gold file that cannot be graded is a GradeInputError, a UserError
// (one line, exit 2), where the grader, which imports nothing of quotecheck, throws its own InputError.
import { UserError } from '../errors.js';
import * as grader from './grader/grade.mjs';

export type { Confusion, FailureShape, Grade, Mistake } from './grader/grade.mjs';
export {
  WRONG_IDS_SHOWN,
  ZERO_SHAPE,
  confusionLines,
  emptyConfusion,
  failureShape,
  formatGrade,
  rewardJson,
} from './grader/grade.mjs';

export class GradeInputError extends UserError {
  override readonly name = 'GradeInputError';
}

/**
 * A grader function whose InputError is thrown as a GradeInputError (same message, the grader's error as its cause).
 */
export function withUserErrors<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    try {
      return fn(...args);
    } catch (err) {
      if (err instanceof grader.InputError) throw new GradeInputError(err.message, { cause: err });
      throw err;
    }
  };
}

/** `{id: label}` or `[{id, label}]` (either answers format) as a map; labels are kept as given. */
export const parseLabels = withUserErrors(grader.parseLabels);

/**
 * Answers against gold: the reward, the confusion matrix, the mistakes (grade.mjs); a gold label that is not a label is
 * a GradeInputError.
 */
export const grade = withUserErrors(grader.grade);
