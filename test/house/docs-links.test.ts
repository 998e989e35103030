// The documentation holds together: README.md is short, and every relative link and #anchor in README.md and docs/*.md resolves;
// every docs/<file>.md#<anchor> the code cites resolves too, and the rules live in docs/, not in a file beside the repository.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { anchors, docFiles, readDoc } from '../support/docs.js';
import { ROOT } from '../support/helpers.js';

/** Markdown links and images outside code (fenced blocks and inline code spans dropped first), with their line numbers. */
function links(text: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  let fence = false;
  const lines = text.split('\n');
  // Inline code spans never hold links; a link's text may run over a line break, so lines are joined per paragraph.
  let para: { line: number; text: string }[] = [];
  const flush = () => {
    const joined = para.map((p) => p.text).join('\n');
    const starts = para.map((p) => p.line);
    const clean = joined.replace(/`[^`]*`/g, (m) => m.replace(/[^\n]/g, ' '));
    for (const m of clean.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const lineInPara = clean.slice(0, m.index).split('\n').length - 1;
      out.push({ line: starts[lineInPara]!, target: m[1]! });
    }
    para = [];
  };
  lines.forEach((l, i) => {
    if (/^\s*(```|~~~)/.test(l)) {
      flush();
      fence = !fence;
      return;
    }
    if (fence) return;
    if (l.trim() === '') flush();
    else para.push({ line: i + 1, text: l });
  });
  flush();
  return out;
}

describe('README.md and docs/', () => {
  test('README.md is under 250 lines, with the rest in docs/', () => {
    const lines = readDoc('README.md').replace(/\n$/, '').split('\n').length;
    expect(lines, 'README.md lines').toBeLessThan(250);
    expect(docFiles().length).toBeGreaterThan(5);
  });

  test('the quick start keeps its two commands', () => {
    const readme = readDoc('README.md');
    expect(readme).toMatch(/^npm ci && npm run demo\b/m);
    expect(readme).toMatch(/^npm test\b/m);
  });

  test('every page of docs/ is linked from README.md', () => {
    const readme = readDoc('README.md');
    for (const file of docFiles().slice(1)) expect(readme, file).toContain(`](${file})`);
  });

  test.each(docFiles())(
    '%s: every relative link names a file that exists, and every #anchor a heading of it',
    (file) => {
      const problems: string[] = [];
      const base = dirname(join(ROOT, file));
      for (const { line, target } of links(readDoc(file))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
        const [path, anchor] = target.split('#', 2) as [string, string | undefined];
        const resolved = path === '' ? join(ROOT, file) : normalize(join(base, decodeURIComponent(path)));
        const where = `${file}:${line}: ${target}`;
        // A link out of the repository works on one machine only: a clone has nothing there.
        if (relative(ROOT, resolved).startsWith('..')) {
          problems.push(`${where}: points outside the repository`);
          continue;
        }
        if (!existsSync(resolved)) {
          problems.push(`${where}: ${relative(ROOT, resolved) || resolved} does not exist`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) {
          problems.push(`${where}: an anchor into a file that is not Markdown`);
          continue;
        }
        const target_anchors = anchors(readDoc(relative(ROOT, resolved)));
        if (!target_anchors.has(anchor))
          problems.push(`${where}: no heading of ${relative(ROOT, resolved)} has the anchor #${anchor}`);
      }
      expect(problems).toEqual([]);
    },
  );

  test("a link found and checked: the link reader sees the README's links to docs/", () => {
    const found = links(readDoc('README.md')).map((l) => l.target);
    expect(found).toContain('docs/cli.md#quotecheck-run');
    expect(found.length).toBeGreaterThan(10);
  });
});

/** Where the code cites the docs: src/, bench/, golden/ (but the generated tasks and the sources it serves), scripts/, test/ (but its fixtures). */
const CODE_ROOTS = ['src', 'bench', 'golden', 'scripts', 'test'];
const NOT_CODE = new Set(['golden/tasks', 'golden/sources', 'test/fixtures']);

/** Every file under `dir` (relative to the repository root), skipping the folders in `skip`. */
function filesUnder(dir: string, skip: ReadonlySet<string> = new Set()): string[] {
  if (skip.has(dir)) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return filesUnder(rel, skip);
    return e.isFile() ? [rel] : [];
  });
}

