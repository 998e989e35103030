// The fast HTML path against the reference: the full text and Readability's article over the light DOM
// built from htmlparser2 (and the streamed text of capped pages) equal jsdom's on every real page we ship.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, test } from 'vitest';
import { decodeHtml } from '../src/extract/decode.js';
import { DOM_LIMITS, htmlToViews, parseHtml } from '../src/extract/html.js';
import { renderText } from '../src/extract/render.js';
import { normalize } from '../src/normalize.js';
import { FIXTURES, ROOT } from './helpers.js';

/** Every HTML page of the real-world corpus: the golden sources and cases, and the rest (gzipped) in test/fixtures/corpus. */
const dirs = [join(ROOT, 'golden', 'sources', 'html'), join(ROOT, 'golden', 'diagnosis', 'sources'), join(FIXTURES, 'corpus')];
const pages = dirs.flatMap((d) => readdirSync(d).filter((f) => /\.html(\.gz)?$/.test(f)).map((f) => join(d, f)));

function pageBytes(path: string): Buffer {
  const bytes = readFileSync(path);
  return path.endsWith('.gz') ? gunzipSync(bytes) : bytes;
}

/** The reference: jsdom's DOMParser document (no scripts, no style sheets), rendered; Readability over a second copy. */
const { window } = new JSDOM('', { virtualConsole: new VirtualConsole() });
const parser = new window.DOMParser();
function reference(html: string): { full: string; article: string | null } {
  const full = normalize(renderText(parser.parseFromString(html, 'text/html').body));
  const result = new Readability<Element>(parser.parseFromString(html, 'text/html'), { serializer: (el) => el as Element }).parse();
  return { full, article: result?.content ? normalize(renderText(result.content)) : null };
}

describe('fast HTML path = jsdom reference', () => {
  test('every HTML page of the corpus is here (63 real pages, plus the diagnosis cases)', () => {
    expect(pages.filter((p) => p.includes(join('golden', 'sources')) || p.includes('corpus')).length).toBeGreaterThanOrEqual(63);
  });

  test.each(pages.map((p) => [p.slice(ROOT.length + 1)]))('%s', (page) => {
    const html = decodeHtml(pageBytes(join(ROOT, page))).text;
    const ref = reference(html);
    const fast = htmlToViews(html);
    expect(normalize(fast.full)).toBe(ref.full);
    expect(fast.article === undefined ? null : normalize(fast.article)).toBe(ref.article);
    // The streaming parser alone (what a page past the DOM caps gets) gives the same full text.
    expect(normalize(parseHtml(html, { ...DOM_LIMITS, maxBytes: -1 }).full)).toBe(ref.full);
  });
});
