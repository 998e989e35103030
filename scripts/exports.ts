// Who imports each export of src/: the product (src/, golden/, bench/, scripts/), the tests, or nobody; run by
// test/exports.test.ts and by hand (`node dist/scripts/exports.js [--json]`) to find dead and test-only code.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { packageRoot } from '../src/package-root.js';

const ROOT = packageRoot(import.meta.dirname) ?? process.cwd();

/**
 * The package's public entry points (package.json `exports`): everything they export, or re-export, is there for the
 * package's users, whoever else imports it.
 */
export const PUBLIC_ENTRIES = ['src/index.ts', 'src/stages.ts', 'src/contract.ts', 'src/harbor.ts'];

/** Where code that imports src/ lives, split by who it is: the product and its tools, or the tests. */
const PRODUCT_ROOTS = ['src', 'golden', 'bench', 'scripts'];
const TEST_ROOTS = ['test'];

/** One exported name of a src/ file and who uses it. */
export interface ExportUse {
  /** "src/x.ts name" */
  id: string;
  file: string;
  name: string;
  /** Files of the product (src/, golden/, bench/, scripts/) that import it. */
  product: string[];
  /** Test files that import it. */
  tests: string[];
  /** Used in its own file besides its declaration. */
  local: boolean;
  /** Exported by a public entry point (package.json exports). */
  public: boolean;
  /** A type (interface, type alias, JSDoc typedef), no run-time value. */
  typeOnly: boolean;
  /** A function or a class: with the types, a name that must mean one thing in src/. */
  callable: boolean;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(?:ts|mts|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !/\/(?:fixtures|tasks|sources|node_modules|out)\//.test(relative(ROOT, f)));
}

const rel = (file: string): string => relative(ROOT, file).split('\\').join('/');

/** The declaration a symbol stands for, through import and export aliases. */
function original(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** Every (symbol, importer) pair: named imports, namespace members used, re-exports, `await import()` destructured. */
function importedSymbols(
  checker: ts.TypeChecker,
  source: ts.SourceFile,
  record: (s: ts.Symbol) => void,
  reExportsCount: boolean,
): void {
  const visit = (node: ts.Node): void => {
    // A re-export passes a name on: whoever imports it from here is counted at its declaration (aliases resolve
    // through), so it counts as a use only in a public entry point, whose users are outside.
    const passedOn = ts.isExportSpecifier(node) && node.parent.parent.moduleSpecifier !== undefined;
    if (passedOn && !reExportsCount) {
      // nothing: see above
    } else if (ts.isImportSpecifier(node) || ts.isExportSpecifier(node) || ts.isImportClause(node)) {
      const symbol = node.name ? checker.getSymbolAtLocation(node.name) : undefined;
      if (symbol) record(original(checker, symbol));
    } else if (ts.isPropertyAccessExpression(node) || ts.isQualifiedName(node)) {
      // ns.name where ns is `import * as ns`, or a module's member through `typeof import()`.
      const symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(node) ? node.name : node.right);
      if (symbol) record(original(checker, symbol));
    } else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
      // const { name } = await import('./x.js'): the property's symbol is the module's export.
      const declaration = node.parent.parent;
      if (ts.isVariableDeclaration(declaration) && declaration.initializer) {
        const type = checker.getTypeAtLocation(declaration.initializer);
        const key = (node.propertyName ?? node.name).getText(source);
        const symbol = type.getProperty(key);
        if (symbol) record(original(checker, symbol));
      }
    } else if (ts.isExportDeclaration(node) && !node.exportClause && node.moduleSpecifier && reExportsCount) {
      // export * from './x.js': every export of x.
      const module = checker.getSymbolAtLocation(node.moduleSpecifier);
      if (module) for (const s of checker.getExportsOfModule(module)) record(original(checker, s));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** Whether `symbol` is referred to in `source` anywhere but its own declarations' names. */
function usedLocally(checker: ts.TypeChecker, source: ts.SourceFile, symbol: ts.Symbol): boolean {
  const names = new Set((symbol.declarations ?? []).map((d) => (d as ts.NamedDeclaration).name).filter(Boolean));
  let used = false;
  const visit = (node: ts.Node): void => {
    if (used) return;
    if (ts.isIdentifier(node) && !names.has(node) && node.text === symbol.name) {
      const s = checker.getSymbolAtLocation(node);
      if (s && (s === symbol || original(checker, s) === symbol)) used = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return used;
}

/** Every export of every src/ file, with who imports it. */
export function exportUses(): ExportUse[] {
  const roots = [...PRODUCT_ROOTS, ...TEST_ROOTS];
  const files = roots.flatMap(filesUnder);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  );
  const program = ts.createProgram(files, { ...config?.options, noEmit: true });
  const checker = program.getTypeChecker();
  const importers = new Map<ts.Symbol, Set<string>>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) continue;
    const me = rel(file);
    const record = (s: ts.Symbol): void => {
      const declared = s.declarations?.[0]?.getSourceFile();
      if (!declared || rel(declared.fileName) === me) return;
      const set = importers.get(s) ?? new Set<string>();
      importers.set(s, set.add(me));
    };
    importedSymbols(checker, source, record, PUBLIC_ENTRIES.includes(me));
  }
  const uses: ExportUse[] = [];
  for (const file of files.filter((f) => rel(f).startsWith('src/'))) {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!source || !module) continue;
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = original(checker, exported);
      // A re-export (export { x } from './y.js') is y's export, counted there.
      if (rel(symbol.declarations?.[0]?.getSourceFile().fileName ?? '') !== rel(file)) continue;
      // A JavaScript module's JSDoc @typedef is exported whether or not anyone wants it: there is no other kind.
      if (file.endsWith('.mjs') && (symbol.flags & ts.SymbolFlags.Value) === 0) continue;
      const by = [...(importers.get(symbol) ?? [])].sort();
      uses.push({
        id: `${rel(file)} ${exported.name}`,
        file: rel(file),
        name: exported.name,
        product: by.filter((f) => PRODUCT_ROOTS.some((r) => f.startsWith(`${r}/`))),
        tests: by.filter((f) => TEST_ROOTS.some((r) => f.startsWith(`${r}/`))),
        local: usedLocally(checker, source, symbol),
        public: by.some((f) => PUBLIC_ENTRIES.includes(f)) || PUBLIC_ENTRIES.includes(rel(file)),
        typeOnly: (symbol.flags & ts.SymbolFlags.Value) === 0,
        callable: (symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class)) !== 0,
      });
    }
  }
  return uses;
}

