// Measures what sizes the DOM caps (src/extract/html.ts, DOM_LIMITS) on long real pages (a 20,000-paragraph web-fiction
// chapter, a 60,000-paragraph one-page novel, long government reports) and on the hostile shapes (100,000 siblings,
// 400-deep nesting, deep chains, dense markup): the light DOM's build time, Readability's time, the heap per element,
// and the smallest heap a page needs (a child process per heap size). Build first (npm run build), then:
//   node --expose-gc --max-old-space-size=512 dist/bench/long-pages.js [page ...] [--heap-probe] [--save]
// With --save (all pages, --heap-probe), the rows go into bench/results.json as `long_pages`, the figures DOM_LIMITS's
// comment (src/extract/html.ts) is sized from.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { articleView, parseHtml } from '../src/extract/html.js';
import { buildDocument, type LightDocument } from '../src/extract/lightdom/index.js';
import { normalize } from '../src/normalize.js';
import { RESULTS_FILE, mergeKey, writeResults } from './results-file.js';
import { median } from './stats.js';
import { deepPage, LONG_PLANTED, longChapterPage, longReportPage, widePage } from './pages.js';

const NO_LIMITS = { maxElements: Infinity, maxDepth: Infinity, maxChildren: Infinity, maxDepthSum: Infinity };
const PARA = 'Some words of a paragraph, with a clause or two, long enough to be content for Readability.';

const PAGES: Record<string, () => string> = {
  'chapter-20k-p': () => longChapterPage(20_000, 'p'),
  'chapter-20k-br': () => longChapterPage(20_000, 'br'),
  'chapter-60k-p': () => longChapterPage(60_000, 'p'),
  'report-24': () => longReportPage(24),
  'report-48': () => longReportPage(48),
  'wide-100k': () => widePage(100_000).toString(),
  'deep-400': () => deepPage(400).toString(),
  'chains-50x400': () =>
    `<html><body>${Array.from({ length: 50 }, () => `${'<div>'.repeat(400)}${PARA}${'</div>'.repeat(400)}`).join('')}</body></html>`,
  'wrapped-10k-x20': () =>
    `<html><body>${Array.from({ length: 10_000 }, () => `${'<div class="w">'.repeat(20)}<p>${PARA}</p>${'</div>'.repeat(20)}`).join('')}</body></html>`,
  'dense-300k': () => `<html><body><div>${'<span>a</span> '.repeat(300_000)}</div></body></html>`,
};

interface Counts {
  elements: number;
  depth: number;
  children: number;
  /** Ancestor-descendant pairs of elements: the sum of their depths. */
  pairs: number;
}

function counts(doc: LightDocument): Counts {
  type N = { childNodes: N[]; nodeType: number };
  const c: Counts = { elements: 0, depth: 0, children: 0, pairs: 0 };
  const stack: [N, number][] = [[doc as unknown as N, 0]];
  while (stack.length > 0) {
    const [node, d] = stack.pop()!;
    if (node.nodeType === 1) {
      c.elements++;
      c.pairs += d - 1;
    }
    if (d > c.depth) c.depth = d;
    if (node.childNodes.length > c.children) c.children = node.childNodes.length;
    for (const child of node.childNodes) stack.push([child, d + 1]);
  }
  return c;
}

const gc = (globalThis as { gc?: () => void }).gc;
function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

const round = (x: number, digits = 0) => Math.round(x * 10 ** digits) / 10 ** digits;

function measure(name: string, html: string, runs: number) {
  const mb = html.length / 1024 / 1024;
  // The tree's heap: one build kept alive, measured with garbage collected before and after.
  const before = heapUsed();
  let kept: LightDocument | undefined = buildDocument(html, NO_LIMITS).doc!;
  const treeBytes = heapUsed() - before;
  const c = counts(kept);
  kept = undefined; // (one tree at a time from here)
  void kept;
  const builds: number[] = [];
  const reads: number[] = [];
  let planted: boolean | undefined;
  for (let run = 0; run < runs; run++) {
    const t0 = performance.now();
    const doc = buildDocument(html, NO_LIMITS).doc!;
    const t1 = performance.now();
    const { article } = articleView(doc);
    reads.push(performance.now() - t1);
    builds.push(t1 - t0);
    if (html.includes(LONG_PLANTED)) planted = normalize(article ?? '').includes(normalize(LONG_PLANTED));
  }
  const buildMs = median(builds);
  const readabilityMs = median(reads);
  const capped = parseHtml(html);
  return {
    page: name,
    mb: round(mb, 2),
    ...c,
    buildMs: round(buildMs),
    buildMbPerS: round(mb / (buildMs / 1000), 1),
    readabilityMs: round(readabilityMs),
    readabilityMsPerMb: round(readabilityMs / mb),
    treeHeapMb: gc ? round(treeBytes / 1024 / 1024, 1) : null,
    treeBytesPerElement: gc ? Math.round(treeBytes / c.elements) : null,
    ...(planted === undefined ? {} : { quoteInArticle: planted }),
    withDomLimits: capped.doc ? 'tree' : capped.note,
  };
}

/** The smallest old-space heap (of those tried) in which the page's parse and article complete, each in a fresh process. */
function heapProbe(name: string): number | null {
  for (const mb of [128, 192, 256, 320, 384, 448, 512]) {
    try {
      execFileSync(process.execPath, [`--max-old-space-size=${mb}`, fileURLToPath(import.meta.url), '--one', name], {
        stdio: 'ignore',
        timeout: 300_000,
      });
      return mb;
    } catch {
      // out of heap (or too slow): try the next size
    }
  }
  return null;
}

const args = process.argv.slice(2);
if (args[0] === '--one') {
  // A child of heapProbe: parse and run Readability once, without limits.
  const doc = buildDocument(PAGES[args[1]!]!(), NO_LIMITS).doc!;
  articleView(doc);
} else {
  const probe = args.includes('--heap-probe');
  const save = args.includes('--save');
  const wanted = args.filter((a) => !a.startsWith('--'));
  if (save && (wanted.length > 0 || !probe || !gc))
    throw new Error('--save records every page with --heap-probe, under node --expose-gc');
  const rows: object[] = [];
  for (const [name, make] of Object.entries(PAGES)) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
    const measured = measure(name, make(), name === 'report-48' || name === 'dense-300k' ? 1 : 3);
    const row = probe ? { ...measured, minHeapMb: heapProbe(name) } : measured;
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  console.log(`peak RSS ${round(process.resourceUsage().maxRSS / 1024)} MB`);
  if (save) {
    // The results file of npm run bench, this phase's key replaced: the rest stays as the last bench left it.
    writeResults(
      mergeKey('long_pages', {
        node: process.version,
        runs: 'median of 3 (1 for report-48 and dense-300k)',
        pages: rows,
      }),
    );
    console.log(`wrote long_pages into ${RESULTS_FILE}`);
  }
}
