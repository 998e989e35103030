// Deterministic generator of the golden `drift` task: claims labelled on a verify date, sources that changed since.
//
//   npx tsc -p tsconfig.json && node dist/golden/drift/build.js     (golden/build.js runs it too)
//
// Each source has a labelled version (what the labeller fetched on the claim's verify date: its sha256 is
// the claim's evidence), a live version (what the golden server serves today: edited, gone, moved, or the
// same) and Wayback captures (served by the golden Wayback stub, src/wayback/stub/stub.ts). Labels are made
// on the LABELLED version with the span rules of golden/build.ts (design §3), never by running quotecheck;
// the builder also states, and asserts, whether today's text still has the quote. It reads its spec,
// golden/drift/spec.json (the documents, the sources and their captures, the claims), and writes
//   golden/drift/sources/*          the edited versions (made from real pages by the edits in the spec)
//   golden/drift/routes.json        the live routes; golden/server.ts serves them next to routes.json
//   golden/drift/wayback.json       the captures; golden/server.ts serves them on GOLDEN_WAYBACK_URL
//   golden/drift/labelled.jsonl     every claim with verify_date, evidence, label and rule
//   golden/tasks/drift/...          the Harbor task (its solve.sh points quotecheck at the Wayback stub)
// golden/check.ts re-verifies the labels independently: it labels each claim on the document whose
// sha256 is the claim's evidence, wherever that document is kept.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  copyMissingSources,
  fail,
  findElement,
  findPdfSpan,
  H1,
  HTML_UTF8,
  htmlText,
  normalize,
  pdftotext,
  U,
  wordRe,
  writeFile,
} from '../lib/builder.js';
import type { Labelled } from '../lib/builder.js';
import { SOURCES, type SrcKey } from '../sources.js';
import { isMain } from '../lib/main.js';
import { readSpec } from '../lib/spec.js';
import { z } from 'zod';
import { GOLDEN_WAYBACK_URL, goldenDir, type Route } from '../server.js';
import { writeTaskFolder } from '../lib/tasks.js';
import type { TaskVariant } from '../../src/task/variant.js';
import type { Capture } from '../../src/wayback/stub/captures.js';

export const DRIFT_TASK = 'drift';

// ---------------------------------------------------------------------------
// The spec: golden/drift/spec.json. `documents`: the versions of real pages this task adds under
// golden/drift/sources/, made by edits of a real page (each anchor must occur once) or kept as written
// (the "moved" notice). `sources`: per source, the labelled version, today's version, the captures and
// what happened since (documents are named by their key there, or by a golden/sources.ts key for a real
// page). `claims`: `{id, src, claim, q}`, the quote made by one of QUOTES.

const s = z.string();

const DocSpec = z.union([
  z.strictObject({
    file: s,
    from: z.enum(Object.keys(SOURCES) as [SrcKey, ...SrcKey[]]),
    edits: z.array(z.union([z.strictObject({ replace: s, with: s }), z.strictObject({ insertBefore: s, text: s })])),
  }),
  z.strictObject({ file: s, pub: s }),
]);

const SourceSpec = z.strictObject({
  /** The claim URL's path on 127.0.0.1. */
  path: s,
  verifyDate: s,
  /** The version the labeller fetched on the verify date. */
  labelled: s,
  /** Whether the claims carry the labelled version's sha256 as evidence. */
  evidence: z.boolean(),
  contentType: z.record(s, s),
  live: z.union([
    z.strictObject({ doc: s, headers: z.record(s, s) }),
    z.strictObject({ status: z.number().int() }),
    z.strictObject({ movedTo: s, doc: s }),
  ]),
  /** Wayback captures of the claim URL: a document (status 200), or a non-200 capture that clients must skip. */
  captures: z.array(
    z.strictObject({ timestamp: s, doc: s.optional(), status: z.number().int().optional(), location: s.optional() }),
  ),
  /** What happened to the source since the verify date, for the rules. */
  story: s,
});

/** How a claim's quote is made, by kind (strict schemas: a `q` fits one). */
const QUOTES = {
  fabricated: z.strictObject({ fabricated: s }),
  swap: z.strictObject({ span: s, swap: z.tuple([s, s]) }),
  span: z.strictObject({ span: s }),
};
type QuoteSpec = z.infer<(typeof QUOTES)[keyof typeof QUOTES]>;

