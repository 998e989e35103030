// The documentation as tests read it: README.md and every docs/*.md, their headings (with GitHub's anchors),
// a section found by its heading in whichever file it lives, and the shell blocks' lines.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

/** README.md and every docs/*.md, relative to the repository root, README first. */
export function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export function readDoc(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

export interface Heading {
  line: number; // 1-based
  level: number;
  text: string;
}

/** A file's headings, outside fenced code blocks. */
export function headings(text: string): Heading[] {
  const out: Heading[] = [];
  let fence = false;
  text.split('\n').forEach((l, i) => {
    if (/^\s*(```|~~~)/.test(l)) fence = !fence;
    else if (!fence) {
      const m = /^(#{1,6}) +(.*?)\s*#*\s*$/.exec(l);
      if (m) out.push({ line: i + 1, level: m[1]!.length, text: m[2]! });
    }
  });
  return out;
}

/** GitHub's anchor for a heading: lowercase, markup and punctuation dropped (word characters, '-' and spaces kept), spaces to '-'. */
export function slug(heading: string): string {
  return heading
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file's headings make; a repeated heading gets -1, -2, ... as on GitHub. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(text)) {
    const s = slug(h.text);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n === 0 ? s : `${s}-${n}`);
  }
  return out;
}

/**
 * The section under the heading whose text is `title` (as written, backticks included), in whichever of
 * README.md and docs/*.md has it: from the heading to the next heading of the same or a higher level.
 * Exactly one file may have it.
 */
export function docSection(title: string): { file: string; text: string } {
  const found: { file: string; text: string }[] = [];
  for (const file of docFiles()) {
    const text = readDoc(file);
    const hs = headings(text);
    const lines = text.split('\n');
    for (const [i, h] of hs.entries()) {
      if (h.text !== title) continue;
      const next = hs.slice(i + 1).find((n) => n.level <= h.level);
      found.push({ file, text: lines.slice(h.line - 1, next ? next.line - 1 : lines.length).join('\n') });
    }
  }
  if (found.length !== 1)
    throw new Error(
      `the heading "${title}" is in ${found.length} places of README.md and docs/ (${found.map((f) => f.file).join(', ')}), not one`,
    );
  return found[0]!;
}

/** Every line of README.md and docs/*.md, with its file and line number (for finding a table row wherever it lives). */
export function docLines(): { file: string; line: number; text: string }[] {
  return docFiles().flatMap((file) =>
    readDoc(file)
      .split('\n')
      .map((text, i) => ({ file, line: i + 1, text })),
  );
}

/** The lines of every ```sh block (also ```bash, ```shell), with the line number of each; a line ending in `\` is joined to the next. */
export function shellLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inSh = false;
  let inOther = false;
  let pending: { line: number; text: string } | undefined;
  text.split('\n').forEach((l, i) => {
    const fence = /^\s*```\s*([\w-]*)/.exec(l);
    if (fence && !inSh && !inOther) {
      if (['sh', 'bash', 'shell', 'console'].includes(fence[1]!)) inSh = true;
      else inOther = true;
      return;
    }
    if (fence && /^\s*```\s*$/.test(l)) {
      inSh = inOther = false;
      pending = undefined;
      return;
    }
    if (!inSh) return;
    const joined = pending ? { line: pending.line, text: `${pending.text} ${l.trim()}` } : { line: i + 1, text: l };
    if (/\\\s*$/.test(joined.text)) pending = { line: joined.line, text: joined.text.replace(/\\\s*$/, '') };
    else {
      pending = undefined;
      out.push(joined);
    }
  });
  return out;
}
