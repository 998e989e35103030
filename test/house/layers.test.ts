// Module layers of src/: extraction reads pages, diagnosis only classifies, the leaf modules import nothing, the run core alone
// builds HTTP stacks and answers files, the contract module stands on zod alone, and the rooms above the core (the task
// format, the grader, datasets, evaluation, results, the audit) import each other one way only, each name from the file
// that declares it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Modules every layer may import, so they import nothing themselves. */
const LEAVES = ['src/config/settings.ts', 'src/page-shell-limits.ts'];

/** Directories that must not import each other: extract/ reads pages (markup, text), diagnose/ classifies what the source record holds. */
const APART: readonly (readonly [string, string])[] = [
  ['src/diagnose/', 'src/extract/'],
  ['src/extract/', 'src/diagnose/'],
  // The Wayback client is below the as-of judgement: src/asof/ asks it for captures, never the other way round.
  ['src/wayback/', 'src/asof/'],
];

/** The core: fetching, extracting, normalizing, matching, diagnosing, the archives and the run itself. */
const CORE = [
  'src/run/',
  'src/fetch/',
  'src/extract/',
  'src/normalize.ts',
  'src/match.ts',
  'src/diagnose/',
  'src/wayback/',
  'src/archive/',
];
/** What stands on the core (its front doors, the report, the commands and servers): the core imports none of it, types included. */
const ABOVE_CORE = [
  'src/check.ts',
  'src/index.ts',
  'src/stages.ts',
  'src/harbor.ts',
  'src/output/evidence-report.ts',
  'src/cli/',
  'src/mcp/',
  'src/task/',
  'src/dataset/',
  'src/evaluate/',
  'src/results/',
  'src/audit/',
];

/**
 * The rooms above the core, each a folder of one job, and the rooms each may import (any other module of src/ it may,
 * by the rules above). The grader is the floor: the shipped grader imports Node's modules only (its own rule, checked
 * by scripts/bundle.ts), and every room may stand on it. The task format stands on the grader alone; datasets are made
 * of tasks; results read what evaluate writes, so evaluate stands on them, never the other way round; the audit runs
 * trials through evaluate. Making datasets and running them do not know each other: `quotecheck` (src/cli/) joins them.
 */
const ROOMS: Readonly<Record<string, { may: readonly string[]; job: string }>> = {
  'src/grader/': { may: [], job: "the task's shipped grader" },
  'src/task/': { may: ['src/grader/'], job: 'the task format and one task written' },
  'src/dataset/': { may: ['src/grader/', 'src/task/'], job: 'making datasets' },
  'src/results/': { may: ['src/grader/', 'src/task/'], job: "evaluate's report, compared and rendered" },
  'src/evaluate/': { may: ['src/grader/', 'src/task/', 'src/results/'], job: 'running a dataset' },
  'src/audit/': { may: ['src/grader/', 'src/task/', 'src/results/', 'src/evaluate/'], job: 'the audit' },
};

/** The room a file of src/ is in, if any. */
const roomOf = (file: string): string | undefined => Object.keys(ROOMS).find((room) => file.startsWith(room));

/**
 * Who may import what (a module, or a path prefix of src/), value imports only unless `types` says so: the run core
 * (src/run/) builds the HTTP stacks and keeps answers files; the CLI and the MCP server keep options, signals and
 * printing; the contract (src/contract.ts) is the schema of what users read and depends on zod alone.
 */
interface ImportRule {
  /** A package name, or a file of src/ (relative to the repository). */
  module: string;
  /** Files (or folders, ending in /) that may import it. */
  allowed: readonly string[];
  /** Whether type-only imports are held to the rule too. */
  types?: boolean;
  why: string;
}

