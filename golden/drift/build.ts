// Deterministic generator of the golden `drift` task: claims labelled on a verify date, sources that changed since.
//
//   npx tsc -p tsconfig.json && node dist/golden/drift/build.js     (golden/build.js runs it too)
//
// Each source has a labelled version (what the labeller fetched on the claim's verify date: its sha256 is
// the claim's evidence), a live version (what the golden server serves today: edited, gone, moved, or the
// same) and Wayback captures (served by the golden Wayback stand-in, golden/wayback.ts). Labels are made
// on the LABELLED version with the span rules of golden/build.ts (design §3), never by running quotecheck;
// the builder also states, and asserts, whether today's text still has the quote. Writes
//   golden/drift/sources/*          the edited versions (made from real pages by the edits below)
//   golden/drift/routes.json        the live routes; golden/server.ts serves them next to routes.json
//   golden/drift/wayback.json       the captures; golden/server.ts serves them on GOLDEN_WAYBACK_URL
//   golden/drift/labelled.jsonl     every claim with verify_date, evidence, label and rule
//   golden/tasks/drift/...          the Harbor task (its solve.sh points quotecheck at the stand-in)
// golden/check.ts re-verifies the labels independently: it labels each claim on the document whose
// sha256 is the claim's evidence, wherever that document is kept.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { copyMissingSources, fail, findElement, findPdfSpan, H1, HTML_UTF8, htmlText, normalize, PDF, pdftotext, U, wordRe, writeFile } from '../lib/builder.js';
import type { Labelled } from '../lib/builder.js';
import { SOURCES, type SrcKey } from '../sources.js';
import { isMain } from '../lib/main.js';
import { GOLDEN_WAYBACK_URL, goldenDir, type Route } from '../server.js';
import type { Capture } from '../wayback.js';
import type { TaskVariant } from '../../src/harbor/templates.js';
import { writeTaskFolder } from '../lib/tasks.js';

export const DRIFT_TASK = 'drift';

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
        if (count !== 1) fail(name, `edit anchor occurs ${count} times in ${from.file}: ${JSON.stringify(anchor.slice(0, 60))}`);
        html = 'replace' in e ? html.replace(anchor, () => e.with) : html.replace(anchor, () => e.text + anchor);
      }
      return Buffer.from(html, 'utf8');
    },
  };
}

/** A page written whole (a "moved" notice). */
function written(name: string, pub: string, html: string): Doc {
  return { file: `drift/sources/${name}`, pub, make: () => Buffer.from(html, 'utf8') };
}

const bbc = real('bbc');
const reuters = real('reuters');
const physorg = real('physorg');
const sciencealert = real('sciencealert');
const scotus = real('scotus');
const politifact = real('politifact');

const BBC_SENTENCE = 'The 48-year-old Australian was evicted in April and sentenced to 50 weeks in jail for breaching his bail conditions.';
const PHYSORG_SENTENCE = 'The study found the spacecraft mass could be reduced by a third by removing the crew quarters with a similar reduction in consumables';
const TITAN_SENTENCE = 'Rainfall occurs everywhere on Titan, but the equatorial regions are drier than the poles';

const DOCS = {
  bbcCorrected: edited(bbc, 'bbc-assange-corrected.html', [{ replace: BBC_SENTENCE, with: 'The Australian, now 48, was evicted in April and jailed for 50 weeks for breaching bail.' }]),
  physorgTrimmed: edited(physorg, 'physorg-hibernation-trimmed.html', [{ replace: `${PHYSORG_SENTENCE}, equivalent to several tons of saved mass. `, with: '' }]),
  titanRewritten: edited(sciencealert, 'sciencealert-titan-rewritten.html', [{ replace: TITAN_SENTENCE, with: 'Rain falls all over Titan, though its equator is drier than its poles' }]),
  titanCached: edited(sciencealert, 'sciencealert-titan-cached.html', [{ insertBefore: '</head>', text: '<!-- page cache: generated 2024-01-20T06:12:44Z, edge node 7 -->\n' }]),
  politifactRendered: edited(politifact, 'politifact-tariffs-rendered.html', [{ insertBefore: '</head>', text: '<!-- rendered 2026-11-30T08:00:00Z by edge-7; request id 5f1c9a2e -->\n' }]),
  transcriptsMoved: written('transcripts-moved.html', 'Supreme Court (moved notice)', '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Transcripts have moved</title></head>\n<body><main><h1>Transcripts have moved</h1><p>Argument transcripts from the 2008 term are now in our new archive. Please search the archive by docket number.</p></main></body></html>\n'),
};

// ---------------------------------------------------------------------------
// Sources: what the labeller saw, what is served today, what the archive holds.

