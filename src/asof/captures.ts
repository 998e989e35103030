// The text of a source as of a date: the Wayback capture proven by the evidence hash, else the latest at or before the
// date.
import type { SourceRecord } from '../source-record.js';
import type { FetchedSource } from '../fetch/index.js';
import type { CaptureRef } from '../wayback/cdx.js';
import { WaybackError, type WaybackClient } from '../wayback/client.js';
import type { AsOfDate } from './date.js';
import { evidenceMatch, type EvidenceMatch } from './evidence.js';

/** Distinct captures (by payload digest) fetched when looking for the one the evidence hash names. */
const PROOF_CANDIDATES = 3;

interface CaptureText {
  capture: CaptureRef;
  record: SourceRecord;
  /** `sha256`: the capture hashes to the evidence; `nearest`: chosen by date alone. */
  proof: 'sha256' | 'nearest';
  evidenceMatch: EvidenceMatch | null;
}

export type CaptureOutcome = { ok: true; text: CaptureText } | { ok: false; reason: string };

/**
 * Fetches and reads captures once each, however many claims and dates ask for them, until the run
 * says a URL is done (forget): then its captures' texts are let go, so a run holds the captures of
 * the sources in flight only.
 */
export class CaptureTexts {
  /** Capture texts by the URL they were found for, then by the capture's raw URL. */
  private readonly records = new Map<string, Map<string, Promise<SourceRecord>>>();

  constructor(
    private readonly client: WaybackClient,
    private readonly read: (url: string, fetched: FetchedSource) => Promise<SourceRecord>,
  ) {}

  /**
   * The capture that stands for `url` as of `asOf`. With evidence, the few captures nearest
   * the date (distinct payloads, newest first) are read until one hashes to it; otherwise, or
   * when none does, the latest at or before the date that could be read; when there is none,
   * the earliest after it.
   */
  async find(url: string, asOf: AsOfDate, evidence?: string): Promise<CaptureOutcome> {
    let listing;
    try {
      listing = await this.client.captures(url, asOf);
    } catch (err) {
      return { ok: false, reason: reasonOf(err) };
    }
    const candidates = distinctPayloads(listing.before);
    if (candidates.length === 0 && listing.after) candidates.push(listing.after);
    if (candidates.length === 0)
      return { ok: false, reason: `the Wayback Machine has no capture of ${url} (status 200)` };

    let fallback: CaptureText | undefined;
    let lastReason = '';
    const tries = evidence === undefined ? candidates : candidates.slice(0, PROOF_CANDIDATES);
    for (const capture of tries) {
      let record: SourceRecord;
      try {
        record = await this.load(url, capture);
      } catch (err) {
        lastReason = reasonOf(err);
        if (err instanceof WaybackError && err.kind !== 'failed') break;
        continue;
      }
      const match = evidence === undefined ? null : evidenceMatch(evidence, record);
      if (match) return { ok: true, text: { capture, record, proof: 'sha256', evidenceMatch: match } };
      fallback ??= { capture, record, proof: 'nearest', evidenceMatch: null };
      if (evidence === undefined) break;
    }
    return fallback ? { ok: true, text: fallback } : { ok: false, reason: lastReason || 'no capture could be read' };
  }

  /** Lets go of every capture read for `url` (and the client's cache of them): no claim will ask again. */
  forget(url: string): void {
    const loaded = this.records.get(url);
    this.records.delete(url);
    this.client.forget(url, loaded?.keys() ?? []);
  }

  /** URLs whose capture texts are held now. */
  get held(): number {
    return this.records.size;
  }

  private load(url: string, capture: CaptureRef): Promise<SourceRecord> {
    let loaded = this.records.get(url);
    if (!loaded) {
      loaded = new Map();
      this.records.set(url, loaded);
    }
    let record = loaded.get(capture.rawUrl);
    if (!record) {
      record = this.client.fetchCapture(capture).then((fetched) => this.read(capture.original, fetched));
      loaded.set(capture.rawUrl, record);
    }
    return record;
  }
}

/** Newest first, one capture per payload digest: identical bytes are read once. */
function distinctPayloads(captures: readonly CaptureRef[]): CaptureRef[] {
  const seen = new Set<string>();
  return captures.filter((c) => {
    if (!c.digest) return true;
    if (seen.has(c.digest)) return false;
    seen.add(c.digest);
    return true;
  });
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