const IMPORT_RULES: readonly ImportRule[] = [
  {
    module: 'undici',
    allowed: ['src/fetch/', 'src/run/transport.ts', 'src/archive/'],
    why: 'HTTP stacks are built by the run core (src/run/transport.ts) on src/fetch/',
  },
  {
    module: 'src/fetch/guard.ts',
    allowed: ['src/fetch/', 'src/run/transport.ts'],
    types: true,
    why: "the network rule is applied by the run core's stacks",
  },
  {
    module: 'src/fetch/index.ts',
    allowed: ['src/run/', 'src/stages.ts', 'src/asof/', 'src/wayback/'],
    why: 'sources are fetched by the run core',
  },
  {
    module: 'src/wayback/client.ts',
    allowed: ['src/run/', 'src/asof/'],
    why: 'the Wayback client is made by the run core',
  },
  {
    module: 'src/output/answers.ts',
    allowed: ['src/run/session.ts', 'src/index.ts', 'src/output/report-file.ts'],
    why: "answers files are kept by the run core's session (src/run/session.ts)",
  },
  {
    module: 'htmlparser2',
    allowed: ['src/extract/htmlparser2-internals.ts', 'src/extract/markup.ts'],
    types: true,
    why: "htmlparser2's internals are reached in one module (src/extract/htmlparser2-internals.ts)",
  },
  {
    module: '@mozilla/readability/JSDOMParser.js',
    allowed: ['src/extract/lightdom/nodes.ts'],
    why: "the light DOM makes JSDOMParser's documents and finds its prototypes in one module (lightdom/nodes.ts)",
  },
];

/** Packages and files the contract module may import: it is the schema users read, and nothing of the pipeline. */
const CONTRACT = { file: 'src/contract.ts', imports: ['zod'] };

interface Import {
  /** The importing file, relative to the repository (posix separators). */
  file: string;
  /** The specifier as written. */
  specifier: string;
  /** The imported file, relative to the repository, when the specifier is relative. */
  target?: string;
  line: number;
  /** `import type` / `export type`, or every named element a type. */
  typeOnly: boolean;
}