type Live = { doc: Doc; headers: Record<string, string> } | { status: number } | { movedTo: string; doc: Doc };

interface DriftSource {
  /** The claim URL's path on 127.0.0.1. */
  path: string;
  verifyDate: string;
  /** The version the labeller fetched on the verify date. */
  labelled: Doc;
  /** Whether the claims carry the labelled version's sha256 as evidence. */
  evidence: boolean;
  live: Live;
  /** Wayback captures of the claim URL: a document (status 200), or a non-200 capture that clients must skip. */
  captures: { timestamp: string; doc?: Doc; status?: number; location?: string }[];
  /** What happened to the source since the verify date, for the rules. */
  story: string;
  contentType: Record<string, string>;
}

const S = {
  bbc: {
    path: '/drift/news/assange-sweden.html', verifyDate: '2024-03-10', labelled: bbc, evidence: true, contentType: HTML_UTF8,
    live: { doc: DOCS.bbcCorrected, headers: HTML_UTF8 },
    captures: [
      { timestamp: '20240309120000', doc: bbc },
      { timestamp: '20240309230000', status: 302, location: '/drift/news/assange-sweden.html?amp=1' },
      { timestamp: '20240315080000', doc: DOCS.bbcCorrected },
    ],
    story: 'a correction rewrote one sentence; captures on 2024-03-09 (the labelled bytes), a 302 capture late that day, and one after the correction',
  },
  reuters: {
    path: '/drift/markets/oil-prices.html', verifyDate: '2023-11-20', labelled: reuters, evidence: true, contentType: HTML_UTF8,
    live: { status: 410 },
    captures: [
      { timestamp: '20231118094500', doc: reuters },
      { timestamp: '20240102000000', status: 404 },
    ],
    story: 'the page was removed (410 Gone); one capture before the verify date, and a 404 capture after the removal',
  },
  physorg: {
    path: '/drift/science/hibernation.html', verifyDate: '2024-02-25', labelled: physorg, evidence: true, contentType: HTML_UTF8,
    live: { doc: DOCS.physorgTrimmed, headers: HTML_UTF8 },
    captures: [
      { timestamp: '20240201101010', doc: physorg },
      { timestamp: '20240220171717', doc: DOCS.physorgTrimmed },
    ],
    story: 'a sentence was cut; the latest capture before the verify date (2024-02-20) is the cut version, an earlier one (2024-02-01) has the labelled bytes',
  },
  sciencealert: {
    path: '/drift/space/titan-map.html', verifyDate: '2024-01-15', labelled: sciencealert, evidence: true, contentType: HTML_UTF8,
    live: { doc: DOCS.titanRewritten, headers: HTML_UTF8 },
    captures: [{ timestamp: '20240120061244', doc: DOCS.titanCached }],
    story: 'a sentence was rewritten; the only capture is from after the verify date (2024-01-20), a cached copy whose bytes differ from the labelled ones but whose text does not',
  },
  scotus: {
    path: '/drift/records/scotus-07-1315-transcript.pdf', verifyDate: '2023-06-01', labelled: scotus, evidence: true, contentType: PDF,
    live: { movedTo: '/drift/records/moved.html', doc: DOCS.transcriptsMoved },
    captures: [{ timestamp: '20230530120000', doc: scotus }],
    story: 'the PDF now redirects (301) to a "transcripts have moved" page; one capture of the PDF before the verify date',
  },
  politifact: {
    path: '/drift/factcheck/tariffs.html', verifyDate: '2024-04-05', labelled: politifact, evidence: true, contentType: HTML_UTF8,
    live: { doc: DOCS.politifactRendered, headers: HTML_UTF8 },
    captures: [{ timestamp: '20240405070000', doc: politifact }],
    story: 'the page\'s bytes change on every load (a render comment), its text does not; a capture on the verify date has the labelled bytes',
  },
  smithsonian: {
    path: '/drift/science/plague.html', verifyDate: '2024-05-01', labelled: real('smithsonian'), evidence: true, contentType: HTML_UTF8,
    live: { doc: real('smithsonian'), headers: HTML_UTF8 },
    captures: [],
    story: 'unchanged: today\'s bytes hash to the evidence',
  },
  aljazeera: {
    path: '/drift/science/moon-landers.html', verifyDate: '2024-05-02', labelled: real('aljazeera'), evidence: false, contentType: HTML_UTF8,
    live: { doc: real('aljazeera'), headers: HTML_UTF8 },
    captures: [],
    story: 'unchanged; the claim carries no evidence hash',
  },
} satisfies Record<string, DriftSource>;

type SourceKey = keyof typeof S;

