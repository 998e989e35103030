// Deterministic generator of the golden benchmark.
//
//   npx tsc -p tsconfig.json && node dist/golden/build.js
//
// Reads the source documents in golden/sources/ (copied once from
// ../shared/realworld/ when missing) and the spec, golden/spec/tasks.json (the tasks, their routes
// and faults, and for each claim how its quote is made), checks every fact each label rests on, and writes
//   golden/routes.json             route table of the golden server (golden/server.ts)
//   golden/labelled.jsonl          every claim with its label and the rule it follows from
//   golden/tasks/<task>/...        Harbor tasks (design §6)
//
//   node dist/golden/build.js --out DIR [--with-skill] [--with-mcp]
// writes only the task folders, into DIR, in the variant asked for (the skill shipped in each task, quotecheck's
// MCP server declared in each task.toml: the same templates `quotecheck export --with-skill --with-mcp` uses);
// golden/ itself is left as it is.
//
// Labels follow design §3 and never come from running quotecheck:
//   verbatim  iff normalize(quote) is a substring of normalize(source text), where the
//             source text is pdftotext's output for PDFs and, for HTML, the page's
//             visible text (or Readability's article view of it).
// Every claim names the rule it uses; the builder asserts the facts behind the rule
// (the span is inside one element / text node; the substituted word occurs nowhere in
// the source; no 5-word shingle of a fabricated quote occurs; ...) and stops with an
// error when one does not hold. golden/check.ts re-verifies the labels independently.

import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  collapse,
  copyMissingSources,
  fail,
  findElement,
  findPdfSpan,
  findTextNode,
  HOSTS,
  htmlText,
  isPdf as isPdfBytes,
  isShown,
  lineBreaks,
  normalize,
  pdftotext,
  reEsc,
  wordRe,
  writeFile,
} from './lib/builder.js';
import type { Labelled } from './lib/builder.js';
import { isMain } from './lib/main.js';
import { followRoutes, routeTable } from './lib/routes.js';
import { keyOf, readSpec, routeFields } from './lib/spec.js';
import { buildDrift, DRIFT_TASK } from './drift/build.js';
import { GOLDEN_PORT, goldenDir, type Route } from './server.js';
import { parseArgs } from 'node:util';
import { GOLDEN_PRIVATE_ARGS, writeTaskFolder } from './lib/tasks.js';

export { normalize };

// Sources: the real documents (golden/sources.ts), shared with the diagnosis and drift builders.
import { SOURCES, type SourceDoc, type SrcKey } from './sources.js';
import type { TaskVariant } from '../src/task/variant.js';

export { SOURCES, type SrcKey };

// ---------------------------------------------------------------------------
// The spec: golden/spec/tasks.json, one entry per task with its routes and claims. Each claim's `q` says
// how its quote is made, and so which rule gives its label; QUOTES below lists the kinds (one schema each)
// and HANDLERS (further down) derives each kind's label.

const s = z.string();

/** How the quote of a claim is made, by kind. The schemas are strict, so a `q` fits exactly one. */
const QUOTES = {
  /** no_match: the source yields no text (failed fetch, no text layer, password) */
  unreadable: z.strictObject({ quote: s, why: s }),
  /** no_match: two spans from different places joined with " ... " */
  splice: z.strictObject({ splice: z.tuple([s, s]) }),
  /** no_match: a made-up sentence; none of its 5-word shingles occurs in the source */
  fabricated: z.strictObject({ fabricated: s }),
  /** no_match: `near` is in the source, the quote (which differs as `why` says) is not */
  absent: z.strictObject({ absent: s, near: s, why: s }),
  /** no_match: one word of a span replaced by a word that occurs nowhere in the source */
  swap: z.strictObject({ span: s, swap: z.tuple([s, s]) }),
  /** no_match: a span followed by words the source does not have after it */
  tail: z.strictObject({ span: s, tail: s }),
  /** no_match: a span with words dropped from its middle (no ellipsis) */
  drop: z.strictObject({ span: s, drop: s }),
  /** verbatim: a span written differently in ways that normalization undoes (`as`: a named Variant, or the text itself) */
  variant: z.strictObject({ span: s, as: s, how: s }),
  /** verbatim: a span of the source text */
  span: z.strictObject({ span: s }),
};
type QuoteKind = keyof typeof QUOTES;
type Quotes = { [K in QuoteKind]: z.infer<(typeof QUOTES)[K]> };
type QuoteSpec = Quotes[QuoteKind];

