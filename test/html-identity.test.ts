// The fast HTML path against the reference: streamed full text and Readability over linkedom
// give the same normalized text as jsdom (a spec-compliant parser) on every real page we ship.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, test } from 'vitest';
import { decodeHtml } from '../src/extract/decode.js';
import { htmlToViews } from '../src/extract/html.js';
import { renderText } from '../src/extract/render.js';
import { normalize } from '../src/normalize.js';
import { FIXTURES, ROOT } from './helpers.js';

const dirs = [join(ROOT, 'golden', 'sources', 'html'), join(ROOT, 'golden', 'diagnosis', 'sources'), FIXTURES];
const pages = dirs.flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.html')).map((f) => join(d, f)));

/** The reference: jsdom's DOMParser document (no scripts, no style sheets), rendered; Readability over a second copy. */
const { window } = new JSDOM('', { virtualConsole: new VirtualConsole() });
const parser = new window.DOMParser();
function reference(html: string): { full: string; article: string | null } {
  const full = normalize(renderText(parser.parseFromString(html, 'text/html').body));
  const result = new Readability<Element>(parser.parseFromString(html, 'text/html'), { serializer: (el) => el as Element }).parse();
  return { full, article: result?.content ? normalize(renderText(result.content)) : null };
}

describe('fast HTML path = jsdom reference', () => {
  test('there are real pages to compare', () => {
    expect(pages.length).toBeGreaterThanOrEqual(30);
  });

  test.each(pages.map((p) => [p.slice(ROOT.length + 1)]))('%s', (page) => {
    const html = decodeHtml(readFileSync(join(ROOT, page))).text;
    const ref = reference(html);
    const fast = htmlToViews(html);
    expect(normalize(fast.full)).toBe(ref.full);
    expect(fast.article === undefined ? null : normalize(fast.article)).toBe(ref.article);
  });
});