const SpecSchema = z.strictObject({
  documents: z.record(s, DocSpec),
  sources: z.record(s, SourceSpec),
  claims: z.array(
    z.strictObject({
      id: s,
      src: s,
      claim: s,
      q: z.union(Object.values(QUOTES), { error: `fits none of the quote kinds (${Object.keys(QUOTES).join(', ')})` }),
    }),
  ),
});

// ---------------------------------------------------------------------------
// Documents: real pages (golden/sources/), and versions of them made by small edits.

interface Doc {
  /** Relative to golden/ (the golden server's base folder). */
  file: string;
  pub: string;
  /** For an edited version: how to make its bytes. */
  make?: () => Buffer;
}

const real = (k: SrcKey): Doc => ({ file: `sources/${SOURCES[k].file}`, pub: SOURCES[k].pub });

const bytesOf = (doc: Doc): Buffer => (doc.make ? doc.make() : fs.readFileSync(path.join(goldenDir(), doc.file)));

type Edit = { replace: string; with: string } | { insertBefore: string; text: string };

/** A version of a UTF-8 page with edits; each anchor must occur exactly once in the markup. */
function edited(from: Doc, name: string, edits: Edit[]): Doc {
  return {
    file: `drift/sources/${name}`,
    pub: from.pub,
    make: () => {
      let html = bytesOf(from).toString('utf8');
      for (const e of edits) {
        const anchor = 'replace' in e ? e.replace : e.insertBefore;
        const count = html.split(anchor).length - 1;
        if (count !== 1)
          fail(name, `edit anchor occurs ${count} times in ${from.file}: ${JSON.stringify(anchor.slice(0, 60))}`);
        html = 'replace' in e ? html.replace(anchor, () => e.with) : html.replace(anchor, () => e.text + anchor);
      }
      return Buffer.from(html, 'utf8');
    },
  };
}

// ---------------------------------------------------------------------------
// Sources: what the labeller saw, what is served today, what the archive holds.

type Live = { doc: Doc; headers: Record<string, string> } | { status: number } | { movedTo: string; doc: Doc };

interface DriftSource {
  path: string;
  verifyDate: string;
  labelled: Doc;
  evidence: boolean;
  live: Live;
  captures: { timestamp: string; doc?: Doc; status?: number; location?: string }[];
  story: string;
  contentType: Record<string, string>;
}

interface ClaimSpec {
  id: string;
  src: string;
  claim: string;
  q: QuoteSpec;
}

interface DriftSpec {
  /** the documents of golden/drift/sources/ */
  docs: Doc[];
  sources: Record<string, DriftSource>;
  claims: ClaimSpec[];
}

let loaded: DriftSpec | undefined;
/** golden/drift/spec.json, read once, with every document it names resolved. */
function spec(): DriftSpec {
  if (loaded) return loaded;
  const data = readSpec('drift/spec.json', SpecSchema);
  const docs = new Map<string, Doc>();
  for (const [k, d] of Object.entries(data.documents)) {
    docs.set(k, 'from' in d ? edited(real(d.from), d.file, d.edits) : { file: `drift/sources/${d.file}`, pub: d.pub });
  }
  const doc = (where: string, k: string): Doc =>
    docs.get(k) ?? (k in SOURCES ? real(k as SrcKey) : fail(where, `no document "${k}"`));
  const sources: Record<string, DriftSource> = {};
  for (const [k, x] of Object.entries(data.sources)) {
    const live: Live = 'doc' in x.live ? { ...x.live, doc: doc(k, x.live.doc) } : x.live;
    const captures = x.captures.map(({ doc: d, ...c }) => ({ ...c, ...(d ? { doc: doc(k, d) } : {}) }));
    sources[k] = { ...x, labelled: doc(k, x.labelled), live, captures };
  }
  for (const c of data.claims) if (!(c.src in sources)) fail(c.id, `no source "${c.src}"`);
  loaded = { docs: [...docs.values()], sources, claims: data.claims };
  return loaded;
}

// ---------------------------------------------------------------------------
// Texts and labels (design §3 and §4; the same span rules as golden/build.ts)

interface DocText {
  pdf: boolean;
  /** Normalized texts a label may match: the full view and Readability's views, or pdftotext's output. */
  texts: string[];
  raw: string;
  doc?: Document;
  pdfText?: string;
}

const textCache = new Map<string, DocText>();

function textOf(d: Doc): DocText {
  let t = textCache.get(d.file);
  if (t) return t;
  const file = path.join(goldenDir(), d.file);
  const bytes = fs.readFileSync(file);
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') {
    const out = pdftotext(file);
    if (out.text === null) fail(d.file, `pdftotext fails: ${out.error}`);
    t = { pdf: true, texts: [normalize(out.text)], raw: '', pdfText: out.text };
  } else {
    const raw = bytes.toString('utf8');
    const h = htmlText(raw);
    t = { pdf: false, texts: [h.full, ...h.article], raw, doc: h.doc };
  }
  textCache.set(d.file, t);
  return t;
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