const kindOf = (q: QuoteSpec): QuoteKind =>
  (Object.keys(QUOTES) as QuoteKind[]).find((k) => QUOTES[k].safeParse(q).success)!;

/** A route of the golden server. `src` serves a source document; `note` gives words for the rule text. */
const RouteSchema = z.strictObject({
  host: z.enum(HOSTS),
  ...routeFields,
  src: keyOf(Object.keys(SOURCES) as SrcKey[]).optional(),
});
type RouteSpec = z.infer<typeof RouteSchema>;

const ClaimSchema = z.strictObject({
  id: s,
  url: s,
  claim: s,
  q: z.union(Object.values(QUOTES), {
    error: `fits none of the quote kinds (${Object.keys(QUOTES).join(', ')}; see QUOTES in golden/build.ts)`,
  }),
  /** 'whatwg': the label holds under the Encoding Standard's windows-1252 only (bytes 0x80-0x9F) */
  decoding: z.literal('whatwg').optional(),
});
type ClaimSpec = z.infer<typeof ClaimSchema> & { q: QuoteSpec };

const TaskSchema = z.strictObject({
  name: s,
  difficulty: z.enum(['easy', 'medium', 'hard']),
  tags: z.array(s),
  /** one paragraph for instruction.md and the README */
  about: s,
  routes: z.array(RouteSchema),
  claims: z.array(ClaimSchema),
});
type TaskSpec = z.infer<typeof TaskSchema> & { claims: ClaimSpec[] };

const TASKS_SPEC = 'spec/tasks.json';
const loadTasks = (): TaskSpec[] => readSpec(TASKS_SPEC, z.array(TaskSchema)) as TaskSpec[];

// ---------------------------------------------------------------------------
// Variants (normalization itself, design §3, is in lib/builder.ts)

type Variant = 'curly' | 'straight' | 'upper' | 'lower' | 'whitespace' | 'nfd';

function applyVariant(span: string, v: Variant): string {
  switch (v) {
    case 'curly':
      return span.replace(/"([^"]*)"/g, '\u201C$1\u201D').replace(/'/g, '\u2019');
    case 'straight':
      return span.replace(/[\u201C\u201D\u201E]/g, '"').replace(/[\u2018\u2019]/g, "'");
    case 'upper':
      return span.replace(/[\u2018\u2019]/g, "'").toUpperCase();
    case 'lower':
      return span.toLowerCase();
    case 'nfd':
      return span.normalize('NFD');
    case 'whitespace': {
      const seps = ['\n', '  ', '\t', '\u00A0', ' \r\n '];
      let i = 0;
      return (
        ' \n' + span.replace(/ /g, () => (i++ % 3 === 0 ? (seps[((i / 3) % seps.length) | 0] ?? ' ') : ' ')) + '\t '
      );
    }
  }
}

const VARIANTS: readonly string[] = ['curly', 'straight', 'upper', 'lower', 'whitespace', 'nfd'];

// ---------------------------------------------------------------------------
// Source text (the builders' implementation, lib/builder.ts; golden/check.ts has an independent one)

/** Charset per design §4 (BOM, HTTP charset, <meta> in the first 1024 bytes, UTF-8, windows-1252). */
function sniffCharset(bytes: Buffer, contentType: string | undefined): { charset: string; how: string } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { charset: 'utf-8', how: 'BOM' };
  const http = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '');
  if (http?.[1]) return { charset: http[1].toLowerCase(), how: 'HTTP Content-Type' };
  const head = bytes.subarray(0, 1024).toString('latin1');
  const meta = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  if (meta?.[1]) return { charset: meta[1].toLowerCase(), how: '<meta> in the first 1024 bytes' };
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { charset: 'utf-8', how: 'no declaration; valid UTF-8' };
  } catch {
    return { charset: 'windows-1252', how: 'no declaration in the first 1024 bytes; not valid UTF-8' };
  }
}

