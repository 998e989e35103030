// Deterministic generator of the golden diagnosis set: labelled `no_match` cases,
// each with the diagnosis code (design §5) it should get.
//
//   npx tsc -p tsconfig.json && node dist/golden/diagnosis/build.js
//
// Reads the real documents in golden/sources/ (copied from ../shared/realworld/ when
// missing), writes the documents this set adds (paywall/consent/bot-check shells,
// JavaScript app shells, soft-hyphenated copies of real pages, an image, a zip and a
// .docx) to golden/diagnosis/sources/, checks every fact each case rests on, and writes
//   golden/diagnosis/routes.json   route table; golden/server.ts serves it next to golden/routes.json
//   golden/diagnosis/claims.json   the claims as quotecheck reads them: [{id, claim, quote, url}]
//   golden/diagnosis/cases.jsonl   one line per case: {id, quote, url, expected, rule}
//
// Every case is mechanically `no_match` (design §3: the normalized quote is not a
// substring of the normalized source text, in any view) or its source is never served.
// The expected diagnosis comes from how the case was MADE (the kind of quote spec
// below), never from running quotecheck:
//   artifact   -> extraction_artifact   the passage as a reader sees it; the extracted text
//                                        differs only by extraction (glued/split words,
//                                        line-end hyphens, soft hyphens / zero-width
//                                        characters, page furniture inside the passage)
//   edits      -> near_miss             a 10-40 word span with 1-3 words changed, one word
//                                        added or dropped, or two adjacent words swapped
//   splice / tail / head -> partial     two spans joined by an ellipsis, or a span that runs
//                                        on into (or starts with) >= 8 invented words
//   fabricated / foreign -> not_found   no 4-word shingle of the quote occurs in the source
//   hidden     -> paywall               a sentence of the real article behind a shell
//   unreadable -> empty                 the document has no extractable text
//   unreachable -> fetch_failed         no usable response
//   opaque     -> unsupported           a content type that is not HTML, PDF or text
// golden/diagnosis/check.ts re-verifies the cases independently.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { z } from 'zod';
import {
  copyMissingSources,
  fail,
  findElement,
  findPdfSpan,
  findTextNode,
  fold,
  HOSTS,
  htmlText,
  isPdf,
  lineBreaks,
  normalize,
  pdftotext,
  reEsc,
  wordRe,
  writeFile,
} from '../lib/builder.js';
import { SOURCES, type SrcKey } from '../sources.js';
import { isMain } from '../lib/main.js';
import type { CaseRow, ClaimRow } from '../lib/rows.js';
import { followRoutes, routeTable, type SpecRoute } from '../lib/routes.js';
import { keyOf, readSpec, routeFields } from '../lib/spec.js';
import { GOLDEN_PORT, goldenDir, projectRoot } from '../server.js';

export { normalize };

// ---------------------------------------------------------------------------
// The spec: three data files in golden/diagnosis/spec/.
//   documents.json  the real documents this set serves (golden/sources.ts keys, with a name that reads well
//                   in the rules where needed) and the documents it adds under golden/diagnosis/sources/:
//                   shells written by hand (paywall, login, consent and bot-check walls, JavaScript app
//                   shells, an empty body), and documents made from real ones by a named maker (MAKERS).
//   routes.json     every route, all under /diag/; `doc` names the document served.
//   cases.json      every case: URL, claim and `q`, how its quote is made (QUOTES), which gives its code.

const s = z.string();
const int = z.number().int();

/** Makers of the documents made from real ones: the parameters in documents.json, the bytes here. */
const MADE = {
  /** a copy of a real page with soft hyphens or zero-width spaces put into words of one paragraph (softCopy below) */
  softCopy: z.strictObject({ from: s, anchor: s, words: z.array(s), mark: z.enum(['soft-hyphen', 'zero-width']) }),
  /** a PNG rendering of one page of a real PDF (pdftoppm) */
  png: z.strictObject({ from: s, page: int, dpi: int }),
  /** a ZIP archive (deflate, fixed timestamp) of real documents */
  zip: z.array(z.strictObject({ name: s, from: s })),
  /** a .docx holding these paragraphs */
  docx: z.array(s),
};
type MadeKind = keyof typeof MADE;

const DocumentsSchema = z.strictObject({
  real: z.partialRecord(z.enum(Object.keys(SOURCES) as [SrcKey, ...SrcKey[]]), z.strictObject({ pub: s.optional() })),
  written: z.record(
    s,
    z.strictObject({
      /** the file's name under golden/diagnosis/sources/ */
      file: s,
      pub: s.optional(),
      /** a paywall shell: the real article it stands in for, that article's headline, and the paragraphs it shows */
      hides: z.strictObject({ article: s, headline: s, shown: z.array(s) }).optional(),
      ...(Object.fromEntries(Object.entries(MADE).map(([k, v]) => [k, v.optional()])) as {
        [K in MadeKind]: z.ZodOptional<(typeof MADE)[K]>;
      }),
    }),
  ),
});
type WrittenSpec = z.infer<typeof DocumentsSchema>['written'][string];

/** A document the set serves. `file` is relative to golden/ (the server's base folder). */
interface Doc {
  file: string;
  pub: string;
  /** a paywall shell (see documents.json) */
  hides?: { article: string; headline: string; shown: string[] };
  /** a soft-hyphen / zero-width copy of this real document */
  copyOf?: string;
  /** how its bytes are made; `always`: on every build (text), otherwise only when missing (binary). None: a file kept as it is. */
  make?: { always: boolean; bytes: () => Buffer };
}

