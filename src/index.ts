// The library API (`quotecheck`): check claims, verify one quote, and what they return. The pipeline's stages are
// `quotecheck/stages`, the schemas of what users read `quotecheck/contract`, grading `quotecheck/harbor`.
//
// One shape per result: checkClaims and streamClaims give the pipeline's ClaimResult (camelCase, with timings and
// the match's parts); what a user reads (the report line, verifyQuote's verdict) is snake_case, as the contract
// (src/contract.ts) defines it; toReportRecord turns a ClaimResult into its report line.
export { normalize } from './normalize.js';
export {
  parseClaims,
  ClaimsFileError,
  type Claim,
  type InvalidClaim,
  type ClaimEntry,
  type ClaimSet,
} from './claims/schema.js';
export { readClaimsFile, type ReadClaimsOptions } from './claims/claims-file.js';
export { verifyQuote, type RedirectCheck, type VerifyOptions } from './verify.js';
export {
  checkClaims,
  streamClaims,
  DEFAULT_OPTIONS,
  VERSION,
  type CheckOptions,
  type CheckRun,
  type StreamedRun,
  type ClaimInput,
  type ClaimsInput,
  type ClaimResult,
  type SourceRecord,
  type Transport,
} from './check.js';
export type { RunSettings, WaybackMode } from './config/settings.js';
export {
  LABELS,
  DIAGNOSES,
  type Label,
  type Diagnosis,
  type DiffRun,
  type ReportRecord,
  type VerifyResult,
} from './contract.js';
export { AnswerBook, AnswersFile, type AnswerFormat } from './output/answers.js';
export { AnswersSession } from './run/session.js';
export {
  toReportRecord,
  toVerifyResult,
  summarize,
  summaryLine,
  RunTally,
  type RunSummary,
  type LookRecord,
} from './output/evidence-report.js';
export { ReportFile, reorderReport, type ReportOrder } from './output/report-file.js';
