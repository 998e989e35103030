// Reading a file an agent may have planted (answers, evidence report, reward): a regular file only, never through a
// symlink, never blocking, under a size cap. The rule is the task's grader's (src/harbor/grader/grade.mjs), imported
// from it so that the verifier, `quotecheck grade`, evaluate and the MCP server read planted files one way.
export { kindOf, readRegularFile } from './grader/grade.mjs';
export type { FileIdentity, RefusalKind, SafeRead } from './grader/grade.mjs';