const RouteSchema = z.strictObject({ host: z.enum(HOSTS), ...routeFields, doc: s.optional() });

type ArtifactKind = 'split' | 'glued' | 'hyphen-dropped' | 'hyphen-kept' | 'soft-hyphen' | 'zero-width' | 'furniture';
const ARTIFACT_KINDS: readonly ArtifactKind[] = [
  'split',
  'glued',
  'hyphen-dropped',
  'hyphen-kept',
  'soft-hyphen',
  'zero-width',
  'furniture',
];

/** The small edits of a near miss, by kind. */
const EDITS = {
  /** replace a word (or a few words) by another */
  swap: z.strictObject({ swap: z.tuple([s, s]) }),
  /** [after, word]: add `word` after the word `after` */
  insert: z.strictObject({ insert: z.tuple([s, s]) }),
  /** leave out one word from the middle */
  drop: z.strictObject({ drop: s }),
  /** "a b" -> "b a": two adjacent words swapped */
  transpose: z.strictObject({ transpose: z.tuple([s, s]) }),
};
type EditKind = keyof typeof EDITS;
type Edits = { [K in EditKind]: z.infer<(typeof EDITS)[K]> };
type Edit = Edits[EditKind];

/** How a case's quote is made, by kind; the schemas are strict, so a `q` fits exactly one. EXPECTED gives each kind's code. */
const QUOTES = {
  /** extraction_artifact: the quote as a reader sees it; `near` is the extracted text (in the source) */
  artifact: z.strictObject({
    artifact: s,
    near: s,
    kind: keyOf(ARTIFACT_KINDS),
    furniture: z.array(s).optional(),
    why: s,
  }),
  /** near_miss: a 10-40 word span with small edits */
  edits: z.strictObject({
    span: s,
    edits: z.array(
      z.union(Object.values(EDITS), { error: `fits none of the edit kinds (${Object.keys(EDITS).join(', ')})` }),
    ),
  }),
  /** partial: two spans (>= 6 words each) from different places joined by `sep` */
  splice: z.strictObject({ splice: z.tuple([s, s]), sep: z.enum([' ... ', ' […] ', ' [...] ', '… ']) }),
  /** partial: a span (>= 10 words) followed by >= 8 invented words */
  tail: z.strictObject({ span: s, tail: s }),
  /** partial: >= 8 invented words followed by a span (>= 10 words) */
  head: z.strictObject({ head: s, span: s }),
  /** not_found: a made-up sentence (12-35 words); no 4-word shingle occurs in the source */
  fabricated: z.strictObject({ fabricated: s }),
  /** not_found: a real sentence of another document; no 4-word shingle occurs in the source */
  foreign: z.strictObject({ foreign: s, from: s }),
  /** paywall: a sentence of the real article that the served shell hides */
  hidden: z.strictObject({ hidden: s }),
  /** empty: the served document has no extractable text; `from`: where the quote really is */
  unreadable: z.strictObject({ unreadable: s, from: s.optional(), note: s.optional() }),
  /** fetch_failed: the URL never yields a usable response */
  unreachable: z.strictObject({ unreachable: s, from: s }),
  /** unsupported: served with a content type that is not HTML, PDF or text */
  opaque: z.strictObject({ opaque: s, from: s, note: s }),
};
type QuoteKind = keyof typeof QUOTES;
type Quotes = { [K in QuoteKind]: z.infer<(typeof QUOTES)[K]> };
type QuoteSpec = Quotes[QuoteKind];

type Expected =
  | 'extraction_artifact'
  | 'near_miss'
  | 'partial'
  | 'not_found'
  | 'paywall'
  | 'empty'
  | 'fetch_failed'
  | 'unsupported';
const EXPECTED: Record<QuoteKind, Expected> = {
  artifact: 'extraction_artifact',
  edits: 'near_miss',
  splice: 'partial',
  tail: 'partial',
  head: 'partial',
  fabricated: 'not_found',
  foreign: 'not_found',
  hidden: 'paywall',
  unreadable: 'empty',
  unreachable: 'fetch_failed',
  opaque: 'unsupported',
};

/** The schema `v` fits, among strict schemas of which at most one fits. */
const kindIn = <K extends string>(table: Record<K, z.ZodType>, v: unknown): K =>
  (Object.keys(table) as K[]).find((k) => table[k].safeParse(v).success)!;

const CaseSchema = z.strictObject({
  url: s,
  claim: s,
  q: z.union(Object.values(QUOTES), {
    error: `fits none of the quote kinds (${Object.keys(QUOTES).join(', ')}; see QUOTES in golden/diagnosis/build.ts)`,
  }),
});
type CaseSpec = { url: string; claim: string; q: QuoteSpec };
type RouteSpec = z.infer<typeof RouteSchema> & SpecRoute;

/** a loopback port nothing listens on (the "discard" port): connection refused */
const REFUSED_PORT = '9';

interface Spec {
  docs: Map<string, Doc>;
  routes: RouteSpec[];
  cases: CaseSpec[];
}

