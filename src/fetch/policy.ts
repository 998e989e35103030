// Retry policy: which failures are worth another attempt, how long the server asked us to wait, and which answers say
// the server is overloaded.

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

/**
 * Statuses by which a server says it is overloaded: 429 (RFC 6585 §4, too many requests in a given time) and 503
 * (RFC 9110 §15.6.4, a temporary overload or maintenance). Without a Retry-After saying when to come back, its host
 * gets fewer requests at once (slots.ts Pace).
 */
export const OVERLOADED_STATUSES: ReadonlySet<number> = new Set([429, 503]);
