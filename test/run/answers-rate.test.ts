// The answers file's rewrite rate is bounded by the run's size (issue 17 item 3), and the file stays complete and valid throughout.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  AnswerBook,
  AnswersFile,
  LARGE_RUN_CLAIMS,
  LARGE_WRITE_INTERVAL_MS,
  WRITE_INTERVAL_MS,
  writeIntervalFor,
} from '../../src/output/answers.js';
import { tempDir } from '../support/helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Decides one claim every `everyMs` of (fake) time for `seconds`, as a run's results arrive; returns the writes made meanwhile. */
function decideSteadily(
  claims: number,
  seconds: number,
  everyMs: number,
): { file: AnswersFile; path: string; ids: string[] } {
  vi.useFakeTimers();
  const ids = Array.from({ length: claims }, (_, i) => `claim-${i}`);
  const path = join(tempDir(), 'answers.json');
  const file = new AnswersFile(path, 'map', new AnswerBook(ids));
  file.write();
  const steps = (seconds * 1000) / everyMs;
  for (let i = 0; i < steps; i++) {
    file.book.set(ids[i % claims]!, 'verbatim');
    file.schedule();
    vi.advanceTimersByTime(everyMs);
    if (i % 97 === 0) {
      // At any moment the file on disk is whole: every claim, each with a label.
      const onDisk = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
      expect(Object.keys(onDisk)).toHaveLength(claims);
    }
  }
  return { file, path, ids };
}

describe('answers file rewrites', () => {
  test('the interval is a quarter second up to LARGE_RUN_CLAIMS claims, a second past them', () => {
    expect(writeIntervalFor(1)).toBe(WRITE_INTERVAL_MS);
    expect(writeIntervalFor(LARGE_RUN_CLAIMS)).toBe(WRITE_INTERVAL_MS);
    expect(writeIntervalFor(LARGE_RUN_CLAIMS + 1)).toBe(LARGE_WRITE_INTERVAL_MS);
    expect(WRITE_INTERVAL_MS).toBeLessThan(LARGE_WRITE_INTERVAL_MS);
  });

  test('a large run (6,000 claims, a decision every 10 ms for 10 s): at most one rewrite a second, plus the first and the final one', () => {
    const { file, path, ids } = decideSteadily(6_000, 10, 10);
    const intermediate = file.writes - 1;
    expect(intermediate).toBeLessThanOrEqual(10);
    expect(intermediate).toBeGreaterThanOrEqual(9); // still kept in step: the bound is a rate, not a stop
    file.write();
    const onDisk = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
    expect(ids.slice(0, 1_000).every((id) => onDisk[id] === 'verbatim')).toBe(true);
    expect(onDisk[ids[1_000]!]).toBe('no_match');
  });

  test('a small run (100 claims, the same stream): rewritten about four times a second, so a kill loses at most a quarter second', () => {
    const { file } = decideSteadily(100, 10, 10);
    expect(file.writes - 1).toBeGreaterThanOrEqual(38);
    expect(file.writes - 1).toBeLessThanOrEqual(40);
  });
});