/** Charset declared anywhere in the file (what a browser's reparse would use). */
function declaredCharsetAnywhere(bytes: Buffer): string | undefined {
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(bytes.toString('latin1'));
  return m?.[1]?.toLowerCase();
}

interface HtmlView {
  charset: string;
  /** "whatwg": the Encoding Standard's decoder; "node": Node 20's TextDecoder, which decodes
   * windows-1252 (and its labels iso-8859-1, latin1, ascii) as ISO-8859-1 proper, so bytes
   * 0x80-0x9F become C1 controls instead of € „ … ‘ ’ “ ” – — */
  decoder: 'whatwg' | 'node';
  how: string;
  raw: string; // decoded markup
  doc: Document;
  full: string; // normalized full view
  article: string[]; // normalized Readability views (textContent and block text), if any
}

interface PdfView {
  text: string | null; // pdftotext output, null when it fails
  error?: string;
  norm: string;
}

const SRC_DIR = (): string => path.join(goldenDir(), 'sources');

function ensureSources(): void {
  copyMissingSources((Object.values(SOURCES) as SourceDoc[]).map((s) => s.file));
}

/** WHATWG windows-1252 for bytes 0x80-0x9F (the rest is ISO-8859-1). */
const W1252_C1 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decodeWhatwg(bytes: Buffer, charset: string): string {
  const d = new TextDecoder(charset);
  if (d.encoding !== 'windows-1252') return d.decode(bytes);
  let out = '';
  for (const b of bytes) out += String.fromCharCode(b >= 0x80 && b <= 0x9f ? W1252_C1[b - 0x80]! : b);
  return out;
}

const htmlCache = new Map<string, HtmlView>();
function htmlViews(key: SrcKey, contentType: string | undefined): HtmlView[] {
  const bytes = fs.readFileSync(path.join(SRC_DIR(), SOURCES[key].file));
  const sniff = sniffCharset(bytes, contentType);
  const charsets = [sniff.charset];
  // When the declaration sits past byte 1024, a browser may still switch to it:
  // labels must then hold under both decodings.
  const anywhere = declaredCharsetAnywhere(bytes);
  if (!/charset/i.test(contentType ?? '') && anywhere && anywhere !== sniff.charset && anywhere !== 'utf-8')
    charsets.push(anywhere);
  const views: HtmlView[] = [];
  for (const cs of charsets) {
    const whatwg = decodeWhatwg(bytes, cs);
    const node = new TextDecoder(cs).decode(bytes);
    const decodings: ['whatwg' | 'node', string][] = [['whatwg', whatwg]];
    if (node !== whatwg) decodings.push(['node', node]);
    for (const [decoder, raw] of decodings) {
      const ck = `${key}|${cs}|${decoder}`;
      let v = htmlCache.get(ck);
      if (!v) {
        const how = cs === sniff.charset ? sniff.how : '<meta> declared after byte 1024';
        v = { charset: cs, decoder, how, raw, ...htmlText(raw) };
        htmlCache.set(ck, v);
      }
      views.push(v);
    }
  }
  return views;
}

const pdfCache = new Map<string, PdfView>();
function pdfView(key: SrcKey): PdfView {
  let v = pdfCache.get(key);
  if (!v) {
    const out = pdftotext(path.join(SRC_DIR(), SOURCES[key].file));
    v = out.text === null ? { text: null, error: out.error, norm: '' } : { text: out.text, norm: normalize(out.text) };
    pdfCache.set(key, v);
  }
  return v;
}

const isPdf = (key: SrcKey): boolean => isPdfBytes(fs.readFileSync(path.join(SRC_DIR(), SOURCES[key].file)));

