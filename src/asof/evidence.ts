// Drift proof (docs/sources-change.md#drift-proof): does a fetched source still hash to the evidence recorded when the
// claim was labelled?
import { createHash } from 'node:crypto';
import type { SourceRecord } from '../source-record.js';
import type { Drift, EvidenceMatch } from '../contract.js';

/**
 * Drift (contract.ts): `same`: the source hashes to the evidence; `changed`: it does not, or could not be fetched;
 * `unknown`: no evidence. EvidenceMatch: what the evidence hash equals. Datasets differ in what they hashed: the body's
 * bytes (after Content-Encoding is removed), the extracted text as UTF-8, or that text normalized.
 */
export type { Drift, EvidenceMatch };

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Hashes of each view's text and normalized text, computed once per source. */
const textHashes = new WeakMap<SourceRecord, { text: Set<string>; normalized: Set<string> }>();

function hashesOf(source: SourceRecord): { text: Set<string>; normalized: Set<string> } {
  let h = textHashes.get(source);
  if (!h) {
    h = {
      text: new Set(source.text?.views.map((v) => sha256(v.text))),
      normalized: new Set(source.views?.map((v) => sha256(v.text))),
    };
    textHashes.set(source, h);
  }
  return h;
}

/** Which of the source's hashes equals the evidence (lowercase hex), or null. */
export function evidenceMatch(evidence: string, source: SourceRecord): EvidenceMatch | null {
  if (!source.fetch.ok) return null;
  if (source.fetch.sha256 === evidence) return 'bytes';
  const h = hashesOf(source);
  if (h.text.has(evidence)) return 'text';
  if (h.normalized.has(evidence)) return 'normalized_text';
  return null;
}

/** The drift of a live source against a claim's evidence, and which hash proved it the same. */
export function driftOf(
  evidence: string | undefined,
  live: SourceRecord,
): { drift: Drift; match: EvidenceMatch | null } {
  if (evidence === undefined) return { drift: 'unknown', match: null };
  const match = evidenceMatch(evidence, live);
  return { drift: match ? 'same' : 'changed', match };
}
