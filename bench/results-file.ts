// bench/results.json, read and written in one place: every phase that records figures merges its own key into it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../golden/server.js';

/** The file the benchmarks write and the documentation's figures come from. */
export const RESULTS_FILE = join(projectRoot(), 'bench', 'results.json');

/** The recorded figures, or none when the file does not exist yet. */
export function readResults(file = RESULTS_FILE): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return {};
  }
}

/**
 * The results with `key` replaced, every other key as it was; a file without it gets it before bench_seconds
 * (results.json's order), a missing file only it.
 */
export function mergeKey(key: string, value: unknown, file = RESULTS_FILE): Record<string, unknown> {
  const old = readResults(file);
  if (key in old) return { ...old, [key]: value };
  const merged: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(old)) {
    if (k === 'bench_seconds') merged[key] = value;
    merged[k] = v;
  }
  return { ...merged, [key]: value };
}

/** Writes the results as the repository keeps them (two-space JSON, a final newline). */
export function writeResults(results: Record<string, unknown>, file = RESULTS_FILE): void {
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
