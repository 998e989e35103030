// Retry policy: which failures are worth another attempt, and how long the server asked us to wait.

/**
 * Statuses that say "try again later": request timeout, too early, too many requests and
 * the transient server errors. Other 4xx (401, 403, 404, 410, ...) are answers, not accidents:
 * retrying them only adds load and time.
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

/** Parses Retry-After (delta-seconds or an HTTP-date) into milliseconds from `now`; undefined if absent or unusable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
