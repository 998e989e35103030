// docs/how-it-decides.md#claims-input: aliases, per-claim problems, whole-file errors.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ClaimsFileError, parseClaims, type Claim } from '../../src/claims/schema.js';
import { readClaimsFile } from '../../src/claims/claims-file.js';
import { claimsRun, tempDir } from '../support/helpers.js';

const ok = { id: 'a', quote: 'some words', url: 'http://127.0.0.1/x' };

describe('parseClaims', () => {
  test('accepts an array and an object with a claims array, keeping input order', () => {
    const claims = [ok, { ...ok, id: 'b' }];
    expect(parseClaims(claims).entries.map((e) => e.id)).toEqual(['a', 'b']);
    expect(parseClaims({ claims, meta: 1 }).entries.map((e) => e.id)).toEqual(['a', 'b']);
  });

  test('accepts every alias of every field', () => {
    const { entries } = parseClaims([
      {
        claim_id: 'x',
        quoted_text: 'q1',
        source_url: 'https://127.0.0.1/1',
        claim_text: 'c',
        verified_at: '2024-05-01',
      },
      {
        id: 'y',
        quote_text: 'q2',
        source: 'http://127.0.0.1/2',
        text: 'c2',
        verify_date: '2024-05-01T10:00:00Z',
        evidence: { sha256: 'A'.repeat(64) },
      },
    ]);
    const [x, y] = entries as Claim[];
    expect(x).toMatchObject({
      kind: 'claim',
      id: 'x',
      quote: 'q1',
      url: 'https://127.0.0.1/1',
      claim: 'c',
      verifyDate: '2024-05-01',
    });
    expect(y).toMatchObject({
      kind: 'claim',
      id: 'y',
      quote: 'q2',
      url: 'http://127.0.0.1/2',
      claim: 'c2',
      evidenceSha256: 'a'.repeat(64),
    });
  });

  test('keeps unknown fields out of the way and strips the fragment for fetching', () => {
    const [c] = parseClaims([{ ...ok, url: 'http://127.0.0.1/p#section-2', label: 'verbatim', extra: { deep: true } }])
      .entries as Claim[];
    expect(c!.url).toBe('http://127.0.0.1/p#section-2');
    expect(c!.fetchUrl).toBe('http://127.0.0.1/p');
  });

  test('numeric ids are accepted as strings', () => {
    expect(parseClaims([{ ...ok, id: 17 }]).entries[0]!.id).toBe('17');
  });

  test('a bad quote or URL makes that claim invalid, naming the field, and keeps the others', () => {
    const { entries } = parseClaims([
      ok,
      { id: 'empty', quote: '  \n ', url: 'http://127.0.0.1/' },
      { id: 'ftp', quote: 'q', url: 'ftp://127.0.0.1/file' },
      { id: 'nourl', quoted_text: 'q' },
      { id: 'notaurl', quote: 'q', source_url: 'not a url' },
      { id: 'numquote', quote: 42, url: 'http://127.0.0.1/' },
    ]);
    expect(entries.map((e) => e.kind)).toEqual(['claim', 'invalid', 'invalid', 'invalid', 'invalid', 'invalid']);
    const problems = Object.fromEntries(
      entries
        .filter((e) => e.kind === 'invalid')
        .map((e) => [e.id, e.kind === 'invalid' ? e.problems.join(' | ') : '']),
    );
    expect(problems.empty).toMatch(/field "quote" is empty or only whitespace/);
    expect(problems.ftp).toMatch(/field "url" must be http\(s\), not ftp:/);
    expect(problems.nourl).toMatch(/field "url" is missing/);
    expect(problems.notaurl).toMatch(/field "url" \(given as "source_url"\) is not a URL/);
    expect(problems.numquote).toMatch(/field "quote"/);
  });

  test('a malformed optional field is dropped with a warning naming claim and field', () => {
    const set = parseClaims([{ ...ok, verify_date: 'last tuesday', evidence: { sha256: 'xyz' } }]);
    expect(set.entries[0]!.kind).toBe('claim');
    expect(set.warnings.join('\n')).toMatch(/claim #1 \(id "a"\): field "verify_date" ignored/);
    expect(set.warnings.join('\n')).toMatch(/field "evidence.sha256" ignored/);
  });

  test.each([
    [[], /has no claims/],
    [{ claims: [] }, /has no claims/],
    [{ items: [] }, /expected a JSON array of claims/],
    ['hello', /expected a JSON array of claims/],
    [{ claims: 'x' }, /"claims" must be an array/],
    [[ok, 'not an object'], /claim #2: must be a JSON object, got string/],
    [[ok, { quote: 'q', url: 'http://127.0.0.1/' }], /claim #2: field "id" is missing/],
    [[ok, { id: '  ', quote: 'q', url: 'http://127.0.0.1/' }], /claim #2: field "id" must be a non-empty string/],
    [[ok, { ...ok, quote: 'other' }], /claim #2 \(id "a"\): duplicate id, first used by claim #1/],
  ])('whole-file error: %j', (json, message) => {
    expect(() => parseClaims(json)).toThrowError(ClaimsFileError);
    expect(() => parseClaims(json)).toThrowError(message);
  });
});

describe('readClaimsFile', () => {
  test('names the file and the JSON error', async () => {
    const { claims: file } = claimsRun('[{"id": "a",]');
    await expect(readClaimsFile(file)).rejects.toThrowError(/claims\.json: is not valid JSON/);
  });

  test('rejects bytes that are not UTF-8 and accepts a UTF-8 BOM', async () => {
    const dir = tempDir();
    const bad = join(dir, 'latin1.json');
    writeFileSync(
      bad,
      Buffer.concat([
        Buffer.from('[{"id":"a","quote":"caf'),
        Buffer.from([0xe9]),
        Buffer.from('","url":"http://127.0.0.1/"}]'),
      ]),
    );
    await expect(readClaimsFile(bad)).rejects.toThrowError(/is not valid UTF-8/);
    const bom = join(dir, 'bom.json');
    writeFileSync(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify([ok]))]));
    expect((await readClaimsFile(bom)).entries).toHaveLength(1);
  });

  test('a missing file is a ClaimsFileError', async () => {
    await expect(readClaimsFile('/nonexistent/claims.json')).rejects.toThrowError(
      /cannot read claims file: no such file/,
    );
  });
});
