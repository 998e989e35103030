// An independent WARC reader for tests: gunzip each member with node:zlib, parse WARC headers by hand, split by
// Content-Length, recompute the digests. It shares no code with src/archive (nor with warcio).
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);

/** Splits a .warc.gz into its gzip members: the shortest slice from here that gunzips is one member. */
export function gzipMembers(file: Buffer): { offset: number; bytes: Buffer }[] {
  const members: { offset: number; bytes: Buffer }[] = [];
  for (let at = 0; at < file.length; ) {
    expect(file.subarray(at, at + 3).equals(GZIP_MAGIC)).toBe(true);
    let end = -1;
    for (let c = file.indexOf(GZIP_MAGIC, at + 18); end < 0; c = file.indexOf(GZIP_MAGIC, c + 1)) {
      const candidate = c < 0 ? file.length : c;
      try {
        gunzipSync(file.subarray(at, candidate));
        end = candidate;
      } catch {
        if (c < 0) throw new Error(`no whole gzip member at byte ${at}`);
      }
    }
    members.push({ offset: at, bytes: file.subarray(at, end) });
    at = end;
  }
  return members;
}

export interface HandRecord {
  fields: Map<string, string>;
  block: Buffer;
  payload: Buffer;
  httpHead?: string[];
}

/** Parses one member: exactly one WARC/1.1 record, its digests checked. */
export function handParse(member: Buffer): HandRecord {
  const data = gunzipSync(member);
  const headEnd = data.indexOf('\r\n\r\n');
  const lines = data.toString('utf8', 0, headEnd).split('\r\n');
  expect(lines[0]).toBe('WARC/1.1');
  const fields = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    fields.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const length = Number(fields.get('content-length'));
  const block = data.subarray(headEnd + 4, headEnd + 4 + length);
  // One record per member, and nothing after it but the closing CRLF CRLF.
  expect(data.length).toBe(headEnd + 4 + length + 4);
  expect(data.subarray(headEnd + 4 + length).toString()).toBe('\r\n\r\n');
  const isHttp = (fields.get('content-type') ?? '').startsWith('application/http');
  const split = isHttp ? block.indexOf('\r\n\r\n') : -1;
  const payload = isHttp ? block.subarray(split + 4) : block;
  const httpHead = isHttp ? block.toString('latin1', 0, split).split('\r\n') : undefined;
  if (fields.get('warc-type') !== 'warcinfo') expect(fields.get('warc-block-digest')).toBe(`sha256:${sha256(block)}`);
  // warcio digests every record but warcinfo (its digests are optional: WARC 1.1 §5.8, §5.9).
  if (fields.get('warc-type') === 'warcinfo') expect(fields.has('warc-block-digest')).toBe(false);
  else expect(fields.get('warc-payload-digest')).toBe(`sha256:${sha256(payload)}`);
  return { fields, block, payload, httpHead };
}

export function httpHeader(r: HandRecord, name: string): string | undefined {
  const line = r.httpHead?.slice(1).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(line.indexOf(':') + 1).trim();
}
