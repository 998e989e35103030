// Issue 25: an export is all or nothing: a failed or stopped one leaves no --out, no staging folder and no folder made
// for it, and the rerun works (a WARC missing a task's source, SIGTERM, a full disk, an existing --out, a mount point).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, runCliInProcess, serve, tempDir, writeJson } from './support/helpers.js';

/** Three tasks, one source each (on a loopback server), and two recordings: one of all three, one missing the last. */
async function frozenSetup(): Promise<{ dir: string; labelled: string; good: string; short: string }> {
  const dir = tempDir();
  const page = (words: string) => `<html><body><p>${words}</p></body></html>`;
  const headers = { 'content-type': 'text/html; charset=utf-8' };
  const server = await serve([
    { path: '/a', body: page('Alpha said the bridge would open in May.'), headers },
    { path: '/b', body: page('Bravo said the road would close in June.'), headers },
    { path: '/c', body: page('Charlie said the port would stay open.'), headers },
  ]);
  const rows = [
    { task: 'alpha', id: 'a1', quote: 'the bridge would open in May', url: `${server.origin}/a`, label: 'verbatim' },
    { task: 'bravo', id: 'b1', quote: 'the road would close in July', url: `${server.origin}/b`, label: 'no_match' },
    { task: 'charlie', id: 'c1', quote: 'the port would stay open', url: `${server.origin}/c`, label: 'verbatim' },
  ];
  const labelled = join(dir, 'labelled.jsonl');
  writeFileSync(labelled, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const record = async (name: string, claims: typeof rows): Promise<string> => {
    const warc = join(dir, `${name}.warc.gz`);
    const claimsFile = writeJson(
      join(dir, `${name}.claims.json`),
      claims.map(({ task: _t, label: _l, ...c }) => c),
    );
    const r = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      claimsFile,
      '--out',
      join(dir, `${name}.answers.json`),
      '--record',
      warc,
    ]);
    expect(r.code, r.stderr).toBe(0);
    return warc;
  };
  return { dir, labelled, good: await record('good', rows), short: await record('short', rows.slice(0, 2)) };
}

/** The folder's entries, staging folders included (they start with a dot). */
const entries = (dir: string): string[] => readdirSync(dir).sort();

describe('export is all or nothing', () => {
  it("a WARC without one task's source: nothing at --out, no staging folder, no folder made for it; the rerun with a whole WARC succeeds", async () => {
    const { dir, labelled, good, short } = await frozenSetup();
    const parent = join(dir, 'datasets');
    mkdirSync(parent);
    const out = join(parent, 'frozen');
    // The last task's source is missing: found after the first two tasks have their folders and archives.
    const failed = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      out,
      '--warc',
      short,
      '--task-field',
      'task',
    ]);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(
      /^quotecheck: error: .*short\.warc\.gz: has no exchange for 1 source of charlie, http:\/\/127\.0\.0\.1:\d+\/c \(1 claim\); give --warc the archive these claims were labelled with \(label --record FILE; repeat --warc for each batch\)/,
    );
    expect(failed.stderr.trim().split('\n')).toHaveLength(1);
    expect(entries(parent)).toEqual([]);

    // Under folders that do not exist yet: they are made for the export, and go with it.
    const deep = join(dir, 'new', 'deeper', 'frozen');
    const failedDeep = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      deep,
      '--warc',
      short,
      '--task-field',
      'task',
    ]);
    expect(failedDeep.code).toBe(2);
    expect(existsSync(join(dir, 'new'))).toBe(false);

    const rerun = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      out,
      '--warc',
      good,
      '--task-field',
      'task',
    ]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(/^wrote 3 tasks \(3 claims, 3 sources\) to .*frozen; a frozen edition/);
    expect(entries(parent)).toEqual(['frozen']);
    expect(entries(out)).toEqual(['README.md', 'alpha', 'bravo', 'charlie']);
    for (const t of entries(out).filter((e) => e !== 'README.md')) {
      expect(existsSync(join(out, t, 'environment', 'sources.warc.gz')), t).toBe(true);
      expect(readFileSync(join(out, t, 'environment', 'Dockerfile'), 'utf8')).toMatch(/COPY sources\.warc\.gz/);
    }
  });

  it('an existing empty --out: left empty (with its mode) by a failed export, replaced whole by the rerun, its mode kept', async () => {
    const { dir, labelled, good, short } = await frozenSetup();
    const out = join(dir, 'frozen');
    mkdirSync(out);
    chmodSync(out, 0o750);
    const failed = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      out,
      '--warc',
      short,
      '--task-field',
      'task',
    ]);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/has no exchange for 1 source of charlie/);
    expect(entries(out)).toEqual([]);
    expect(entries(dir).filter((e) => e.startsWith('.'))).toEqual([]);
    expect(statSync(out).mode & 0o777).toBe(0o750);

    const rerun = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      out,
      '--warc',
      good,
      '--task-field',
      'task',
    ]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(entries(out)).toEqual(['README.md', 'alpha', 'bravo', 'charlie']);
    expect(entries(dir).filter((e) => e.startsWith('.'))).toEqual([]);
    expect(statSync(out).mode & 0o777).toBe(0o750);
  });

  it('SIGTERM while the tasks are written: exit 143, one line, nothing at --out or beside it; the rerun succeeds', async () => {
    const dir = tempDir();
    // Many tasks, so that the export is still writing when the staging folder shows up and the signal is sent.
    const rows = Array.from({ length: 40 }, (_, i) => ({
      id: `s${i}`,
      quote: `quote number ${i}`,
      url: `http://127.0.0.1:9/page-${i}`,
      label: i % 2 ? 'verbatim' : 'no_match',
    }));
    const labelled = join(dir, 'many.jsonl');
    writeFileSync(labelled, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const parent = join(dir, 'datasets');
    mkdirSync(parent);
    const out = join(parent, 'many');
    let sawStaging: string | undefined;
    const r = await runCli(['export', '--allow-private', '--labelled', labelled, '--out', out, '--per-task', '1'], {
      onSpawn: (child) => {
        const poll = setInterval(() => {
          const staging = readdirSync(parent).find((e) => /^\.many\.partial-\d+-[0-9a-f]{8}$/.test(e));
          if (staging === undefined) return;
          sawStaging = staging;
          clearInterval(poll);
          child.kill('SIGTERM');
        }, 1);
        child.on('close', () => clearInterval(poll));
      },
    });
    expect(sawStaging, 'the export finished before its staging folder was seen').toBeDefined();
    expect(r.code, r.stderr).toBe(143);
    expect(r.stderr).toBe(`quotecheck: error: export stopped by SIGTERM; nothing was written to ${out}\n`);
    expect(entries(parent)).toEqual([]);

    const rerun = await runCliInProcess([
      'export',
      '--allow-private',
      '--labelled',
      labelled,
      '--out',
      out,
      '--per-task',
      '1',
    ]);
    expect(rerun.code, rerun.stderr).toBe(0);
    // 40 tasks and the card.
    expect(entries(out)).toHaveLength(41);
    expect(entries(parent)).toEqual(['many']);
  }, 60_000);

  it('a staging folder a killed export left inside --out is named in the refusal', async () => {
    const dir = tempDir();
    const labelled = join(dir, 'one.jsonl');
    writeFileSync(
      labelled,
      JSON.stringify({ id: 'x', quote: 'a quote', url: 'http://127.0.0.1:9/x', label: 'verbatim' }) + '\n',
    );
    const out = join(dir, 'out');
    mkdirSync(join(out, '.partial-4242-0123abcd'), { recursive: true });
    const r = await runCliInProcess(['export', '--labelled', labelled, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `quotecheck: error: --out ${out}: holds .partial-4242-0123abcd, left by an export that was killed; remove it, or choose a new folder\n`,
    );
  });
});

