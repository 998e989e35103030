// Independent self-check of the golden labels.
//
//   npx tsc -p tsconfig.json && node dist/golden/check.js
//
// Re-derives every label in golden/labelled.jsonl with the simplest implementation of
// design §3/§4, written from scratch here and in lib/checker.ts (shared only with
// golden/diagnosis/check.ts; no code from build.ts, lib/builder.ts or src/):
//   - follow golden/routes.json as a client would (redirects, cookie gate and retries
//     succeed; a final status >= 400 or no route means the source failed -> no_match);
//   - PDFs (by %PDF- magic): `pdftotext -enc UTF-8 FILE -`; failure or no text -> nothing;
//   - HTML: decode (BOM, HTTP charset, <meta> in the first 1024 bytes, UTF-8, else
//     windows-1252 per the Encoding Standard), parse with jsdom's DOMParser and walk the
//     body's text nodes with a TreeWalker, skipping script/style/noscript/template and
//     putting a space wherever a block element or <br> separates two text nodes;
//   - verbatim iff normalize(quote) is a substring of normalize(text).
// The drift task (golden/drift/labelled.jsonl) is labelled as of each claim's verify date: a claim
// with `evidence.sha256` is re-labelled on the document with that sha256, found among every file
// the golden folder keeps (sources, edited versions, captures), whatever today's URL serves.
// It also checks that the task folders agree with the labelled files. Prints every
// disagreement and exits 1 if there is one.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bodyText, isPdf, norm, parseHtml, pdftotext } from './lib/checker.js';
import { isMain } from './lib/main.js';
import { readJsonl, type Label, type LabelledRow } from './lib/rows.js';
import { goldenDir, type Route } from './server.js';

type Row = LabelledRow;

// windows-1252 bytes 0x80..0x9F (Encoding Standard index); other bytes map to U+00xx.
const CP1252_HIGH: Record<number, number> = {
  0x80: 0x20ac,
  0x82: 0x201a,
  0x83: 0x0192,
  0x84: 0x201e,
  0x85: 0x2026,
  0x86: 0x2020,
  0x87: 0x2021,
  0x88: 0x02c6,
  0x89: 0x2030,
  0x8a: 0x0160,
  0x8b: 0x2039,
  0x8c: 0x0152,
  0x8e: 0x017d,
  0x91: 0x2018,
  0x92: 0x2019,
  0x93: 0x201c,
  0x94: 0x201d,
  0x95: 0x2022,
  0x96: 0x2013,
  0x97: 0x2014,
  0x98: 0x02dc,
  0x99: 0x2122,
  0x9a: 0x0161,
  0x9b: 0x203a,
  0x9c: 0x0153,
  0x9e: 0x017e,
  0x9f: 0x0178,
};
const LATIN1_LABELS = new Set([
  'windows-1252',
  'cp1252',
  'x-cp1252',
  'iso-8859-1',
  'iso8859-1',
  'latin1',
  'l1',
  'ascii',
  'us-ascii',
  'iso_8859-1',
  'cp819',
  'ibm819',
  'iso-ir-100',
  'csisolatin1',
  'iso_8859-1:1987',
  'iso88591',
]);

function decode(bytes: Buffer, label: string): string {
  if (LATIN1_LABELS.has(label)) {
    const chars: string[] = [];
    for (const b of bytes) chars.push(String.fromCharCode(CP1252_HIGH[b] ?? b));
    return chars.join('');
  }
  return new TextDecoder(label).decode(bytes);
}

function decodeHtml(bytes: Buffer, contentType: string): string {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return decode(bytes.subarray(3), 'utf-8');
  const fromHeader = contentType.match(/;\s*charset\s*=\s*"?([^";\s]+)/i);
  if (fromHeader?.[1]) return decode(bytes, fromHeader[1].toLowerCase());
  const head = bytes.subarray(0, 1024).toString('latin1');
  const fromMeta = head.match(/<meta\b[^>]*?charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)/i);
  if (fromMeta?.[1]) return decode(bytes, fromMeta[1].toLowerCase());
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return decode(bytes, 'windows-1252');
  }
}

