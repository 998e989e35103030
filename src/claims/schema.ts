// Claims input (docs/how-it-decides.md#claims-input): the claim schema, aliases included, applied to parsed JSON at the
// boundary (claims-file.ts reads the file). A namespace import: a build keeps only the parts of zod the schemas use
// (`import { z }` keeps all of it, four times as much).
import * as z from 'zod';
import { normalize } from '../normalize.js';
import { UserError } from '../errors.js';

/** A claim that can be checked: every field the pipeline relies on is present and valid. */
export interface Claim {
  kind: 'claim';
  /** Position in the input (0-based), for messages. */
  index: number;
  id: string;
  quote: string;
  /** The URL as given (fragment and all), for reports. */
  url: string;
  /** What is fetched: the URL without its fragment, which is never sent. */
  fetchUrl: string;
  claim?: string;
  verifyDate?: string;
  evidenceSha256?: string;
}

/** A claim that has an id but cannot be checked; it is answered `no_match` (diagnosis `invalid_claim`). */
export interface InvalidClaim {
  kind: 'invalid';
  index: number;
  id: string;
  url?: string;
  /** What is wrong, one entry per field, e.g. `field "quote" is empty or only whitespace`. */
  problems: string[];
}

export type ClaimEntry = Claim | InvalidClaim;

export interface ClaimSet {
  /** Every claim in input order, valid or not. */
  entries: ClaimEntry[];
  /** Problems that did not invalidate a claim (a malformed optional field that was dropped). */
  warnings: string[];
}

/** The claims file as a whole is unusable: nothing can be answered. The CLI exits 2. */
export class ClaimsFileError extends UserError {
  override readonly name = 'ClaimsFileError';
}

/** Canonical field name, then its accepted aliases, in order of preference. */
const ALIASES = {
  id: ['id', 'claim_id'],
  quote: ['quote', 'quoted_text', 'quote_text'],
  url: ['url', 'source_url', 'source'],
  claim: ['claim', 'claim_text', 'text'],
  verify_date: ['verify_date', 'verified_at'],
} as const;

type Field = keyof typeof ALIASES;

const IdSchema = z.union([
  z.string().trim().min(1, 'is empty'),
  // Numeric ids are common in hand-made files; the answers file keys them as strings.
  z.number().int().transform(String),
]);

/** A UTF-16 surrogate without its other half (in /u mode a well-formed pair is one code point, not \p{Cs}). */
const LONE_SURROGATE = /\p{Cs}/u;

const QuoteSchema = z.string().superRefine((s, ctx) => {
  if (normalize(s).length === 0) {
    ctx.addIssue({ code: 'custom', message: 'is empty or only whitespace' });
    return;
  }
  // JSON allows "\ud83d" escapes without their pair. Such a quote is not text, and matching it by
  // UTF-16 code units would find it inside any emoji or other character beyond U+FFFF.
  const lone = LONE_SURROGATE.exec(s);
  if (lone) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    const at = Array.from(s.slice(0, lone.index)).length;
    ctx.addIssue({
      code: 'custom',
      message:
        `has an unpaired surrogate U+${unit} (half of a UTF-16 pair, e.g. a lone "\\u${unit.toLowerCase()}" ` +
        `escape) at character ${at}: it is not valid Unicode text`,
    });
  }
});

/** What fetchUrlOf makes of a URL: the URL fetched (trimmed, without its fragment), or why there is none. */
type FetchUrl =
  | { ok: true; href: string }
  | { ok: false; problem: 'not-a-url' }
  | { ok: false; problem: 'not-http'; protocol: string };

/**
 * The URL a claim's source is fetched from: http(s) only, trimmed, its fragment dropped (the MCP tools take URLs by the
 * same rule).
 */
