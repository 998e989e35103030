// Benchmark builders' entry point (`quotecheck/harbor`): grading answers against gold labels as a task's verifier does,
// with how they failed (reward.json's shares), and where a task on disk runs its verifier.
export { failureShape, grade, parseLabels, type FailureShape, type Grade } from './grader/grade.mjs';
export { taskVerifierMode } from './task/task-dir.js';