// ---------------------------------------------------------------------------
// Locating spans (HTML): inside ONE element without block-level descendants, or ONE text node

/**
 * Text of an element with a space at every element boundary that falls between two
 * letters or digits ("<b>Word</b>s", "Omar<span>Ilhan"): spans must survive this too,
 * so that no verbatim span depends on how inline boundaries inside a word are joined.
 */
function spacedText(el: Element): string {
  const out: string[] = [];
  const walk = (n: Node): void => {
    if (n.nodeType === 3) out.push((n as Text).data);
    else if (n.nodeType === 1) {
      out.push('\u0000');
      for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
      out.push('\u0000');
    }
  };
  for (let c = el.firstChild; c; c = c.nextSibling) walk(c);
  const joined = out.join('');
  let res = '';
  for (let i = 0; i < joined.length; i++) {
    const ch = joined[i]!;
    if (ch !== '\u0000') {
      res += ch;
      continue;
    }
    let j = i;
    while (joined[j + 1] === '\u0000') j++;
    const before = res.slice(-1);
    const after = joined[j + 1] ?? '';
    if (/[\p{L}\p{N}]/u.test(before) && /[\p{L}\p{N}]/u.test(after)) res += ' ';
    i = j;
  }
  return res;
}

function locateHtml(view: HtmlView, span: string, id: string): string {
  const found = findElement(view.doc.body, span);
  if (found) {
    const { tag, index, el } = found;
    if (!collapse(spacedText(el)).includes(collapse(span))) {
      throw new Error(`${id}: span crosses an inline element boundary without whitespace in <${tag}> #${index}`);
    }
    return `<${tag}> #${index} in <body>`;
  }
  const t = findTextNode(view.doc, span, (n) => !n.parentElement || isShown(n.parentElement));
  if (t) {
    const p = t.parentElement;
    const where = p
      ? `<${p.localName}${p.id ? ` id="${p.id}"` : p.className ? ` class="${String(p.className).split(/\s+/)[0]}"` : ''}>`
      : 'body';
    return `one text node inside ${where}`;
  }
  throw new Error(`${id}: span not found inside one element or text node: ${JSON.stringify(span)}`);
}

function locatePdf(view: PdfView, span: string, id: string): string {
  if (view.text === null) throw new Error(`${id}: pdftotext failed: ${view.error}`);
  const m = findPdfSpan(view.text, span);
  if (!m) throw new Error(`${id}: span is not in pdftotext's output (as written): ${JSON.stringify(span)}`);
  return `page ${m.page}${lineBreaks(m.breaks)}`;
}

// ---------------------------------------------------------------------------
// Serving: what a correct fetcher gets for a claim URL

interface Served {
  ok: boolean;
  src?: SrcKey;
  contentType?: string;
  steps: string[];
  status?: number;
}

function resolve(url: string, routes: RouteSpec[]): Served {
  const { route: r, steps, status } = followRoutes(url, routes);
  if (!r) return { ok: false, steps, ...(status ? { status } : {}) };
  if (r.hang) return { ok: false, steps: [...steps, 'never answers'] };
  if (r.failFirst)
    steps.push(
      `${r.failFirst.status} ×${r.failFirst.count}${r.failFirst.headers?.['retry-after'] ? ` (Retry-After: ${r.failFirst.headers['retry-after']})` : ''}`,
    );
  if (r.cookieGate) steps.push(`302 setting cookie ${r.cookieGate.name}=${r.cookieGate.value}, back to the same URL`);
  const code = r.status ?? 200;
  if (code >= 300) return { ok: false, steps: [...steps, `${code} on every request`], status: code };
  if (!r.src) return { ok: false, steps: [...steps, 'no document'], status: code };
  const extras = [r.gzip ? 'gzip' : '', r.delayMs ? `${r.delayMs} ms delay` : ''].filter(Boolean).join(', ');
  steps.push(`200 ${r.headers?.['content-type'] ?? '(no content-type)'}${extras ? ` (${extras})` : ''}`);
  return { ok: true, src: r.src, contentType: r.headers?.['content-type'], steps, status: 200 };
}

