// The labelled claims file (src/dataset/labelled.ts) on its own: JSON Lines, a JSON array or {"claims": [...]}, each
// mistake named by line or position; the gold labels as grade takes them; which field holds a label.
import { describe, expect, test } from 'vitest';
import { goldOfRows, hasLabels, parseClaimRows, readClaimRows, rowId } from '../../src/dataset/labelled.js';

class RowError extends Error {}

describe('labelled claims: reading rows', () => {
  test('JSON Lines, an array and {"claims": [...]} give the same rows, each named as the file names it', () => {
    const claims = [
      { id: 'a', quote: 'q', url: 'https://example.org/', label: 'verbatim' },
      { id: 'b', quote: 'r', url: 'https://example.org/', label: 'no_match' },
    ];
    const lines = readClaimRows('x.jsonl', `${claims.map((c) => JSON.stringify(c)).join('\n')}\n`, RowError);
    const array = readClaimRows('x.json', JSON.stringify(claims, null, 2), RowError);
    const wrapped = readClaimRows('x.json', JSON.stringify({ claims }, null, 2), RowError);
    expect(lines.map((r) => r.raw)).toEqual(claims);
    expect(array.map((r) => r.raw)).toEqual(claims);
    expect(wrapped.map((r) => r.raw)).toEqual(claims);
    expect(lines.map((r) => r.label)).toEqual(['line 1', 'line 2']);
    expect(lines[1]!.where).toBe('x.jsonl:2');
  });

  test('a line that is not JSON, or not an object, is an error naming the file and the line', () => {
    expect(() => readClaimRows('x.jsonl', '{"id":"a"}\n{"id": \n', RowError)).toThrow(/^x\.jsonl: line 2/);
    expect(() => readClaimRows('x.jsonl', '{"id":"a"}\n[1]\n', RowError)).toThrow(
      /x\.jsonl: line 2: expected a JSON object/,
    );
    expect(() => readClaimRows('x.jsonl', '{"id":"a"}\nnope\n', RowError)).toThrow(RowError);
  });

  test("a claim's problem is named by its line, not by its position in the parsed list", () => {
    const rows = readClaimRows(
      'x.jsonl',
      '{"id":"a","quote":"q","url":"https://e.org/"}\n\n{"id":"a","quote":"r","url":"https://e.org/"}\n',
      RowError,
    );
    expect(() => parseClaimRows(rows, 'x.jsonl', RowError)).toThrow(/line 3/);
  });
});

describe('labelled claims: the gold labels', () => {
  test('ids as claims.ts reads them; a label from any of its fields; file order kept', () => {
    expect(rowId({ id: ' a ' })).toBe('a');
    expect(rowId({ claim_id: 7 })).toBe('7');
    expect(rowId({ id: 1.5 })).toBeUndefined();
    const rows = readClaimRows(
      'g.jsonl',
      [
        '{"id":"b","gold":"no_match"}',
        '{"claim_id":3,"expected_label":"verbatim"}',
        '{"id":"a","label":"verbatim"}',
      ].join('\n'),
      RowError,
    );
    expect(hasLabels(rows)).toBe(true);
    expect([...goldOfRows(rows, RowError)]).toEqual([
      ['b', 'no_match'],
      ['3', 'verbatim'],
      ['a', 'verbatim'],
    ]);
  });

  test('a missing id, a label that is not one, and a repeated id are errors naming the row', () => {
    const read = (text: string) => readClaimRows('g.jsonl', text, RowError);
    expect(() => goldOfRows(read('{"label":"verbatim"}'), RowError)).toThrow(/g\.jsonl:1: field "id" is missing/);
    expect(() => goldOfRows(read('{"id":"a","label":"yes"}'), RowError)).toThrow(
      /g\.jsonl:1 \(id "a"\): field "label" must be "verbatim" or "no_match", got "yes"/,
    );
    expect(() => goldOfRows(read('{"id":"a"}'), RowError)).toThrow(/field "label" is missing/);
    expect(() => goldOfRows(read('{"id":"a","label":"verbatim"}\n{"id":"a","label":"no_match"}'), RowError)).toThrow(
      /g\.jsonl:2: id "a" appears twice/,
    );
    expect(hasLabels(read('{"id":"a","quote":"q"}'))).toBe(false);
  });
});