// Root and a private mount namespace: a small tmpfs for a disk that fills up half-way, and --out as a mount point.
const canMount =
  process.getuid?.() === 0 &&
  spawnSync('unshare', ['--mount', '--propagation', 'private', 'true'], { stdio: 'ignore' }).status === 0;

/** Runs `script` (sh, `$1` = `arg`) in a private mount namespace; what it mounts is gone when it returns. */
function inMountNamespace(script: string, arg: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', arg], {
    encoding: 'utf8',
    env: { ...process.env, NODE: process.execPath, CLI },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!canMount)('export on file systems of its own (private mount namespace)', () => {
  it('the disk fills up half-way through the tasks: one line naming it, and the file system left empty', () => {
    const dir = tempDir();
    const rows = Array.from({ length: 6 }, (_, i) => ({
      id: `d${i}`,
      quote: `quote ${i}`,
      url: `http://127.0.0.1:9/d${i}`,
      label: 'verbatim',
    }));
    const labelled = join(dir, 'disk.jsonl');
    writeFileSync(labelled, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    mkdirSync(join(dir, 'small'));
    // Each task ships most of a MB (the oracle's packed quotecheck): 2 MB holds two tasks, not six.
    const r = inMountNamespace(
      `mount -t tmpfs -o size=2m none "$1/small" || exit 90
"$NODE" "$CLI" export --allow-private --labelled "$1/disk.jsonl" --out "$1/small/ds" --per-task 1; echo "exit=$?"
echo "left:"; ls -A "$1/small"`,
      dir,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `^quotecheck: error: writing the dataset to ${dir}/small/ds failed: no space left on the device \\(${dir}/small/\\.ds\\.partial-\\d+-[0-9a-f]{8}/[^)]+\\); nothing was left behind\\n$`,
      ),
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('exit=2\nleft:\n');
  });

  it('--out is a mount point (an empty file system): staged inside it, left empty on failure, filled whole by the rerun', async () => {
    const { dir, labelled, good, short } = await frozenSetup();
    mkdirSync(join(dir, 'mnt'));
    const r = inMountNamespace(
      `mount -t tmpfs none "$1/mnt" || exit 90
"$NODE" "$CLI" export --labelled "${labelled}" --out "$1/mnt" --warc "${short}" --task-field task; echo "exit=$?"
echo "after the failure:"; ls -A "$1/mnt"
"$NODE" "$CLI" export --labelled "${labelled}" --out "$1/mnt" --warc "${good}" --task-field task >/dev/null; echo "exit=$?"
echo "after the rerun:"; LC_ALL=C ls -A "$1/mnt"; ls "$1/mnt"/*/environment/sources.warc.gz | wc -l
echo "beside it:"; ls -A "$1" | grep '^\\.' ; true`,
      dir,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/has no exchange for 1 source of charlie/);
    expect(r.stdout).toBe(
      'exit=2\nafter the failure:\nexit=0\nafter the rerun:\nREADME.md\nalpha\nbravo\ncharlie\n3\nbeside it:\n',
    );
  });
});