// ---------------------------------------------------------------------------
// Deriving and checking one label

/** What the handlers of one claim work with: the served document's normalized texts and how to name places in it. */
interface ClaimCtx {
  c: ClaimSpec;
  base: Pick<Labelled, 'task' | 'id' | 'claim' | 'url'>;
  pdf: boolean;
  /** normalized texts the label must hold in: pdftotext's output, or the full view under every decoding */
  texts: string[];
  views: HtmlView[];
  pv?: PdfView;
  /** what every rule ends with: the decodings, then the serving steps unless plain */
  suffix: string;
  pub: string;
  /** "pdftotext's output for X" / "X's page" */
  kind: string;
}

/** "; served: 302 to ... → 200 ..." unless the claim URL answers 200 with plain HTML or PDF at once. */
function viaOf(served: Served): string {
  const plain =
    served.steps.length === 1 && /^200 (text\/html; charset=utf-8|application\/pdf)$/.test(served.steps[0] ?? '');
  return plain ? '' : `; served: ${served.steps.join(' → ')}`;
}

/** The rule's words on the charsets and decoders an HTML label holds under. */
function charsetNoteOf(views: HtmlView[], decoding: ClaimSpec['decoding']): string {
  if (views.length === 0) return '';
  let note = '';
  const charsets = [...new Set(views.map((v) => `${v.charset} (${v.how})`))];
  if (charsets.length > 1) note = `; decoded as ${charsets.join(' and as ')}: holds under both`;
  else if (views[0]!.charset !== 'utf-8') note = `; decoded as ${charsets[0]}`;
  if (views.some((v) => v.decoder === 'node'))
    note +=
      "; holds both with the Encoding Standard's windows-1252 and with Node 20's TextDecoder (which maps bytes 0x80-0x9F to C1 controls)";
  else if (decoding === 'whatwg')
    note +=
      "; needs the Encoding Standard's windows-1252 for bytes 0x80-0x9F (Node 20's TextDecoder maps them to C1 controls and misses this)";
  return note;
}

function claimCtx(task: TaskSpec, c: ClaimSpec, served: Served): ClaimCtx {
  if (!served.ok || !served.src) fail(c.id, `URL does not serve a document (${served.steps.join(' → ')})`);
  const src = served.src;
  const pdf = isPdf(src);
  let views: HtmlView[] = [];
  let pv: PdfView | undefined;
  const texts: string[] = [];
  if (pdf) {
    pv = pdfView(src);
    if (pv.text === null) fail(c.id, `pdftotext fails: ${pv.error}`);
    texts.push(pv.norm);
  } else {
    views = htmlViews(src, served.contentType);
    if (c.decoding === 'whatwg') views = views.filter((v) => v.decoder === 'whatwg');
    for (const v of views) texts.push(v.full);
  }
  const pub = SOURCES[src].pub;
  const base = { task: task.name, id: c.id, claim: c.claim, url: c.url };
  const suffix = charsetNoteOf(views, c.decoding) + viaOf(served);
  return {
    c,
    base,
    pdf,
    texts,
    views,
    ...(pv ? { pv } : {}),
    suffix,
    pub,
    kind: pdf ? `pdftotext's output for ${pub}` : `${pub}'s page`,
  };
}

/** "a span of <p> #13 in <body> of X's page" / "a span of pdftotext's output for X (page 1, ...)" */
function spanOf(x: ClaimCtx, where: string): string {
  if (x.pdf) return `a span of pdftotext's output for ${x.pub} (${where})`;
  if (where.startsWith('one text node')) return `a span of ${where} of ${x.pub}'s page`;
  return `a span of the text of ${where} of ${x.pub}'s page (an element without block-level or <br> descendants)`;
}