function locate(id: string, t: DocText, span: string): string {
  if (t.pdf) {
    const m = findPdfSpan(t.pdfText!, span);
    if (!m) fail(id, `span is not in pdftotext's output: ${span}`);
    return `page ${m.page} of pdftotext's output`;
  }
  const found = findElement(t.doc!.body, span);
  if (!found) fail(id, `span is not inside one element: ${span}`);
  if (!normalize(t.texts[0]!).includes(normalize(span))) fail(id, `span is not in the full view: ${span}`);
  return `the text of <${found.tag}> #${found.index} in <body>`;
}

function absent(id: string, t: DocText, quote: string): void {
  const nq = normalize(quote);
  for (const text of t.texts) if (text.includes(nq)) fail(id, `quote IS in the labelled text: ${quote}`);
}

/** The label on the labelled version, and the rule it follows from. */
function labelOn(c: ClaimSpec, t: DocText): { quote: string; label: Labelled['label']; how: string } {
  const q = c.q;
  if ('fabricated' in q) {
    const words = normalize(q.fabricated).split(' ');
    for (let i = 0; i + 5 <= words.length; i++) {
      const shingle = words.slice(i, i + 5).join(' ');
      if (t.texts.some((x) => x.includes(shingle)))
        fail(c.id, `fabricated quote shares "${shingle}" with the labelled text`);
    }
    absent(c.id, t, q.fabricated);
    return {
      quote: q.fabricated,
      label: 'no_match',
      how: `a fabricated sentence: none of its 5-word shingles is in the labelled text`,
    };
  }
  const where = locate(c.id, t, q.span);
  if ('swap' in q) {
    const [from, to] = q.swap;
    const re = wordRe(from);
    if (!re.test(q.span)) fail(c.id, `"${from}" is not a word of the span`);
    const quote = q.span.replace(re, (_m, pre: string) => pre + to);
    if (t.texts.some((x) => x.includes(normalize(to))) || normalize(t.raw).includes(normalize(to)))
      fail(c.id, `"${to}" occurs in the labelled version`);
    absent(c.id, t, quote);
    return {
      quote,
      label: 'no_match',
      how: `a span of ${where} with "${from}" replaced by "${to}", which the labelled version never has`,
    };
  }
  return { quote: q.span, label: 'verbatim', how: `a span of ${where}` };
}

/** The normalized texts served today at the claim URL, or null when it serves no document. */
function liveTexts(s: DriftSource): string[] | null {
  return 'doc' in s.live ? textOf(s.live.doc).texts : null;
}