interface Fetched {
  text: string | null; // null: the source failed
  why: string;
}

function fetchSource(url: string, routes: Route[], dir: string): Fetched {
  let u = new URL(url);
  for (let hops = 0; hops <= 10; hops++) {
    const p = u.pathname + u.search;
    const route =
      routes.find((r) => r.path === p && r.host === u.hostname) ??
      routes.find((r) => r.path === p && r.host === undefined);
    if (!route || u.port !== '41733') return { text: null, why: 'no route (404)' };
    if (route.redirect) {
      u = new URL(route.redirect.location.replace('{port}', '41733'), u);
      continue;
    }
    if (route.hang) return { text: null, why: 'never answers' };
    if ((route.status ?? 200) >= 400) return { text: null, why: `status ${route.status}` };
    const bytes = route.file
      ? fs.readFileSync(path.join(dir, route.file))
      : Buffer.from(String(route.body ?? ''), 'utf8');
    const contentType = route.headers?.['content-type'] ?? '';
    if (isPdf(bytes)) {
      const tmp = route.file ? path.join(dir, route.file) : '';
      try {
        return { text: pdftotext(tmp), why: 'pdf' };
      } catch {
        return { text: '', why: 'pdftotext failed' };
      }
    }
    return { text: bodyText(parseHtml(decodeHtml(bytes, contentType))), why: 'html' };
  }
  return { text: null, why: 'redirect loop' };
}

/** Every file under `dir`, by the sha256 of its bytes. */
function filesByHash(dir: string, into = new Map<string, string>()): Map<string, string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) filesByHash(full, into);
    else into.set(createHash('sha256').update(fs.readFileSync(full)).digest('hex'), full);
  }
  return into;
}

/** The text of the document the evidence names, read as a fresh client would read it. */
function documentText(file: string): Fetched {
  const bytes = fs.readFileSync(file);
  if (isPdf(bytes)) {
    try {
      return { text: pdftotext(file), why: `pdf ${path.basename(file)} (by its sha256)` };
    } catch {
      return { text: '', why: 'pdftotext failed' };
    }
  }
  return { text: bodyText(parseHtml(decodeHtml(bytes, ''))), why: `html ${path.basename(file)} (by its sha256)` };
}

const readRows = (file: string): Row[] => (fs.existsSync(file) ? readJsonl<Row>(file) : []);

/** The task folders agree with the labelled rows (files, modes, claims without labels, gold.json); returns the tasks seen. */
function checkTaskFolders(rows: Row[], tasksDir: string, problems: string[]): Set<string> {
  const taskNames = fs.readdirSync(tasksDir).filter((d) => fs.statSync(path.join(tasksDir, d)).isDirectory());
  const seenTasks = new Set(rows.map((r) => r.task));
  for (const t of taskNames) if (!seenTasks.has(t)) problems.push(`tasks/${t}: not in labelled.jsonl`);
  for (const t of seenTasks) {
    const tdir = path.join(tasksDir, t);
    const mine = rows.filter((r) => r.task === t);
    for (const f of [
      'instruction.md',
      'task.toml',
      'environment/Dockerfile',
      'environment/claims.json',
      'solution/solve.sh',
      'tests/test.sh',
      'tests/gold.json',
    ]) {
      if (!fs.existsSync(path.join(tdir, f))) problems.push(`tasks/${t}/${f}: missing`);
    }
    for (const f of ['solution/solve.sh', 'tests/test.sh']) {
      const file = path.join(tdir, f);
      if (fs.existsSync(file) && (fs.statSync(file).mode & 0o111) === 0)
        problems.push(`tasks/${t}/${f}: not executable`);
    }
    try {
      const claims = JSON.parse(fs.readFileSync(path.join(tdir, 'environment/claims.json'), 'utf8')) as Record<
        string,
        unknown
      >[];
      const gold = JSON.parse(fs.readFileSync(path.join(tdir, 'tests/gold.json'), 'utf8')) as Record<string, string>;
      if (claims.length !== mine.length)
        problems.push(`tasks/${t}: ${claims.length} claims, labelled.jsonl has ${mine.length}`);
      claims.forEach((c, i) => {
        const m = mine[i];
        if (!m || c.id !== m.id || c.quote !== m.quote || c.url !== m.url || c.claim !== m.claim)
          problems.push(`tasks/${t}: claim #${i} (${String(c.id)}) differs from labelled.jsonl`);
        if (m && (c.verify_date !== m.verify_date || JSON.stringify(c.evidence) !== JSON.stringify(m.evidence)))
          problems.push(
            `tasks/${t}: claim #${i} (${String(c.id)}) verify_date or evidence differs from the labelled file`,
          );
        if ('label' in c) problems.push(`tasks/${t}: claim ${String(c.id)} carries a label`);
      });
      if (JSON.stringify(Object.keys(gold)) !== JSON.stringify(mine.map((m) => m.id)))
        problems.push(`tasks/${t}: gold.json ids or order differ`);
      for (const m of mine)
        if (gold[m.id] !== m.label) problems.push(`tasks/${t}: gold.json ${m.id}=${gold[m.id]}, labelled ${m.label}`);
    } catch (err) {
      problems.push(`tasks/${t}: ${(err as Error).message}`);
    }
  }
  return seenTasks;
}