// ---------------------------------------------------------------------------
// Claims

type QuoteSpec = { span: string } | { span: string; swap: [string, string] } | { fabricated: string };

interface ClaimSpec {
  id: string;
  src: SourceKey;
  claim: string;
  q: QuoteSpec;
}

const CLAIMS: ClaimSpec[] = [
  { id: 'drift-01', src: 'bbc', claim: 'The BBC reported that Assange was sentenced to 50 weeks for breaching bail.', q: { span: BBC_SENTENCE } },
  { id: 'drift-02', src: 'bbc', claim: 'The BBC reported that Sweden dropped its rape investigation into Julian Assange.', q: { span: 'Prosecutors in Sweden have dropped an investigation into a rape allegation made against Wikileaks co-founder Julian Assange in 2010.' } },
  { id: 'drift-03', src: 'bbc', claim: 'The BBC reported that Assange planned to appeal from Quito.', q: { fabricated: 'Assange told supporters by video link that he would appeal the ruling from a hotel in Quito next winter.' } },
  { id: 'drift-04', src: 'reuters', claim: 'Reuters linked the fall in oil prices to Russia’s stance on output cuts.', q: { span: 'Oil fell after sources told Reuters that Russia is unlikely to agree to cut its oil output further at a meeting with fellow exporters next month.' } },
  { id: 'drift-05', src: 'reuters', claim: 'Reuters cited persistent uncertainty over the US-China trade war.', q: { span: 'Traders cited the lingering uncertainty over whether the United States and China could agree to end a near 1-1/2 year trade war', swap: ['lingering', 'persistent'] } },
  { id: 'drift-06', src: 'physorg', claim: 'Phys.org reported that hibernation could cut spacecraft mass by a third.', q: { span: PHYSORG_SENTENCE } },
  { id: 'drift-07', src: 'physorg', claim: 'Phys.org quoted the CDF team on adjusting the spacecraft architecture.', q: { span: 'We worked on adjusting the architecture of the spacecraft, its logistics, protection against radiation' } },
  { id: 'drift-08', src: 'sciencealert', claim: 'ScienceAlert reported that Titan’s equator is drier than its poles.', q: { span: TITAN_SENTENCE } },
  { id: 'drift-09', src: 'scotus', claim: 'The transcript lists counsel for both parties.', q: { span: 'Angeles, Cal.; on behalf of the Petitioner. CHARLES M. SEVILLA, ESQ., San Diego, Cal.; on behalf of the Respondent.' } },
  { id: 'drift-10', src: 'politifact', claim: 'PolitiFact wrote that most economists see consumers as the main victims of tariffs.', q: { span: 'Most mainstream economists, however, argue that consumers are the primary victims of tariffs.' } },
  { id: 'drift-11', src: 'politifact', claim: 'PolitiFact said tariffs were refunded to shoppers.', q: { fabricated: 'Every shopper received a tariff refund check in the mail before the holidays, the agency confirmed.' } },
  { id: 'drift-12', src: 'smithsonian', claim: 'Smithsonian described pneumonic plague as highly contagious.', q: { span: 'It is highly contagious, spreading from person to person via infected respiratory droplets.' } },
  { id: 'drift-13', src: 'smithsonian', claim: 'Smithsonian reported nationwide fear after three plague cases in China.', q: { span: 'Three cases of plague have been diagnosed in China, sparking widespread fears about the spread of the disease', swap: ['widespread', 'nationwide'] } },
  { id: 'drift-14', src: 'aljazeera', claim: 'Al Jazeera wrote that NASA sees evidence of the ingredients for life on Europa.', q: { span: 'NASA believes this discovery is further evidence that the essential ingredients for life - chemical elements, sources of energy and liquid water - are on Europa.' } },
];

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
      if (t.texts.some((x) => x.includes(shingle))) fail(c.id, `fabricated quote shares "${shingle}" with the labelled text`);
    }
    absent(c.id, t, q.fabricated);
    return { quote: q.fabricated, label: 'no_match', how: `a fabricated sentence: none of its 5-word shingles is in the labelled text` };
  }
  const where = locate(c.id, t, q.span);
  if ('swap' in q) {
    const [from, to] = q.swap;
    const re = wordRe(from);
    if (!re.test(q.span)) fail(c.id, `"${from}" is not a word of the span`);
    const quote = q.span.replace(re, (_m, pre: string) => pre + to);
    if (t.texts.some((x) => x.includes(normalize(to))) || normalize(t.raw).includes(normalize(to))) fail(c.id, `"${to}" occurs in the labelled version`);
    absent(c.id, t, quote);
    return { quote, label: 'no_match', how: `a span of ${where} with "${from}" replaced by "${to}", which the labelled version never has` };
  }
  return { quote: q.span, label: 'verbatim', how: `a span of ${where}` };
}

