// A run's options and what it returns: the types checkClaims and streamClaims share with the run loop.
import type { WaybackOptions, WaybackStats } from '../wayback/client.js';
import type { RunSettings } from '../config/settings.js';
import type { SourceRecord } from '../source-record.js';
import type { ClaimResult } from './result.js';
import type { OffThread } from './decide.js';
import type { ExchangeInterceptor, ReplayArchive, Transport } from './transport.js';

/** A run's settings (settings.ts) with the optional ones and the run's hooks. */
export interface CheckOptions extends RunSettings {
  /** Judge every claim as of this ISO date or date-time instead of its own verify date. */
  asOf?: string;
  /** pdftotext executable (default: from PATH). */
  pdftotext?: string;
  /**
   * Where the run's HTTP exchanges go (transport.ts): the network (the default), the network recorded into a WARC
   * file, the network through a response cache, or a WARC replay that answers every request with no network (texts
   * reported as `replay`; the recording's Wayback base asked, whatever `waybackUrl` says).
   */
  transport?: Transport;
  /** Stops the run: claims not decided by then are answered `no_match`. */
  signal?: AbortSignal;
  /** When the run must end (epoch ms): no Wayback wait may end after it. */
  deadlineAt?: number;
  /**
   * Called as each claim is decided (in decision order); when the run stops early, once more for
   * each claim it did not decide (`undecided: true`, answered `no_match`), so every claim is seen once.
   */
  onResult?: (result: ClaimResult) => void;
  /**
   * Called as each source is settled (fetched and extracted, or failed). The run keeps no reference to it after its
   * claims are decided.
   */
  onSource?: (source: SourceRecord) => void;
  /** Called as the Wayback Machine's requests are queued, sent and answered (progress shows the pacing wait). */
  onArchive?: WaybackOptions['onActivity'];
  /** Where the claims of a source with a large text are decided, off the run's thread (decide.ts OffThread). */
  offThread?: OffThread;
}

/**
 * What streamClaims returns: the run's own facts. Each claim's result and each source went to `onResult` and `onSource`
 * as they came, and were not kept.
 */
export interface StreamedRun {
  /** Claims in the input (each was passed to `onResult` once). */
  claims: number;
  /** Problems that did not invalidate a claim (a malformed optional field, dropped), as parseClaims reports them. */
  warnings: string[];
  /** Why the run ended early, if it did: claims not decided were answered `no_match`. */
  stopped?: string;
  /** What the Wayback Machine was asked, when it was. */
  wayback?: WaybackStats;
  ms: number;
}

/** What checkClaims returns: the run, with every result and every source kept. */
export interface CheckRun extends StreamedRun {
  /** One result per claim, in input order. */
  results: ClaimResult[];
  /**
   * Every source read, in the order they were settled (with their texts: memory grows with the run; streamClaims keeps
   * none).
   */
  sources: SourceRecord[];
}

/**
 * A command's transport from the archives it opened: a replay answers every request; else the network, recorded when it
 * records.
 */
export function transportOf(archives: { recorder?: ExchangeInterceptor; replay?: ReplayArchive }): Transport {
  if (archives.replay) return { kind: 'replay', archive: archives.replay };
  return archives.recorder ? { kind: 'recorded', recorder: archives.recorder } : { kind: 'network' };
}