/** Every import of a file: static imports and re-exports (types included), side-effect and dynamic imports, as TypeScript reads them. */
function importsOf(file: string, text: string): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const found: Import[] = [];
  const add = (spec: ts.Expression | undefined, typeOnly: boolean): void => {
    if (!spec || !ts.isStringLiteral(spec)) return;
    const fileName = spec.text;
    const target = fileName.startsWith('.')
      ? posix.normalize(posix.join(posix.dirname(file), fileName)).replace(/\.js$/, '.ts')
      : undefined;
    found.push({ file, specifier: fileName, target, line: lineOf(spec.getStart(source)), typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named =
        clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      add(node.moduleSpecifier, node.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal as ts.Expression, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Whether `file` is one of `allowed` (a file, or a folder ending in /). */
const within = (file: string, allowed: readonly string[]): boolean =>
  allowed.some((a) => (a.endsWith('/') ? file.startsWith(a) : file === a));

/** What breaks the layers, one line per offending import. */
function layerViolations(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    for (const imp of importsOf(file, text)) {
      const at = `${imp.file}:${imp.line} imports '${imp.specifier}'`;
      if (LEAVES.includes(file)) found.push(`${at}: ${file} is a leaf and must import nothing`);
      for (const [from, to] of APART) {
        if (file.startsWith(from) && imp.target?.startsWith(to))
          found.push(`${at}: ${from} must not import from ${to}`);
      }
      if (within(file, CORE) && imp.target && within(imp.target, ABOVE_CORE))
        found.push(`${at}: the core (${file}) must not import ${imp.target}, which stands on it`);
      const [from, to] = [roomOf(file), imp.target && roomOf(imp.target)];
      if (from && to && from !== to && !ROOMS[from]!.may.includes(to))
        found.push(`${at}: ${from} (${ROOMS[from]!.job}) must not import from ${to} (${ROOMS[to]!.job})`);
      const imported = imp.target ?? imp.specifier;
      for (const rule of IMPORT_RULES) {
        if (
          imported !== rule.module ||
          (imp.typeOnly && !rule.types) ||
          file === rule.module ||
          within(file, rule.allowed)
        )
          continue;
        found.push(`${at}: only ${rule.allowed.join(', ')} may import ${rule.module} (${rule.why})`);
      }
      if (file === CONTRACT.file && !CONTRACT.imports.includes(imported))
        found.push(`${at}: the contract imports only ${CONTRACT.imports.join(', ')}`);
    }
  }
  return found;
}

/**
 * JSDOMParser's shared prototypes, which the light DOM adjusts: nodes.ts finds them (and alone loads JSDOMParser, see
 * IMPORT_RULES), and hands them by name to lightdom/patches.ts alone, which adjusts them when called
 * (installLightDomPatches), never on import (test/extract/lightdom.test.ts checks that in a fresh process).
 */
const PROTOTYPES = {
  from: 'src/extract/lightdom/nodes.ts',
  names: ['NodeProto', 'ElementProto', 'DocumentProto', 'StyleProto', 'ParserProto'],
  allowed: 'src/extract/lightdom/patches.ts',
} as const;

/** The names a file imports (or re-exports) from each specifier, as TypeScript parses it; '*' for a namespace, default or side-effect import. */
function importedNames(file: string, text: string): { specifier: string; names: string[]; line: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: { specifier: string; names: string[]; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    const line = () => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const names: string[] = [];
      if (ts.isImportDeclaration(node)) {
        const clause = node.importClause;
        if (!clause || clause.name) names.push('*');
        const bindings = clause?.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
        else if (bindings) for (const el of bindings.elements) names.push((el.propertyName ?? el.name).text);
      } else if (!node.exportClause || ts.isNamespaceExport(node.exportClause)) names.push('*');
      else for (const el of node.exportClause.elements) names.push((el.propertyName ?? el.name).text);
      out.push({ specifier: node.moduleSpecifier.text, names, line: line() });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      out.push({ specifier: node.arguments[0].text, names: ['*'], line: line() });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Imports of JSDOMParser's shared prototypes (or of all of nodes.ts's exports) from elsewhere than the patch module, one line each. */
function prototypeViolations(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (file === PROTOTYPES.allowed || file === PROTOTYPES.from) continue;
    for (const imp of importedNames(file, text)) {
      const target = imp.specifier.startsWith('.')
        ? posix.normalize(posix.join(posix.dirname(file), imp.specifier)).replace(/\.js$/, '.ts')
        : imp.specifier;
      if (target !== PROTOTYPES.from) continue;
      const refused = imp.names.filter((n) => n === '*' || (PROTOTYPES.names as readonly string[]).includes(n));
      if (refused.length > 0)
        found.push(
          `${file}:${imp.line} imports ${refused.join(', ')} from '${imp.specifier}': only ${PROTOTYPES.allowed} may (it adjusts JSDOMParser's prototypes, when called)`,
        );
    }
  }
  return found;
}

/** Resolves a relative specifier of `file` to a path of src/ (a `.js` specifier names its `.ts` source). */
const resolveFrom = (file: string, specifier: string): string =>
  posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts');

/** The names a file exports that are declared elsewhere, each with the file that declares it (as the re-export says). */
function reExportsOf(file: string, text: string): Map<string, string> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imported = new Map<string, string>();
  const out = new Map<string, string>();
  for (const node of source.statements) {
    const spec = (node as { moduleSpecifier?: ts.Expression }).moduleSpecifier;
    const from =
      spec && ts.isStringLiteral(spec) && spec.text.startsWith('.') ? resolveFrom(file, spec.text) : undefined;
    if (ts.isImportDeclaration(node) && from) {
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) imported.set(el.name.text, from);
    } else if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause)) {
      for (const el of node.exportClause.elements) {
        const origin = from ?? imported.get((el.propertyName ?? el.name).text);
        if (origin) out.set(el.name.text, origin);
      }
    }
  }
  return out;
}

/**
 * Names of a room taken through another file's re-export, one line each: every name of a room is imported from the
 * file that declares it, so that a reader finds it where the import says and no file is a hub for another's types.
 */