/** Where `span` is (one element or text node, or a place in pdftotext's output); it must be in every normalized text. */
function locate(x: ClaimCtx, span: string): string {
  const where = x.pdf ? locatePdf(x.pv!, span, x.c.id) : x.views.map((v) => locateHtml(v, span, x.c.id))[0]!;
  for (const t of x.texts)
    if (!t.includes(normalize(span))) fail(x.c.id, `span not in the normalized source text: ${span}`);
  return where;
}

/** no_match facts: not in the full view (every decoding) nor in Readability's article view. */
function assertAbsent(x: ClaimCtx, quote: string): void {
  const nq = normalize(quote);
  for (const t of x.texts) if (t.includes(nq)) fail(x.c.id, `quote IS in the source text: ${quote}`);
  for (const v of x.views)
    for (const a of v.article) if (a.includes(nq)) fail(x.c.id, `quote IS in Readability's article view: ${quote}`);
}

/** A replacement word occurs nowhere: not in the text, not in the page's markup. */
function assertWordAbsent(x: ClaimCtx, w: string): void {
  const nw = normalize(w);
  for (const t of x.texts) if (t.includes(nw)) fail(x.c.id, `replacement "${w}" occurs in the source text`);
  for (const v of x.views)
    if (normalize(v.raw).includes(nw)) fail(x.c.id, `replacement "${w}" occurs in the page's markup`);
}

const labelAs = (x: ClaimCtx, quote: string, label: Labelled['label'], rule: string): Labelled => ({
  ...x.base,
  quote,
  label,
  rule: `${label}: ${rule}${x.suffix}`,
});

/** One handler per kind of quote (QUOTES): makes the quote, asserts the facts behind its rule, says the rule. */
const HANDLERS: { [K in Exclude<QuoteKind, 'unreadable'>]: (x: ClaimCtx, q: Quotes[K]) => Labelled } = {
  splice: (x, q) => {
    const [a, b] = q.splice;
    const wa = locate(x, a);
    const wb = locate(x, b);
    if (!x.pdf && wa === wb) fail(x.c.id, 'splice halves come from the same element');
    const quote = `${a} ... ${b}`;
    assertAbsent(x, quote);
    return labelAs(
      x,
      quote,
      'no_match',
      `two verbatim spans of ${x.kind} (${wa}; ${wb}) joined with " ... ", which the source does not have between them`,
    );
  },
  fabricated: (x, q) => {
    const nq = normalize(q.fabricated).split(' ');
    if (nq.length < 5) fail(x.c.id, 'fabricated quote needs at least 5 words');
    for (let i = 0; i + 5 <= nq.length; i++) {
      const sh = nq.slice(i, i + 5).join(' ');
      for (const t of x.texts)
        if (t.includes(sh)) fail(x.c.id, `fabricated quote shares the 5-word shingle "${sh}" with the source`);
    }
    assertAbsent(x, q.fabricated);
    return labelAs(
      x,
      q.fabricated,
      'no_match',
      `fabricated sentence; none of its ${nq.length - 4} 5-word shingles occurs in ${x.kind}'s normalized text`,
    );
  },
  absent: (x, q) => {
    for (const t of x.texts)
      if (!t.includes(normalize(q.near))) fail(x.c.id, `"near" text is not in the source: ${q.near}`);
    assertAbsent(x, q.absent);
    return labelAs(x, q.absent, 'no_match', `${q.why}; ${x.kind} has "${q.near}"`);
  },
  swap: (x, q) => {
    const where = locate(x, q.span);
    const [from, to] = q.swap;
    // a whole word; in scripts written without spaces (Han, Kana) a run of characters
    const cjk = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+$/u.test(from);
    const re = cjk ? new RegExp(`()${reEsc(from)}`, 'u') : wordRe(from);
    if (!re.test(q.span)) fail(x.c.id, `"${from}" is not a word of the span`);
    const quote = q.span.replace(re, (_m, pre: string) => pre + to);
    assertWordAbsent(x, to);
    assertAbsent(x, quote);
    return labelAs(
      x,
      quote,
      'no_match',
      `${spanOf(x, where)} with the word "${from}" replaced by "${to}", which occurs nowhere in the source`,
    );
  },
  tail: (x, q) => {
    const where = locate(x, q.span);
    const quote = q.span + q.tail;
    assertAbsent(x, quote);
    return labelAs(
      x,
      quote,
      'no_match',
      `${spanOf(x, where)}, followed by "${q.tail.trim()}", which the source does not have after it`,
    );
  },
  drop: (x, q) => {
    const where = locate(x, q.span);
    if (!q.span.includes(q.drop)) fail(x.c.id, 'drop text is not part of the span');
    const quote = q.span.replace(q.drop, '');
    assertAbsent(x, quote);
    return labelAs(
      x,
      quote,
      'no_match',
      `${spanOf(x, where)} with "${q.drop.trim()}" left out of its middle (no ellipsis), which makes a word sequence the source does not have`,
    );
  },
  variant: (x, q) => {
    const where = locate(x, q.span);
    const quote = VARIANTS.includes(q.as) ? applyVariant(q.span, q.as as Variant) : q.as;
    if (normalize(quote) !== normalize(q.span))
      fail(x.c.id, `variant does not normalize to the span: ${JSON.stringify(normalize(quote))}`);
    if (quote === q.span && !/control case/.test(q.how)) fail(x.c.id, 'variant equals the span');
    const how = quote === q.span ? 'identical text' : q.how;
    return labelAs(x, quote, 'verbatim', `${spanOf(x, where)}, written with ${how}`);
  },
  span: (x, q) => labelAs(x, q.span, 'verbatim', spanOf(x, locate(x, q.span))),
};

