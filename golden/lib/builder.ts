// Helpers shared by the two builders, golden/build.ts and golden/diagnosis/build.ts:
// normalization (design §3), the block-aware text of an HTML body and Readability's
// article view, pdftotext, locating spans, copying the real sources, writing files.
//
// The checkers (golden/check.ts, golden/diagnosis/check.ts) must NOT import this module:
// they re-verify the builders' labels, so they use their own implementation
// (golden/lib/checker.ts), written separately. Like all of golden/, this module shares
// no code with src/.
//
// The builders' other shared modules: lib/routes.ts (route tables, following a URL),
// lib/spec.ts (reading and validating the spec files), lib/tasks.ts (writing a task folder).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import { GOLDEN_PORT, goldenDir, projectRoot } from '../server.js';

// ---------------------------------------------------------------------------
// Hosts, URLs and headers of the specs

export const H1 = '127.0.0.1';
export const H2 = '127.0.0.2';
export const H3 = '127.0.0.3';
export const HOSTS = [H1, H2, H3] as const;
export type Host = (typeof HOSTS)[number];
export const U = (host: Host, p: string): string => `http://${host}:${GOLDEN_PORT}${p}`;
export const HTML_UTF8 = { 'content-type': 'text/html; charset=utf-8' };

/** One claim of a golden task as labelled.jsonl holds it (golden/lib/rows.ts, which the checkers read it with). */
export type { LabelledRow as Labelled } from './rows.js';

export function fail(id: string, msg: string): never {
  throw new Error(`${id}: ${msg}`);
}

// ---------------------------------------------------------------------------
// Normalization (design §3)

/** Steps 1-3 only (whitespace and case kept), e.g. to locate spans in pdftotext's raw output. */
export const fold = (s: string): string =>
  s
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u201A\u201B\u2032\u2035]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u2033\u2036]/g, '"')
    .replace(/[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/g, '-');

/** All five steps: NFKC, quotes, dashes, whitespace runs to one space (trimmed), lower case. */
export function normalize(s: string): string {
  return fold(s)
    .replace(/[\s\u001C-\u001F\u0085]+/g, ' ')
    .trim()
    .toLowerCase();
}

export const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

export const reEsc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `w` as a whole word: group 1 is what precedes it (start or a non-letter/digit). */
export const wordRe = (w: string): RegExp => new RegExp(`(^|[^\\p{L}\\p{N}])${reEsc(w)}(?=$|[^\\p{L}\\p{N}])`, 'u');

// ---------------------------------------------------------------------------
// HTML text

export const BLOCK = new Set(
  (
    'address article aside blockquote body caption center dd details dialog dir div dl dt fieldset figcaption figure ' +
    'footer form frameset h1 h2 h3 h4 h5 h6 header hgroup hr html legend li listing main menu nav ol optgroup option ' +
    'p plaintext pre section summary table tbody td tfoot th thead tr ul xmp iframe'
  ).split(' '),
);
export const SKIP = new Set(['script', 'style', 'noscript', 'template']);
const PREFERRED = [
  'p',
  'li',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'dd',
  'dt',
  'td',
  'th',
  'figcaption',
  'div',
  'span',
  'a',
  'b',
  'strong',
  'em',
  'i',
];

// Documents made by DOMParser have no window, so jsdom never reports to this console.
const { DOMParser } = new JSDOM('', { virtualConsole: new VirtualConsole() }).window;

export const parseHtml = (html: string): Document => new DOMParser().parseFromString(html, 'text/html');

/** The text of `root`, with a newline around every block element and for every <br>; script/style/noscript/template skipped. */
export function blockText(root: Node): string {
  const out: string[] = [];
  const walk = (n: Node): void => {
    if (n.nodeType === 3) {
      out.push((n as Text).data);
      return;
    }
    if (n.nodeType !== 1) return;
    const tag = (n as Element).localName;
    if (SKIP.has(tag)) return;
    if (tag === 'br') {
      out.push('\n');
      return;
    }
    const block = BLOCK.has(tag);
    if (block) out.push('\n');
    for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
    if (block) out.push('\n');
  };
  walk(root);
  return out.join('');
}

export interface HtmlText {
  doc: Document;
  /** normalized full view: the block text of the body */
  full: string;
  /** normalized Readability views (textContent, then block text), if Readability finds an article */
  article: string[];
}

export function htmlText(raw: string): HtmlText {
  const doc = parseHtml(raw);
  const full = normalize(blockText(doc.body));
  const article: string[] = [];
  const parsed = new Readability(parseHtml(raw)).parse();
  if (parsed?.content) {
    article.push(normalize(parsed.textContent ?? ''));
    article.push(normalize(blockText(parseHtml(parsed.content).body)));
  }
  return { doc, full, article };
}

// ---------------------------------------------------------------------------
// Locating spans (HTML): inside ONE element without block-level descendants, or ONE text node

/** Hidden by markup (a browser would not show it): avoided, so that no label depends on it. */
function isHidden(el: Element): boolean {
  const style = (el.getAttribute('style') ?? '').replace(/\s+/g, '').toLowerCase();
  return (
    el.hasAttribute('hidden') ||
    el.getAttribute('aria-hidden') === 'true' ||
    style.includes('display:none') ||
    style.includes('visibility:hidden')
  );
}

/** Neither `el` nor an ancestor is script/style/noscript/template, svg or hidden. */
export function isShown(el: Element): boolean {
  for (let a: Element | null = el; a; a = a.parentElement) {
    if (SKIP.has(a.localName) || a.localName === 'svg' || isHidden(a)) return false;
  }
  return true;
}

function isEligible(el: Element): boolean {
  if (!isShown(el)) return false;
  for (const d of Array.from(el.querySelectorAll('*'))) {
    if (BLOCK.has(d.localName) || d.localName === 'br' || SKIP.has(d.localName) || d.localName === 'svg') return false;
  }
  return true;
}

/**
 * The first element (tags in order of preference, then document order) whose text holds
 * `span` (whitespace collapsed) and that has no block-level, <br>, skipped or svg
 * descendants and is not inside a skipped, svg or hidden element. `index` counts from 1
 * among the body's elements of that tag.
 */
export function findElement(body: HTMLElement, span: string): { tag: string; index: number; el: Element } | undefined {
  const want = collapse(span);
  for (const tag of PREFERRED) {
    const els = Array.from(body.querySelectorAll(tag));
    for (let i = 0; i < els.length; i++) {
      const el = els[i]!;
      if (collapse(el.textContent ?? '').includes(want) && isEligible(el)) return { tag, index: i + 1, el };
    }
  }
  return undefined;
}

/** The first text node of `body` that holds `span` (whitespace collapsed) and that `accept` takes. */
export function findTextNode(doc: Document, span: string, accept: (t: Text) => boolean = () => true): Text | undefined {
  const want = collapse(span);
  const walker = doc.createTreeWalker(doc.body, 4 /* SHOW_TEXT */);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n as Text;
    if (collapse(t.data).includes(want) && accept(t)) return t;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// PDF text

export const isPdf = (bytes: Buffer): boolean => bytes.subarray(0, 5).toString('latin1') === '%PDF-';

/** `pdftotext -enc UTF-8 FILE -`, or its error message. */
export function pdftotext(file: string): { text: string; error?: undefined } | { text: null; error: string } {
  try {
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    });
    return { text };
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    return { text: null, error: String(e.stderr ?? e.message).trim() };
  }
}

