// JSON text read with a reason for every mistake: where a syntax error is (an RFC 8259 scanner) and how deep the
// nesting goes. The task's grader reads answers files with it, so it lives there (src/harbor/grader/grade.mjs, Node's
// own modules only) and is imported from it: one scanner for claims files, labelled files and answers alike.
export { jsonSyntaxErrorAt, lineAndColumn, parseJsonText, tooDeepAt } from './harbor/grader/grade.mjs';
