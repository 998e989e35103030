// src/ holds only the product: no export is imported by nobody, and none is reached by tests alone but those listed
// here with why (scripts/exports.ts finds who imports each export, through the type checker).
import { describe, expect, test } from 'vitest';
import { exportFindings, exportUses, type ExportUse } from '../scripts/exports.js';

/** Exports only tests import, each with why it stays in src/. */
const TEST_ONLY: Readonly<Record<string, string>> = {
  'src/extract/htmlparser2-internals.ts TOKENIZER_FIELDS':
    "the canary list of htmlparser2's private fields sits beside the code that reads them, so one list is kept",
  'src/extract/htmlparser2-internals.ts PARSER_FIELDS':
    "the canary list of htmlparser2's private fields sits beside the code that reads them, so one list is kept",
};

const use = (over: Partial<ExportUse>): ExportUse => ({
  id: 'src/x.ts x',
  file: 'src/x.ts',
  name: 'x',
  product: [],
  tests: [],
  local: false,
  public: false,
  typeOnly: false,
  ...over,
});

describe('exports of src/', () => {
  const found = exportFindings(exportUses());

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
});