export interface PdfSpan {
  start: number;
  end: number;
  /** page of the span's start (form feeds before it, plus 1) */
  page: number;
  /** line breaks and form feeds inside the span */
  breaks: number;
  feeds: number;
}

/** `span`'s words in `text`, separated by any whitespace (`flags` e.g. 'i'). */
export function findPdfSpan(text: string, span: string, flags = ''): PdfSpan | undefined {
  const words = span.trim().split(/\s+/).map(reEsc);
  const m = new RegExp(words.join('\\s+'), flags).exec(text);
  if (!m) return undefined;
  return {
    start: m.index,
    end: m.index + m[0].length,
    page: (text.slice(0, m.index).match(/\f/g)?.length ?? 0) + 1,
    breaks: m[0].match(/\n/g)?.length ?? 0,
    feeds: m[0].match(/\f/g)?.length ?? 0,
  };
}

/** ", crossing 2 line breaks" or ", within one line" */
export const lineBreaks = (breaks: number): string =>
  breaks ? `, crossing ${breaks} line break${breaks > 1 ? 's' : ''}` : ', within one line';

// ---------------------------------------------------------------------------
// Files

/**
 * Copies every missing real source (paths relative to golden/sources/) from
 * $QUOTECHECK_REALWORLD or ../shared/realworld/, where they have the same names.
 */
export function copyMissingSources(files: string[]): void {
  const realworld = [process.env.QUOTECHECK_REALWORLD, path.join(projectRoot(), '..', 'shared', 'realworld')].filter(
    (d): d is string => !!d && fs.existsSync(d),
  )[0];
  for (const file of files) {
    const dest = path.join(goldenDir(), 'sources', file);
    if (fs.existsSync(dest)) continue;
    if (!realworld) throw new Error(`missing ${dest} and no shared/realworld folder to copy it from`);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(path.join(realworld, file), dest);
  }
}

export function writeFile(file: string, data: string | Buffer, mode?: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
  if (mode !== undefined) fs.chmodSync(file, mode);
}
