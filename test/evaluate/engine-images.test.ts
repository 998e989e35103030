// The images a trial runs in (src/evaluate/engine-images.ts) against a stand-in engine: a `docker` on PATH that logs
// its command lines, keeps the tags it built and fails a build whose context holds a file named FAIL. What is checked
// is evaluate's side: an image named by its build context's content, built once for the tasks that share it, built
// again when a file changes, kept when the engine has it, and a failed build tried again.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contextImage } from '../../src/evaluate/engine-images.js';
import { tempDir } from '../support/helpers.js';

const ENGINE = `#!/bin/sh
# A stand-in engine: logs each command line; "image inspect" knows the tags in $KEPT; "build" adds its tag there.
printf '%s\\n' "$*" >> "$ENGINE_LOG"
case "$1 $2" in
  "image inspect") grep -qxF -- "$5" "$KEPT" 2>/dev/null; exit $? ;;
esac
if [ "$1" = build ]; then
  if [ -e "$6/FAIL" ]; then echo "step 1/2: RUN false"; echo "error: the build failed" >&2; exit 1; fi
  echo "built $3"; printf '%s\\n' "$3" >> "$KEPT"; exit 0
fi
exit 2
`;

let dir: string;
let savedPath: string | undefined;
const log = (): string[] => readFileSync(join(dir, 'log'), 'utf8').trim().split('\n').filter(Boolean);
const builds = (): string[] => log().filter((l) => l.startsWith('build '));

/** A build context: a Dockerfile and the files given. */
function context(files: Record<string, string>): string {
  const ctx = tempDir();
  writeFileSync(join(ctx, 'Dockerfile'), 'FROM node:20-bookworm-slim\nCOPY . /app/\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(ctx, name), text);
  return ctx;
}

beforeAll(() => {
  // The engine's folder lives as long as this file's tests (tempDir's go after each test).
  dir = mkdtempSync(join(tmpdir(), 'quotecheck-engine-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'docker'), ENGINE);
  chmodSync(join(bin, 'docker'), 0o755);
  writeFileSync(join(dir, 'log'), '');
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}:${savedPath}`;
  process.env.ENGINE_LOG = join(dir, 'log');
  process.env.KEPT = join(dir, 'kept');
});

afterAll(() => {
  process.env.PATH = savedPath;
  rmSync(dir, { recursive: true, force: true });
});

describe("a trial's images, by their build context's content", () => {
  test('tasks whose contexts hold the same files share one image, built once; a changed file builds another', async () => {
    const files = { 'claims.json': '[{"id":"a"}]' };
    const [a, b] = await Promise.all([
      contextImage('docker', context(files), 'environment', 60),
      contextImage('docker', context(files), 'environment', 60),
    ]);
    expect(a).toMatchObject({ ok: true, built: true });
    expect(b).toEqual(a);
    expect(a.ok && a.image).toMatch(/^localhost\/quotecheck-environment:[0-9a-f]{32}$/);
    expect(builds()).toHaveLength(1);
    const changed = await contextImage('docker', context({ 'claims.json': '[{"id":"b"}]' }), 'environment', 60);
    expect(changed.ok && changed.image).not.toBe(a.ok && a.image);
    expect(builds()).toHaveLength(2);
  });

  test('an image the engine already holds is run as it is: no build', async () => {
    const ctx = context({ 'x.txt': 'kept' });
    const first = await contextImage('docker', ctx, 'tests', 60);
    expect(first.ok && first.image).toMatch(/^localhost\/quotecheck-tests:/);
    const before = builds().length;
    // Another process (a later evaluate) asks for the same content: the engine has it.
    const copy = context({ 'x.txt': 'kept' });
    expect(await contextImage('docker', copy, 'tests', 60)).toMatchObject({ ok: true });
    expect(builds()).toHaveLength(before);
  });

  test('a failed build says why in its last lines, and the next trial that needs the image tries again', async () => {
    const ctx = context({ FAIL: '' });
    const failed = await contextImage('docker', ctx, 'environment', 60);
    expect(failed).toMatchObject({ ok: false, reason: expect.stringContaining('error: the build failed') });
    const tries = builds().length;
    await contextImage('docker', ctx, 'environment', 60);
    expect(builds()).toHaveLength(tries + 1);
  });

  test('no Dockerfile: the prebuilt image the task names, else a reason naming the missing file', async () => {
    const bare = tempDir();
    expect(await contextImage('docker', bare, 'environment', 60, 'registry.example/q:t-1')).toMatchObject({
      ok: true,
      image: 'registry.example/q:t-1',
      built: false,
    });
    expect(await contextImage('docker', bare, 'tests', 60)).toMatchObject({
      ok: false,
      reason: 'tests/Dockerfile is missing',
    });
  });
});