/** A quote whose source yields no text: the URL fails, or it serves a PDF without text. */
function unreadableClaim(task: TaskSpec, c: ClaimSpec, q: Quotes['unreadable'], served: Served): Labelled {
  const base = { task: task.name, id: c.id, claim: c.claim, url: c.url, quote: q.quote, label: 'no_match' as const };
  if (!served.ok || !served.src)
    return { ...base, rule: `no_match: source fails: ${served.steps.join(' → ')}; ${q.why}` };
  if (!isPdf(served.src)) fail(c.id, 'an unreadable-source claim must point at a failing URL or a PDF without text');
  if (pdfView(served.src).norm !== '') fail(c.id, 'pdftotext does find text in this PDF');
  return { ...base, rule: `no_match: ${q.why}${viaOf(served)}` };
}

function deriveClaim(task: TaskSpec, c: ClaimSpec): Labelled {
  const served = resolve(c.url, task.routes);
  const kind = kindOf(c.q);
  if (kind === 'unreadable') return unreadableClaim(task, c, c.q as Quotes['unreadable'], served);
  const handler = HANDLERS[kind] as (x: ClaimCtx, q: QuoteSpec) => Labelled;
  return handler(claimCtx(task, c, served), c.q);
}

// ---------------------------------------------------------------------------
// Writing the task folders

/** One place the task folders are written to, in one variant. */
export interface GoldenOutput {
  /** Where the task folders go. golden/tasks gets routes.json and labelled.jsonl beside it; anywhere else, only
   *  the task folders are written (golden/ is left as committed). */
  tasksDir: string;
  /** What every task ships besides the instruction (the skill, the MCP server); default neither, as committed. */
  variant?: TaskVariant;
}

export interface GoldenBuildOptions {
  /** Default: golden/tasks, plain. Several outputs share one derivation of the labels (the slow part). */
  outputs?: GoldenOutput[];
}

/** The claims of one task, labelled; each id unique across `ids`, each URL on the golden server. */
function labelTask(t: TaskSpec, ids: Set<string>): Labelled[] {
  return t.claims.map((c) => {
    if (ids.has(c.id)) throw new Error(`duplicate id ${c.id}`);
    ids.add(c.id);
    const u = new URL(c.url);
    if (!/^127\.0\.0\.[123]$/.test(u.hostname) || Number(u.port) !== GOLDEN_PORT)
      throw new Error(`${c.id}: URL must be on 127.0.0.x:${GOLDEN_PORT}`);
    return deriveClaim(t, c);
  });
}

