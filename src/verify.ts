// One quote against one URL: the library call behind `quotecheck verify`, for agents that check as they go.
import { checkClaims, type CheckOptions, type ClaimResult } from './check.js';
import { ClaimsFileError, parseClaims } from './claims.js';
import { toVerifyResult, type VerifyResult } from './report.js';

/** The id the one quote is checked under inside the pipeline; it never reaches the caller. */
const INTERNAL_ID = 'quote';

/**
 * Checks one quote and returns the pipeline's own result (camelCase fields, the match with its
 * normalized context): what the CLI's text output is made from. Library users want verifyQuote.
 */
export async function checkQuote(url: string, quote: string, options: Partial<CheckOptions> = {}): Promise<ClaimResult> {
  let entries;
  try {
    entries = parseClaims([{ id: INTERNAL_ID, quote, url }], 'verify').entries;
  } catch (err) {
    if (err instanceof ClaimsFileError) {
      return { id: INTERNAL_ID, index: 0, label: 'no_match', diagnosis: 'invalid_claim', url, quote, match: null, drift: 'unknown', note: err.message, ms: 0 };
    }
    throw err;
  }
  const run = await checkClaims(entries, options);
  return run.results[0]!;
}

/**
 * Checks one quote against one source and returns its verdict with exactly the fields and names
 * of `quotecheck verify --json` (VerifyResult: a report line of design.md §2 without `id`, plus
 * `quote`): label, diagnosis and evidence (`match` with its TextQuoteSelector, or `nearest` with
 * the span in the page's own wording and the word diff). Never throws for a bad source; a bad
 * quote or URL gives the diagnosis `invalid_claim`, with the reason in `note`.
 */
export async function verifyQuote(url: string, quote: string, options: Partial<CheckOptions> = {}): Promise<VerifyResult> {
  return toVerifyResult(await checkQuote(url, quote, options), quote);
}
