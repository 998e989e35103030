// The figures behind building the light DOM from htmlparser2's tokens rather than from parse5 (docs/development.md#why-the-light-dom-is-built-from-htmlparser2s-tokens):
// on every real page shipped here (golden/sources/html, golden/diagnosis/sources, test/fixtures/corpus), the time to
// build the tree, and to build it and read its text, per MB of HTML, and the memory the trees hold and the process
// peaks at, for (a) the light DOM (htmlparser2's tokenizer, quotecheck's tree builder, JSDOMParser's nodes), and
// (b) parse5's own tokenizer, tree builder and default tree (what jsdom builds its DOM from, without jsdom's nodes).
// Each parser runs in a child process of its own, so that one's heap does not weigh on the other's figures.
// Build first (npm run build, or npx tsc -p .), then:
//   node dist/bench/parser-choice.js [--rounds N] [DIR ...]
// DIR: more folders of pages (.html or .html.gz) to add to the shipped ones.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { parse as parse5 } from 'parse5';
import { decodeHtml } from '../src/extract/decode.js';
import { buildDocument } from '../src/extract/lightdom/index.js';
import { BLOCKS, SKIPPED } from '../src/extract/render.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SHIPPED = [
  join(ROOT, 'golden', 'sources', 'html'),
  join(ROOT, 'golden', 'diagnosis', 'sources'),
  join(ROOT, 'test', 'fixtures', 'corpus'),
];

type Subject = 'lightdom' | 'parse5' | 'none';
const SUBJECTS: readonly Subject[] = ['lightdom', 'parse5'];

/** What a child process reports for one parser. */
interface Figures {
  subject: Subject;
  pages: number;
  /** Megabytes of HTML (the decoded pages in UTF-8). */
  mb: number;
  /** Fastest round, in CPU time: building every page's tree, and building it and reading its text (ms). */
  treeMs: number;
  textMs: number;
  /** Heap held by every page's tree at once, after collection (MB). */
  retainedMb: number;
  /** The process's peak resident set (MB). */
  peakRssMb: number;
}

function pagePaths(dirs: readonly string[]): string[] {
  return dirs
    .filter((d) => existsSync(d))
    .flatMap((d) =>
      readdirSync(d)
        .filter((f) => /\.html?(\.gz)?$/.test(f))
        .sort()
        .map((f) => join(d, f)),
    );
}

/** A page as the pipeline hands it to the parser: the bytes decoded as a browser decodes them. */
function pageText(path: string): string {
  const bytes = readFileSync(path);
  return decodeHtml(path.endsWith('.gz') ? gunzipSync(bytes) : bytes).text;
}

// The same text walk over both trees: the text outside unrendered elements, a newline at block boundaries.
interface TextWalk<N> {
  children(node: N): readonly N[];
  /** The element's local name, or undefined for a non-element. */
  name(node: N): string | undefined;
  /** A text node's data, or undefined. */
  text(node: N): string | undefined;
}

function visibleText<N>(root: N, walk: TextWalk<N>): string {
  const out: string[] = [];
  const visit = (node: N): void => {
    for (const child of walk.children(node)) {
      const name = walk.name(child);
      if (name === undefined) {
        const t = walk.text(child);
        if (t !== undefined) out.push(t);
      } else if (!SKIPPED.has(name)) {
        const block = BLOCKS.has(name) || name === 'br';
        if (block) out.push('\n');
        visit(child);
        if (block) out.push('\n');
      }
    }
  };
  visit(root);
  return out.join('');
}

type LightNode = { nodeType: number; localName?: string; childNodes: LightNode[]; textContent: string };
const LIGHT_WALK: TextWalk<LightNode> = {
  children: (n) => n.childNodes,
  name: (n) => (n.nodeType === 1 ? n.localName : undefined),
  text: (n) => (n.nodeType === 3 ? n.textContent : undefined),
};

type Parse5Node = {
  nodeName: string;
  tagName?: string;
  childNodes?: Parse5Node[];
  value?: string;
  content?: Parse5Node;
};
const PARSE5_WALK: TextWalk<Parse5Node> = {
  children: (n) => n.childNodes ?? [],
  name: (n) => n.tagName,
  text: (n) => (n.nodeName === '#text' ? n.value : undefined),
};

