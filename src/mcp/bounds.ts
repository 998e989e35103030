// The MCP server's bounds on what comes in and goes out: the input caps, echoes of long inputs, JSON sizes, and the
// transport guard that holds every request and response under its cap.
import { MCP_DEFAULTS } from '../config/defaults.js';
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
// A namespace import: a build keeps only the parts of zod the schemas use (`import { z }` keeps all of it, four times
// as much).
import * as z from 'zod';
import { thousands } from '../messages.js';

/** The longest quote verify_quote takes (and a claim of check_claims): a long passage is a few thousand characters. */
export const MAX_QUOTE_CHARS = 20_000;
/** The longest URL taken: RFC 9110 §4.1 recommends that senders and recipients support at least 8,000 octets. */
export const MAX_URL_CHARS = 8_192;
/** The longest phrase search_source takes (the alignment looks at this much of a phrase, src/diagnose/align.ts). */
export const MAX_QUERY_CHARS = 1_000;
/** The longest path taken (Linux's PATH_MAX). */
export const MAX_PATH_CHARS = 4_096;
/** Claims one check_claims call checks; a larger file is for `quotecheck run`. */
export const MAX_CLAIMS_PER_CALL = 1_000;
/**
 * The largest JSON-RPC response (the whole message: text content and structuredContent), well under the 10 MB an SDK
 * client buffers.
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/**
 * The largest JSON-RPC request read; a longer line is dropped unread and answered with an error when its id can be
 * found.
 */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
/**
 * The JSON bytes of the text one response carries (read_source's page, search_source's passages, check_claims'
 * list): a result holds it twice (text content and structuredContent), so this leaves room under MAX_RESPONSE_BYTES.
 */
export const PART_BYTES = 256 * 1024;
/**
 * An input echoed back is given whole up to this many characters; a longer one as its first ECHO_HEAD, its length and
 * sha256.
 */
const ECHO_CHARS = 1_000;
const ECHO_HEAD = 200;
/** `--call-timeout`'s default: the longest one tool call may take, in seconds. */
export const DEFAULT_CALL_TIMEOUT_SECONDS = MCP_DEFAULTS.callTimeoutSeconds;