export function fetchUrlOf(s: string): FetchUrl {
  let parsed: URL;
  try {
    parsed = new URL(s.trim());
  } catch {
    return { ok: false, problem: 'not-a-url' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return { ok: false, problem: 'not-http', protocol: parsed.protocol };
  parsed.hash = '';
  return { ok: true, href: parsed.href };
}

const HttpUrlSchema = z.string().transform((s, ctx) => {
  const url = fetchUrlOf(s);
  if (url.ok) return url.href;
  ctx.addIssue({
    code: 'custom',
    message:
      url.problem === 'not-a-url'
        ? `is not a URL: ${JSON.stringify(s.slice(0, 200))}`
        : `must be http(s), not ${url.protocol}`,
  });
  return z.NEVER;
});

const OptionalTextSchema = z.string();
/** ISO date (2024-05-01) or date-time (2024-05-01T12:00:00Z). */
const IsoDateSchema = z.union([z.iso.date(), z.iso.datetime({ offset: true, local: true })]);
/**
 * An evidence hash: 64 hex digits, optionally written with the `sha256:` prefix some datasets (and WARC digests) use;
 * lowercased.
 */
const Sha256Schema = z
  .string()
  .transform((s) => s.trim().replace(/^sha256:/i, ''))
  .pipe(z.string().regex(/^[0-9a-fA-F]{64}$/, 'is not a sha256 (64 hex digits, optionally prefixed "sha256:")'))
  .transform((s) => s.toLowerCase());

/**
 * An evidence hash as a claim's `evidence.sha256` takes it (verify's --evidence, verify_quote's evidence), lowercased;
 * undefined when it is not one.
 */
export function evidenceHash(value: string): string | undefined {
  const parsed = Sha256Schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** Finds the first present alias of a field; reports which name it came from. */
function pick(obj: Record<string, unknown>, field: Field): { name: string; value: unknown } | undefined {
  for (const name of ALIASES[field]) {
    if (obj[name] !== undefined && obj[name] !== null) return { name, value: obj[name] };
  }
  return undefined;
}

/**
 * How messages name a claim: `claim #3 (id "c3")`, counting from 1 as people do (the third claim
 * of the file), though `index` fields stay 0-based for code.
 */
export function describeClaim(index: number, id?: string): string {
  return id === undefined ? `claim #${index + 1}` : `claim #${index + 1} (id ${JSON.stringify(id)})`;
}

function fieldName(field: Field, from: string): string {
  return from === field ? `"${field}"` : `"${field}" (given as "${from}")`;
}

function issueText(error: z.ZodError): string {
  return error.issues.map((i) => i.message).join('; ');
}

/** Validates one raw claim; throws ClaimsFileError only when it has no usable id. */
function parseEntry(raw: unknown, index: number, warnings: string[]): ClaimEntry {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ClaimsFileError(
      `${describeClaim(index)}: must be a JSON object, got ` +
        `${Array.isArray(raw) ? 'an array' : raw === null ? 'null' : typeof raw}`,
    );
  }
  const obj = raw as Record<string, unknown>;

  const idField = pick(obj, 'id');
  if (!idField) {
    throw new ClaimsFileError(
      `${describeClaim(index)}: field "id" is missing (also accepted: "claim_id"); every claim needs an id to be ` +
        `answered`,
    );
  }
  const idResult = IdSchema.safeParse(idField.value);
  if (!idResult.success) {
    throw new ClaimsFileError(
      `${describeClaim(index)}: field ${fieldName('id', idField.name)} must be a non-empty string: ` +
        `${issueText(idResult.error)}`,
    );
  }
  const id = idResult.data;
  const where = describeClaim(index, id);
  const problems: string[] = [];

  const quoteField = pick(obj, 'quote');
  let quote: string | undefined;
  if (!quoteField) {
    problems.push(`field "quote" is missing (also accepted: "quoted_text", "quote_text")`);
  } else {
    const r = QuoteSchema.safeParse(quoteField.value);
    if (r.success) quote = r.data;
    else problems.push(`field ${fieldName('quote', quoteField.name)} ${issueText(r.error)}`);
  }

  const urlField = pick(obj, 'url');
  let fetchUrl: string | undefined;
  const givenUrl = typeof urlField?.value === 'string' ? urlField.value : undefined;
  if (!urlField) {
    problems.push(`field "url" is missing (also accepted: "source_url", "source")`);
  } else {
    const r = HttpUrlSchema.safeParse(urlField.value);
    if (r.success) fetchUrl = r.data;
    else problems.push(`field ${fieldName('url', urlField.name)} ${issueText(r.error)}`);
  }

  if (problems.length > 0 || quote === undefined || fetchUrl === undefined || givenUrl === undefined) {
    return { kind: 'invalid', index, id, url: givenUrl, problems };
  }

  const claim: Claim = { kind: 'claim', index, id, quote, url: givenUrl, fetchUrl };

  const optional = (field: Field, schema: z.ZodType<string>): string | undefined => {
    const f = pick(obj, field);
    if (!f) return undefined;
    const r = schema.safeParse(f.value);
    if (r.success) return r.data;
    warnings.push(`${where}: field ${fieldName(field, f.name)} ignored: ${issueText(r.error)}`);
    return undefined;
  };
  claim.claim = optional('claim', OptionalTextSchema);
  claim.verifyDate = optional('verify_date', IsoDateSchema);
  const evidence = obj.evidence;
  if (evidence !== undefined && evidence !== null) {
    const sha = typeof evidence === 'object' ? (evidence as Record<string, unknown>).sha256 : undefined;
    if (typeof evidence !== 'object') {
      warnings.push(
        `${where}: field "evidence" ignored: must be an object such as {"sha256": "..."}, got ${typeof evidence}`,
      );
    } else if (sha !== undefined && sha !== null) {
      const r = Sha256Schema.safeParse(sha);
      if (r.success) claim.evidenceSha256 = r.data;
      else warnings.push(`${where}: field "evidence.sha256" ignored: ${issueText(r.error)}`);
    }
  }
  return claim;
}

/**
 * Validates parsed JSON: an array of claims or `{ "claims": [...] }`.
 * Throws ClaimsFileError when nothing can be answered (no claims, a claim without id,
 * duplicate ids); a claim with a bad quote or URL becomes an InvalidClaim instead.
 */
export function parseClaims(json: unknown, source = 'claims.json'): ClaimSet {
  let list: unknown;
  if (Array.isArray(json)) list = json;
  else if (typeof json === 'object' && json !== null && 'claims' in json) list = (json as { claims: unknown }).claims;
  else throw new ClaimsFileError(`${source}: expected a JSON array of claims or an object with a "claims" array`);
  if (!Array.isArray(list)) throw new ClaimsFileError(`${source}: "claims" must be an array`);
  if (list.length === 0) throw new ClaimsFileError(`${source}: has no claims`);

  const warnings: string[] = [];
  const entries: ClaimEntry[] = [];
  const seen = new Map<string, number>();
  list.forEach((raw, index) => {
    let entry: ClaimEntry;
    try {
      entry = parseEntry(raw, index, warnings);
    } catch (err) {
      if (err instanceof ClaimsFileError) throw new ClaimsFileError(`${source}: ${err.message}`);
      throw err;
    }
    const first = seen.get(entry.id);
    if (first !== undefined) {
      throw new ClaimsFileError(
        `${source}: ${describeClaim(index, entry.id)}: duplicate id, first used by claim #${first + 1}; ids must ` +
          `be unique`,
      );
    }
    seen.set(entry.id, index);
    entries.push(entry);
  });
  return { entries, warnings };
}
