// Which text decides a claim as of its date (docs/sources-change.md#which-text-decides): a proven text alone, else any
// text consulted; and how to say so.
import { findQuote, type Match } from '../match.js';
import type { HtmlViewChoice } from '../config/settings.js';
import type { SourceRecord } from '../source-record.js';
import type { CaptureOutcome } from './captures.js';
import { timestamp14ToIso, type AsOfDate } from './date.js';
import type { Drift, EvidenceMatch } from './evidence.js';
import type { AsOf } from '../contract.js';
import type { WaybackMode } from '../config/settings.js';
import { refusedKind } from '../fetch/errors.js';

export type { WaybackMode } from '../config/settings.js';

/**
 * The report's `as_of` as the pipeline carries it (contract.ts AsOfResultSchema): which text decided the label, and why
 * it stands for the date.
 */
export type { AsOf };

/** The live source as one claim sees it. */
export interface LiveReading {
  record: SourceRecord;
  match: Match | null;
  drift: Drift;
  evidenceMatch: EvidenceMatch | null;
}

export interface Judgement {
  /** The text whose match (or absence) is the label, and the record diagnosis reads. */
  record: SourceRecord;
  match: Match | null;
  asOf: AsOf;
  /** The source drifted and no text as of the date could be had: diagnosis `drifted`. */
  drifted: boolean;
  /** What the date logic did, for the report's note; undefined when the live text simply decided. */
  note?: string;
}

/**
 * Whether a claim needs the archive (docs/sources-change.md#when-the-archive-is-asked): `auto` when the live source is
 * not proven the same as the evidence and the quote is not in the live text; `always` also without evidence (the live
 * fetch failed or the quote is not there); `strict` also when the quote is in the live text but the live source is not
 * the evidence's (a quote can be added to a page after its date). Never for a source the network rule refused
 * (unarchivable).
 */
export function needsCapture(mode: WaybackMode, evidence: string | undefined, live: LiveReading): boolean {
  return wantsCapture(mode, evidence !== undefined, live) && !unarchivable(live);
}

/** needsCapture before the network rule's word: whether the mode and the live reading ask for a capture. */
function wantsCapture(mode: WaybackMode, hasEvidence: boolean, live: LiveReading): boolean {
  if (mode === 'off' || live.drift === 'same') return false;
  if (live.match) return mode === 'strict' && hasEvidence;
  return hasEvidence || mode === 'always' || mode === 'strict';
}

/**
 * A source the network rule refused: its address is not a global one (loopback, a private network), which no
 * public archive can have crawled. Asking the archive for it would only send an intranet's URLs out and wait on
 * the archive's pacing for nothing.
 */
function unarchivable(live: LiveReading): boolean {
  const f = live.record.fetch;
  return !f.ok && refusedKind(f.error);
}

/**
 * Why the archive was not asked about a source refused by the network rule
 * (docs/sources-change.md#when-the-archive-is-asked).
 */
const NOT_ARCHIVABLE =
  'the Wayback Machine was not asked: the network rule refused the address, a private one no public archive holds';

/** A capture the evidence hash proves: the text of the date itself, which decides alone. */
export function isProven(capture: CaptureOutcome | undefined): capture is Extract<CaptureOutcome, { ok: true }> {
  return capture?.ok === true && capture.text.proof === 'sha256';
}

const MEMENTO = /\/web\/(\d{14})id_\//;

function liveAsOf(live: LiveReading, date: AsOfDate | undefined, replaying: boolean): AsOf {
  const fetched = live.record.fetch;
  const recorded = replaying ? httpDateToIso(fetched.headers?.['memento-datetime']) : undefined;
  return {
    source: replaying ? 'replay' : 'live',
    timestamp: recorded ?? fetched.fetchedAt,
    captureUrl: null,
    proof: live.drift === 'same' ? 'sha256' : null,
    date: date?.input ?? null,
    sha256: fetched.ok ? fetched.sha256 : null,
  };
}

function captureAsOf(
  outcome: Extract<CaptureOutcome, { ok: true }>,
  date: AsOfDate | undefined,
  replaying: boolean,
): AsOf {
  const { capture, record, proof } = outcome.text;
  const finalUrl = record.fetch.finalUrl ?? capture.rawUrl;
  const ts = MEMENTO.exec(finalUrl)?.[1] ?? capture.timestamp;
  return {
    source: replaying ? 'replay' : 'wayback',
    timestamp: timestamp14ToIso(ts),
    captureUrl: finalUrl,
    proof,
    date: date?.input ?? null,
    sha256: record.fetch.ok ? record.fetch.sha256 : null,
  };
}