/**
 * The exports to act on. `unused`: imported by nobody and used nowhere (dead code), or a value (a function, a constant)
 * used only in its own file (it needs no export). `testOnly`: reached only by tests: code the product never runs. A
 * type used in its own file and imported by nobody is not listed: it names the shape of an exported function's input or
 * result, which a reader of the module (or a .d.ts) needs named.
 */
export function exportFindings(uses: ExportUse[]): { unused: ExportUse[]; testOnly: ExportUse[] } {
  const outside = (u: ExportUse): boolean => u.public || u.product.length > 0;
  return {
    unused: uses.filter((u) => !outside(u) && u.tests.length === 0 && (!u.local || !u.typeOnly)),
    testOnly: uses.filter((u) => !outside(u) && u.tests.length > 0 && !u.local),
  };
}

/**
 * Type, function and class names that more than one file of src/ exports, each with the files: one name per thing, so
 * that a reader who meets a name knows which it is. Constants may share a name (the shipped grader's LABELS is the
 * contract's, kept apart because the grader ships alone).
 */
export function sharedNames(uses: ExportUse[]): Record<string, string[]> {
  const files = new Map<string, string[]>();
  for (const u of uses) if (u.typeOnly || u.callable) files.set(u.name, [...(files.get(u.name) ?? []), u.file]);
  return Object.fromEntries([...files].filter(([, f]) => f.length > 1));
}

/** Exports no other file names (not imported, not public): types that only name a shape, and the dead. */
export function namedNowhereElse(uses: ExportUse[]): ExportUse[] {
  return uses.filter((u) => !u.public && u.product.length === 0 && u.tests.length === 0);
}

function main(): void {
  const uses = exportUses();
  const found = exportFindings(uses);
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
    return;
  }
  const list = (title: string, items: ExportUse[], why: (u: ExportUse) => string): void => {
    process.stdout.write(`${title}: ${items.length}\n`);
    for (const u of items) process.stdout.write(`  ${u.id}${why(u)}\n`);
  };
  process.stdout.write(`${uses.length} exports in src/\n`);
  list('imported by nobody', found.unused, (u) => (u.local ? ' (used in its own file: needs no export)' : ''));
  list('reached only by tests', found.testOnly, (u) => ` <- ${u.tests.join(', ')}`);
  list('named in no other file', namedNowhereElse(uses), () => '');
  for (const [name, files] of Object.entries(sharedNames(uses)))
    process.stdout.write(`exported by ${files.length} files: ${name} (${files.join(', ')})\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