let loaded: Spec | undefined;
/** The spec files, read and checked once: every document a route, case or maker names exists, every URL is on the golden server (or port 9). */
function spec(): Spec {
  if (loaded) return loaded;
  const docs = loadDocuments();
  const routes = readSpec('diagnosis/spec/routes.json', z.array(RouteSchema)) as RouteSpec[];
  const cases = readSpec('diagnosis/spec/cases.json', z.array(CaseSchema)) as CaseSpec[];
  const known = (where: string, k: string | undefined): void => {
    if (k !== undefined && !docs.has(k))
      throw new Error(`${where}: no document "${k}" in diagnosis/spec/documents.json`);
  };
  const onServer = (where: string, url: string): void => {
    const port = new URL(url.replace(/\{port\}/g, String(GOLDEN_PORT)), 'http://127.0.0.1:41733/').port || '80';
    if (port !== String(GOLDEN_PORT) && port !== REFUSED_PORT) throw new Error(`${where}: unexpected port in ${url}`);
  };
  for (const r of routes) {
    known(`route ${r.path}`, r.doc);
    if (r.redirect) onServer(`route ${r.path}`, r.redirect.location);
  }
  cases.forEach((c, i) => {
    known(`case #${i + 1}`, 'from' in c.q ? c.q.from : undefined);
    onServer(`case #${i + 1}`, c.url);
  });
  loaded = { docs, routes, cases };
  return loaded;
}

const docOf = (k: string): Doc => spec().docs.get(k) ?? fail(k, 'no such document');

function loadDocuments(): Map<string, Doc> {
  const { real, written } = readSpec('diagnosis/spec/documents.json', DocumentsSchema);
  const docs = new Map<string, Doc>();
  for (const [k, r] of Object.entries(real) as [SrcKey, { pub?: string }][])
    docs.set(k, { file: `sources/${SOURCES[k].file}`, pub: r.pub ?? SOURCES[k].pub });
  const realDoc = (where: string, k: string): Doc =>
    k in real ? docs.get(k)! : fail(where, `"${k}" is not a real document`);
  for (const [k, w] of Object.entries(written)) docs.set(k, writtenDoc(k, w, realDoc));
  return docs;
}

/** A document of golden/diagnosis/sources/: kept as written, or made by the maker its spec names. */
function writtenDoc(k: string, w: WrittenSpec, realDoc: (where: string, k: string) => Doc): Doc {
  const file = `diagnosis/sources/${w.file}`;
  const makers = (Object.keys(MADE) as MadeKind[]).filter((m) => w[m] !== undefined);
  if (makers.length > 1) fail(k, `one maker at most (${makers.join(', ')})`);
  if (w.hides) realDoc(k, w.hides.article);
  if (w.softCopy) {
    const from = realDoc(k, w.softCopy.from);
    const p = w.softCopy;
    const bytes = (): Buffer => softCopy(file, from, p.anchor, p.words, p.mark === 'soft-hyphen' ? '&shy;' : '\u200b');
    return {
      file,
      pub: `a copy of ${from.pub}'s page with ${p.mark === 'soft-hyphen' ? 'soft hyphens' : 'zero-width spaces'} added`,
      copyOf: p.from,
      make: { always: true, bytes },
    };
  }
  if (w.pub === undefined) fail(k, 'a written document needs "pub"');
  const doc: Doc = { file, pub: w.pub, ...(w.hides ? { hides: w.hides } : {}) };
  if (w.png) {
    const src = realDoc(k, w.png.from);
    const { page, dpi } = w.png;
    doc.make = { always: false, bytes: () => renderPng(src, page, dpi) };
  } else if (w.zip) {
    const entries = w.zip.map((e) => ({ name: e.name, doc: realDoc(k, e.from) }));
    doc.make = {
      always: false,
      bytes: () =>
        makeZip(entries.map((e) => ({ name: e.name, data: fs.readFileSync(path.join(goldenDir(), e.doc.file)) }))),
    };
  } else if (w.docx) {
    const paragraphs = w.docx;
    doc.make = { always: false, bytes: () => makeDocx(paragraphs) };
  }
  return doc;
}

/**
 * A copy of a real page with soft hyphens (or zero-width spaces) put into words of one
 * paragraph, as CMS hyphenation filters do. `anchor` is the paragraph's text exactly as
 * it is in the page's markup; each word in `words` is written with "-" at the break points
 * ("res-pi-ra-to-ry") and gets `&shy;` (or U+200B) there inside the anchor only.
 */
function softCopy(file: string, from: Doc, anchor: string, words: string[], mark: '&shy;' | '\u200b'): Buffer {
  const raw = fs.readFileSync(path.join(goldenDir(), from.file), 'utf8');
  const at = raw.indexOf(anchor);
  if (at < 0 || raw.indexOf(anchor, at + 1) >= 0)
    throw new Error(`${file}: anchor must occur exactly once in ${from.file}`);
  let para = anchor;
  for (const w of words) {
    const plain = w.replace(/-/g, '');
    const re = new RegExp(`\\b${plain}\\b`, 'g');
    if (!re.test(para)) throw new Error(`${file}: "${plain}" is not a word of the anchor`);
    para = para.replace(re, w.replace(/-/g, mark));
  }
  return Buffer.from(raw.slice(0, at) + para + raw.slice(at + anchor.length), 'utf8');
}

