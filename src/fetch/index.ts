// The fetch stage: sources fetched with retries, redirects, cookies, size and time limits.
export { FetchError, type FetchErrorKind } from './errors.js';
export { RETRYABLE_STATUSES, parseRetryAfter } from './policy.js';
export { FetchSlots } from './slots.js';
export {
  fetchSource,
  type FetchSettings,
  type FetchedSource,
  type FailedSource,
  type SourceOutcome,
} from './source.js';
