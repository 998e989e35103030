// The documentation holds together: README.md is short, and every relative link and #anchor in README.md and docs/*.md resolves.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { anchors, docFiles, readDoc } from './support/docs.js';
import { ROOT } from './support/helpers.js';

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

  test.each(docFiles())('%s: every relative link names a file that exists, and every #anchor a heading of it', (file) => {
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
      if (!target_anchors.has(anchor)) problems.push(`${where}: no heading of ${relative(ROOT, resolved)} has the anchor #${anchor}`);
    }
    expect(problems).toEqual([]);
  });

  test("a link found and checked: the link reader sees the README's links to docs/", () => {
    const found = links(readDoc('README.md')).map((l) => l.target);
    expect(found).toContain('docs/cli.md#quotecheck-run');
    expect(found.length).toBeGreaterThan(10);
  });
});
