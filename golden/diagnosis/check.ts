// Independent re-check of the golden diagnosis set.
//
//   npx tsc -p tsconfig.json && node dist/golden/diagnosis/check.js
//
// Shares no code with golden/diagnosis/build.ts, lib/builder.ts or src/. It uses the same
// re-check helpers as golden/check.ts (lib/checker.ts): their own normalization (design §3),
// pdftotext for PDFs, a jsdom TreeWalker over the body's text nodes for HTML (skipping
// script/style/noscript/template, a space wherever a block element or <br> separates two
// text nodes), plus Readability's article view.
// Unlike golden/check.ts it does not simulate the route table: it starts the golden
// server (golden/server.ts, which serves golden/routes.json and golden/diagnosis/routes.json)
// on a free port and fetches every claim URL over HTTP, following redirects by hand.
//
// For every case it checks:
//   - the mechanical label is no_match: the normalized quote is in no view of the served
//     text, or nothing usable is served;
//   - what is served fits the expected code (fetch_failed: no 2xx response; empty: a 200
//     with no text; unsupported: a 200 that is not HTML, PDF or text; paywall: a short
//     HTML shell; the other codes: a 200 document with text);
//   - a signature of the code in the text: extraction_artifact matches once whitespace,
//     hyphens, soft hyphens and zero-width characters are ignored (or with one stretch of
//     inserted furniture); near_miss has a window of the text within 1-3 word edits;
//     partial has its pieces (ellipsis parts, or a >= 10-word prefix/suffix) in the text;
//     not_found shares no 4-word shingle with the text;
// and that claims.json agrees with cases.jsonl, ids are unique, routes stay under /diag/,
// and the counts per code meet the set's minimums. Exit 1 on any problem.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readability } from '@mozilla/readability';
import { bodyText, isPdf, norm, parseHtml, pdftotext } from '../lib/checker.js';
import { isMain } from '../lib/main.js';
import { readJsonl, type CaseRow, type ClaimRow } from '../lib/rows.js';
import { GOLDEN_PORT, goldenDir, startGoldenServer, type Route } from '../server.js';

const CODES: Record<string, [number, number]> = {
  extraction_artifact: [9, Infinity],
  near_miss: [9, Infinity],
  partial: [9, Infinity],
  not_found: [9, Infinity],
  paywall: [9, Infinity],
  empty: [9, Infinity],
  fetch_failed: [9, Infinity],
  unsupported: [2, 3],
};

const bare = (s: string): string => norm(s).replace(/[ \-\u00AD\u200B-\u200D\u2060\uFEFF]/g, '');
const words = (s: string): string[] => norm(s).match(/[\p{L}\p{N}]+/gu) ?? [];

interface Got {
  /** final HTTP status, or 0 when no response (connection refused, loop) */
  status: number;
  contentType: string;
  /** 'pdf' | 'html' | 'text' | 'opaque' | 'none' (no response) */
  kind: string;
  /** normalized views (pdftotext; or full + article for HTML) */
  views: string[];
  why: string;
}

/**
 * fetch, tried once more when the connection is reset under the request: the server closed a kept-alive
 * connection as the request went out on it (it happens on a loaded machine, between two slow pdftotext runs).
 */
async function fetchOnceMore(target: URL): Promise<Response> {
  const init: RequestInit = { redirect: 'manual', headers: { 'accept-encoding': 'identity' } };
  try {
    return await fetch(target, init);
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw err;
    return fetch(target, init);
  }
}