/** "news-wire   12 claims   6 verbatim   6 no_match" */
function summaryLine(name: string, rows: readonly Labelled[], extra = ''): string {
  const v = rows.filter((l) => l.label === 'verbatim').length;
  return `${name.padEnd(22)} ${String(rows.length).padStart(3)} claims  ${String(v).padStart(3)} verbatim  ${String(rows.length - v).padStart(3)} no_match${extra}`;
}

/** Builds the golden tasks (and, into golden/ itself, their routes and labels); prints the per-task summary. */
export function buildGolden(opts: GoldenBuildOptions = {}): void {
  ensureSources();
  const dir = goldenDir();
  const outputs = (opts.outputs ?? [{ tasksDir: path.join(dir, 'tasks') }]).map(({ tasksDir, variant = {} }) => ({
    tasksDir,
    variant: variant.mcp ? { ...variant, mcpArgs: [...GOLDEN_PRIVATE_ARGS, ...(variant.mcpArgs ?? [])] } : variant,
  }));
  const inGolden = outputs.some((o) => path.resolve(o.tasksDir) === path.resolve(dir, 'tasks'));
  const tasks = loadTasks();
  const routes: Route[] = routeTable(
    tasks.flatMap((t) => t.routes),
    (r) => (r.src ? `sources/${SOURCES[r.src].file}` : undefined),
  );
  const ids = new Set<string>();
  const all: Labelled[] = [];
  const summary: string[] = [];
  for (const t of tasks) {
    const rows = labelTask(t, ids);
    all.push(...rows);
    // The task files are the same templates `quotecheck export` writes (src/task/templates.ts).
    for (const { tasksDir, variant } of outputs)
      writeTaskFolder(path.join(tasksDir, t.name), rows, {
        about: t.about,
        difficulty: t.difficulty,
        tags: t.tags,
        variant,
      });
    summary.push(summaryLine(t.name, rows));
  }
  // The drift task has its own builder (sources that changed since their verify date, and their captures).
  const drift = buildDrift({ outputs });
  summary.push(summaryLine(DRIFT_TASK, drift, '  (golden/drift/labelled.jsonl)'));
  if (inGolden) {
    // remove task folders that are no longer in the spec
    const tasksDir = path.join(dir, 'tasks');
    for (const d of fs.readdirSync(tasksDir))
      if (d !== DRIFT_TASK && !tasks.some((t) => t.name === d))
        fs.rmSync(path.join(tasksDir, d), { recursive: true, force: true });
    writeFile(path.join(dir, 'routes.json'), JSON.stringify(routes, null, 2) + '\n');
    writeFile(path.join(dir, 'labelled.jsonl'), all.map((l) => JSON.stringify(l)).join('\n') + '\n');
  }
  const v = [...all, ...drift].filter((l) => l.label === 'verbatim').length;
  const n = all.length + drift.length;
  console.log(summary.join('\n'));
  console.log(
    `${'total'.padEnd(22)} ${String(n).padStart(3)} claims  ${String(v).padStart(3)} verbatim  ${String(n - v).padStart(3)} no_match (${((100 * (n - v)) / n).toFixed(1)}% no_match)`,
  );
}

/** `node dist/golden/build.js [--out DIR] [--with-skill] [--with-mcp]`: a bad option is one line and exit 2. */
function main(argv: string[]): number {
  let values: { out?: string; 'with-skill'?: boolean; 'with-mcp'?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { out: { type: 'string' }, 'with-skill': { type: 'boolean' }, 'with-mcp': { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    console.error(
      `golden/build: error: ${(err as Error).message} (usage: build.js [--out DIR] [--with-skill] [--with-mcp])`,
    );
    return 2;
  }
  const variant = { skill: values['with-skill'] === true, mcp: values['with-mcp'] === true };
  buildGolden({ outputs: [{ tasksDir: values.out ?? path.join(goldenDir(), 'tasks'), variant }] });
  return 0;
}

if (isMain(import.meta.url)) process.exitCode = main(process.argv.slice(2));