function derive(c: ClaimSpec): Labelled {
  const s = spec().sources[c.src]!;
  const t = textOf(s.labelled);
  const { quote, label, how } = labelOn(c, t);
  const evidence = sha256(bytesOf(s.labelled));
  const today = liveTexts(s);
  const inToday = today?.some((x) => x.includes(normalize(quote)));
  if (!s.evidence && bytesOf(s.labelled).compare(bytesOf('doc' in s.live ? s.live.doc : s.labelled)) !== 0) {
    fail(
      c.id,
      "a claim without evidence must cite a source that has not changed: nothing could tell its labelled text from today's",
    );
  }
  if (label === 'verbatim' && !inToday && !s.evidence)
    fail(c.id, "a verbatim quote that today's text lacks needs evidence");
  const todaySays =
    today === null
      ? 'today the URL serves no document'
      : inToday
        ? "today's text still has the quote"
        : "today's text does not have the quote";
  const rule = `${label}: ${how} of ${s.labelled.pub} as labelled on ${s.verifyDate}${s.evidence ? ` (sha256 ${evidence.slice(0, 12)}..., the claim's evidence)` : ' (no evidence hash)'}; since then ${s.story}; ${todaySays}`;
  return {
    task: DRIFT_TASK,
    id: c.id,
    claim: c.claim,
    quote,
    url: U(H1, s.path),
    verify_date: s.verifyDate,
    ...(s.evidence ? { evidence: { sha256: evidence } } : {}),
    label,
    rule,
  };
}

// ---------------------------------------------------------------------------
// Routes, captures and the task

function routesFor(s: DriftSource): Route[] {
  if ('status' in s.live)
    return [
      {
        host: H1,
        path: s.path,
        status: s.live.status,
        headers: HTML_UTF8,
        body: `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Gone</title></head><body><h1>This page is no longer available</h1></body></html>\n`,
      },
    ];
  if ('movedTo' in s.live) {
    return [
      { host: H1, path: s.path, redirect: { location: s.live.movedTo, status: 301 } },
      { host: H1, path: s.live.movedTo, file: s.live.doc.file, headers: HTML_UTF8 },
    ];
  }
  return [{ host: H1, path: s.path, file: s.live.doc.file, headers: s.live.headers }];
}

function capturesFor(s: DriftSource): Capture[] {
  const url = U(H1, s.path);
  return s.captures.map((c) =>
    c.doc
      ? { url, timestamp: c.timestamp, status: 200, file: c.doc.file, headers: s.contentType }
      : {
          url,
          timestamp: c.timestamp,
          status: c.status ?? 404,
          headers: HTML_UTF8,
          ...(c.location ? { location: c.location } : { body: '<html><body>Not Found</body></html>' }),
        },
  );
}

export const DRIFT_ABOUT =
  'Sources that changed after the claims were labelled: a corrected sentence, a removed page (410), a cut sentence whose latest capture ' +
  'before the date is already the cut version, a rewritten sentence captured only after the date, a PDF that now redirects to a ' +
  '"moved" page, a page whose bytes change on every load, and two unchanged pages. The Wayback stub at ' +
  `${GOLDEN_WAYBACK_URL} holds the captures.`;

export interface DriftBuildOptions {
  /** Where the task folder goes, in which variant (default golden/tasks, plain). Outside golden/tasks, only the task
   *  folder is written: the edited documents, routes, captures and labels stay in golden/drift as committed. */
  outputs?: { tasksDir: string; variant?: TaskVariant }[];
}

/** Writes the drift task's documents, routes, captures, labels and task folder; returns the labelled claims. */
export function buildDrift(opts: DriftBuildOptions = {}): Labelled[] {
  copyMissingSources(
    ['bbc', 'reuters', 'physorg', 'sciencealert', 'scotus', 'politifact', 'smithsonian', 'aljazeera'].map(
      (k) => SOURCES[k as SrcKey].file,
    ),
  );
  const dir = goldenDir();
  const outputs = opts.outputs ?? [{ tasksDir: path.join(dir, 'tasks') }];
  const inGolden = outputs.some((o) => path.resolve(o.tasksDir) === path.resolve(dir, 'tasks'));
  const { docs, sources: bySource, claims } = spec();
  if (inGolden) for (const d of docs) if (d.make) writeFile(path.join(dir, d.file), d.make());
  const labelled = claims.map(derive);
  const sources = Object.values(bySource);
  if (inGolden) {
    writeFile(path.join(dir, 'drift', 'routes.json'), JSON.stringify(sources.flatMap(routesFor), null, 2) + '\n');
    writeFile(path.join(dir, 'drift', 'wayback.json'), JSON.stringify(sources.flatMap(capturesFor), null, 2) + '\n');
    writeFile(path.join(dir, 'drift', 'labelled.jsonl'), labelled.map((l) => JSON.stringify(l)).join('\n') + '\n');
  }

  for (const { tasksDir, variant: given = {} } of outputs) {
    // The MCP server of the drift task asks the Wayback stub, as its solve.sh does.
    const variant: TaskVariant = given.mcp
      ? { ...given, mcpArgs: [...(given.mcpArgs ?? []), '--wayback-url', GOLDEN_WAYBACK_URL] }
      : given;
    // The archive here is the loopback Wayback stub, which does not firewall anyone: no need for the real one's pace.
    writeTaskFolder(path.join(tasksDir, DRIFT_TASK), labelled, {
      about: DRIFT_ABOUT,
      difficulty: 'hard',
      tags: ['drift', 'wayback', 'as-of-date'],
      variant,
      instructionOptions: { asOf: true, waybackUrl: GOLDEN_WAYBACK_URL },
      solveOptions: { runArgs: ['--wayback-url', GOLDEN_WAYBACK_URL, '--wayback-rate', '600'] },
    });
  }
  return labelled;
}

if (isMain(import.meta.url)) {
  const labelled = buildDrift();
  const v = labelled.filter((l) => l.label === 'verbatim').length;
  console.log(
    `${DRIFT_TASK.padEnd(22)} ${String(labelled.length).padStart(3)} claims  ${String(v).padStart(3)} verbatim  ${String(labelled.length - v).padStart(3)} no_match`,
  );
}