function main(): number {
  const dir = goldenDir();
  const routes = JSON.parse(fs.readFileSync(path.join(dir, 'routes.json'), 'utf8')) as Route[];
  const driftRoutes = path.join(dir, 'drift', 'routes.json');
  if (fs.existsSync(driftRoutes)) routes.push(...(JSON.parse(fs.readFileSync(driftRoutes, 'utf8')) as Route[]));
  const rows = [...readRows(path.join(dir, 'labelled.jsonl')), ...readRows(path.join(dir, 'drift', 'labelled.jsonl'))];
  const byHash = rows.some((r) => r.evidence)
    ? filesByHash(path.join(dir, 'sources'), filesByHash(path.join(dir, 'drift', 'sources')))
    : new Map<string, string>();
  const problems: string[] = [];

  for (const r of routes)
    if (r.file && !fs.existsSync(path.join(dir, r.file)))
      problems.push(`route ${r.host ?? '*'} ${r.path}: missing file ${r.file}`);

  const cache = new Map<string, Fetched>();
  const ids = new Set<string>();
  let verbatim = 0;
  for (const row of rows) {
    if (ids.has(row.id)) problems.push(`${row.id}: duplicate id`);
    ids.add(row.id);
    const evidence = row.evidence?.sha256;
    const key = evidence ? `sha256:${evidence}` : row.url.replace(/#.*$/, '');
    let got = cache.get(key);
    if (!got) {
      if (evidence) {
        const file = byHash.get(evidence);
        got = file ? documentText(file) : { text: null, why: 'no document golden/ keeps has the evidence sha256' };
        if (!file)
          problems.push(
            `${row.id}: evidence sha256 ${evidence} names no document in golden/sources or golden/drift/sources`,
          );
      } else {
        got = fetchSource(row.url, routes, dir);
      }
      cache.set(key, got);
    }
    const expected: Label = got.text !== null && norm(got.text).includes(norm(row.quote)) ? 'verbatim' : 'no_match';
    if (expected === 'verbatim') verbatim++;
    if (expected !== row.label) {
      problems.push(`${row.id}: labelled ${row.label}, check says ${expected} (${got.why}); rule: ${row.rule}`);
    }
    if (!/^(verbatim|no_match): /.test(row.rule) || !row.rule.startsWith(row.label))
      problems.push(`${row.id}: rule does not start with its label`);
  }

  // the task folders must agree with labelled.jsonl
  const seenTasks = checkTaskFolders(rows, path.join(dir, 'tasks'), problems);

  for (const p of problems) console.log(`DISAGREE ${p}`);
  console.log(
    `${rows.length} claims in ${seenTasks.size} tasks: ${verbatim} verbatim, ${rows.length - verbatim} no_match; ` +
      `${problems.length === 0 ? 'all labels re-verified' : `${problems.length} problem(s)`}`,
  );
  return problems.length === 0 ? 0 : 1;
}

if (isMain(import.meta.url)) process.exitCode = main();
