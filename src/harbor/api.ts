// Benchmark builders' entry point (`quotecheck/harbor`): grading answers against gold labels as a task's verifier does.
export { grade, parseLabels, type Grade } from './grade.js';