/** The normalized texts served today at the claim URL, or null when it serves no document. */
function liveTexts(s: DriftSource): string[] | null {
  return 'doc' in s.live ? textOf(s.live.doc).texts : null;
}

function derive(c: ClaimSpec): Labelled {
  const s: DriftSource = S[c.src];
  const t = textOf(s.labelled);
  const { quote, label, how } = labelOn(c, t);
  const evidence = sha256(bytesOf(s.labelled));
  const today = liveTexts(s);
  const inToday = today !== null && today.some((x) => x.includes(normalize(quote)));
  if (!s.evidence && bytesOf(s.labelled).compare(bytesOf('doc' in s.live ? s.live.doc : s.labelled)) !== 0) {
    fail(c.id, 'a claim without evidence must cite a source that has not changed: nothing could tell its labelled text from today\'s');
  }
  if (label === 'verbatim' && !inToday && !s.evidence) fail(c.id, 'a verbatim quote that today\'s text lacks needs evidence');
  const todaySays = today === null ? 'today the URL serves no document' : inToday ? 'today\'s text still has the quote' : 'today\'s text does not have the quote';
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
  if ('status' in s.live) return [{ host: H1, path: s.path, status: s.live.status, headers: HTML_UTF8, body: `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Gone</title></head><body><h1>This page is no longer available</h1></body></html>\n` }];
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
  return s.captures.map((c) => (c.doc
    ? { url, timestamp: c.timestamp, status: 200, file: c.doc.file, headers: s.contentType }
    : { url, timestamp: c.timestamp, status: c.status ?? 404, headers: HTML_UTF8, ...(c.location ? { location: c.location } : { body: '<html><body>Not Found</body></html>' }) }));
}

export const DRIFT_ABOUT =
  'Sources that changed after the claims were labelled: a corrected sentence, a removed page (410), a cut sentence whose latest capture ' +
  'before the date is already the cut version, a rewritten sentence captured only after the date, a PDF that now redirects to a ' +
  '"moved" page, a page whose bytes change on every load, and two unchanged pages. The Wayback Machine stand-in at ' +
  `${GOLDEN_WAYBACK_URL} holds the captures.`;

export interface DriftBuildOptions {
  /** Where the task folder goes, in which variant (default golden/tasks, plain). Outside golden/tasks, only the task
   *  folder is written: the edited documents, routes, captures and labels stay in golden/drift as committed. */
  outputs?: { tasksDir: string; variant?: TaskVariant }[];
}

/** Writes the drift task's documents, routes, captures, labels and task folder; returns the labelled claims. */
export function buildDrift(opts: DriftBuildOptions = {}): Labelled[] {
  copyMissingSources(['bbc', 'reuters', 'physorg', 'sciencealert', 'scotus', 'politifact', 'smithsonian', 'aljazeera'].map((k) => SOURCES[k as SrcKey].file));
  const dir = goldenDir();
  const outputs = opts.outputs ?? [{ tasksDir: path.join(dir, 'tasks') }];
  const inGolden = outputs.some((o) => path.resolve(o.tasksDir) === path.resolve(dir, 'tasks'));
  if (inGolden) for (const d of Object.values(DOCS)) writeFile(path.join(dir, d.file), d.make!());
  const labelled = CLAIMS.map(derive);
  const sources = Object.values(S) as DriftSource[];
  if (inGolden) {
    writeFile(path.join(dir, 'drift', 'routes.json'), JSON.stringify(sources.flatMap(routesFor), null, 2) + '\n');
    writeFile(path.join(dir, 'drift', 'wayback.json'), JSON.stringify(sources.flatMap(capturesFor), null, 2) + '\n');
    writeFile(path.join(dir, 'drift', 'labelled.jsonl'), labelled.map((l) => JSON.stringify(l)).join('\n') + '\n');
  }

  for (const { tasksDir, variant: given = {} } of outputs) {
    // The MCP server of the drift task asks the Wayback stand-in, as its solve.sh does.
    const variant: TaskVariant = given.mcp ? { ...given, mcpArgs: [...(given.mcpArgs ?? []), '--wayback-url', GOLDEN_WAYBACK_URL] } : given;
    // The archive here is a loopback stand-in that does not firewall anyone: no need for the real one's pace.
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
  console.log(`${DRIFT_TASK.padEnd(22)} ${String(labelled.length).padStart(3)} claims  ${String(v).padStart(3)} verbatim  ${String(labelled.length - v).padStart(3)} no_match`);
}