async function fetchAs(url: string, port: number): Promise<Got> {
  let u = new URL(url);
  const seen = new Set<string>();
  for (let hop = 0; hop <= 10; hop++) {
    const target = new URL(u);
    if (target.port === String(GOLDEN_PORT)) target.port = String(port);
    const key = target.href;
    if (seen.has(key)) return { status: 0, contentType: '', kind: 'none', views: [], why: 'redirect loop' };
    seen.add(key);
    let res: Response;
    try {
      res = await fetchOnceMore(target);
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      return {
        status: 0,
        contentType: '',
        kind: 'none',
        views: [],
        why: `no response (${cause?.code ?? (err as Error).message})`,
      };
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      await res.arrayBuffer();
      const loc = new URL(res.headers.get('location')!, u);
      if (loc.port === String(port)) loc.port = String(GOLDEN_PORT);
      u = loc;
      continue;
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    const contentType = res.headers.get('content-type') ?? '';
    if (isPdf(bytes)) {
      const tmp = path.join(os.tmpdir(), `diag-check-${process.pid}.pdf`);
      fs.writeFileSync(tmp, bytes);
      try {
        const text = pdftotext(tmp);
        return { status: res.status, contentType, kind: 'pdf', views: [norm(text)], why: 'pdf' };
      } catch {
        return { status: res.status, contentType, kind: 'pdf', views: [''], why: 'pdftotext failed' };
      } finally {
        fs.rmSync(tmp, { force: true });
      }
    }
    if (/^text\/html/i.test(contentType)) {
      const html = new TextDecoder('utf-8').decode(bytes);
      const views = [norm(bodyText(parseHtml(html)))];
      const article = new Readability(parseHtml(html)).parse();
      if (article?.textContent) views.push(norm(article.textContent));
      return { status: res.status, contentType, kind: 'html', views, why: 'html' };
    }
    if (/^text\//i.test(contentType))
      return { status: res.status, contentType, kind: 'text', views: [norm(bytes.toString('utf8'))], why: 'text' };
    return {
      status: res.status,
      contentType,
      kind: 'opaque',
      views: [],
      why: `content-type ${contentType || '(none)'}`,
    };
  }
  return { status: 0, contentType: '', kind: 'none', views: [], why: 'too many redirects' };
}

/** word-level optimal-string-alignment distance */
function osa(a: string[], b: string[]): number {
  const prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur.push(v);
    }
    prev2.splice(0, prev2.length, ...prev);
    prev = cur;
  }
  return prev[b.length]!;
}

/** Smallest word edit distance between the quote and any window of the text. */
function nearestWindow(q: string[], text: string[]): number {
  let best = Infinity;
  const first = new Set(q.slice(0, 4));
  for (let s = 0; s < text.length; s++) {
    // windows start near a word of the quote's beginning (cheap filter)
    if (!first.has(text[s]!)) continue;
    for (const len of [q.length - 1, q.length, q.length + 1]) {
      for (const off of [0, -1, -2, -3]) {
        const st = s + off;
        if (st < 0 || st + len > text.length) continue;
        best = Math.min(best, osa(q, text.slice(st, st + len)));
      }
    }
  }
  return best;
}

/** The quote's squashed form is in the text with at most one stretch of up to 700 inserted characters. */
function matchesWithOneInsertion(q: string, t: string): boolean {
  if (t.includes(q)) return true;
  for (let k = q.length - 8; k >= 8; k--) {
    const a = q.slice(0, k);
    const b = q.slice(k);
    for (let i = t.indexOf(a); i >= 0; i = t.indexOf(a, i + 1)) {
      const after = t.slice(i + k, i + k + 700 + b.length);
      if (after.includes(b)) return true;
    }
  }
  return false;
}

function signature(c: CaseRow, got: Got): string | null {
  const texts = got.views;
  switch (c.expected) {
    case 'extraction_artifact': {
      const bq = bare(c.quote);
      if (texts.some((t) => matchesWithOneInsertion(bq, bare(t)))) return null;
      return 'does not match even after ignoring whitespace/hyphens/soft hyphens/zero-width characters and one stretch of furniture';
    }
    case 'near_miss': {
      if (texts.some((t) => bare(t).includes(bare(c.quote))))
        return 'matches once whitespace/hyphens are ignored (an artifact, not a near miss)';
      const qw = words(c.quote);
      const d = Math.min(...texts.map((t) => nearestWindow(qw, words(t))));
      return d >= 1 && d <= 3 ? null : `nearest window is ${d} word edits away`;
    }
    case 'partial': {
      const parts = c.quote.split(/ \.\.\. | \[…\] | \[\.\.\.\] |… /);
      if (parts.length === 2) {
        return parts.every((p) => texts.some((t) => t.includes(norm(p))))
          ? null
          : 'an ellipsis part is not in the text';
      }
      const qw = c.quote.trim().split(/\s+/);
      for (const t of texts) {
        for (let k = qw.length - 8; k >= 10; k--) {
          if (t.includes(norm(qw.slice(0, k).join(' '))) || t.includes(norm(qw.slice(qw.length - k).join(' '))))
            return null;
        }
      }
      return 'no prefix or suffix of >= 10 words (leaving >= 8 words) is in the text';
    }
    case 'not_found': {
      const q = words(c.quote);
      for (const t of texts) {
        const src = ` ${words(t).join(' ')} `;
        for (let i = 0; i + 4 <= q.length; i++)
          if (src.includes(` ${q.slice(i, i + 4).join(' ')} `)) return `shares "${q.slice(i, i + 4).join(' ')}"`;
      }
      return null;
    }
    case 'paywall':
      if (got.kind !== 'html' || ![200, 401, 403].includes(got.status))
        return `a shell must be HTML served 200/401/403 (got ${got.status} ${got.kind})`;
      return (texts[0] ?? '').length < 2500 ? null : `the shell has ${texts[0]!.length} characters of text`;
    case 'empty':
      if (got.status !== 200) return `status ${got.status}`;
      return texts.every((t) => t.length <= 20)
        ? null
        : `text: ${JSON.stringify(texts.find((t) => t.length > 20)!.slice(0, 60))}`;
    case 'fetch_failed':
      return got.status >= 200 && got.status < 300 ? `served ${got.status}` : null;
    case 'unsupported':
      return got.status === 200 && got.kind === 'opaque' ? null : `served ${got.status} ${got.kind}`;
    default:
      return `unknown expected code ${c.expected}`;
  }
}

