// The pipeline's stages, for builders who assemble their own run (`quotecheck/stages`): fetch, extract, match,
// diagnose.
export { fetchSource, FetchError, type FetchSettings, type SourceOutcome } from './fetch/index.js';
export type { FetchErrorDetails } from './fetch/errors.js';
export type { FailedSource } from './fetch/source.js';
export {
  extractSource,
  ExtractError,
  renderText,
  type SourceText,
  type TextView,
  type ViewName,
  type Extractor,
  type ExtractOptions,
  type ExtractInput,
} from './extract/index.js';
export type { ExtractErrorKind } from './extract/errors.js';
export type { RenderElement } from './extract/render.js';
export { normalize, SPACE_CLASS } from './normalize.js';
export { findQuote, normalizeViews, textQuoteSelector, type Match, type HtmlViewChoice } from './match.js';
export {
  diagnose,
  diagnoseAsOf,
  type Nearest,
  type DiagnosisResult,
  type DiagnosisInput,
} from './diagnose/index.js';
export { wordDiff } from './diagnose/diff.js';
