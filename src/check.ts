// The library's run entry points: claims -> sources (each URL fetched once) -> texts (live, or as of the claim's date)
// -> matches -> one result per claim. The run itself is src/run/: transport.ts (the HTTP stack), input.ts, loop.ts,
// result.ts, session.ts (an answers file kept in step).
import type { SourceRecord } from './source-record.js';
import type { ClaimsInput } from './run/input.js';
import { runClaims } from './run/loop.js';
import type { CheckOptions, CheckRun, StreamedRun } from './run/check-options.js';
import type { ClaimResult } from './run/result.js';

export { DEFAULT_OPTIONS, VERSION } from './config/defaults.js';
export type { SourceRecord } from './source-record.js';
export type { ClaimInput, ClaimsInput } from './run/input.js';
export type { CheckOptions, CheckRun, StreamedRun } from './run/check-options.js';
export type { ClaimResult } from './run/result.js';
export { HELD_PER_FETCH_SLOT } from './run/held.js';
export type { ExchangeInterceptor, ReplayArchive, Transport } from './run/transport.js';

/**
 * Checks every claim: plain `{id, quote, url}` objects (validated as a claims file is: a claim
 * without an id or a duplicate id throws ClaimsFileError; an empty quote or a non-http URL gives
 * that claim the diagnosis `invalid_claim`), or the entries of parseClaims. Never throws for a bad
 * source: each claim gets a result, in the order given. When `options.signal` aborts, the run
 * returns at once with the claims not yet decided answered `no_match`. Every result and source is
 * kept for the returned CheckRun; for a run whose size is not known, streamClaims keeps none.
 */
export async function checkClaims(claims: ClaimsInput, opts: Partial<CheckOptions> = {}): Promise<CheckRun> {
  const results: ClaimResult[] = [];
  const sources: SourceRecord[] = [];
  const onSource = (s: SourceRecord): void => {
    sources.push(s);
    opts.onSource?.(s);
  };
  const run = await runClaims(claims, { ...opts, onSource }, (r, slot) => {
    results[slot] = r;
    opts.onResult?.(r);
  });
  return { ...run, results, sources };
}

/**
 * checkClaims for runs of any size: each claim's result goes to `onResult` as it is decided (and,
 * after a stop, each undecided claim's), each source to `onSource` as it is settled, and neither is
 * kept. Memory follows the work in flight (`concurrency` sources and their claims), not the number
 * of claims or sources: a service can check claims all day. Throws as checkClaims does.
 */
export async function streamClaims(claims: ClaimsInput, opts: Partial<CheckOptions> = {}): Promise<StreamedRun> {
  return runClaims(claims, opts, (r) => opts.onResult?.(r));
}
