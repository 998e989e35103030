// The drift variant of the bench workload (docs/sources-change.md#sources-change-judging-a-claim-as-of-its-verify-date): the same sources and claims,
// but every claim now says when it was labelled (`verify_date`) and what the source was then
// (`evidence.sha256` of the document's bytes), and a seeded share of the sources has since changed:
// their live URL serves another document of the same kind, so most of their verbatim quotes are gone
// from today's text. A Wayback stub holds, for each drifted source, the original document
// captured before the date, plus two traps a careless client would fall into: a 302 capture closer
// to the date (not status 200: not a text of the page) and a capture of today's document just after
// the date (nearer in absolute time than the original). Only the original hashes to the evidence.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Route } from '../golden/server.js';
import { rng } from './random.js';
import type { BenchClaim, BenchSource, Workload } from './workload.js';
import type { Capture } from '../src/wayback/stub/captures.js';

export interface DriftOptions {
  /** Share of the sources that drifted (rounded to a whole number of sources). */
  share: number;
  /** Seed of the choice of drifted sources and of their new documents. */
  seed: number;
  /** Every claim's verify_date (an ISO date, judged as the whole UTC day). */
  verifyDate: string;
}

export const DEFAULT_DRIFT: DriftOptions = { share: 0.08, seed: 2025, verifyDate: '2025-06-01' };

/** A claim as a dataset with provenance gives it (docs/how-it-decides.md#claims-input and docs/sources-change.md#drift-proof). */
export interface DatedClaim extends BenchClaim {
  verify_date: string;
  evidence: { sha256: string };
}

export interface DriftedSource {
  source: BenchSource;
  /** The document its URL serves today (another file of the same kind from the workload's pool). */
  todayFile: string;
}

export interface DriftWorkload {
  /** Every claim of the workload, dated and with the sha256 of its source's original bytes. */
  claims: DatedClaim[];
  /** The workload's routes, the drifted ones serving their new document. */
  routes: Route[];
  drifted: DriftedSource[];
  /** Ids of the claims that cite a drifted source. */
  driftedClaimIds: Set<string>;
  /** The archive's captures of the drifted sources, for a server listening on `port`. */
  captures(port: number): Capture[];
  /** The three captures' timestamps (the same for every drifted source): only `original` should be fetched. */
  stamps: { original: string; redirect: string; today: string };
}

/** A source's identity independent of the port its server got: host and path. */
const keyOf = (host: string, path: string): string => `${host}${path}`;

/** A Wayback timestamp (14 digits, UTC) `hours` from the start of an ISO date. */
function stamp(date: string, hours: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + hours * 3_600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Builds the drift variant of `workload` (whose claims and routes are left untouched). */
export function buildDriftWorkload(workload: Workload, opts: DriftOptions = DEFAULT_DRIFT): DriftWorkload {
  const random = rng(opts.seed);
  const sha = new Map<string, string>();
  const sha256Of = (file: string): string => {
    let h = sha.get(file);
    if (h === undefined) {
      h = createHash('sha256').update(readFileSync(file)).digest('hex');
      sha.set(file, h);
    }
    return h;
  };

  // An exact number of drifted sources (a partial Fisher-Yates shuffle), so the phase's size does
  // not wander with the seed.
  const count = Math.round(workload.sources.length * opts.share);
  const order = workload.sources.map((_, i) => i);
  for (let k = 0; k < count; k++) {
    const j = k + Math.floor(random() * (order.length - k));
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  // The pool a drifted URL draws its new document from: the workload's own files of that kind, minus
  // any with the same bytes as the original (that would not be drift at all).
  const pool = (kind: BenchSource['kind']): string[] =>
    [...new Set(workload.sources.filter((s) => s.kind === kind).map((s) => s.file))].sort();
  const pools = { html: pool('html'), pdf: pool('pdf') };
  const drifted: DriftedSource[] = order
    .slice(0, count)
    .sort((a, b) => a - b)
    .map((i) => {
      const source = workload.sources[i]!;
      const others = pools[source.kind].filter((f) => sha256Of(f) !== sha256Of(source.file));
      return { source, todayFile: others[Math.floor(random() * others.length)]! };
    });
  const today = new Map(drifted.map((d) => [keyOf(d.source.host, d.source.path), d.todayFile]));

  const routes = workload.routes.map((r) => {
    const file = today.get(keyOf(r.host ?? '', r.path));
    return file === undefined ? r : { ...r, file };
  });

  const sourceOf = new Map(workload.sources.map((s) => [keyOf(s.host, s.path), s]));
  const driftedClaimIds = new Set<string>();
  const claims = workload.claims.map((c): DatedClaim => {
    const u = new URL(c.url);
    const key = keyOf(u.hostname, u.pathname);
    const source = sourceOf.get(key);
    if (!source) throw new Error(`drift workload: claim ${c.id} cites ${c.url}, which is no source of the workload`);
    if (today.has(key)) driftedClaimIds.add(c.id);
    // The evidence is the ORIGINAL document's bytes: what the labeller saw, not what is served today.
    return { ...c, verify_date: opts.verifyDate, evidence: { sha256: sha256Of(source.file) } };
  });

  const stamps = {
    // The text as labelled: two days before the date. The one capture that hashes to the evidence.
    original: stamp(opts.verifyDate, -36),
    // A redirect captured the day before: the latest capture at or before the date, but not a 200.
    redirect: stamp(opts.verifyDate, -12),
    // Today's document, captured the morning after the date: nearer to it than the original.
    today: stamp(opts.verifyDate, 24 + 8),
  };
  const captures = (port: number): Capture[] =>
    drifted.flatMap(({ source, todayFile }) => {
      const url = `http://${source.host}:${port}${source.path}`;
      const headers = { 'content-type': source.kind === 'pdf' ? 'application/pdf' : 'text/html; charset=utf-8' };
      return [
        { url, timestamp: stamps.original, file: source.file, headers },
        {
          url,
          timestamp: stamps.redirect,
          status: 302,
          location: `http://${source.host}:${port}/moved${source.path}`,
          headers: { 'content-type': 'text/html' },
        },
        { url, timestamp: stamps.today, file: todayFile, headers },
      ];
    });

  return { claims, routes, drifted, driftedClaimIds, captures, stamps };
}
