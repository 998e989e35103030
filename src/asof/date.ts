// "As of" dates (docs/sources-change.md#sources-change-judging-a-claim-as-of-its-verify-date): a claim's verify date,
// or --as-of, as the instants the Wayback Machine indexes by.
import { UserError } from '../errors.js';
import type { AsOfDate } from '../wayback/cdx.js';

export type { AsOfDate } from '../wayback/cdx.js';

export class AsOfDateError extends UserError {
  override readonly name = 'AsOfDateError';
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A UTC instant (ms) as a 14-digit Wayback timestamp. */
function toTimestamp14(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** A Wayback timestamp (1 to 14 digits; missing digits are the earliest values) as an ISO 8601 instant. */
export function timestamp14ToIso(ts: string): string {
  const t = ts.padEnd(14, '0');
  const month = t.slice(4, 6) === '00' ? '01' : t.slice(4, 6);
  const day = t.slice(6, 8) === '00' ? '01' : t.slice(6, 8);
  return `${t.slice(0, 4)}-${month}-${day}T${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}Z`;
}

/**
 * Parses an ISO date or date-time. A date means the whole day in UTC (its end is 23:59:59); a
 * date-time without an offset is taken as UTC, as the archive's timestamps are.
 */
export function parseAsOf(input: string): AsOfDate {
  const s = input.trim();
  const d = DATE_ONLY.exec(s);
  let endMs: number;
  if (d) {
    const start = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]));
    if (!sameDate(start, d)) throw new AsOfDateError(`${JSON.stringify(input)} is not a calendar date`);
    endMs = start + 86_400_000 - 1000;
  } else {
    const t = DATE_TIME.exec(s);
    if (!t)
      throw new AsOfDateError(
        `${JSON.stringify(input)} is not an ISO date (2024-05-01) or date-time (2024-05-01T12:00:00Z)`,
      );
    const zone =
      t[7] === undefined || t[7].toUpperCase() === 'Z'
        ? 'Z'
        : t[7].length === 5
          ? `${t[7].slice(0, 3)}:${t[7].slice(3)}`
          : t[7];
    const ms = Date.parse(`${t[1]}-${t[2]}-${t[3]}T${t[4]}:${t[5]}:${t[6] ?? '00'}${zone}`);
    if (Number.isNaN(ms) || !sameDate(Date.UTC(Number(t[1]), Number(t[2]) - 1, Number(t[3])), t)) {
      throw new AsOfDateError(`${JSON.stringify(input)} is not a valid date-time`);
    }
    endMs = Math.floor(ms / 1000) * 1000;
  }
  return { input: s, end14: toTimestamp14(endMs), after14: toTimestamp14(endMs + 1000) };
}

/** Whether Date.UTC kept the given year, month and day (it silently rolls 2024-02-31 over to March). */
function sameDate(ms: number, parts: RegExpExecArray): boolean {
  const date = new Date(ms);
  return (
    date.getUTCFullYear() === Number(parts[1]) &&
    date.getUTCMonth() + 1 === Number(parts[2]) &&
    date.getUTCDate() === Number(parts[3])
  );
}

/**
 * Why `input` is not a date parseAsOf accepts, or undefined when it is one: for callers that report rather than throw.
 */
export function asOfProblem(input: string): string | undefined {
  try {
    parseAsOf(input);
    return undefined;
  } catch (err) {
    if (err instanceof AsOfDateError) return err.message;
    throw err;
  }
}