/** One parser: the tree, and the tree with its text. parse5 as jsdom's DOMParser runs it: scripting off, so <noscript> holds markup. */
const BUILD: Record<Exclude<Subject, 'none'>, { tree(html: string): unknown; text(html: string): string }> = {
  lightdom: {
    tree: (html) => buildDocument(html).doc,
    text: (html) => visibleText(buildDocument(html).doc as unknown as LightNode, LIGHT_WALK),
  },
  parse5: {
    tree: (html) => parse5(html, { scriptingEnabled: false }),
    text: (html) => visibleText(parse5(html, { scriptingEnabled: false }) as unknown as Parse5Node, PARSE5_WALK),
  },
};

const gc = (globalThis as { gc?: () => void }).gc;
function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/**
 * The fastest of `rounds` runs of each of `fns` over every page, in CPU time (ms: the process's user and system time,
 * which a busy machine changes far less than the wall clock's), after one run to warm up; the runs alternate, so that a busy moment of the
 * machine weighs on each alike.
 */
function fastest(pages: readonly string[], rounds: number, fns: readonly ((html: string) => unknown)[]): number[] {
  const best = fns.map(() => Infinity);
  for (let r = 0; r <= rounds; r++) {
    fns.forEach((fn, k) => {
      const start = process.cpuUsage();
      for (const html of pages) fn(html);
      const used = process.cpuUsage(start);
      const ms = (used.user + used.system) / 1000;
      if (r > 0 && ms < best[k]!) best[k] = ms;
    });
  }
  return best;
}

function child(subject: Subject, rounds: number, dirs: readonly string[]): Figures {
  const pages = pagePaths(dirs).map(pageText);
  const mb = pages.reduce((n, p) => n + Buffer.byteLength(p), 0) / 2 ** 20;
  const figures: Figures = { subject, pages: pages.length, mb, treeMs: 0, textMs: 0, retainedMb: 0, peakRssMb: 0 };
  if (subject !== 'none') {
    const build = BUILD[subject];
    [figures.treeMs, figures.textMs] = fastest(pages, rounds, [build.tree, build.text]) as [number, number];
    const before = heapUsed();
    const held = pages.map(build.tree);
    figures.retainedMb = (heapUsed() - before) / 2 ** 20;
    if (held.length !== pages.length) throw new Error('unreachable');
  }
  figures.peakRssMb = process.resourceUsage().maxRSS / 1024;
  return figures;
}

function run(subject: Subject, rounds: number, dirs: readonly string[]): Figures {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', fileURLToPath(import.meta.url), '--child', subject, '--rounds', String(rounds), ...dirs],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(out) as Figures;
}

function main(argv: string[]): void {
  let rounds = 5;
  let childSubject: Subject | undefined;
  const extra: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--rounds') rounds = Number(argv[++i]);
    else if (a === '--child') childSubject = argv[++i] as Subject;
    else extra.push(resolve(a));
  }
  if (childSubject) {
    // A child is given every folder by its parent.
    process.stdout.write(JSON.stringify(child(childSubject, rounds, extra)));
    return;
  }
  const dirs = [...SHIPPED, ...extra];
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds takes a whole number from 1');
  const base = run('none', rounds, dirs);
  const rows = SUBJECTS.map((s) => run(s, rounds, dirs));
  const [light, p5] = rows as [Figures, Figures];
  const f1 = (n: number) => n.toFixed(1);
  console.log(
    `${base.pages} pages, ${f1(base.mb)} MB of HTML (decoded, in UTF-8), CPU time, fastest of ${rounds} rounds; Node ${process.version}`,
  );
  console.log('');
  console.log(
    'parser     tree ms/MB  tree+text ms/MB  trees held MB/MB of HTML  peak RSS MB (+ over loading the pages)',
  );
  for (const r of rows) {
    const name = r.subject === 'lightdom' ? 'light DOM' : 'parse5';
    console.log(
      `${name.padEnd(10)} ${f1(r.treeMs / r.mb).padStart(10)}  ${f1(r.textMs / r.mb).padStart(15)}  ${(r.retainedMb / r.mb).toFixed(2).padStart(24)}  ${f1(r.peakRssMb).padStart(11)} (+${f1(r.peakRssMb - base.peakRssMb)})`,
    );
  }
  console.log('');
  console.log(
    `parse5 / light DOM: tree time ${(p5.treeMs / light.treeMs).toFixed(2)}x, tree+text time ${(p5.textMs / light.textMs).toFixed(2)}x, trees held ${(p5.retainedMb / light.retainedMb).toFixed(2)}x, peak RSS over loading ${((p5.peakRssMb - base.peakRssMb) / (light.peakRssMb - base.peakRssMb)).toFixed(2)}x`,
  );
}

main(process.argv.slice(2));
