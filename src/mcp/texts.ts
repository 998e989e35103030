// A page worker's job as it crosses threads: its long texts taken out to be sent one at a time (page-worker.ts), each
// replaced by a marker naming it, and put back where they were on the other side.

/**
 * Texts of at least this many characters are sent on their own: a page's texts are tens of MB each, and each is
 * copied to cross; shorter ones (a quote, a claim's fields) cross with the job.
 */
const OWN_MESSAGE_CHARS = 1024 * 1024;

/** The key of a marker object: `{ [MARKER]: i }` stands for the i-th text taken out. */
const MARKER = '\u0000quotecheck-text';

/** Whether a value is walked into: arrays and plain objects (records, views, requests); anything else crosses as is. */
function walked(value: unknown): value is Record<string, unknown> | unknown[] {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `value` with each of its long strings in `texts` and a marker in its place; the caller's objects are not changed. */
export function withoutTexts<T>(value: T, texts: string[]): T {
  if (typeof value === 'string' && value.length >= OWN_MESSAGE_CHARS) {
    texts.push(value);
    return { [MARKER]: texts.length - 1 } as T;
  }
  if (!walked(value)) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => withoutTexts(v, texts)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withoutTexts(v, texts);
  return out as T;
}

/** `value` with each marker replaced by the text it stands for (withoutTexts undone). */
export function withTexts<T>(value: T, texts: readonly string[]): T {
  if (!walked(value)) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => withTexts(v, texts)) as T;
  const marker = (value as Record<string, unknown>)[MARKER];
  if (typeof marker === 'number' && Object.keys(value).length === 1) {
    const text = texts[marker];
    if (text === undefined) throw new Error(`the page worker's job lacks its text ${marker}`);
    return text as T;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withTexts(v, texts);
  return out as T;
}
