// Input normalization: what checkClaims takes (plain claims, parseClaims's entries, or its whole result) made into
// entries.
import { ClaimsFileError, parseClaims, type Claim, type ClaimEntry, type ClaimSet } from '../claims/schema.js';

/**
 * A claim as a library user writes it: one entry of a claims file (docs/how-it-decides.md#claims-input). At run time
 * the aliases of the claims file are accepted too (`claim_id`, `quoted_text`, `source_url`, ...), and unknown fields
 * are ignored.
 */
export interface ClaimInput {
  id: string | number;
  quote: string;
  url: string;
  claim?: string;
  verify_date?: string;
  evidence?: { sha256?: string };
}

/** What checkClaims takes: plain claims, the entries parseClaims returns, or its whole result. */
export type ClaimsInput = readonly ClaimInput[] | readonly ClaimEntry[] | ClaimSet;

/** Where checkClaims's errors say they come from. */
const CALLER = 'checkClaims';

/** Whether `x` is an entry made by parseClaims (or readClaimsFile), rather than a plain claim. */
function isEntry(x: unknown): x is ClaimEntry {
  if (typeof x !== 'object' || x === null) return false;
  const e = x as Partial<Claim> & { kind?: unknown; problems?: unknown };
  if (typeof e.index !== 'number' || typeof e.id !== 'string') return false;
  if (e.kind === 'claim')
    return typeof e.fetchUrl === 'string' && typeof e.quote === 'string' && typeof e.url === 'string';
  return e.kind === 'invalid' && Array.isArray(e.problems);
}

function describeValue(x: unknown): string {
  return x === null ? 'null' : Array.isArray(x) ? 'an array' : typeof x;
}

/**
 * The entries to check: parsed entries as they are; plain claims validated by the claims file's
 * own rules (parseClaims). Throws ClaimsFileError naming what is wrong when nothing can be checked.
 */
export function entriesOf(input: ClaimsInput): { entries: readonly ClaimEntry[]; warnings: string[] } {
  if (!Array.isArray(input)) {
    const set = input as Partial<ClaimSet> | null;
    if (typeof set === 'object' && set !== null && Array.isArray(set.entries) && set.entries.every(isEntry)) {
      return { entries: set.entries, warnings: Array.isArray(set.warnings) ? [...set.warnings] : [] };
    }
    throw new ClaimsFileError(
      `${CALLER}: expected an array of claims ({id, quote, url} objects) or what parseClaims returns, got ` +
        `${describeValue(input)}`,
    );
  }
  const list: readonly unknown[] = input;
  const firstEntry = list.findIndex(isEntry);
  if (firstEntry === -1) {
    if (list.length === 0) return { entries: [], warnings: [] };
    const set = parseClaims(list, CALLER);
    return { entries: set.entries, warnings: set.warnings };
  }
  const firstPlain = list.findIndex((x) => !isEntry(x));
  if (firstPlain !== -1) {
    throw new ClaimsFileError(
      `${CALLER}: item ${firstEntry + 1} of the list is an entry from parseClaims but item ${firstPlain + 1} is ` +
        `not (${describeValue(list[firstPlain])}); ` +
        'pass either plain {id, quote, url} objects or the entries of parseClaims, not both',
    );
  }
  return { entries: list as readonly ClaimEntry[], warnings: [] };
}
