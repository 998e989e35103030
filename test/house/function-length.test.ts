// No function of src/ runs over 80 lines (from its first line to its closing brace; its doc comment not counted), and
// no line over 120 characters but a generated file's own lines (the text of a template literal that spans lines).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const MAX_LINES = 80;
const MAX_COLUMNS = 120;

/** Functions allowed to be longer, each with why: none today (the grader's JSON scanner was split with the golden tasks). */
const ALLOWED: Readonly<Record<string, string>> = {};

/** Every function, method, constructor, accessor and arrow function of `text` longer than `max` lines, as "file name: N lines". */
function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const nameOf = (node: ts.Node): string => {
    const named = (node as { name?: ts.Node }).name;
    if (named) return named.getText(source);
    const parent = node.parent;
    if (
      parent &&
      (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    )
      return parent.name.getText(source);
    return '(anonymous)';
  };
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      if (lines > max) found.push(`${file} ${nameOf(node)}: ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The lines of `text` longer than `max` characters, as "file:line", but those inside a template literal that spans
 * lines: a shell script, an HTML page, a task.toml written by the code, whose line breaks are the file's own.
 */
function longLines(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const generated = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (ts.isTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      for (let line = first; line <= last && last > first; line++) generated.add(line);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return text
    .split('\n')
    .flatMap((line, i) =>
      line.length > max && !generated.has(i) ? [`${file}:${i + 1}: ${line.length} characters`] : [],
    );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(?:ts|mts|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)).split('\\').join('/'));
}

describe('function and line length in src/', () => {
  test(`no function runs over ${MAX_LINES} lines (but those ALLOWED, with their reason)`, () => {
    const long = sourceFiles('src').flatMap((f) => longFunctions(f, readFileSync(join(ROOT, f), 'utf8'), MAX_LINES));
    expect(long.filter((l) => ALLOWED[l.replace(/: \d+ lines$/, '')] === undefined)).toEqual([]);
  });

  test(`no line runs over ${MAX_COLUMNS} characters (but a generated file's own lines)`, () => {
    const long = sourceFiles('src').flatMap((f) => longLines(f, readFileSync(join(ROOT, f), 'utf8'), MAX_COLUMNS));
    expect(long).toEqual([]);
  });

  test('the line check names the file and line, and lets the lines of a multi-line template be', () => {
    const text = `const a = 1; // ${'x'.repeat(20)}\nconst page = \`<p>\n${'y'.repeat(40)}\n</p>\`;\nconst b = \`${'z'.repeat(40)}\`;\n`;
    expect(longLines('src/x.ts', text, 30)).toEqual(['src/x.ts:1: 36 characters', 'src/x.ts:5: 53 characters']);
  });

  test('the check names the file, the function and its length', () => {
    const body = Array.from({ length: 3 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    const text = `export function short() {\n  return 1;\n}\nfunction long() {\n${body}\n}\nconst arrow = () => {\n${body}\n};\n`;
    expect(longFunctions('src/x.ts', text, 4)).toEqual(['src/x.ts long: 5 lines', 'src/x.ts arrow: 5 lines']);
  });
});