/** The code files whose comments cite the docs. */
function codeFiles(): string[] {
  return CODE_ROOTS.flatMap((d) => filesUnder(d, NOT_CODE)).filter((f) => /\.(ts|mts|mjs|js)$/.test(f));
}

/** Every `docs/<file>.md` and `docs/<file>.md#<anchor>` a text names, with its line number. */
function docCitations(text: string): { line: number; file: string; anchor: string | undefined }[] {
  const out: { line: number; file: string; anchor: string | undefined }[] = [];
  text.split('\n').forEach((l, i) => {
    for (const m of l.matchAll(/\bdocs\/([\w.-]+?\.md)(?:#([\p{L}\p{N}_-]+))?/gu))
      out.push({ line: i + 1, file: `docs/${m[1]}`, anchor: m[2] });
  });
  return out;
}

/** What is wrong with a text's citations of the docs: a file that is not there, an anchor no heading of it makes. */
function citationProblems(where: string, text: string): string[] {
  return docCitations(text).flatMap(({ line, file, anchor }) => {
    const at = `${where}:${line}: ${file}${anchor === undefined ? '' : `#${anchor}`}`;
    if (!existsSync(join(ROOT, file))) return [`${at}: ${file} does not exist`];
    if (anchor !== undefined && !anchors(readDoc(file)).has(anchor))
      return [`${at}: no heading of ${file} has the anchor #${anchor}`];
    return [];
  });
}

describe('the rules the code cites are in docs/', () => {
  test('every docs/<file>.md#<anchor> in the code names a file of docs/ and a heading of it', () => {
    const problems = codeFiles().flatMap((f) => citationProblems(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(problems).toEqual([]);
  });

  test('the citations are found: most rules are cited, by anchor', () => {
    const cited = codeFiles().flatMap((f) =>
      docCitations(readFileSync(join(ROOT, f), 'utf8')).filter((c) => c.anchor !== undefined),
    );
    expect(cited.length).toBeGreaterThan(90);
    const anchorsCited = new Set(cited.map((c) => `${c.file}#${c.anchor}`));
    for (const rule of [
      'docs/how-it-decides.md#claims-input',
      'docs/how-it-decides.md#answers',
      'docs/how-it-decides.md#the-evidence-report',
      'docs/how-it-decides.md#normalization-and-the-label',
      'docs/how-it-decides.md#decoding',
      'docs/how-it-decides.md#extraction',
      'docs/how-it-decides.md#diagnosis-why-no_match',
      'docs/security.md#what-each-side-gets',
      'docs/sources-change.md#which-text-decides',
      'docs/real-web.md#the-network-rule-global-addresses-only',
      'docs/agent-tools.md#mcp-server',
    ])
      expect(anchorsCited, rule).toContain(rule);
  });

  test('a misspelt anchor or file is caught', () => {
    // Spelt in pieces, so that this file's own text cites nothing wrong.
    const [file, good, bad] = [['docs', 'how-it-decides.md'].join('/'), 'decoding', 'decodng'];
    expect(citationProblems('x.ts', `// (${file}#${good})`)).toEqual([]);
    expect(citationProblems('x.ts', `// (${file}#${bad}): the rule`)).toEqual([
      `x.ts:1: ${file}#${bad}: no heading of ${file} has the anchor #${bad}`,
    ]);
    expect(citationProblems('x.ts', `/** ${['docs', 'how-it-decide.md'].join('/')}#${good} */`)).toHaveLength(1);
  });

  test('no file of src/ or docs/ cites the design file beside the repository', () => {
    const old = [['..', 'shared', ''].join('/'), ['design', 'md'].join('.')];
    const problems = [...filesUnder('src'), ...docFiles().filter((f) => f.startsWith('docs/'))].flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((l, i) => (old.some((o) => l.includes(o)) ? [`${f}:${i + 1}: ${l.trim().slice(0, 120)}`] : [])),
    );
    expect(problems).toEqual([]);
  });
});
