// Deciding a claim on the text read for it (its label, its date's judgement, its diagnosis): the same code on the run's
// own thread and, for a source with a large text, on a thread a server gives the run for it (OffThread).
import type { Claim } from '../claims/schema.js';
import { findQuote } from '../match.js';
import { normalize } from '../normalize.js';
import type { SourceRecord } from '../source-record.js';
import type { HtmlViewChoice, WaybackMode } from '../config/settings.js';
import { parseAsOf, type AsOfDate } from '../asof/date.js';
import { driftOf } from '../asof/evidence.js';
import { isProven, judge, needsCapture, type LiveReading } from '../asof/judge.js';
import type { CaptureOutcome } from '../asof/captures.js';
import { joinNotes, resultFor, type ClaimResult } from './result.js';

/** What deciding a claim needs of its run. */
export interface DecideContext {
  htmlView: HtmlViewChoice;
  wayback: WaybackMode;
  /** Whether the run looks captures up at all (it has a Wayback client). */
  captures: boolean;
  replaying: boolean;
  /** `--as-of`, when given: every claim's date. */
  asOfOverride?: AsOfDate;
  /** Today, for claims without a date: the archive's latest captures. */
  now: AsOfDate;
}

/** One claim as the live source reads for it, before any capture is looked up. */
interface Reading {
  claim: Claim;
  quote: string;
  live: LiveReading;
  date: AsOfDate | undefined;
  /** Whether the claim needs an archived capture (asof/judge.ts needsCapture). */
  needs: boolean;
  /** Claims of one date and evidence share their lookup. */
  key: string;
}

/** Each claim's "as of" date: --as-of, else its verify date; a date the archive cannot use counts as none. */
function asOfFor(claim: Claim, override: AsOfDate | undefined): AsOfDate | undefined {
  if (override) return override;
  if (!claim.verifyDate) return undefined;
  try {
    return parseAsOf(claim.verifyDate);
  } catch {
    return undefined;
  }
}

/** Today, for claims without a date: the archive's latest captures. */
export function today(): AsOfDate {
  return parseAsOf(new Date().toISOString().slice(0, 19) + 'Z');
}

/** The claim read on the live record: its normalized quote, the match, the drift, its date and whether it needs one. */
export function readClaim(claim: Claim, record: SourceRecord, ctx: DecideContext): Reading {
  const quote = normalize(claim.quote);
  const { drift, match: evidenceMatch } = driftOf(claim.evidenceSha256, record);
  const live: LiveReading = {
    record,
    match: record.views ? findQuote(quote, record.views, ctx.htmlView) : null,
    drift,
    evidenceMatch,
  };
  const date = asOfFor(claim, ctx.asOfOverride);
  const needs = ctx.captures && needsCapture(ctx.wayback, claim.evidenceSha256, live);
  return { claim, quote, live, date, needs, key: `${(date ?? ctx.now).end14} ${claim.evidenceSha256 ?? ''}` };
}

/**
 * The claim's result: judged on the live text and the capture found for its date and evidence (a claim that did not
 * ask for the archive is judged on a sibling's capture only when the evidence proves it), then diagnosed.
 */
export function decideReading(
  r: Reading,
  found: CaptureOutcome | undefined,
  ctx: DecideContext,
  sourceMs: number,
): ClaimResult {
  const { htmlView, wayback, asOfOverride } = ctx;
  const capture = r.needs ? found : isProven(found) ? found : undefined;
  const judgement = judge(r.quote, htmlView, r.live, capture, r.date, ctx.replaying, wayback);
  if (
    asOfOverride &&
    wayback === 'auto' &&
    !r.live.match &&
    capture === undefined &&
    r.claim.evidenceSha256 === undefined
  ) {
    // A date asked for, and nothing looked up for it: say so, and how to have it looked up.
    judgement.note = joinNotes(
      judgement.note,
      `judged on today's text: without an evidence hash, wayback mode auto looks up no capture; mode always ` +
        `(--wayback always) judges on the capture nearest ${asOfOverride.input}`,
    );
  }
  return resultFor(r.claim, r.quote, r.live, judgement, htmlView, sourceMs);
}

/**
 * Deciding the claims of a source with a large text away from the run's own thread (the MCP server's page worker,
 * src/mcp/page-worker.ts), so that the thread stays free for the calls it answers meanwhile: decideHere, there.
 */
export interface OffThread {
  /** Whether a source whose longest view (as extracted) has `chars` characters is decided off the thread. */
  takes(chars: number): boolean;
  decide(request: OffThreadRequest): Promise<(ClaimResult | null)[]>;
}

/** A source and its claims, as they cross to another thread: the record without its body (its texts are what count). */
export interface OffThreadRequest {
  record: SourceRecord;
  claims: Claim[];
  ctx: DecideContext;
  sourceMs: number;
}

/** Characters of a record's longest view as extracted (never more than its body's bytes). */
export function longestView(record: SourceRecord): number {
  return Math.max(0, ...(record.text?.views ?? []).map((v) => v.text.length));
}

/**
 * A record as it crosses to another thread: its body left behind (extraction is done with it), and each raw view
 * without its normalized text, which the record's normalized views already hold (a copy would cross twice).
 */
export function portableRecord(record: SourceRecord): SourceRecord {
  const fetch = record.fetch.ok ? { ...record.fetch, body: Buffer.alloc(0) } : record.fetch;
  const text = record.text && {
    ...record.text,
    views: record.text.views.map(({ normalized: _normalized, ...v }) => v),
  };
  return { ...record, fetch, ...(text ? { text } : {}) };
}

/**
 * The claims of a request decided where it arrives, as the run decides them: a claim whose date and evidence need a
 * capture looked up comes back null, and so does every claim of that date and evidence (a capture the evidence proves
 * decides them all): the run decides those once the lookup is done.
 */
export function decideHere(request: OffThreadRequest): (ClaimResult | null)[] {
  const readings = request.claims.map((claim) => readClaim(claim, request.record, request.ctx));
  const looked = new Set(readings.filter((r) => r.needs).map((r) => r.key));
  return readings.map((r) => (looked.has(r.key) ? null : decideReading(r, undefined, request.ctx, request.sourceMs)));
}
