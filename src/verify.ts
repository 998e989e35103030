// One quote against one URL: the library call behind `quotecheck verify`, for agents that check as they go.
import { checkClaims, type CheckOptions, type ClaimResult, type SourceRecord } from './check.js';
import { ClaimsFileError, parseClaims } from './claims/schema.js';
import { redirectShell } from './diagnose/index.js';
import { toVerifyResult } from './output/evidence-report.js';
import type { RedirectCheck, VerifyResult } from './contract.js';

export type { RedirectCheck, VerifyResult } from './contract.js';

/** The id the one quote is checked under inside the pipeline; it never reaches the caller. */
const INTERNAL_ID = 'quote';

/** What `verify` checks: the pipeline's result for the quote, and for a redirect shell, the quote at its target. */
export type QuoteCheck = ClaimResult & { redirect?: RedirectCheck };

/**
 * verify's options: the pipeline's, and the one claim field a single quote can carry besides its date (`asOf`):
 * the evidence hash of the source as labelled, so that `verify` judges the quote exactly as `run` judges the claim.
 */
export type VerifyOptions = Partial<CheckOptions> & {
  /** sha256 of the source's bytes (or extracted text) when the quote was labelled: the claim's `evidence.sha256`. */
  evidence?: string;
};

/** One quote through the pipeline: its result and the live source it was checked on (absent when the run read none). */
async function checkOne(
  url: string,
  quote: string,
  options: VerifyOptions,
): Promise<{ result: ClaimResult; source?: SourceRecord }> {
  const { evidence, ...pipeline } = options;
  let entries;
  try {
    entries = parseClaims(
      [{ id: INTERNAL_ID, quote, url, ...(evidence !== undefined ? { evidence: { sha256: evidence } } : {}) }],
      'verify',
    ).entries;
  } catch (err) {
    if (err instanceof ClaimsFileError) {
      return {
        result: {
          id: INTERNAL_ID,
          index: 0,
          label: 'no_match',
          diagnosis: 'invalid_claim',
          url,
          quote,
          match: null,
          drift: 'unknown',
          note: err.message,
          ms: 0,
        },
      };
    }
    throw err;
  }
  const run = await checkClaims(entries, pipeline);
  return { result: run.results[0]!, source: run.sources[0] };
}

/**
 * Checks one quote and returns the pipeline's own result (camelCase fields, the match with its
 * normalized context): what the CLI's text output is made from. Library users want verifyQuote.
 * When the quote is not on the page and the page is a redirect shell (diagnose/index.ts redirectShell),
 * the target is fetched once more with the same settings and the quote checked there (`redirect`);
 * the target's own redirects are not followed further.
 */
export async function checkQuote(url: string, quote: string, options: VerifyOptions = {}): Promise<QuoteCheck> {
  const { result, source } = await checkOne(url, quote, options);
  const redirect = result.label === 'no_match' && source ? redirectShell(source) : null;
  if (!redirect || options.signal?.aborted) return result;
  // The caller's hooks expect the one claim they asked about; the target's check is verify's own.
  const { onResult: _onResult, onSource: _onSource, ...same } = options;
  const there = (await checkOne(redirect.target, quote, same)).result;
  return {
    ...result,
    redirect: {
      target: redirect.target,
      via: redirect.via,
      found: there.label === 'verbatim',
      diagnosis: there.diagnosis,
      final_url: there.finalUrl ?? null,
      note: there.note ?? null,
    },
  };
}

/**
 * Checks one quote against one source and returns its verdict with exactly the fields and names
 * of `quotecheck verify --json` (VerifyResult: a report line of docs/how-it-decides.md#the-evidence-report without
 * `id`, plus `quote`): label, diagnosis and evidence (`match` with its TextQuoteSelector, or `nearest` with the span in
 * the page's own wording and the word diff). Never throws for a bad source; a bad quote or URL gives the diagnosis
 * `invalid_claim`, with the reason in `note`. When the source is a redirect shell and the quote is not on it,
 * `redirect` says whether the quote is at its target.
 */
export async function verifyQuote(url: string, quote: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  return toVerifyResult(await checkQuote(url, quote, options), quote);
}
