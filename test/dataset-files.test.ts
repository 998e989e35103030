// What export writes beside its tasks (src/harbor/dataset-files.ts): dataset.toml by Harbor's manifest rules, each
// task's digest as Harbor's publisher computes it (checked against implementations of that rule of our own, in
// TypeScript and in Python); the card's numbers, recounted from the task folders; the prebuilt images and the script
// that builds them; the licence, the audit; every option that would make a task Harbor cannot run, refused; and the
// sizes: a task's solution/ at most 1 MB, so 150 tasks at most 150 MB.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { runCliInProcess, taskFolders, tempDir } from './support/helpers.js';

/*
 * Harbor's DatasetManifest (src/harbor/models/dataset/manifest.py of Harbor v0.22.0), its rules ported to zod and held
 * strictly (pydantic would ignore an unknown key): [dataset] name `<org>/<name>` by ORG_NAME_PATTERN with no '..',
 * an optional non-empty version, description, authors ({name, email?}), keywords; [[tasks]] each a name by the same
 * rule and a digest `sha256:<64 hex>`; [[files]] each a simple file name and an optional digest.
 */
const ORG_NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]*\/[a-zA-Z0-9][a-zA-Z0-9._-]*$/;
const orgName = z.string().refine((v) => ORG_NAME.test(v) && !v.includes('..'), "'org/name', no '..'");
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const DatasetManifest = z.strictObject({
  schema_version: z.string().default('1.0'),
  dataset: z.strictObject({
    name: orgName,
    version: z.string().min(1).nullable().optional(),
    description: z.string().default(''),
    authors: z.array(z.strictObject({ name: z.string(), email: z.string().nullable().optional() })).default([]),
    keywords: z.array(z.string()).default([]),
  }),
  tasks: z.array(z.strictObject({ name: orgName, digest: z.string().regex(DIGEST) })).default([]),
  files: z
    .array(z.strictObject({ path: z.string().regex(/^[^/\\]+$/), digest: z.string().regex(DIGEST).or(z.literal('')) }))
    .default([]),
});

/**
 * Harbor's task digest, written again from its publisher's rule (Packager.compute_content_hash): task.toml,
 * instruction.md, README.md and trajectory.json when there, every file under environment/, tests/, solution/, steps/;
 * sorted by their '/' paths; `<path>\0<sha256 hex>\n` each into one sha256.
 */
function harborDigest(taskDir: string): string {
  const files: string[] = ['task.toml', 'instruction.md', 'README.md', 'trajectory.json'].filter((f) =>
    existsSync(join(taskDir, f)),
  );
  for (const d of ['environment', 'tests', 'solution', 'steps']) {
    if (!existsSync(join(taskDir, d))) continue;
    for (const e of readdirSync(join(taskDir, d), { recursive: true, withFileTypes: true }))
      if (e.isFile()) files.push(relative(taskDir, join(e.parentPath, e.name)).split('\\').join('/'));
  }
  files.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const outer = createHash('sha256');
  for (const f of files)
    outer.update(
      `${f}\0${createHash('sha256')
        .update(readFileSync(join(taskDir, f)))
        .digest('hex')}\n`,
    );
  return `sha256:${outer.digest('hex')}`;
}

/** The same rule in Python (pathlib's rglob and sort, hashlib), when python3 is on this machine. */
const PYTHON_DIGEST = `
import hashlib, sys
from pathlib import Path
for t in sys.argv[1:]:
    d = Path(t)
    fs = [d / f for f in ("task.toml", "instruction.md", "README.md", "trajectory.json") if (d / f).exists()]
    for sub in ("environment", "tests", "solution", "steps"):
        if (d / sub).exists():
            fs += [p for p in (d / sub).rglob("*") if p.is_file()]
    fs.sort(key=lambda p: p.relative_to(d).as_posix())
    o = hashlib.sha256()
    for f in fs:
        o.update(f"{f.relative_to(d).as_posix()}\\0{hashlib.sha256(f.read_bytes()).hexdigest()}\\n".encode())
    print("sha256:" + o.hexdigest())
`;
const hasPython = spawnSync('python3', ['--version']).status === 0;

