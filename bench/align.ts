// Benchmark: approximate alignment speed (nearest span of a quote in a large text) and per-claim diagnosis cost.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { nearestSpan } from '../src/diagnose/align.js';
import { normalize } from '../src/normalize.js';
import { median } from './stats.js';

export interface AlignResult {
  text_mb: number;
  quote_chars: number;
  align_ms_p50: number;
  align_ms_max: number;
  found_similarity: number;
}

/** A ~5 MB normalized text made of real pdftotext output (the golden PDFs, repeated), with one misquoted passage planted in it. */
export function alignBenchmark(pdfDir: string, targetBytes = 5 * 1024 * 1024, runs = 15): AlignResult {
  const texts = readdirSync(pdfDir)
    .filter((f) => f.endsWith('.pdf'))
    .map((f) => {
      try {
        return execFileSync('pdftotext', ['-enc', 'UTF-8', join(pdfDir, f), '-'], {
          maxBuffer: 1 << 28,
          stdio: ['ignore', 'pipe', 'ignore'],
        }).toString('utf8');
      } catch {
        return '';
      }
    });
  let big = normalize(texts.join('\n'));
  while (big.length < targetBytes) big += ` ${big}`;
  big = big.slice(0, targetBytes);
  // A real 300-character passage from the middle, misquoted by one word, is what we look for.
  const at = Math.floor(big.length * 0.61);
  const start = big.indexOf(' ', at) + 1;
  const passage = big.slice(start, start + 300);
  const words = passage.split(' ');
  words[Math.floor(words.length / 2)] = 'zyxwvut';
  const quote = words.join(' ');
  const times: number[] = [];
  let similarity = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const span = nearestSpan(quote, big);
    times.push(performance.now() - t0);
    similarity = span?.similarity ?? 0;
  }
  return {
    text_mb: Number((big.length / 1024 / 1024).toFixed(2)),
    quote_chars: quote.length,
    align_ms_p50: Number(median(times).toFixed(1)),
    align_ms_max: Number(Math.max(...times).toFixed(1)),
    found_similarity: Number(similarity.toFixed(3)),
  };
}