function httpDateToIso(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function liveState(live: LiveReading): string {
  const f = live.record.fetch;
  return f.ok ? 'its sha256 differs from the evidence' : `the live fetch failed: ${f.message}`;
}

/**
 * Decides which text a claim is judged on. A proven text decides alone (the live source, or a
 * capture, hashing to the evidence); otherwise the quote is verbatim when it is in any text
 * consulted (the live text, the capture chosen for the date).
 */
export function judge(
  quote: string,
  choice: HtmlViewChoice,
  live: LiveReading,
  capture: CaptureOutcome | undefined,
  date: AsOfDate | undefined,
  replaying: boolean,
  mode: WaybackMode,
): Judgement {
  const fromLive = (note?: string, drifted = false): Judgement => ({
    record: live.record,
    match: live.match,
    asOf: liveAsOf(live, date, replaying),
    drifted,
    note,
  });
  // A proven text decides alone: the live source hashing to the evidence, or a capture that does
  // (docs/sources-change.md#which-text-decides), even when the quote is in today's changed text.
  if (live.drift !== 'same' && isProven(capture)) return fromCapture(quote, choice, live, capture, date, replaying);
  // Otherwise a live match makes the claim verbatim (rule 2: the quote is in a text consulted).
  if (live.drift === 'same' || live.match) {
    const note =
      live.match && live.drift === 'changed'
        ? 'found in the live text, though the source has changed since the evidence was recorded'
        : undefined;
    return fromLive(note);
  }
  if (capture?.ok) return fromCapture(quote, choice, live, capture, date, replaying);
  // Nothing was read: no bytes to hash against the evidence, so no drift to speak of; the failure is the diagnosis.
  if (!live.record.fetch.ok) return fromLive(unreadNote(live, capture, mode));
  if (live.drift === 'changed') {
    const since = date ? ` since ${date.input}` : '';
    const why = capture ? capture.reason : 'captures were not looked up (--wayback off)';
    return fromLive(
      `the source has changed${since} (${liveState(live)}) and no text as of that date could be had: ${why}. That ` +
        `the quote is not in today's text proves nothing`,
      true,
    );
  }
  return fromLive(capture ? `${NO_CAPTURE}${capture.reason}` : undefined);
}

/** How a note begins when a capture was looked up and none could be had (evaluate reads the reason after it). */
const NO_CAPTURE = 'no capture as of the date could be had: ';

/**
 * The note of a claim whose live source could not be read and no capture decided: what the archive lookup found,
 * and, when the claim has evidence, that this is no drift (its report field `drift` is still `changed`,
 * docs/sources-change.md#drift-proof).
 */
function unreadNote(
  live: LiveReading,
  capture: Extract<CaptureOutcome, { ok: false }> | undefined,
  mode: WaybackMode,
): string | undefined {
  const evidence = live.drift === 'changed';
  const lookup = capture
    ? `${NO_CAPTURE}${capture.reason}`
    : unarchivable(live) && wantsCapture(mode, evidence, live)
      ? NOT_ARCHIVABLE
      : evidence
        ? 'captures were not looked up (--wayback off)'
        : undefined;
  if (!evidence) return lookup;
  return `not drift: the source could not be read, so no bytes were compared with the evidence; ${lookup}`;
}

/** A claim judged on a capture: the proven one, or the one chosen by date; the note says which and why. */
function fromCapture(
  quote: string,
  choice: HtmlViewChoice,
  live: LiveReading,
  capture: Extract<CaptureOutcome, { ok: true }>,
  date: AsOfDate | undefined,
  replaying: boolean,
): Judgement {
  const { capture: ref, record, proof, evidenceMatch } = capture.text;
  const match = record.views ? findQuote(quote, record.views, choice) : null;
  const when = timestamp14ToIso(ref.timestamp);
  const hashed =
    evidenceMatch === 'bytes'
      ? 'bytes hash'
      : evidenceMatch === 'text'
        ? 'extracted text hashes'
        : 'normalized text hashes';
  const why =
    proof === 'sha256'
      ? `whose ${hashed} to the evidence`
      : ref.after
        ? `the earliest after ${date?.input ?? 'the date'}: there is none at or before it`
        : `the latest at or before ` +
          `${date?.input ?? 'today'}${live.drift === 'changed' ? '; none of the nearest hashes to the evidence' : ''}`;
  // A quote in today's text but not in the proven capture was put there after the date.
  const added = live.match && !match ? '; the quote is in it, added after the date' : '';
  const liveNote =
    live.drift === 'changed' || !live.record.fetch.ok ? ` (the live source: ${liveState(live)}${added})` : '';
  return {
    record,
    match,
    asOf: captureAsOf(capture, date, replaying),
    drifted: false,
    note: `judged on the Wayback capture of ${when}, ${why}${liveNote}`,
  };
}
