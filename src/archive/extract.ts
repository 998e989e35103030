// A WARC file's recorded responses as plain files: each body de-chunked and content-decoded into a folder, with an
// index of what came from where. The frozen edition's agent reads its sources with this (warc-extract.mjs), not with
// the oracle: it labels nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readArchive, type ArchivedRecord } from './read.js';
import { decodeContent, dechunk, headerValue } from './warc.js';

interface ExtractedEntry {
  /** The URL as requested (WARC-Target-URI). */
  url: string;
  /** When it was recorded (WARC-Date): for a Wayback capture, when it was archived. */
  date: string;
  /** For a Wayback capture: the archive URL it was fetched from (WARC-Source-URI). */
  source_uri?: string;
  status: number;
  content_type?: string;
  /** Where the redirect pointed (the Location header), for 3xx responses. */
  location?: string;
  /** The body's file, relative to the output folder; absent when the body was empty. */
  file?: string;
  bytes: number;
  /** Set when the body could not be content-decoded (it is written as stored) or was cut off when recorded. */
  note?: string;
}

/**
 * File name extensions by content type, so that `pdftotext bodies/3.pdf` and an HTML viewer take the files as they are.
 */
function extensionOf(contentType: string | undefined, body: Buffer): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/pdf' || body.subarray(0, 5).toString('latin1') === '%PDF-') return '.pdf';
  if (type.includes('html')) return '.html';
  if (type.includes('json')) return '.json';
  if (type.startsWith('text/')) return '.txt';
  return '.bin';
}

/** One response record as an entry, its body written under `outDir/bodies/`. */
function extractOne(record: ArchivedRecord, n: number, outDir: string): ExtractedEntry {
  const http = record.http!;
  const headers = http.headers;
  let body = record.payload;
  if (/chunked/i.test(headerValue(headers, 'transfer-encoding') ?? '')) body = dechunk(body) ?? body;
  const decoded = decodeContent(body, headerValue(headers, 'content-encoding'));
  const notes: string[] = [];
  if (decoded === undefined)
    notes.push(
      `Content-Encoding ${JSON.stringify(headerValue(headers, 'content-encoding'))} not decoded: the body is as stored`,
    );
  if (record.truncated) notes.push(`cut off when recorded (WARC-Truncated: ${record.truncated})`);
  const content = decoded ?? body;
  const contentType = headerValue(headers, 'content-type');
  const entry: ExtractedEntry = {
    url: record.targetUri!,
    date: record.date,
    status: http.status,
    bytes: content.length,
  };
  if (record.sourceUri) entry.source_uri = record.sourceUri;
  if (contentType !== undefined) entry.content_type = contentType;
  const location = headerValue(headers, 'location');
  if (location !== undefined) entry.location = location;
  if (content.length > 0) {
    entry.file = join('bodies', `${n}${extensionOf(contentType, content)}`);
    writeFileSync(join(outDir, entry.file), content);
  }
  if (notes.length) entry.note = notes.join('; ');
  return entry;
}

/**
 * Writes every response of the archive into `outDir`: `bodies/N.ext` (the body as a browser would get it: de-chunked,
 * content-decoded, bytes untouched otherwise) and `index.json` (an entry per response, in the archive's order).
 */
export async function extractArchive(archivePath: string, outDir: string): Promise<ExtractedEntry[]> {
  const archive = await readArchive(archivePath);
  mkdirSync(join(outDir, 'bodies'), { recursive: true });
  const entries = archive.records
    .filter((r) => r.type === 'response' && r.http !== undefined && r.targetUri !== undefined)
    .map((r, i) => extractOne(r, i + 1, outDir));
  writeFileSync(join(outDir, 'index.json'), `${JSON.stringify(entries, null, 2)}\n`);
  return entries;
}
