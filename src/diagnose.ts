// Diagnosis (design.md §5): why a claim got its label, never changing the label itself.
import type { Label } from './answers.js';
import type { SourceRecord } from './check.js';
import type { Match } from './match.js';

export type Diagnosis =
  | 'verbatim'
  | 'extraction_artifact'
  | 'near_miss'
  | 'partial'
  | 'not_found'
  | 'fetch_failed'
  | 'paywall'
  | 'empty'
  | 'unsupported'
  | 'invalid_claim';

export interface DiagnosisInput {
  label: Label;
  source: SourceRecord;
  match: Match | null;
}

export interface DiagnosisResult {
  diagnosis: Diagnosis;
  note?: string;
}

export function diagnose({ label, source, match }: DiagnosisInput): DiagnosisResult {
  if (label === 'verbatim' && match) return { diagnosis: 'verbatim' };
  const { fetch, extractError } = source;
  if (!fetch.ok) return { diagnosis: 'fetch_failed', note: fetch.message };
  if (extractError) {
    if (extractError.kind === 'unsupported') return { diagnosis: 'unsupported', note: extractError.message };
    return { diagnosis: 'empty', note: extractError.message };
  }
  return { diagnosis: 'not_found', note: 'the normalized quote is not in the normalized source text' };
}
