// The budget page of the as-of tests: as labelled (THEN, whose sha256 is the claims' evidence) and as it is today (NOW).
import { createHash } from 'node:crypto';

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
export const html = { 'content-type': 'text/html; charset=utf-8' };
export const THEN =
  '<html><body><article><p>The committee approved the budget on Tuesday after a long debate.</p></article></body></html>';
export const NOW =
  '<html><body><article><p>The committee approved a revised budget on Wednesday.</p></article></body></html>';
/** In THEN, not in NOW. */
export const QUOTE = 'approved the budget on Tuesday';
/** What a builder's labelled claims carry when their labels were made with proof (docs/cli.md#quotecheck-label-gold-labels-with-their-proof). */
export const EVIDENCE = { verify_date: '2024-05-01', evidence: { sha256: sha256(THEN) } };
