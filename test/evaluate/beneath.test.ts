// The namespace runner's copies into and out of a container's root (src/evaluate/beneath.ts) against the links an agent
// plants, set up before the copy so that no race decides the outcome: nothing of the host is ever read or written
// through them (issue 42, Why 3 and 4).
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { chmodBeneath, copyInto, copyOutOf } from '../../src/evaluate/beneath.js';
import { tempDir } from '../support/helpers.js';

/** A container root, a host folder an agent would like written (the trap), and the dataset's tests/ to upload. */
function setUp() {
  const dir = tempDir();
  const root = join(dir, 'root');
  const trap = join(dir, 'host-folder');
  const tests = join(dir, 'dataset-tests');
  for (const d of [root, trap, tests]) mkdirSync(d);
  writeFileSync(join(tests, 'gold.json'), '{"a": "verbatim"}');
  writeFileSync(join(tests, 'test.sh'), '#!/bin/sh\n', { mode: 0o600 });
  writeFileSync(join(trap, 'keep.txt'), 'host');
  return { root, trap, tests };
}

describe('copyInto: an upload into a root an agent has prepared', () => {
  test('/tests a link to a host folder: replaced by a real folder, nothing written through it', () => {
    const { root, trap, tests } = setUp();
    symlinkSync(trap, join(root, 'tests'));
    copyInto(tests, root, '/tests');
    expect(readdirSync(trap)).toEqual(['keep.txt']);
    expect(lstatSync(join(root, 'tests')).isDirectory()).toBe(true);
    expect(readFileSync(join(root, 'tests', 'gold.json'), 'utf8')).toBe('{"a": "verbatim"}');
  });

  test('a file of the upload planted as a link to a host file: the link replaced, the host file untouched', () => {
    const { root, trap, tests } = setUp();
    mkdirSync(join(root, 'tests'));
    symlinkSync(join(trap, 'keep.txt'), join(root, 'tests', 'gold.json'));
    copyInto(tests, root, '/tests');
    expect(readFileSync(join(trap, 'keep.txt'), 'utf8')).toBe('host');
    expect(lstatSync(join(root, 'tests', 'gold.json')).isFile()).toBe(true);
  });

  test('a link on the way to the path (/logs a link to a host folder): refused, nothing made there', () => {
    const { root, trap, tests } = setUp();
    symlinkSync(trap, join(root, 'logs'));
    expect(() => copyInto(join(tests, 'gold.json'), root, '/logs/verifier/gold.json')).toThrow(
      /a link or a file on the way, not followed/,
    );
    expect(readdirSync(trap)).toEqual(['keep.txt']);
  });

  test('chmodBeneath makes test.sh executable, and refuses a link in its place', () => {
    const { root, trap, tests } = setUp();
    copyInto(tests, root, '/tests');
    chmodBeneath(root, '/tests/test.sh');
    expect(lstatSync(join(root, 'tests', 'test.sh')).mode & 0o777).toBe(0o755);
    symlinkSync(join(trap, 'keep.txt'), join(root, 'tests', 'other.sh'));
    expect(() => chmodBeneath(root, '/tests/other.sh')).toThrow();
    expect(lstatSync(join(trap, 'keep.txt')).mode & 0o777).not.toBe(0o755);
  });
});

describe('copyOutOf: an artifact taken out of a root an agent has prepared', () => {
  test('a link is carried as the same link, never followed', () => {
    const { root, trap } = setUp();
    mkdirSync(join(root, 'app'));
    symlinkSync(join(trap, 'keep.txt'), join(root, 'app', 'answers.json'));
    const out = join(tempDir(), 'app', 'answers.json');
    expect(copyOutOf(root, '/app/answers.json', out, 1024)).toBe('a symbolic link');
    expect(readlinkSync(out)).toBe(join(trap, 'keep.txt'));
  });

  test('a link on the way (/app a link to a host folder): refused', () => {
    const { root, trap } = setUp();
    writeFileSync(join(trap, 'answers.json'), '{"a": "verbatim"}');
    symlinkSync(trap, join(root, 'app'));
    expect(() => copyOutOf(root, '/app/answers.json', join(tempDir(), 'a.json'), 1024)).toThrow(
      /a link or a file on the way, not followed/,
    );
  });

  test('a FIFO is made again without opening it (no hang); a file over the cap is cut; nothing there is `missing`', () => {
    const { root } = setUp();
    mkdirSync(join(root, 'app'));
    spawnSync('mkfifo', [join(root, 'app', 'fifo.json')]);
    writeFileSync(join(root, 'app', 'big.json'), 'x'.repeat(100));
    const out = tempDir();
    expect(copyOutOf(root, '/app/fifo.json', join(out, 'fifo.json'), 1024)).toBe('a FIFO');
    expect(lstatSync(join(out, 'fifo.json')).isFIFO()).toBe(true);
    expect(copyOutOf(root, '/app/big.json', join(out, 'big.json'), 10)).toBe('a file cut at 10 bytes');
    expect(readFileSync(join(out, 'big.json'), 'utf8')).toBe('x'.repeat(10));
    expect(() => copyOutOf(root, '/app/none.json', join(out, 'none.json'), 10)).toThrow(
      expect.objectContaining({ missing: true }),
    );
    expect(() => copyOutOf(root, '/app/../etc/passwd', join(out, 'p'), 10)).toThrow(/a path with '\.\.'/);
  });
});