function reExportViolations(files: ReadonlyMap<string, string>): string[] {
  const reExports = new Map([...files].map(([file, text]) => [file, reExportsOf(file, text)]));
  const found: string[] = [];
  for (const [file, text] of files) {
    for (const imp of importedNames(file, text)) {
      if (!imp.specifier.startsWith('.')) continue;
      const target = resolveFrom(file, imp.specifier);
      for (const name of imp.names) {
        const origin = reExports.get(target)?.get(name);
        if (origin && (roomOf(origin) || roomOf(target)))
          found.push(
            `${file}:${imp.line} imports ${name} from '${imp.specifier}', which re-exports it: import it from ${origin}`,
          );
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
  test('diagnose/ and extract/ do not import each other; the leaf modules import nothing; the run core, the contract and the light DOM wall hold', () => {
    const files = new Map(tsFiles('src').map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
    for (const leaf of LEAVES) expect(files.has(leaf), `${leaf} exists`).toBe(true);
    expect(layerViolations(files)).toEqual([]);
  });

  test('the rooms import each other one way, and every name of a room from the file that declares it', () => {
    const files = new Map(tsFiles('src').map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
    for (const room of Object.keys(ROOMS)) expect(existsSync(join(ROOT, room)), `${room} exists`).toBe(true);
    expect(reExportViolations(files)).toEqual([]);
  });

  test('the room checks name the offending file, import and name', () => {
    const files = new Map([
      ['src/results/a.ts', "import { runEvaluation } from '../evaluate/evaluate.js';\n"],
      ['src/task/b.ts', "import type { LabelledClaim } from '../dataset/labelled.js';\nimport { x } from './c.js';\n"],
      ['src/dataset/c.ts', "import type { Trial } from '../evaluate/trial.js';\n"],
      ['src/task/c.ts', "export { grade as x } from '../grader/grade.mjs';\nexport type { Row } from './d.js';\n"],
      ['src/audit/d.ts', "import type { Row } from '../task/c.js';\nimport { grade } from '../grader/grade.mjs';\n"],
    ]);
    expect(layerViolations(files)).toEqual([
      "src/results/a.ts:1 imports '../evaluate/evaluate.js': src/results/ (evaluate's report, compared and rendered) must not import from src/evaluate/ (running a dataset)",
      "src/task/b.ts:1 imports '../dataset/labelled.js': src/task/ (the task format and one task written) must not import from src/dataset/ (making datasets)",
      "src/dataset/c.ts:1 imports '../evaluate/trial.js': src/dataset/ (making datasets) must not import from src/evaluate/ (running a dataset)",
    ]);
    expect(reExportViolations(files)).toEqual([
      "src/task/b.ts:2 imports x from './c.js', which re-exports it: import it from src/grader/grade.mjs",
      "src/audit/d.ts:1 imports Row from '../task/c.js', which re-exports it: import it from src/task/d.ts",
    ]);
  });

  test('the check names the offending file and import', () => {
    const files = new Map([
      [
        'src/diagnose/x.ts',
        "// x\nimport type { A } from '../source.js';\nimport {\n  decodeHtml,\n} from '../extract/decode.js';\n",
      ],
      [
        'src/extract/y.ts',
        "export { detectShell } from '../diagnose/shells.js';\nconst later = () => import('../diagnose/index.js');\n",
      ],
      ['src/config/settings.ts', "import type { Label } from './answers.js';\n"],
      ['src/match.ts', "import type { ViewName } from './extract/index.js';\n"],
      [
        'src/mcp/z.ts',
        "import type { Dispatcher } from 'undici';\nimport { Agent } from 'undici';\nimport { guardedAgent } from '../fetch/guard.js';\nimport { AnswersFile } from '../output/answers.js';\nimport type { Label } from '../output/answers.js';\n",
      ],
      [
        'src/cli/w.ts',
        "import { type WaybackClient, type WaybackOptions } from '../wayback/client.js';\nconst m = await import('../wayback/client.js');\n",
      ],
      ['src/contract.ts', "import { z } from 'zod';\nimport type { SourceRecord } from './source.js';\n"],
      ['src/extract/lightdom/v.ts', "import type { Tokenizer } from 'htmlparser2';\n"],
    ]);
    expect(layerViolations(files)).toEqual([
      "src/diagnose/x.ts:5 imports '../extract/decode.js': src/diagnose/ must not import from src/extract/",
      "src/extract/y.ts:1 imports '../diagnose/shells.js': src/extract/ must not import from src/diagnose/",
      "src/extract/y.ts:2 imports '../diagnose/index.js': src/extract/ must not import from src/diagnose/",
      "src/config/settings.ts:1 imports './answers.js': src/config/settings.ts is a leaf and must import nothing",
      "src/mcp/z.ts:2 imports 'undici': only src/fetch/, src/run/transport.ts, src/archive/ may import undici (HTTP stacks are built by the run core (src/run/transport.ts) on src/fetch/)",
      "src/mcp/z.ts:3 imports '../fetch/guard.js': only src/fetch/, src/run/transport.ts may import src/fetch/guard.ts (the network rule is applied by the run core's stacks)",
      "src/mcp/z.ts:4 imports '../output/answers.js': only src/run/session.ts, src/index.ts, src/output/report-file.ts may import src/output/answers.ts (answers files are kept by the run core's session (src/run/session.ts))",
      "src/cli/w.ts:2 imports '../wayback/client.js': only src/run/, src/asof/ may import src/wayback/client.ts (the Wayback client is made by the run core)",
      "src/contract.ts:2 imports './source.js': the contract imports only zod",
      "src/extract/lightdom/v.ts:1 imports 'htmlparser2': only src/extract/htmlparser2-internals.ts, src/extract/markup.ts may import htmlparser2 (htmlparser2's internals are reached in one module (src/extract/htmlparser2-internals.ts))",
    ]);
  });

  test('the core check names what the core imports from above it', () => {
    const files = new Map([
      [
        'src/run/s.ts',
        "import { RunTally } from '../output/evidence-report.js';\nconst m = await import('../check.js');\n",
      ],
      ['src/wayback/c.ts', "import type { AsOfDate } from '../asof/date.js';\n"],
      [
        'src/extract/lightdom/t.ts',
        "import type { CliIo } from '../../cli/progress.js';\nimport { VERSION } from '../../defaults.js';\n",
      ],
    ]);
    expect(layerViolations(files)).toEqual([
      "src/run/s.ts:1 imports '../output/evidence-report.js': the core (src/run/s.ts) must not import src/output/evidence-report.ts, which stands on it",
      "src/run/s.ts:2 imports '../check.js': the core (src/run/s.ts) must not import src/check.ts, which stands on it",
      "src/wayback/c.ts:1 imports '../asof/date.js': src/wayback/ must not import from src/asof/",
      "src/extract/lightdom/t.ts:1 imports '../../cli/progress.js': the core (src/extract/lightdom/t.ts) must not import src/cli/progress.ts, which stands on it",
    ]);
  });

  test('JSDOMParser is loaded by lightdom/nodes.ts alone, and only lightdom/patches.ts is handed its prototypes', () => {
    const files = new Map(tsFiles('src').map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
    for (const f of [PROTOTYPES.from, PROTOTYPES.allowed]) expect(files.has(f), `${f} exists`).toBe(true);
    expect(prototypeViolations(files)).toEqual([]);
    expect(
      layerViolations(
        new Map([
          ['src/extract/lightdom/insert.ts', "import JSDOMParser from '@mozilla/readability/JSDOMParser.js';\n"],
        ]),
      ),
    ).toEqual([
      "src/extract/lightdom/insert.ts:1 imports '@mozilla/readability/JSDOMParser.js': only src/extract/lightdom/nodes.ts may import @mozilla/readability/JSDOMParser.js (the light DOM makes JSDOMParser's documents and finds its prototypes in one module (lightdom/nodes.ts))",
    ]);
  });

  test('the prototype check names the offending file, import and names', () => {
    const files = new Map([
      ['src/extract/lightdom/insert.ts', "import { newDocument, NodeProto } from './nodes.js';\n"],
      [
        'src/extract/lightdom/queries.ts',
        "import { HTML_NS, type LightElement } from './nodes.js';\nexport { ElementProto } from './nodes.js';\n",
      ],
      ['src/extract/lightdom/patches.ts', "import { ElementProto, NodeProto } from './nodes.js';\n"],
      [
        'src/extract/html.ts',
        "import * as nodes from './lightdom/nodes.js';\nconst n = await import('./lightdom/nodes.js');\n",
      ],
    ]);
    expect(prototypeViolations(files)).toEqual([
      "src/extract/lightdom/insert.ts:1 imports NodeProto from './nodes.js': only src/extract/lightdom/patches.ts may (it adjusts JSDOMParser's prototypes, when called)",
      "src/extract/lightdom/queries.ts:2 imports ElementProto from './nodes.js': only src/extract/lightdom/patches.ts may (it adjusts JSDOMParser's prototypes, when called)",
      "src/extract/html.ts:1 imports * from './lightdom/nodes.js': only src/extract/lightdom/patches.ts may (it adjusts JSDOMParser's prototypes, when called)",
      "src/extract/html.ts:2 imports * from './lightdom/nodes.js': only src/extract/lightdom/patches.ts may (it adjusts JSDOMParser's prototypes, when called)",
    ]);
  });
});