/** A labelled file of varied claims: three hosts (one with a port), two languages, PDF and HTML evidence, dates. */
function labelledFile(dir: string): string {
  const rows = [
    {
      url: 'https://a.example/one',
      lang: 'en',
      quote: 'the harbour opened at dawn',
      label: 'verbatim',
      ct: 'text/html; charset=utf-8',
      ex: 'readability',
      d: 'verbatim',
      date: '2025-03-01T10:00:00Z',
    },
    {
      url: 'https://a.example/one#p2',
      lang: 'en',
      quote: 'the harbour closed at dawn',
      label: 'no_match',
      ct: 'text/html',
      ex: 'readability',
      d: 'near_miss',
      date: '2025-03-02T10:00:00Z',
    },
    {
      url: 'https://b.example/paper.pdf',
      lang: 'en',
      quote: 'results were significant',
      label: 'verbatim',
      ct: 'application/pdf',
      ex: 'pdftotext',
      d: 'verbatim',
      date: '2025-04-11T08:30:00Z',
    },
    {
      url: 'https://b.example/paper.pdf',
      lang: 'en',
      quote: 'results were not significant',
      label: 'no_match',
      ct: 'application/pdf',
      ex: 'pdftotext',
      d: 'partial',
      date: '2025-04-11T08:30:00Z',
    },
    {
      url: 'https://B.example:8443/ru',
      lang: 'ru',
      quote: 'гавань открылась на рассвете',
      label: 'verbatim',
      ct: 'text/html',
      ex: 'fulltext',
      d: 'verbatim',
      date: '2024-12-31T23:00:00Z',
    },
    {
      url: 'https://c.example/gone',
      quote: 'never there',
      label: 'no_match',
      ct: 'text/html',
      ex: 'readability',
      d: 'not_found',
    },
  ];
  const file = join(dir, 'claims.labelled.jsonl');
  const lines = rows.map((r, i) =>
    JSON.stringify({
      id: `c${i + 1}`,
      quote: r.quote,
      url: r.url,
      label: r.label,
      ...(r.lang ? { language: r.lang } : {}),
      ...(r.date ? { verify_date: r.date } : {}),
      evidence: {
        sha256: 'a'.repeat(64),
        content_type: r.ct,
        extractor: r.ex,
        versions: { quotecheck: '0.1.0', ...(r.ex === 'pdftotext' ? { pdftotext: '22.12.0' } : {}) },
        diagnosis: r.d,
      },
    }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The card's table, as `{ what: value }`. */
function cardTable(card: string): Record<string, string> {
  const rows = card.split('\n').filter((l) => /^\| [^|]+ \| .* \|$/.test(l) && !l.startsWith('| |'));
  return Object.fromEntries(rows.map((l) => l.slice(2, -2).split(' | ') as [string, string]));
}

describe('the dataset files: dataset.toml, the card, the digests', () => {
  test("dataset.toml loads by Harbor's manifest rules, and every digest is Harbor's, as two implementations of its rule compute it", async () => {
    const dir = tempDir();
    const out = join(dir, 'ds');
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelledFile(dir),
      '--out',
      out,
      '--per-task',
      '2',
      '--name',
      'quotes',
      '--org',
      'my-org',
      '--author',
      'Ada Lovelace <ada@example.org>',
      '--keyword',
      'quotes',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("beside the tasks: README.md (the card), dataset.toml (every task's digest)");
    const text = readFileSync(join(out, 'dataset.toml'), 'utf8');
    const manifest = DatasetManifest.parse(parseToml(text));
    expect(manifest.dataset).toMatchObject({
      name: 'my-org/quotes',
      authors: [{ name: 'Ada Lovelace', email: 'ada@example.org' }],
      keywords: ['quotes'],
    });
    const tasks = taskFolders(out);
    expect(manifest.tasks.map((t) => t.name)).toEqual(tasks.map((t) => `my-org/${t}`));
    for (const [i, t] of tasks.entries()) expect(manifest.tasks[i]!.digest, t).toBe(harborDigest(join(out, t)));
    if (hasPython) {
      const py = execFileSync('python3', ['-c', PYTHON_DIGEST, ...tasks.map((t) => join(out, t))], {
        encoding: 'utf8',
      });
      expect(py.trim().split('\n')).toEqual(manifest.tasks.map((t) => t.digest));
    }
    // Leading comments, then the manifest: Harbor keeps the comments as its header.
    expect(text.split('\n')[0]).toMatch(/^# Dataset manifest for my-org\/quotes/);
    // A digest changes with any byte of the task: a changed claim is another task version.
    const claims = join(out, tasks[0]!, 'environment', 'claims.json');
    writeFileSync(claims, readFileSync(claims, 'utf8').replace('harbour', 'harbor'));
    expect(harborDigest(join(out, tasks[0]!))).not.toBe(manifest.tasks[0]!.digest);
  });

  test("the card's numbers are the dataset's, recounted from its task folders and the labelled file", async () => {
    const dir = tempDir();
    const labelled = labelledFile(dir);
    const out = join(dir, 'ds');
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      out,
      '--per-task',
      '2',
      '--license',
      'CC-BY-4.0',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const card = readFileSync(join(out, 'README.md'), 'utf8');
    const table = cardTable(card);
    // Recounted: claims and gold from each task's files; the rest from the labelled rows of those claims.
    const rows = new Map(
      readFileSync(labelled, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, any>)
        .map((row) => [row.id as string, row]),
    );
    const claims = taskFolders(out).flatMap((t) =>
      (
        JSON.parse(readFileSync(join(out, t, 'environment', 'claims.json'), 'utf8')) as { id: string; url: string }[]
      ).map((c) => ({
        ...c,
        gold: (JSON.parse(readFileSync(join(out, t, 'tests', 'gold.json'), 'utf8')) as Record<string, string>)[c.id],
      })),
    );
    const noMatch = claims.filter((c) => c.gold === 'no_match');
    const pct = (n: number, of: number): string => `${((100 * n) / of).toFixed(1)}%`;
    expect(table.claims).toBe(String(claims.length));
    expect(table.tasks).toBe(String(taskFolders(out).length));
    expect(table.sources).toBe(String(new Set(claims.map((c) => c.url.split('#')[0])).size));
    expect(table.hosts).toBe(String(new Set(claims.map((c) => new URL(c.url).hostname)).size));
    expect(table.verbatim).toBe(
      `${claims.length - noMatch.length} (${pct(claims.length - noMatch.length, claims.length)})`,
    );
    expect(table.no_match).toBe(`${noMatch.length} (${pct(noMatch.length, claims.length)})`);
    const tally = (values: string[]): Map<string, number> => {
      const m = new Map<string, number>();
      for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
      return m;
    };
    const parsedList = (cell: string): Map<string, number> =>
      new Map(
        cell.split(', ').map((item) => [item.replace(/ \d+( \(.*\))?$/, ''), Number(/ (\d+)(?: \(|$)/.exec(item)![1])]),
      );
    expect(parsedList(table['no_match by diagnosis']!)).toEqual(
      tally(noMatch.map((c) => rows.get(c.id)!.evidence.diagnosis)),
    );
    expect(parsedList(table.languages!)).toEqual(tally(claims.map((c) => rows.get(c.id)!.language ?? 'not given')));
    expect(parsedList(table['content types']!)).toEqual(
      tally(claims.map((c) => rows.get(c.id)!.evidence.content_type.split(';')[0])),
    );
    expect(parsedList(table["quotes' scripts"]!)).toEqual(
      new Map([
        ['Latin', 5],
        ['Cyrillic', 1],
      ]),
    );
    expect(table['verify dates']).toBe('2024-12-31 to 2025-04-11 (1 claim without one)');
    // How it was made, where it runs, the licence and the rights.
    expect(card).toContain('quotecheck 0.1.0 (6 labels), and for the PDF sources pdftotext 22.12.0 (2 labels)');
    expect(card).toContain('quotecheck export --labelled claims.labelled.jsonl --out ds/ --per-task 2');
    expect(card).toMatch(/runs on docker, daytona, modal, e2b/);
    expect(card).toContain('licensed under `CC-BY-4.0` (SPDX)');
    expect(card).toContain('ships URLs and the quotes attributed to them, not the pages');
    expect(existsSync(join(out, 'dataset.toml'))).toBe(false);
    expect(r.stdout).toContain('no --org, so no [task] name');
  });

  test('--audit: the audit of this very dataset is summed up in the card; an audit of other tasks is refused', async () => {
    const dir = tempDir();
    const labelled = labelledFile(dir);
    const first = await runCliInProcess(['export', '--labelled', labelled, '--out', join(dir, 'a'), '--per-task', '3']);
    expect(first.code, first.stderr).toBe(0);
    const names = taskFolders(join(dir, 'a'));
    const audit = join(dir, 'audit.json');
    const report = (tasks: string[], ok: boolean) =>
      writeFileSync(
        audit,
        JSON.stringify({
          ok,
          counts: { pass: 40, fail: ok ? 0 : 1, 'harness-only': 3, 'not-applicable': 2, error: 0 },
          failures: ok ? [] : ['planted reward.json on x-001 (separate, as agent): reward 1'],
          harness_only: ['a', 'b', 'c'],
          tasks: tasks.map((name) => ({ name })),
        }),
      );
    report(names, true);
    const again = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      join(dir, 'b'),
      '--per-task',
      '3',
      '--audit',
      audit,
    ]);
    expect(again.code, again.stderr).toBe(0);
    const card = readFileSync(join(dir, 'b', 'README.md'), 'utf8');
    expect(card).toContain(
      '`quotecheck audit`: passed (pass 40, harness-only 3, not-applicable 2; 3 attacks only a harness can stop worked in shared mode).',
    );
    report(['someone-else-001'], false);
    const other = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      join(dir, 'c'),
      '--per-task',
      '3',
      '--audit',
      audit,
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /--audit .*audit\.json: audits 1 task \(someone-else-001\.\.\.\), not this export's 2 tasks/,
    );
    expect(existsSync(join(dir, 'c'))).toBe(false);
  });
});

describe('prebuilt and pinned images', () => {
  test("--image-repo and --verifier-image-repo: each task.toml names its images, tagged by Harbor's hash of the folder; build-images.sh builds them", async () => {
    const dir = tempDir();
    const out = join(dir, 'ds');
    const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelledFile(dir),
      '--out',
      out,
      '--per-task',
      '3',
      '--image-repo',
      'ghcr.io/my-org/quotes',
      '--verifier-image-repo',
      'registry.example.org:5000/my-org/quotes-verifier',
      '--base-image',
      `node:20-bookworm-slim@${digest}`,
      '--apt-version',
      'poppler-utils=22.12.0-2+deb12u2',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^quotecheck: warning: the verifier images \(registry\.example\.org:5000\/my-org\/quotes-verifier\) hold the gold labels/,
    );
    const script = readFileSync(join(out, 'build-images.sh'), 'utf8');
    expect(statSync(join(out, 'build-images.sh')).mode & 0o111).toBe(0o111);
    for (const t of taskFolders(out)) {
      const toml = parseToml(readFileSync(join(out, t, 'task.toml'), 'utf8')) as Record<string, any>;
      const agent = toml.environment.docker_image as string;
      const verifier = toml.verifier.environment.docker_image as string;
      expect(agent).toMatch(new RegExp(`^ghcr\\.io/my-org/quotes:${t}-[0-9a-f]{12}$`));
      expect(verifier).toMatch(new RegExp(`^registry\\.example\\.org:5000/my-org/quotes-verifier:${t}-[0-9a-f]{12}$`));
      expect(script).toContain(`build ${agent} ${t}/environment\n`);
      expect(script).toContain(`build ${verifier} ${t}/tests\n`);
      // Both Dockerfiles start from the pinned image; the agent's installs the pinned pdftotext.
      for (const f of ['environment/Dockerfile', 'tests/Dockerfile'])
        expect(readFileSync(join(out, t, f), 'utf8')).toContain(`FROM node:20-bookworm-slim@${digest}\n`);
      expect(readFileSync(join(out, t, 'environment', 'Dockerfile'), 'utf8')).toContain(
        'apt-get install -y --no-install-recommends poppler-utils=22.12.0-2+deb12u2 poppler-data ca-certificates curl',
      );
    }
    if (spawnSync('shellcheck', ['--version']).status === 0)
      expect(spawnSync('shellcheck', [join(out, 'build-images.sh')], { encoding: 'utf8' }).stdout).toBe('');
    // The script runs: a stand-in engine that records what it is asked.
    const log = join(dir, 'engine.log');
    const engine = join(dir, 'engine');
    writeFileSync(engine, `#!/bin/sh\necho "$@" >> ${log}\n`, { mode: 0o755 });
    const run = spawnSync('bash', [join(out, 'build-images.sh')], {
      env: { ...process.env, ENGINE: engine },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    const asked = readFileSync(log, 'utf8').trim().split('\n');
    expect(asked.filter((l) => l.startsWith('build -t'))).toHaveLength(2 * taskFolders(out).length);
    expect(asked.filter((l) => l.startsWith('push'))).toHaveLength(2 * taskFolders(out).length);
  });

  test.each([
    [
      ['--agent-network', 'no-network'],
      /--agent-network no-network: a live edition's agent reads its sources on the web/,
    ],
    [
      ['--verifier', 'shared', '--verifier-image-repo', 'r.example/v'],
      /--verifier-image-repo: a shared verifier has no image of its own/,
    ],
    [
      ['--verifier', 'shared', '--verifier-network', 'no-network'],
      /--verifier-network: a shared verifier runs in the agent's container/,
    ],
    [
      ['--image-repo', 'r.example/q', '--verifier-image-repo', 'r.example/q'],
      /the same repository as --image-repo; the verifier images hold the gold labels/,
    ],
    [
      ['--layout', 'skillsbench', '--image-repo', 'r.example/q'],
      /task\.md \(--layout skillsbench\) names no prebuilt image/,
    ],
    [
      ['--image-repo', 'ghcr.io/Me/Quotes'],
      /--image-repo "ghcr\.io\/Me\/Quotes": give an image repository without a tag/,
    ],
    [
      ['--image-repo', 'ghcr.io/me/quotes:v1'],
      /--image-repo "ghcr\.io\/me\/quotes:v1": give an image repository without a tag/,
    ],
    [['--base-image', 'node:20-bookworm-slim'], /--base-image "node:20-bookworm-slim": is not pinned by a digest/],
    [['--base-image', 'node@sha256:abc'], /is not an image name with a sha256 digest/],
    [
      ['--apt-version', 'libc6=2.36-9'],
      /--apt-version "libc6=2\.36-9": the image installs poppler-utils, poppler-data, ca-certificates, curl/,
    ],
    [['--apt-version', 'curl=latest'], /"latest" is not a Debian version/],
    [['--apt-version', 'curl=7.88.1-10', '--apt-version', 'curl=7.88.1-11'], /--apt-version: curl given twice/],
    [['--license', 'CC-BY'], /--license "CC-BY": not an SPDX license expression/],
  ])('%j is refused, naming why, before anything is written', async (args, why) => {
    const dir = tempDir();
    const r = await runCliInProcess(['export', '--labelled', labelledFile(dir), '--out', join(dir, 'ds'), ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(why);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, 'ds'))).toBe(false);
  });

  test('--license takes SPDX expressions and LicenseRef- terms; LICENSE holds the text of each license it names', async () => {
    const texts: Record<string, { has: RegExp[]; lacks?: RegExp }> = {
      'CC-BY-4.0 OR MIT': {
        has: [
          /any one of the licenses below/,
          /Attribution 4\.0 International Public License/,
          /Permission is hereby granted/,
        ],
      },
      'LicenseRef-my-terms': { has: [/LicenseRef-my-terms: terms of your own/], lacks: /={78}/ },
      'CC0-1.0': { has: [/CC0 1\.0 Universal/, /are their owners' and not covered/] },
    };
    for (const [licence, { has, lacks }] of Object.entries(texts)) {
      const dir = tempDir();
      const r = await runCliInProcess([
        'export',
        '--labelled',
        labelledFile(dir),
        '--out',
        join(dir, 'ds'),
        '--license',
        licence,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(dir, 'ds', 'README.md'), 'utf8')).toContain(`licensed under \`${licence}\``);
      const text = readFileSync(join(dir, 'ds', 'LICENSE'), 'utf8').replace(/[ \n]+/g, ' ');
      for (const re of has) expect(text).toMatch(re);
      if (lacks) expect(text).not.toMatch(lacks);
      expect(r.stdout).toContain(`LICENSE (${licence}'s text)`);
      // Terms of one's own are the author's to write: said on stderr, not made up.
      expect(r.stderr.includes('warning: LICENSE lacks LicenseRef-my-terms')).toBe(licence === 'LicenseRef-my-terms');
    }
  });
});

describe('small tasks', () => {
  /** Bytes under a folder (regular files). */
  const bytesUnder = (dir: string): number =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .reduce((n, e) => n + statSync(join(e.parentPath, e.name)).size, 0);

  test("a task's solution/ is at most 1 MB, so that 150 tasks without archives are at most 150 MB", async () => {
    const dir = tempDir();
    const out = join(dir, 'ds');
    const r = await runCliInProcess(['export', '--labelled', labelledFile(dir), '--out', out, '--per-task', '2']);
    expect(r.code, r.stderr).toBe(0);
    const tasks = taskFolders(out);
    for (const t of tasks) {
      expect(readdirSync(join(out, t, 'solution')).sort()).toEqual(['quotecheck.mjs', 'quotecheck.tgz', 'solve.sh']);
      expect(bytesUnder(join(out, t, 'solution')), t).toBeLessThanOrEqual(1_000_000);
    }
    // Every task ships the same files but its claims and gold (a few KB for ten claims): the largest task, 150 times.
    const largest = Math.max(...tasks.map((t) => bytesUnder(join(out, t))));
    expect(largest * 150).toBeLessThanOrEqual(150_000_000);
  });
});
