// src/ holds only the product: no export is imported by nobody, none is reached by tests alone but those listed
// here with why, no type or function name is exported by two files, and at most 15 exports are named in no other file
// (scripts/exports.ts finds who imports each export, through the type checker).
import { describe, expect, test } from 'vitest';
import { exportFindings, exportUses, namedNowhereElse, sharedNames, type ExportUse } from '../scripts/exports.js';

/** Exports only tests import, each with why it stays in src/. */
const TEST_ONLY: Readonly<Record<string, string>> = {
  'src/extract/htmlparser2-internals.ts TOKENIZER_FIELDS':
    "the canary list of htmlparser2's private fields sits beside the code that reads them, so one list is kept",
  'src/extract/htmlparser2-internals.ts PARSER_FIELDS':
    "the canary list of htmlparser2's private fields sits beside the code that reads them, so one list is kept",
};

/**
 * Exports no other file names (at most 15, issue 45), each with why it stays exported: none today. A type that only
 * names the shape of its own module's input or result is not exported; one a package user needs is re-exported by a
 * public entry (src/index.ts, src/stages.ts).
 */
const NAMED_NOWHERE_ELSE: Readonly<Record<string, string>> = {};

const use = (over: Partial<ExportUse>): ExportUse => ({
  id: 'src/x.ts x',
  file: 'src/x.ts',
  name: 'x',
  product: [],
  tests: [],
  local: false,
  public: false,
  typeOnly: false,
  callable: false,
  ...over,
});

describe('exports of src/', () => {
  const uses = exportUses();
  const found = exportFindings(uses);

  test('no type, function or class name is exported by two files of src/', () => {
    expect(sharedNames(uses)).toEqual({});
  });

  test('at most 15 exports are named in no other file, each listed with why', () => {
    expect(Object.keys(NAMED_NOWHERE_ELSE).length).toBeLessThanOrEqual(15);
    expect(
      namedNowhereElse(uses)
        .map((u) => u.id)
        .sort(),
    ).toEqual(Object.keys(NAMED_NOWHERE_ELSE).sort());
  });

  test('every export is imported by someone (a value used only in its own file is not exported)', () => {
    expect(found.unused.map((u) => u.id)).toEqual([]);
  });

  test('no export is reached by tests alone, but those listed with why', () => {
    expect(found.testOnly.map((u) => u.id).sort()).toEqual(Object.keys(TEST_ONLY).sort());
  });

  test('the rule: dead and test-only exports are found; public, imported and shape-naming ones are not', () => {
    const findings = exportFindings([
      use({ id: 'dead' }),
      use({ id: 'local value', local: true }),
      use({ id: 'local type', local: true, typeOnly: true }),
      use({ id: 'tests only', tests: ['test/a.test.ts'] }),
      use({ id: 'tests and its file', tests: ['test/a.test.ts'], local: true }),
      use({ id: 'imported', product: ['src/y.ts'], tests: ['test/a.test.ts'] }),
      use({ id: 'public', public: true }),
    ]);
    expect(findings.unused.map((u) => u.id)).toEqual(['dead', 'local value']);
    expect(findings.testOnly.map((u) => u.id)).toEqual(['tests only']);
  });

  test('the rule: a type or function name in two files is found; a constant, or one name in one file, is not', () => {
    const shared = sharedNames([
      use({ id: 'src/a.ts Row', file: 'src/a.ts', name: 'Row', typeOnly: true }),
      use({ id: 'src/b.ts Row', file: 'src/b.ts', name: 'Row', typeOnly: true }),
      use({ id: 'src/a.ts read', file: 'src/a.ts', name: 'read', callable: true }),
      use({ id: 'src/c.ts read', file: 'src/c.ts', name: 'read', callable: true }),
      use({ id: 'src/a.ts LIMIT', file: 'src/a.ts', name: 'LIMIT' }),
      use({ id: 'src/b.ts LIMIT', file: 'src/b.ts', name: 'LIMIT' }),
      use({ id: 'src/a.ts once', file: 'src/a.ts', name: 'once', callable: true }),
    ]);
    expect(shared).toEqual({ Row: ['src/a.ts', 'src/b.ts'], read: ['src/a.ts', 'src/c.ts'] });
    expect(namedNowhereElse([use({ id: 'x' }), use({ id: 'y', tests: ['test/a.test.ts'] })]).map((u) => u.id)).toEqual([
      'x',
    ]);
  });
});