// --- binary documents (made once, when missing) -----------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A minimal ZIP archive (deflate), with a fixed timestamp (2019-11-19 12:00) so it is reproducible. */
function makeZip(entries: { name: string; data: Buffer }[]): Buffer {
  const time = 12 << 11;
  const date = ((2019 - 1980) << 9) | (11 << 5) | 19;
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const data = zlib.deflateRawSync(e.data, { level: 9 });
    const crc = crc32(e.data);
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(0, 6);
    lh.writeUInt16LE(8, 8);
    lh.writeUInt16LE(time, 10);
    lh.writeUInt16LE(date, 12);
    lh.writeUInt32LE(crc, 14);
    lh.writeUInt32LE(data.length, 18);
    lh.writeUInt32LE(e.data.length, 22);
    lh.writeUInt16LE(name.length, 26);
    lh.writeUInt16LE(0, 28);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(20, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(0, 8);
    ch.writeUInt16LE(8, 10);
    ch.writeUInt16LE(time, 12);
    ch.writeUInt16LE(date, 14);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(data.length, 20);
    ch.writeUInt32LE(e.data.length, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE(offset, 42);
    locals.push(lh, name, data);
    centrals.push(ch, name);
    offset += lh.length + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

function makeDocx(paragraphs: string[]): Buffer {
  const x = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const ct =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
  const rels =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
  const doc =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' +
    paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${x(p)}</w:t></w:r></w:p>`).join('') +
    '</w:body></w:document>';
  return makeZip([
    { name: '[Content_Types].xml', data: Buffer.from(ct) },
    { name: '_rels/.rels', data: Buffer.from(rels) },
    { name: 'word/document.xml', data: Buffer.from(doc) },
  ]);
}

function renderPng(src: Doc, page: number, dpi: number): Buffer {
  const tmp = fs.mkdtempSync(path.join(projectRoot(), 'scratch', 'diag-png-'));
  try {
    execFileSync('pdftoppm', [
      '-png',
      '-r',
      String(dpi),
      '-f',
      String(page),
      '-l',
      String(page),
      '-singlefile',
      path.join(goldenDir(), src.file),
      path.join(tmp, 'page'),
    ]);
    return fs.readFileSync(path.join(tmp, 'page.png'));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// Word helpers (normalization itself, design §3, is in lib/builder.ts)

/** What is left when whitespace, hyphens, soft hyphens and zero-width characters are ignored. */
const squash = (s: string): string => normalize(s).replace(/[\s\-\u00AD\u200B-\u200D\u2060\uFEFF]/g, '');

/** Normalized words (letters and digits). */
const tokens = (s: string): string[] => normalize(s).match(/[\p{L}\p{N}]+/gu) ?? [];

const shingles = (toks: string[], n: number): string[] => {
  const out: string[] = [];
  for (let i = 0; i + n <= toks.length; i++) out.push(toks.slice(i, i + n).join(' '));
  return out;
};

const wordCount = (s: string): number => s.trim().split(/\s+/).filter(Boolean).length;

/** Damerau (optimal string alignment) distance over word arrays. */
function wordDistance(a: string[], b: string[]): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

// ---------------------------------------------------------------------------
// Source text (the builders' implementation, lib/builder.ts; check.ts has an independent one)

interface View {
  kind: 'pdf' | 'html' | 'none';
  /** normalized texts that count for the label: pdftotext output, or the full view + Readability views */
  texts: string[];
  /** pdftotext output with steps 1-3 applied (for locating and page numbers) */
  pdfRaw?: string;
  pdfError?: string;
  doc?: Document;
  raw?: string;
  /** normalized full view of an HTML page */
  full?: string;
}

const viewCache = new Map<string, View>();
function viewOf(key: string): View {
  const hit = viewCache.get(key);
  if (hit) return hit;
  const bytes = fs.readFileSync(path.join(goldenDir(), docOf(key).file));
  let v: View;
  if (isPdf(bytes)) {
    const out = pdftotext(path.join(goldenDir(), docOf(key).file));
    v =
      out.text === null
        ? { kind: 'pdf', texts: [''], pdfRaw: '', pdfError: out.error }
        : { kind: 'pdf', texts: [normalize(out.text)], pdfRaw: fold(out.text) };
  } else if (/\.html$/.test(docOf(key).file)) {
    const raw = new TextDecoder('utf-8', { fatal: true }).decode(bytes); // throws on invalid UTF-8: every page here is UTF-8
    const { doc, full, article } = htmlText(raw);
    v = { kind: 'html', texts: [full, ...article], doc, raw, full };
  } else {
    v = { kind: 'none', texts: [] };
  }
  viewCache.set(key, v);
  return v;
}

// --- locating spans (as golden/build.ts does, with shorter descriptions) -------

/** "<p> #4": the span lies inside one element without block-level or <br> descendants. */
function locateHtml(v: View, span: string, id: string): string {
  const found = findElement(v.doc!.body, span);
  if (found) return `<${found.tag}> #${found.index}`;
  const t = findTextNode(v.doc!, span);
  if (t) return `one text node inside <${t.parentElement?.localName ?? 'body'}>`;
  throw new Error(`${id}: span not found inside one element of the page: ${JSON.stringify(span)}`);
}

/** "page 3, crossing 2 line breaks": the span is in pdftotext's output (steps 1-3, whitespace-flexible, any case). */
function locatePdf(v: View, span: string, id: string): { where: string; start: number; end: number } {
  const m = findPdfSpan(v.pdfRaw ?? '', fold(span), 'i');
  if (!m) throw new Error(`${id}: span is not in pdftotext's output: ${JSON.stringify(span)}`);
  const where = `page ${m.page}${m.feeds ? ' and the next' : ''}${lineBreaks(m.breaks)}`;
  return { where, start: m.start, end: m.end };
}

function locate(key: string, span: string, id: string): string {
  const v = viewOf(key);
  if (v.kind === 'pdf') return locatePdf(v, span, id).where;
  if (v.kind === 'html') {
    const where = locateHtml(v, span, id);
    if (!v.full!.includes(normalize(span)))
      throw new Error(`${id}: span not in the page's normalized full view: ${span}`);
    return where;
  }
  throw new Error(`${id}: ${docOf(key).file} has no text view`);
}

// ---------------------------------------------------------------------------
// ---------------------------------------------------------------------------
// Serving: what a correct client gets for a URL

interface Served {
  ok: boolean;
  doc?: string;
  status?: number;
  contentType?: string;
  steps: string[];
}

function resolve(url: string): Served {
  const { route: r, steps, status } = followRoutes(url, spec().routes);
  if (!r) return { ok: false, steps, ...(status ? { status } : {}) };
  const code = r.status ?? 200;
  const contentType = r.headers?.['content-type'];
  const extra = r.headers?.['cf-mitigated'] ? ` with cf-mitigated: ${r.headers['cf-mitigated']}` : '';
  steps.push(
    `${code} ${contentType ?? '(no content-type)'}${extra}${code >= 400 ? ' on every request' : ''}${r.note ? ` (${r.note})` : ''}`,
  );
  return { ok: code === 200, ...(r.doc ? { doc: r.doc } : {}), status: code, contentType, steps };
}

// ---------------------------------------------------------------------------
// Deriving and checking one case

interface Case extends ClaimRow, CaseRow<Expected> {}

/** What a case's handler works with: the served document and its text views. */
interface CaseCtx {
  id: string;
  served: Served;
  /** the serving steps, joined */
  via: string;
  key: string;
  d: Doc;
  v: View;
  /** "pdftotext's output for X" / "X's page" / the copy's own name */
  kindOf: string;
}

/** mechanical no_match: the quote is in no view of the served document */
function assertNoMatch(x: CaseCtx, quote: string): void {
  const nq = normalize(quote);
  if (nq === '') fail(x.id, 'empty quote');
  for (const t of x.v.texts)
    if (t.includes(nq)) fail(x.id, `quote IS in the source text (mechanically verbatim): ${quote}`);
}

/** not something that whitespace/hyphen repair would turn into a match */
function assertNotArtifact(x: CaseCtx, quote: string): void {
  const sq = squash(quote);
  for (const t of x.v.texts)
    if (squash(t).includes(sq))
      fail(x.id, `quote matches once whitespace/hyphens are ignored, so it would be an extraction artifact: ${quote}`);
}

/** No 4-word shingle of `text` occurs in the source; returns how many shingles it has. */
function assertNoShingles(x: CaseCtx, text: string, what: string): number {
  const sh = shingles(tokens(text), 4);
  for (const t of x.v.texts) {
    const src = ` ${tokens(t).join(' ')} `;
    for (const s of sh)
      if (src.includes(` ${s} `)) fail(x.id, `${what} shares the 4-word shingle "${s}" with the source`);
  }
  return sh.length;
}

/** Where the extracted text `near` is in the served document. */
function artifactWhere(x: CaseCtx, near: string): string {
  let where: string;
  if (x.v.kind === 'pdf') where = locatePdf(x.v, near, x.id).where;
  else {
    where = locateHtml(x.v, near, x.id);
    if (!x.v.full!.includes(normalize(near))) fail(x.id, "near text is not in the page's normalized full view");
  }
  for (const t of x.v.texts.slice(0, 1))
    if (!t.includes(normalize(near))) fail(x.id, `near text is not in the normalized source: ${near}`);
  return where;
}

/** The quote and the extracted text differ only by what extraction did (after the named furniture is taken out). */
function assertOnlyExtraction(id: string, q: Quotes['artifact']): void {
  let repaired = q.near;
  for (const f of q.furniture ?? []) {
    if (!repaired.includes(f)) fail(id, `furniture "${f}" is not in the near text`);
    repaired = repaired.replace(f, ' ');
  }
  if (squash(repaired) !== squash(q.artifact))
    fail(
      id,
      `quote and extracted text differ by more than extraction: ${JSON.stringify(squash(repaired))} vs ${JSON.stringify(squash(q.artifact))}`,
    );
  if (q.kind === 'furniture' && squash(q.near) === squash(q.artifact)) fail(id, 'furniture case without furniture');
  if (q.kind !== 'furniture' && q.furniture) fail(id, 'furniture given for a non-furniture case');
}

/** The rule's words on how the quote and the extracted text are equal. */
function artifactHow(q: Quotes['artifact']): string {
  if (q.kind === 'furniture')
    return `once the furniture ${q.furniture!.map((f) => JSON.stringify(f.length > 100 ? `${f.slice(0, 97)}...` : f)).join(', ')} is taken out, the two are equal up to whitespace and hyphens`;
  const ignored =
    q.kind === 'soft-hyphen'
      ? 'whitespace, hyphens and soft hyphens (U+00AD)'
      : q.kind === 'zero-width'
        ? 'whitespace, hyphens and zero-width characters'
        : 'whitespace and hyphens';
  return `the two are equal once ${ignored} are ignored`;
}

/** One near-miss edit applied to `quote`, and its words for the rule. */
const EDIT_HANDLERS: { [K in EditKind]: (id: string, quote: string, e: Edits[K]) => [string, string] } = {
  swap: (id, quote, e) => {
    const [from, to] = e.swap;
    if (!wordRe(from).test(quote)) fail(id, `"${from}" is not a word of the span`);
    return [quote.replace(wordRe(from), (_m, pre: string) => pre + to), `"${from}" replaced by "${to}"`];
  },
  insert: (id, quote, e) => {
    const [after, w] = e.insert;
    if (!wordRe(after).test(quote)) fail(id, `"${after}" is not a word of the span`);
    return [quote.replace(wordRe(after), (m) => `${m} ${w}`), `"${w}" added after "${after}"`];
  },
  drop: (id, quote, e) => {
    const m = new RegExp(`\\s${reEsc(e.drop)}(?=\\s)`, 'u').exec(quote);
    if (!m) fail(id, `"${e.drop}" is not a word in the middle of the span`);
    return [quote.slice(0, m.index) + quote.slice(m.index + m[0].length), `"${e.drop}" left out`];
  },
  transpose: (id, quote, e) => {
    const [a, b] = e.transpose;
    if (!quote.includes(`${a} ${b}`)) fail(id, `"${a} ${b}" is not in the span`);
    return [quote.replace(`${a} ${b}`, `${b} ${a}`), `"${a} ${b}" transposed to "${b} ${a}"`];
  },
};

/** A span with more words after it (`tail`) or before it (`head`). */
function runOn(x: CaseCtx, span: string, extra: string, side: 'tail' | 'head'): { quote: string; rule: string } {
  if (wordCount(span) < 10) fail(x.id, 'partial span needs at least 10 words');
  if (tokens(extra).length < 8) fail(x.id, 'invented part needs at least 8 words');
  const where = locate(x.key, span, x.id);
  const n = assertNoShingles(x, extra, 'the invented part');
  const quote = side === 'tail' ? span + extra : extra + span;
  assertNoMatch(x, quote);
  assertNotArtifact(x, quote);
  const how =
    side === 'tail'
      ? `followed by ${tokens(extra).length} invented words ${JSON.stringify(extra.trim())}: the quote runs on past the source's text`
      : `preceded by ${tokens(extra).length} invented words ${JSON.stringify(extra.trim())}`;
  return {
    quote,
    rule: `partial: a ${wordCount(span)}-word verbatim span of ${x.kindOf} (${where}) ${how}; none of the invented part's ${n} 4-word shingles occurs in the source`,
  };
}

/** A sentence that shares no 4-word shingle with the source: made up, or from another document (`from`). */
function notFound(x: CaseCtx, quote: string, from?: string): { quote: string; rule: string } {
  const n = tokens(quote).length;
  if (n < 12 || n > 35) fail(x.id, `not_found quote has ${n} words (12-35)`);
  let origin = "a made-up sentence on the document's topic";
  if (from !== undefined) {
    if (from === x.key) fail(x.id, 'foreign sentence from the same document');
    origin = `a real sentence of a different document (${docOf(from).pub}, ${locate(from, quote, x.id)})`;
  }
  const sh = assertNoShingles(x, quote, 'the quote');
  assertNoMatch(x, quote);
  return {
    quote,
    rule: `not_found: ${origin}; none of its ${sh} 4-word shingles (normalized words) occurs in ${x.kindOf}`,
  };
}

/** Why an empty document yields no text, for the rule. */
function emptyWhy(x: CaseCtx): string {
  if (x.v.kind === 'pdf') {
    if (x.v.texts.some((t) => t !== '')) fail(x.id, 'pdftotext does find text in this PDF');
    return x.v.pdfError
      ? `pdftotext fails (${x.v.pdfError.split('\n')[0]}) and yields no text`
      : 'pdftotext outputs no text (form feeds only): the pages are scanned images without a text layer';
  }
  if (x.v.kind !== 'html') fail(x.id, 'an empty case must serve a PDF or HTML document');
  for (const t of x.v.texts)
    if (t.length > 20) fail(x.id, `the page has visible text: ${JSON.stringify(t.slice(0, 80))}`);
  const bytes = fs.statSync(path.join(goldenDir(), x.d.file)).size;
  return bytes === 0
    ? 'the body is empty (0 bytes)'
    : `${x.d.pub}; its visible text is ${x.v.full ? JSON.stringify(x.v.full) : 'empty'}`;
}

type Handler<K extends QuoteKind> = (x: CaseCtx, q: Quotes[K]) => { quote: string; rule: string };

/**
 * One handler per kind of quote (QUOTES), apart from `unreachable` (unreachableCase: no document is served).
 * `text`: the case needs a document with text served with 200; `doc`: any served document.
 */
const HANDLERS: { [K in Exclude<QuoteKind, 'unreachable'>]: { needs: 'doc' | 'text'; derive: Handler<K> } } = {
  opaque: {
    needs: 'doc',
    derive: (x, q) => {
      if (!x.served.ok) fail(x.id, `unsupported content must be served with 200 (${x.via})`);
      if (x.v.kind !== 'none' || /html|pdf|text\//i.test(x.served.contentType ?? ''))
        fail(x.id, 'the document must not be HTML, PDF or text');
      const where = locate(q.from, q.opaque, x.id);
      return {
        quote: q.opaque,
        rule: `unsupported: served ${x.via}: ${x.d.pub}; ${q.note}. No text is extracted from this content type, so the quote cannot match (the sentence is real: ${docOf(q.from).pub}, ${where})`,
      };
    },
  },
  unreadable: {
    needs: 'doc',
    derive: (x, q) => {
      if (!x.served.ok) fail(x.id, `empty documents must be served with 200 (${x.via})`);
      const why = emptyWhy(x);
      if (q.from) locate(q.from, q.unreadable, x.id);
      const src = q.from ? ` (the sentence is real: ${docOf(q.from).pub})` : q.note ? ` (${q.note})` : '';
      return {
        quote: q.unreadable,
        rule: `empty: served ${x.via}: ${x.v.kind === 'pdf' ? x.d.pub + '; ' : ''}${why}${src}`,
      };
    },
  },
  hidden: {
    needs: 'doc',
    derive: (x, q) => {
      const sh = x.d.hides;
      if (!sh) fail(x.id, 'a paywall case must serve a paywall shell');
      const where = locate(sh.article, q.hidden, x.id);
      assertNoMatch(x, q.hidden);
      return {
        quote: q.hidden,
        rule: `paywall: served ${x.via}: ${x.d.pub}. The shell stands in for ${docOf(sh.article).pub}'s article "${sh.headline}"; the quote is a sentence of that article (${where} of the real page) that the shell does not show`,
      };
    },
  },
  artifact: {
    needs: 'text',
    derive: (x, q) => {
      assertNoMatch(x, q.artifact);
      const where = artifactWhere(x, q.near);
      assertOnlyExtraction(x.id, q);
      const near = JSON.stringify(q.near.length > 200 ? `${q.near.slice(0, 120)} ... ${q.near.slice(-60)}` : q.near);
      return {
        quote: q.artifact,
        rule: `extraction_artifact (${q.kind}): ${q.why}; ${x.kindOf} has ${near} (${where}); the quote is the passage as a reader sees it; ${artifactHow(q)}`,
      };
    },
  },
  edits: {
    needs: 'text',
    derive: (x, q) => {
      const n = wordCount(q.span);
      if (n < 10 || n > 40) fail(x.id, `near_miss span has ${n} words (10-40)`);
      const where = locate(x.key, q.span, x.id);
      let quote = q.span;
      const said: string[] = [];
      for (const e of q.edits) {
        const edit = EDIT_HANDLERS[kindIn(EDITS, e)] as (id: string, quote: string, e: Edit) => [string, string];
        const [next, words] = edit(x.id, quote, e);
        quote = next;
        said.push(words);
      }
      const dist = wordDistance(tokens(q.span), tokens(quote));
      if (dist < 1 || dist > 3) fail(x.id, `word-level edit distance ${dist} (must be 1-3)`);
      assertNoMatch(x, quote);
      assertNotArtifact(x, quote);
      return {
        quote,
        rule: `near_miss: ${n}-word span of ${x.kindOf} (${where}) with ${said.join(' and ')} (word edit distance ${dist}); the result is not in the source, and not even once whitespace and hyphens are ignored`,
      };
    },
  },
  splice: {
    needs: 'text',
    derive: (x, q) => {
      const [a, b] = q.splice;
      for (const part of [a, b]) if (wordCount(part) < 6) fail(x.id, `splice part has fewer than 6 words: ${part}`);
      const wa = locate(x.key, a, x.id);
      const wb = locate(x.key, b, x.id);
      const t0 = x.v.texts[0]!;
      const ia = t0.indexOf(normalize(a));
      const ib = t0.indexOf(normalize(b));
      if (ib >= ia && ib - (ia + normalize(a).length) < 40)
        fail(x.id, 'splice parts are (nearly) adjacent in the source');
      const quote = `${a}${q.sep}${b}`;
      assertNoMatch(x, quote);
      assertNotArtifact(x, quote);
      const gap =
        ib > ia
          ? `${ib - ia - normalize(a).length} characters of normalized text apart`
          : 'the second comes first in the source';
      return {
        quote,
        rule: `partial: two verbatim spans of ${x.kindOf} (${wa}; ${wb}; ${gap}) joined with ${JSON.stringify(q.sep)}`,
      };
    },
  },
  tail: { needs: 'text', derive: (x, q) => runOn(x, q.span, q.tail, 'tail') },
  head: { needs: 'text', derive: (x, q) => runOn(x, q.span, q.head, 'head') },
  fabricated: { needs: 'text', derive: (x, q) => notFound(x, q.fabricated) },
  foreign: { needs: 'text', derive: (x, q) => notFound(x, q.foreign, q.from) },
};

/** fetch_failed: the URL never serves a usable response; the quote is a real sentence of `from`. */
function unreachableCase(id: string, q: Quotes['unreachable'], served: Served): string {
  const via = served.steps.join(' → ');
  if (served.ok) fail(id, `URL is served (${via})`);
  if (served.status === 401 || (served.status === 403 && served.doc))
    fail(id, 'a login or bot-check page is a paywall case, not fetch_failed');
  const where = locate(q.from, q.unreachable, id);
  return `fetch_failed: ${via}; no document is ever served (the quote is real: ${docOf(q.from).pub}, ${where})`;
}

/** The handler's context: the served document, which a content case needs served with 200 and with text. */
function caseCtx(id: string, served: Served, needs: 'doc' | 'text'): CaseCtx {
  const via = served.steps.join(' → ');
  if (!served.doc) fail(id, `URL does not serve a document (${via})`);
  const key = served.doc;
  const d = docOf(key);
  const v = viewOf(key);
  if (needs === 'text') {
    if (!served.ok) fail(id, `content cases must be served with 200 (${via})`);
    if (v.kind === 'none') fail(id, 'content cases need a text document');
  }
  const kindOf = v.kind === 'pdf' ? `pdftotext's output for ${d.pub}` : d.copyOf ? d.pub : `${d.pub}'s page`;
  return { id, served, via, key, d, v, kindOf };
}

function deriveCase(id: string, c: CaseSpec): Case {
  const kind = kindIn(QUOTES, c.q);
  const served = resolve(c.url);
  const base = { id, claim: c.claim, url: c.url, expected: EXPECTED[kind] };
  if (kind === 'unreachable') {
    const q = c.q as Quotes['unreachable'];
    return { ...base, quote: q.unreachable, rule: unreachableCase(id, q, served) };
  }
  const h = HANDLERS[kind] as {
    needs: 'doc' | 'text';
    derive: (x: CaseCtx, q: QuoteSpec) => { quote: string; rule: string };
  };
  return { ...base, ...h.derive(caseCtx(id, served, h.needs), c.q) };
}

// ---------------------------------------------------------------------------
// Main

/** Copies the real sources when missing, makes the made documents, and checks the written ones are there. */
function ensureSources(): void {
  const dir = goldenDir();
  const docs = [...spec().docs.values()];
  copyMissingSources(docs.filter((d) => d.file.startsWith('sources/')).map((d) => d.file.replace(/^sources\//, '')));
  fs.mkdirSync(path.join(projectRoot(), 'scratch'), { recursive: true });
  for (const d of docs) {
    const dest = path.join(dir, d.file);
    if (d.make && (d.make.always || !fs.existsSync(dest))) writeFile(dest, d.make.bytes());
    else if (!fs.existsSync(dest))
      throw new Error(`missing ${dest} (a document of diagnosis/spec/documents.json kept as written)`);
  }
}

/** The fact behind the connection-refused cases: nothing listens on 127.0.0.1:9. */
async function assertRefused(): Promise<void> {
  await new Promise<void>((resolveP, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port: Number(REFUSED_PORT) });
    sock.once('connect', () => {
      sock.destroy();
      reject(new Error('something listens on 127.0.0.1:9; the connection-refused cases need a closed port'));
    });
    sock.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolveP() : reject(err)));
  });
}

/** Every paywall shell shows only real text of its article: the headline and each shown paragraph are on the real page. */
function assertShellsShowRealText(): void {
  for (const [k, d] of spec().docs) {
    const sh = d.hides;
    if (!sh) continue;
    const v = viewOf(sh.article);
    if (!v.full!.includes(normalize(sh.headline))) fail(k, `headline is not on the real page: ${sh.headline}`);
    const shown = viewOf(k);
    for (const p of sh.shown) {
      locate(sh.article, p, k);
      if (!shown.full!.includes(normalize(p))) fail(k, `the shell does not show this paragraph: ${p}`);
    }
  }
}

/** Each case's URL and quote is unique, and every route is used by some case (directly or through a redirect). */
function assertCasesAndRoutes(cases: Case[]): void {
  const quotes = new Map<string, string>();
  for (const c of cases) {
    const k = `${c.url} ${c.quote}`;
    if (quotes.has(k)) throw new Error(`${c.id}: same quote and URL as ${quotes.get(k)}`);
    quotes.set(k, c.id);
  }
  const { routes } = spec();
  const used = new Set(cases.flatMap((c) => followRoutes(c.url, routes).visited));
  for (const r of routes) if (!used.has(r)) throw new Error(`route ${r.host} ${r.path} is used by no case`);
}

async function main(): Promise<void> {
  ensureSources();
  await assertRefused();
  const dir = path.join(goldenDir(), 'diagnosis');
  assertShellsShowRealText();
  const { routes: specRoutes, cases: specCases } = spec();
  for (const r of specRoutes)
    if (!r.path.startsWith('/diag/')) throw new Error(`route ${r.path}: must be under /diag/`);
  const routes = routeTable(specRoutes, (r) => (r.doc ? docOf(r.doc).file : undefined));
  const cases: Case[] = specCases.map((c, i) => deriveCase(`diag-${String(i + 1).padStart(3, '0')}`, c));
  assertCasesAndRoutes(cases);

  writeFile(path.join(dir, 'routes.json'), JSON.stringify(routes, null, 2) + '\n');
  writeFile(
    path.join(dir, 'claims.json'),
    JSON.stringify(
      cases.map((c) => ({ id: c.id, claim: c.claim, quote: c.quote, url: c.url })),
      null,
      2,
    ) + '\n',
  );
  writeFile(
    path.join(dir, 'cases.jsonl'),
    cases
      .map((c) => JSON.stringify({ id: c.id, quote: c.quote, url: c.url, expected: c.expected, rule: c.rule }))
      .join('\n') + '\n',
  );

  const counts = new Map<string, number>();
  for (const c of cases) counts.set(c.expected, (counts.get(c.expected) ?? 0) + 1);
  for (const [k, n] of counts) console.log(`${k.padEnd(20)} ${String(n).padStart(3)}`);
  console.log(`${'total'.padEnd(20)} ${String(cases.length).padStart(3)} cases, ${routes.length} routes`);
}

if (isMain(import.meta.url)) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
