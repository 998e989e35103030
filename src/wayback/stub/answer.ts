// What the Wayback stub answers a request with: a status, headers and a body; a plain text answer.

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function text(status: number, message: string, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
    body: Buffer.from(`${message}\n`),
  };
}

/** A URL as a header value: the original as captured, with only non-visible/non-ASCII characters escaped. */
export function headerSafe(url: string): string {
  return url.replace(/[^\x21-\x7e]/gu, (ch) => encodeURIComponent(ch));
}
