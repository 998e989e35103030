// Module layers of src/: extraction reads pages, diagnosis only classifies, and the leaf modules import nothing.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** Modules every layer may import, so they import nothing themselves. */
const LEAVES = ['src/settings.ts', 'src/shell-limits.ts'];

/** Directories that must not import each other: extract/ reads pages (markup, text), diagnose/ classifies what the source record holds. */
const APART: readonly (readonly [string, string])[] = [
  ['src/diagnose/', 'src/extract/'],
  ['src/extract/', 'src/diagnose/'],
];

interface Import {
  /** The importing file, relative to the repository (posix separators). */
  file: string;
  /** The specifier as written. */
  specifier: string;
  /** The imported file, relative to the repository, when the specifier is relative. */
  target?: string;
  line: number;
}

/** Every import of a file: static imports and re-exports (types included), side-effect and dynamic imports, as TypeScript reads them. */
function importsOf(file: string, text: string): Import[] {
  const info = ts.preProcessFile(text, true, true);
  const lineOf = (pos: number) => text.slice(0, pos).split('\n').length;
  return info.importedFiles.map(({ fileName, pos }) => {
    const target = fileName.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), fileName)).replace(/\.js$/, '.ts') : undefined;
    return { file, specifier: fileName, target, line: lineOf(pos) };
  });
}

/** What breaks the layers, one line per offending import. */
function layerViolations(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    for (const imp of importsOf(file, text)) {
      const at = `${imp.file}:${imp.line} imports '${imp.specifier}'`;
      if (LEAVES.includes(file)) found.push(`${at}: ${file} is a leaf and must import nothing`);
      for (const [from, to] of APART) {
        if (file.startsWith(from) && imp.target?.startsWith(to)) found.push(`${at}: ${from} must not import from ${to}`);
      }
    }
  }
  return found;
}

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)).split('\\').join('/'));
}

describe('module layers of src/', () => {
  test('diagnose/ and extract/ do not import each other; the leaf modules import nothing', () => {
    const files = new Map(tsFiles('src').map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
    for (const leaf of LEAVES) expect(files.has(leaf), `${leaf} exists`).toBe(true);
    expect(layerViolations(files)).toEqual([]);
  });

  test('the check names the offending file and import', () => {
    const files = new Map([
      ['src/diagnose/x.ts', "// x\nimport type { A } from '../source.js';\nimport {\n  decodeHtml,\n} from '../extract/decode.js';\n"],
      ['src/extract/y.ts', "export { detectShell } from '../diagnose/shells.js';\nconst later = () => import('../diagnose/index.js');\n"],
      ['src/settings.ts', "import type { Label } from './answers.js';\n"],
      ['src/match.ts', "import type { ViewName } from './extract/index.js';\n"],
    ]);
    expect(layerViolations(files)).toEqual([
      "src/diagnose/x.ts:5 imports '../extract/decode.js': src/diagnose/ must not import from src/extract/",
      "src/extract/y.ts:1 imports '../diagnose/shells.js': src/extract/ must not import from src/diagnose/",
      "src/extract/y.ts:2 imports '../diagnose/index.js': src/extract/ must not import from src/diagnose/",
      "src/settings.ts:1 imports './answers.js': src/settings.ts is a leaf and must import nothing",
    ]);
  });
});