/** The first `n` UTF-16 units of `s`, never half a surrogate pair. */
function head(s: string, n: number): string {
  if (s.length <= n) return s;
  const code = s.charCodeAt(n - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

/** An input as a response or message carries it back: whole when short, else its start, its length and its sha256. */
export function echo(s: string, max = ECHO_CHARS): string {
  if (s.length <= max) return s;
  const digest = createHash('sha256').update(s).digest('hex');
  return `${head(s, Math.min(ECHO_HEAD, max))}… [${thousands(s.length)} characters, sha256 ${digest}]`;
}

/** What zod tells an error function of an issue: the fields the messages below read. */
interface FieldIssue {
  code: string;
  input?: unknown;
  expected?: string;
}

/** A value a field was given, as a message names its kind: "a number", "text", "a list". */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'text';
  if (typeof value === 'boolean') return `${value}`;
  if (typeof value === 'number') return `the number ${value}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A value a field was given, shown in a message: text quoted (and shortened when long), anything else by its kind. */
const shown = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(echo(value, 100)) : kindOf(value);

/**
 * A string field whose every refusal names the field and says what is wrong in plain words, as the project's other
 * messages do (the SDK checks the schema before any work, and GuardedTransport drops its prefix): missing, not text,
 * empty (when `min` is 1), or over the cap ("quote: 3,000,000 characters, over the 20,000-character cap"). `what` is
 * what the field should hold, for the message to say what to give.
 */
export function capped(field: string, max: number, what: string, min = 0): z.ZodString {
  const error = (issue: FieldIssue): string => {
    if (issue.code === 'invalid_type')
      return `${field}: ${issue.input === undefined ? 'missing' : `${kindOf(issue.input)}, not text`}; give ${what}`;
    if (issue.code === 'too_small') return `${field}: empty; give ${what}`;
    if (issue.code === 'too_big')
      return (
        `${field}: ${thousands(typeof issue.input === 'string' ? issue.input.length : 0)} characters, over ` +
        `the ${thousands(max)}-character cap`
      );
    return `${field}: not accepted; give ${what}`;
  };
  const s = z.string({ error }).max(max);
  return min > 0 ? s.min(min) : s;
}

/** A whole-number field from `min` (to `max`, when given), whose refusals name the field and the numbers it takes. */
export function wholeNumber(field: string, min: number, max?: number): z.ZodNumber {
  const range = `a whole number from ${thousands(min)}${max === undefined ? ' up' : ` to ${thousands(max)}`}`;
  const error = (issue: FieldIssue): string => {
    if (issue.input === undefined) return `${field}: missing; give ${range}`;
    if (typeof issue.input !== 'number') return `${field}: ${kindOf(issue.input)}, not a number; give ${range}`;
    if (issue.code === 'invalid_type') return `${field}: ${issue.input} is not a whole number; give ${range}`;
    return `${field}: ${issue.input} is out of range; give ${range}`;
  };
  const n = z.number({ error }).int().min(min);
  return max === undefined ? n : n.max(max);
}

/** A field that takes one of `values`, whose refusals name the field and list them. */
export function oneOf<const T extends readonly [string, ...string[]]>(
  field: string,
  values: T,
): z.ZodEnum<{ [K in T[number]]: K }> {
  const error = (issue: FieldIssue): string =>
    issue.input === undefined
      ? `${field}: missing; give one of ${values.join(', ')}`
      : `${field}: ${shown(issue.input)} is not one of ${values.join(', ')}`;
  return z.enum(values, { error });
}

/**
 * The bytes the UTF-16 unit at `i` of `s` takes inside a JSON string, as JSON.stringify writes it (a pair counts at its
 * high half).
 */
function jsonUnitBytes(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0x20) return c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = s.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? 4 : 6;
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const prev = s.charCodeAt(i - 1);
    return prev >= 0xd800 && prev <= 0xdbff ? 0 : 6;
  }
  return 3;
}

/**
 * Where a slice of `s` from `start` ends: at `start + maxChars` or sooner, so that the slice's JSON
 * (escapes and UTF-8 counted) takes at most `maxBytes`, never between the halves of a surrogate pair;
 * at least one character when there is one.
 */
export function sliceEnd(s: string, start: number, maxChars: number, maxBytes: number): number {
  const limit = Math.min(s.length, start + maxChars);
  let bytes = 0;
  let i = start;
  for (; i < limit; i++) {
    bytes += jsonUnitBytes(s, i);
    if (bytes > maxBytes && i > start) break;
  }
  const code = s.charCodeAt(i - 1);
  if (i < s.length && i - 1 > start && code >= 0xd800 && code <= 0xdbff) i--;
  return i;
}

/** The bytes of a value as JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

// ---- the transport guard --------------------------------------------------------------------

/** The SDK's own refusal of arguments its zod schema rejects: one issue a line, each "message at path". */
const SDK_INVALID = /^MCP error -32602: Input validation error: Invalid arguments for tool [^:]*: /;
/** The SDK's refusal of arguments with more members and list items than the server allows (maxToolInputElements). */
const SDK_TOO_MANY =
  /^MCP error -32602: Invalid arguments for tool ([^:]*): arguments contain more than the maximum of (\d+) elements$/;
/** A one-line error is cut here (an SDK message may quote what it was sent). */
const MAX_ERROR_CHARS = 2_000;

/**
 * An error result's text on one line; the SDK's validation errors as our own ("quote: 3,000,000 characters, over ...").
 */
function oneLine(text: string): string {
  let out = text;
  const sdk = SDK_INVALID.exec(out);
  if (sdk) {
    out = out
      .slice(sdk[0].length)
      .split('\n')
      .map((issue) => {
        const at = / at ([\w.[\]]+)$/.exec(issue);
        if (!at) return issue;
        const message = issue.slice(0, at.index);
        return message.startsWith(`${at[1]}: `) ? message : `${at[1]}: ${message}`;
      })
      .join('; ');
  }
  const crowded = SDK_TOO_MANY.exec(out);
  if (crowded)
    out =
      `${crowded[1]}: the arguments hold more than ${crowded[2]} values in all (members and list items); the ` +
      `tool takes a few named strings and numbers`;
  out = out.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ').trim();
  return out.length > MAX_ERROR_CHARS ? `${head(out, MAX_ERROR_CHARS)}…` : out;
}

function errorResult(text: string): { content: { type: 'text'; text: string }[]; isError: true } {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A JSON-RPC id at the very start or the very end of a message too long to parse (the SDK client writes it last). */
function sniffId(start: string, end: string): RequestId | undefined {
  const token =
    /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/.exec(start)?.[1] ??
    /[,{]\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/.exec(end)?.[1];
  if (token === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(token);
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** How much of an over-long line is kept to find its id. */
const SNIFF_BYTES = 256;

/**
 * Lines of stdin passed on whole, each at most `maxBytes`: a longer line is dropped as it streams (never held
 * whole), and `onOversize` told its size and, when it could be found, its id. The SDK's reader would instead
 * close the transport, and with it the session, on a message over its buffer.
 */
export class BoundedLines extends Transform {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Bytes of the line being dropped, or -1. */
  #dropped = -1;
  #start = '';
  #end = Buffer.alloc(0);

  constructor(
    readonly maxBytes: number,
    readonly onOversize: (bytes: number, id: RequestId | undefined) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const whole: Buffer[] = [];
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(0x0a, at);
      const piece = chunk.subarray(at, nl === -1 ? chunk.length : nl + 1);
      at += piece.length;
      if (this.#dropped < 0 && this.#pendingBytes + piece.length > this.maxBytes) {
        this.#start = Buffer.concat([...this.#pending, piece.subarray(0, SNIFF_BYTES)])
          .subarray(0, SNIFF_BYTES)
          .toString('utf8');
        this.#dropped = this.#pendingBytes;
        this.#pending = [];
        this.#pendingBytes = 0;
      }
      if (this.#dropped >= 0) {
        this.#dropped += piece.length;
        this.#end = Buffer.concat([this.#end, piece.subarray(-SNIFF_BYTES)]).subarray(-SNIFF_BYTES);
        if (nl !== -1) {
          this.onOversize(this.#dropped, sniffId(this.#start, this.#end.toString('utf8')));
          this.#dropped = -1;
          this.#start = '';
          this.#end = Buffer.alloc(0);
        }
        continue;
      }
      this.#pending.push(piece);
      this.#pendingBytes += piece.length;
      if (nl !== -1) {
        whole.push(...this.#pending);
        this.#pending = [];
        this.#pendingBytes = 0;
      }
    }
    if (whole.length) this.push(Buffer.concat(whole));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.#pendingBytes) this.push(Buffer.concat(this.#pending));
    done();
  }
}

/**
 * A transport that holds every tool result under `maxResponseBytes` and on one line when it is an error: the last
 * thing between the tools and the wire, whatever made the result (a tool, or the SDK refusing arguments). A result
 * over the cap becomes an error naming the cap. It also answers, with a JSON-RPC error, a request too long to read.
 */
export class GuardedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  /** The tool each pending tools/call request names, for messages. */
  readonly #calls = new Map<RequestId, string>();

  constructor(
    readonly inner: Transport,
    readonly maxResponseBytes = MAX_RESPONSE_BYTES,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if ('method' in message) {
        if (message.method === 'tools/call' && 'id' in message) {
          const name = (message.params as { name?: unknown } | undefined)?.name;
          this.#calls.set(message.id, typeof name === 'string' ? echo(name, 100) : 'the tool');
        } else if (message.method === 'notifications/cancelled') {
          const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
          if (id !== undefined) this.#calls.delete(id);
        }
      }
      this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(this.#bounded(message), options);
  }

  /** Answers a request that was too long to read, when its id is known. */
  refuseOversize(bytes: number, id: RequestId | undefined, maxBytes: number): void {
    const why = `the request is ${thousands(bytes)} bytes, over the ${thousands(maxBytes)}-byte cap for one message`;
    process.stderr.write(
      `quotecheck mcp: dropped a request: ${why}${id === undefined ? ' (no id found to answer)' : ''}\n`,
    );
    if (id !== undefined)
      void this.inner
        .send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message: why } })
        .catch(() => {});
  }

  #bounded(message: JSONRPCMessage): JSONRPCMessage {
    if (!('result' in message) || !('id' in message)) return message;
    const tool = this.#calls.get(message.id);
    this.#calls.delete(message.id);
    const result = message.result as { content?: unknown; isError?: unknown };
    if (!Array.isArray(result.content)) return message;
    let bounded: Record<string, unknown> = result;
    if (result.isError === true) {
      const text = result.content
        .map((c: { type?: string; text?: string }) => (c.type === 'text' ? (c.text ?? '') : ''))
        .join(' ');
      bounded = errorResult(oneLine(text));
    }
    const bytes = jsonBytes({ ...message, result: bounded });
    if (bytes > this.maxResponseBytes) {
      bounded = errorResult(
        `${tool ?? 'the tool'}: the answer would be ${thousands(bytes)} bytes, over the ` +
          `${thousands(this.maxResponseBytes)}-byte cap for one response; ask for less`,
      );
    }
    return bounded === result ? message : { ...message, result: bounded };
  }
}
