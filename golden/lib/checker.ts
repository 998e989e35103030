// Helpers shared by the two independent re-checks, golden/check.ts and
// golden/diagnosis/check.ts: their own normalization (design §3), their own walk over an
// HTML body's text nodes, and pdftotext.
//
// This is a second implementation, written apart from the builders' (golden/lib/builder.ts),
// so that a re-check does not repeat a builder's mistake. Never import golden/lib/builder.ts,
// golden/build.ts or golden/diagnosis/build.ts here, nor anything from src/.
// (golden/lib/rows.ts is neutral: the shapes of the files both sides write and read, no labelling.)

import { execFileSync } from 'node:child_process';
import { JSDOM, VirtualConsole } from 'jsdom';

export function norm(text: string): string {
  let s = text.normalize('NFKC');
  s = s.replace(/[\u2018\u2019\u201A\u201B\u2032\u2035]/g, "'");
  s = s.replace(/[\u201C\u201D\u201E\u201F\u2033\u2036]/g, '"');
  s = s.replace(/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uFE58\uFE63\uFF0D]/g, '-');
  s = s.replace(/[\s\u001C\u001D\u001E\u001F\u0085]+/g, ' ');
  return s.trim().toLowerCase();
}

const BLOCKS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BODY',
  'CAPTION',
  'CENTER',
  'DD',
  'DETAILS',
  'DIALOG',
  'DIR',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HGROUP',
  'HR',
  'LEGEND',
  'LI',
  'MAIN',
  'MENU',
  'NAV',
  'OL',
  'OPTION',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TBODY',
  'TD',
  'TFOOT',
  'TH',
  'THEAD',
  'TR',
  'UL',
  'IFRAME',
]);
const HIDDEN = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);

// Documents made by DOMParser have no window, so jsdom never reports to this console.
const window = new JSDOM('', { virtualConsole: new VirtualConsole() }).window;

export const parseHtml = (html: string): Document => new window.DOMParser().parseFromString(html, 'text/html');

/**
 * The body's text nodes in order, skipping script/style/noscript/template, with a space
 * wherever a block element or <br> separates two text nodes.
 */
export function bodyText(doc: Document): string {
  const NodeFilter = window.NodeFilter;
  const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode: (n: Node) =>
      n.nodeType === 1 && HIDDEN.has((n as Element).tagName.toUpperCase())
        ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_ACCEPT,
  });
  const parts: string[] = [];
  let lastBlock: Element | null = null;
  let sawBreak = false;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.nodeType === 1) {
      if ((n as Element).tagName.toUpperCase() === 'BR') sawBreak = true;
      continue;
    }
    let block: Element | null = n.parentElement;
    while (block && !BLOCKS.has(block.tagName.toUpperCase())) block = block.parentElement;
    if (block !== lastBlock || sawBreak) parts.push(' ');
    parts.push((n as Text).data);
    lastBlock = block;
    sawBreak = false;
  }
  return parts.join('');
}

export const isPdf = (bytes: Buffer): boolean => bytes.subarray(0, 5).toString('latin1') === '%PDF-';

/** `pdftotext -enc UTF-8 FILE -`; throws when pdftotext fails. */
export function pdftotext(file: string): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 1 << 26,
  });
}
