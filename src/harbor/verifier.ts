// The verifier's file rules (docs/security.md#what-testsh-and-the-grader-stop): an answers file is read only when it is
// a regular file the agent wrote (never through a symlink, never blocking, never the gold itself, under a size cap),
// and the rewards (reward.txt and reward.json) are written by temp file and rename, after every reward file left behind
// is removed. All of it is the task's own grader (src/harbor/grader/grade.mjs, shipped in tests/ as it is); this module
// imports it for quotecheck's commands (`quotecheck grade`, evaluate), its input errors as GradeInputError (grade.ts).
import * as grader from './grader/grade.mjs';
import { withUserErrors } from './grade.js';

export type { FileIdentity } from './safe-read.js';
export type { Verdict } from './grader/grade.mjs';
export { MAX_LABELS_BYTES, removeEntry, replaceFile, writeRewardFile } from './grader/grade.mjs';

/**
 * A label file read the way a verifier must (safe-read.ts): the path itself a regular file (a symbolic link is refused
 * whatever it points to, and so are folders, FIFOs, devices and sockets), no larger than the cap, and not the file
 * `notSameAs` names; UTF-8 JSON in either answers format. A refusal or a file that cannot be read is a GradeInputError.
 */
export const readLabels = withUserErrors(grader.readLabels);

/**
 * A label file's bytes (UTF-8 JSON, either answers format) as a map; every failure a GradeInputError naming `where`.
 */
export const parseLabelBytes = withUserErrors(grader.parseLabelBytes);
