// Fetch failures: one error type with a kind, so retry policy and diagnosis can tell them apart.

export type FetchErrorKind =
  | 'http_status' // the server answered with a 4xx/5xx status
  | 'timeout' // no complete response within the per-attempt time limit
  | 'dns' // the host name did not resolve
  | 'connection' // refused, reset or closed before a complete response
  | 'tls' // certificate or handshake failure
  | 'too_large' // the body exceeded the size cap
  | 'redirects' // too many redirects, a loop, or a redirect to a non-http(s) URL
  | 'aborted' // the run was stopped (deadline or signal) while this source was in flight
  // the network rule refused the address (docs/real-web.md#the-network-rule-global-addresses-only: not a global
  // address, and no --allow-private)
  | 'refused'
  | 'not_archived' // replaying a recorded archive (--replay) that holds no exchange for this URL
  | 'other';

/**
 * `code` of the error a connection refused by the network rule fails with (src/fetch/guard.ts); classified as
 * `refused`.
 */
export const PRIVATE_ADDRESS_CODE = 'QUOTECHECK_PRIVATE_ADDRESS';
/**
 * What every network-rule refusal says of the address (src/fetch/guard.ts writes it; refusedByNetworkRule reads it).
 */
export const NOT_GLOBAL = 'not a global address';

/**
 * Whether a source's note (a failed fetch's message) is the network rule's refusal: about the call, never about the
 * quote. For a message alone (an MCP tool's result, a report written before `fetch_error`); with the failure in hand,
 * ask refusedKind, which reads its kind.
 */
export function refusedByNetworkRule(note: string | null | undefined): note is string {
  return typeof note === 'string' && note.startsWith('refused: ') && note.includes(NOT_GLOBAL);
}

/** Whether a failed fetch's kind is the network rule's refusal (classifyNetworkError gives `refused` to that alone). */
export function refusedKind(kind: FetchErrorKind | string | null | undefined): boolean {
  return kind === 'refused';
}
/**
 * `code` of the error a replay fails with for a URL the archive does not hold (src/archive/replay.ts); classified as
 * `not_archived`.
 */
export const NOT_IN_ARCHIVE = 'QUOTECHECK_NOT_IN_ARCHIVE';

export interface FetchErrorDetails {
  kind: FetchErrorKind;
  /** Whether another attempt could succeed (network errors, 408/425/429/5xx). */
  retryable?: boolean;
  status?: number;
  /** Milliseconds the server asked us to wait (Retry-After), when it did. */
  retryAfterMs?: number;
  finalUrl?: string;
  contentType?: string;
  /** The error page's body (capped), kept for diagnosis (paywall and bot-check shells). */
  body?: Buffer;
  /** The error response's headers (a bot check announces itself there, e.g. cf-mitigated). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class FetchError extends Error {
  override readonly name = 'FetchError';
  readonly kind: FetchErrorKind;
  readonly retryable: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;
  /** The last URL requested (after redirects); filled in by the request layer. */
  finalUrl?: string;
  readonly contentType?: string;
  readonly body?: Buffer;
  readonly headers?: Record<string, string>;

  constructor(message: string, details: FetchErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = details.kind;
    this.retryable = details.retryable ?? false;
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.finalUrl = details.finalUrl;
    this.contentType = details.contentType;
    this.body = details.body;
    this.headers = details.headers;
  }
}

/** Error codes (from Node's net/dns/tls layers and undici) that name a DNS failure. */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
/** Timeouts raised below the fetch API (connect, headers, body). */
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/**
 * The first string `code` (errno, undici) along an error's cause chain, five deep; the fetch layer and the recorder
 * read it.
 */
export function errorCode(err: unknown): string | undefined {
  // undici's fetch wraps the real failure: TypeError('fetch failed', { cause }).
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}

function innermostMessage(err: unknown): string {
  let e = err as { message?: unknown; cause?: unknown } | undefined;
  let message = String((e as Error | undefined)?.message ?? err);
  for (let depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.message === 'string' && e.message) message = e.message;
  }
  return message;
}

/** The archive a replay error names (src/archive/replay.ts sets `archivePath` on it). */
function archivePath(err: unknown): string | undefined {
  for (
    let e = err as { archivePath?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.archivePath === 'string' && e.archivePath) return e.archivePath;
  }
  return undefined;
}

/**
 * The run stopped (deadline or signal) while this source was in flight: the request layer and the retry loop both say
 * so.
 */
export function stoppedError(cause: unknown, finalUrl?: string): FetchError {
  return new FetchError('stopped before the source was fetched (deadline or signal)', {
    kind: 'aborted',
    finalUrl,
    cause,
  });
}

/** Turns whatever the HTTP client threw into a FetchError with a kind and a retry verdict. */
export function classifyNetworkError(err: unknown, url: string): FetchError {
  if (err instanceof FetchError) return err;
  const code = errorCode(err);
  const message = innermostMessage(err);
  if (code === PRIVATE_ADDRESS_CODE) {
    return new FetchError(`refused: ${message}`, { kind: 'refused', retryable: false, cause: err });
  }
  if (code === NOT_IN_ARCHIVE) {
    // A replay never goes to the network: the URL simply was not recorded, and asking again will not change that.
    const archive = archivePath(err);
    return new FetchError(`not in the archive (replaying ${archive ?? 'a recorded archive'})`, {
      kind: 'not_archived',
      retryable: false,
      cause: err,
    });
  }
  if (code && DNS_CODES.has(code)) {
    // EAI_AGAIN is a temporary resolver failure; the others are final.
    return new FetchError(`DNS lookup failed for ${new URL(url).hostname} (${code})`, {
      kind: 'dns',
      retryable: code === 'EAI_AGAIN',
      cause: err,
    });
  }
  if (code && TIMEOUT_CODES.has(code)) {
    return new FetchError(`timed out (${code})`, { kind: 'timeout', retryable: true, cause: err });
  }
  if (
    code &&
    (code.startsWith('ERR_TLS') ||
      code.startsWith('CERT_') ||
      code.includes('SSL') ||
      code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
      code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE')
  ) {
    return new FetchError(`TLS failure: ${message} (${code})`, { kind: 'tls', retryable: false, cause: err });
  }
  return new FetchError(`connection failed: ${message}${code ? ` (${code})` : ''}`, {
    kind: 'connection',
    retryable: true,
    cause: err,
  });
}
