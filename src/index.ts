// The library API: what the CLI uses, for agent builders to call directly.
export { normalize } from './normalize.js';
export { readClaimsFile } from './claims-file.js';
export { parseClaims, ClaimsFileError, type Claim, type InvalidClaim, type ClaimEntry, type ClaimSet } from './claims.js';
export { verifyQuote } from './verify.js';
export type { RedirectCheck } from './verify.js';
export { checkClaims, streamClaims, DEFAULT_OPTIONS, VERSION, type CheckOptions, type CheckRun, type StreamedRun, type ClaimInput, type ClaimsInput, type ClaimResult, type SourceRecord } from './check.js';
export type { RunSettings, WaybackMode } from './settings.js';
export { fetchSource, FetchError, type FetchSettings, type SourceOutcome } from './fetch/index.js';
export { extractSource, ExtractError, renderText, type SourceText, type TextView, type ViewName, type Extractor } from './extract/index.js';
export { findQuote, normalizeViews, textQuoteSelector, type Match, type HtmlViewChoice, type TextQuoteSelector } from './match.js';
export { diagnose, DIAGNOSES, type Diagnosis, type Nearest, type DiffOp, type DiffRun } from './diagnose/index.js';
export { wordDiff } from './diagnose/diff.js';
export { AnswerBook, AnswersFile, type Label, type AnswerFormat } from './answers.js';
export { toReportRecord, toVerifyResult, summarize, summaryLine, RunTally, type ReportRecord, type RunSummary, type LookRecord, type VerifyResult } from './report.js';
export { ReportFile, reorderReport, type ReportOrder } from './report-file.js';
export { grade, parseLabels, type Grade } from './harbor/grade.js';
