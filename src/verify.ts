// One quote against one URL: the library call behind `quotecheck verify`, for agents that check as they go.
import { checkClaims, type CheckOptions, type ClaimResult } from './check.js';
import { ClaimsFileError, parseClaims } from './claims.js';

/**
 * Checks one quote against one source and returns the full result: label, diagnosis and
 * evidence (match and TextQuoteSelector, or the nearest span). Never throws for a bad
 * source; a bad quote or URL gives diagnosis `invalid_claim`.
 */
export async function verifyQuote(url: string, quote: string, options: Partial<CheckOptions> = {}): Promise<ClaimResult> {
  let entries;
  try {
    entries = parseClaims([{ id: 'quote', quote, url }], 'verify').entries;
  } catch (err) {
    if (err instanceof ClaimsFileError) {
      return { id: 'quote', index: 0, label: 'no_match', diagnosis: 'invalid_claim', url, quote, match: null, drift: 'unknown', note: err.message, ms: 0 };
    }
    throw err;
  }
  const run = await checkClaims(entries, options);
  return run.results[0]!;
}
