// What a body is (PDF, HTML, plain text or unsupported): magic bytes first, then Content-Type, then the URL.
import { MIMEType } from 'node:util';

export type SourceKind = 'pdf' | 'html' | 'text' | 'unsupported';

interface ContentType {
  /** Lowercase type/subtype, e.g. "text/html"; undefined when absent or unparsable. */
  essence?: string;
  charset?: string;
}

export function parseContentType(header: string | undefined): ContentType {
  if (!header) return {};
  try {
    const mime = new MIMEType(header);
    return { essence: mime.essence, charset: mime.params.get('charset') ?? undefined };
  } catch {
    return {};
  }
}

/** PDF readers accept the `%PDF-` header anywhere in the first 1024 bytes. */
const PDF_MAGIC_WINDOW = 1024;

function hasPdfMagic(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, PDF_MAGIC_WINDOW)).includes('%PDF-');
}

/** Types that mean "a document, but we only know it when we see it". */
const UNTYPED = new Set([
  'application/octet-stream',
  'binary/octet-stream',
  'application/unknown',
  'application/download',
  'application/force-download',
  'unknown/unknown',
]);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const PDF_TYPES = new Set(['application/pdf', 'application/x-pdf', 'application/acrobat']);

/**
 * The HTML standard's "text/html" byte pattern, simplified: after optional whitespace or BOM,
 * a tag that only an HTML document starts with.
 */
const HTML_START =
  /^(?:\uFEFF)?\s*<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p|!--)[\s>/]/i;

function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString('latin1');
  return HTML_START.test(head);
}

/** Binary data has NUL bytes early on; text (in any ASCII-compatible encoding) does not. */
function looksLikeText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.byteLength, 4096);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return false;
  return true;
}

function urlExtension(url: string): string {
  try {
    const path = new URL(url).pathname.toLowerCase();
    const dot = path.lastIndexOf('.');
    return dot > path.lastIndexOf('/') ? path.slice(dot + 1) : '';
  } catch {
    return '';
  }
}

/**
 * Decides how to extract a body. Servers lie: a PDF is a PDF by its magic bytes whatever the
 * Content-Type says (octet-stream, even text/html); the URL is consulted only when the
 * Content-Type says nothing useful.
 */
export function sniffKind(bytes: Uint8Array, contentType: ContentType, url: string): SourceKind {
  if (hasPdfMagic(bytes)) return 'pdf';
  const type = contentType.essence;
  if (type && HTML_TYPES.has(type)) return 'html';
  if (type && PDF_TYPES.has(type)) return 'pdf'; // not a PDF by its bytes: pdftotext will say what is wrong
  if (type && (type.endsWith('/xml') || type.endsWith('+xml'))) return 'html';
  if (type && (type.startsWith('text/') || type === 'application/json' || type.endsWith('+json'))) return 'text';
  if (type && !UNTYPED.has(type)) return 'unsupported';
  if (looksLikeHtml(bytes)) return 'html';
  const ext = urlExtension(url);
  if (ext === 'pdf') return 'pdf';
  if (ext === 'html' || ext === 'htm' || ext === 'xhtml') return 'html';
  return looksLikeText(bytes) ? 'text' : 'unsupported';
}