async function main(): Promise<number> {
  const dir = path.join(goldenDir(), 'diagnosis');
  const problems: string[] = [];
  const rows = readJsonl<CaseRow>(path.join(dir, 'cases.jsonl'));
  const claims = JSON.parse(fs.readFileSync(path.join(dir, 'claims.json'), 'utf8')) as ClaimRow[];
  const routes = JSON.parse(fs.readFileSync(path.join(dir, 'routes.json'), 'utf8')) as Route[];

  for (const r of routes) {
    if (!r.path.startsWith('/diag/')) problems.push(`route ${r.path}: not under /diag/`);
    if (r.file && !fs.existsSync(path.join(goldenDir(), r.file)))
      problems.push(`route ${r.path}: missing file ${r.file}`);
  }
  if (claims.length !== rows.length)
    problems.push(`claims.json has ${claims.length} claims, cases.jsonl ${rows.length}`);
  const ids = new Set<string>();
  rows.forEach((r, i) => {
    if (r.id !== `diag-${String(i + 1).padStart(3, '0')}`)
      problems.push(`${r.id}: ids must run diag-001, diag-002, ... (line ${i + 1})`);
    if (ids.has(r.id)) problems.push(`${r.id}: duplicate id`);
    ids.add(r.id);
    const c = claims[i];
    if (!c || c.id !== r.id || c.quote !== r.quote || c.url !== r.url || !c.claim)
      problems.push(`${r.id}: claims.json entry #${i} differs`);
    if (!r.rule.startsWith(`${r.expected}`)) problems.push(`${r.id}: rule does not start with its code`);
    const u = new URL(r.url);
    if (
      !/^127\.0\.0\.[123]$/.test(u.hostname) ||
      !(u.port === String(GOLDEN_PORT) || u.port === '9') ||
      !u.pathname.startsWith('/diag/')
    )
      problems.push(`${r.id}: URL must be http://127.0.0.{1,2,3}:${GOLDEN_PORT}/diag/... (or port 9)`);
  });

  const srv = await startGoldenServer({ port: 0 });
  const counts = new Map<string, number>();
  try {
    const cache = new Map<string, Got>();
    for (const r of rows) {
      counts.set(r.expected, (counts.get(r.expected) ?? 0) + 1);
      let got = cache.get(r.url);
      if (!got) {
        got = await fetchAs(r.url, srv.port);
        cache.set(r.url, got);
      }
      // the mechanical label
      const served = got.status >= 200 && got.status < 300;
      const verbatim = served && got.views.some((t) => t.includes(norm(r.quote)));
      if (verbatim)
        problems.push(`${r.id}: the quote IS in the served text (${got.why}): mechanically verbatim, not no_match`);
      // content codes need a served document with text
      if (
        ['extraction_artifact', 'near_miss', 'partial', 'not_found'].includes(r.expected) &&
        (!served || !got.views.some((t) => t.length > 0))
      ) {
        problems.push(`${r.id}: ${r.expected} needs a served document with text (got ${got.status} ${got.why})`);
        continue;
      }
      const sig = signature(r, got);
      if (sig) problems.push(`${r.id} (${r.expected}): ${sig}`);
    }
  } finally {
    await srv.close();
  }

  for (const [code, [min, max]] of Object.entries(CODES)) {
    const n = counts.get(code) ?? 0;
    if (n < min || n > max) problems.push(`${code}: ${n} cases (want ${min}${max === Infinity ? '+' : `-${max}`})`);
  }
  for (const code of counts.keys()) if (!(code in CODES)) problems.push(`unknown code ${code}`);
  if (rows.length < 70) problems.push(`${rows.length} cases (want at least 70)`);

  for (const p of problems) console.log(`PROBLEM ${p}`);
  console.log([...counts].map(([k, n]) => `${k} ${n}`).join(', '));
  console.log(
    `${rows.length} cases: ${problems.length === 0 ? "all mechanically no_match or unserved, and every code's signature holds" : `${problems.length} problem(s)`}`,
  );
  return problems.length === 0 ? 0 : 1;
}

if (isMain(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: Error) => {
      console.error(err.stack ?? err.message);
      process.exitCode = 1;
    },
  );
}
