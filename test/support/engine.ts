// The real container engine the tests run trials on (CI installs Podman and makes the base image's stand-in: .ci/run
// and scripts/base-image-stand-in.sh), or why there is none: such tests are skipped and say why, never passed.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { expect, type TestContext } from 'vitest';
import { canIsolate } from '../../src/evaluate/namespace-root.js';
import { tasksByName, writeDataset } from '../../src/dataset/export.js';
import { readLabelled } from '../../src/dataset/labelled.js';
import { readRecordedRuns, writeTaskArchives } from '../../src/dataset/recorded-runs.js';
import { afterTest, FIXTURES, ROOT, fileTempDir, runCliInProcess, serve, writeJson } from './helpers.js';
import type { EngineName } from '../../src/results/evaluation-report.js';

/** The public base image every exported task builds FROM. */
export const BASE_IMAGE = 'docker.io/library/node:20-bookworm-slim';

const answers = (cmd: string, args: string[]): boolean =>
  spawnSync(cmd, args, { stdio: 'ignore', timeout: 30_000 }).status === 0;

/** The engine the tests use: Docker when its daemon answers, else Podman; with the base image, or why not. */
function probe(): { engine: EngineName } | { why: string } {
  const engine = (['docker', 'podman'] as const).find((e) => answers(e, ['info']));
  if (!engine) return { why: 'no container engine answers here (`docker info`, `podman info`): see .ci/run' };
  if (!answers(engine, ['image', 'inspect', BASE_IMAGE]))
    return { why: `${engine} has no ${BASE_IMAGE} (scripts/base-image-stand-in.sh makes its stand-in)` };
  return { engine };
}

export const ENGINE = probe();

/** The engine, in a test that needs one; the test is skipped, with the reason, when there is none. */
export function needEngine(ctx: TestContext): EngineName {
  if ('why' in ENGINE) ctx.skip(ENGINE.why);
  return (ENGINE as { engine: EngineName }).engine;
}

const page = (words: string): string => `<html><head><title>Notes</title></head><body><p>${words}</p></body></html>`;
const HARBOUR = 'The harbour master rang the bell at six every morning, fog or no fog.';

/** The builder's claims: a `pages` task (HTML) and a `papers` task (an English PDF and a Japanese one, which needs
 * poppler-data), each half verbatim. */
function claims(origin: string) {
  return [
    { task: 'pages', id: 'h1', quote: 'rang the bell at six every morning', url: `${origin}/notes` },
    { task: 'pages', id: 'h2', quote: 'rang the bell at seven every morning', url: `${origin}/notes` },
    {
      task: 'papers',
      id: 'p1',
      quote: 'Trace-based Just-in-Time Type Specialization for Dynamic Languages',
      url: `${origin}/tracemonkey.pdf`,
    },
    {
      task: 'papers',
      id: 'p2',
      quote: 'Trace-based Ahead-of-Time Type Specialization',
      url: `${origin}/tracemonkey.pdf`,
    },
    { task: 'papers', id: 'p3', quote: 'わたくしといふ現象は', url: `${origin}/jo.pdf` },
    { task: 'papers', id: 'p4', quote: 'わたくしといふ幻想は', url: `${origin}/jo.pdf` },
  ];
}

const EXPECTED = { h1: 'verbatim', h2: 'no_match', p1: 'verbatim', p2: 'no_match', p3: 'verbatim', p4: 'no_match' };

/**
 * The builder's path: the claims run on this machine with the sources recorded, the answers as labels, a frozen
 * edition exported with the recording (its sources then gone: the tasks need no network).
 */
export async function frozenEdition(): Promise<string> {
  const dir = fileTempDir();
  const server = await serve([
    { path: '/notes', body: page(HARBOUR), headers: { 'content-type': 'text/html; charset=utf-8' } },
    {
      path: '/tracemonkey.pdf',
      body: readFileSync(join(FIXTURES, 'tracemonkey-p1.pdf')),
      headers: { 'content-type': 'application/pdf' },
    },
    {
      path: '/jo.pdf',
      body: readFileSync(join(ROOT, 'golden', 'sources', 'pdf', 'jo.pdf')),
      headers: { 'content-type': 'application/pdf' },
    },
  ]);
  const rows = claims(server.origin);
  const warc = join(dir, 'run.warc.gz');
  const claimsFile = writeJson(
    join(dir, 'claims.json'),
    rows.map(({ task: _t, ...c }) => c),
  );
  const answers = join(dir, 'answers.json');
  const run = await runCliInProcess([
    'run',
    '--allow-private',
    '--quiet',
    '--claims',
    claimsFile,
    '--out',
    answers,
    '--record',
    warc,
  ]);
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.parse(readFileSync(answers, 'utf8'))).toEqual(EXPECTED);
  await server.close();
  const labelled = join(dir, 'labelled.jsonl');
  const labels = EXPECTED as Record<string, string>;
  writeFileSync(labelled, `${rows.map((r) => JSON.stringify({ ...r, label: labels[r.id] })).join('\n')}\n`);
  const { names, tasks } = tasksByName(readLabelled(labelled, { taskField: 'task' }));
  const out = join(dir, 'dataset');
  await writeTaskArchives(
    writeDataset(out, tasks, 'x', { frozen: true, taskNames: names }),
    await readRecordedRuns([warc]),
    tasks,
  );
  return out;
}

/**
 * A PATH of this machine's commands but the container engines': a machine with no engine installed. Not under /tmp,
 * which the namespace probe mounts over.
 */
export function pathWithoutEngines(): string {
  const bin = mkdtempSync('/var/tmp/quotecheck-test-bin-');
  chmodSync(bin, 0o755);
  afterTest(() => rmSync(bin, { recursive: true, force: true }));
  for (const dir of ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'])
    for (const name of readdirSync(dir)) {
      if (name === 'docker' || name === 'podman') continue;
      try {
        if (!statSync(join(bin, name), { throwIfNoEntry: false })) symlinkSync(join(dir, name), join(bin, name));
      } catch {
        // a name seen in an earlier folder wins, as on PATH
      }
    }
  return bin;
}

/**
 * The isolation for evaluate in tests whose subject is not the isolation (an export, a replay, a layout, a label run):
 * the namespace emulation where it runs (no image to build: quick), else evaluate's own choice. The engine's own
 * tests, the golden tasks' scoreboard and the audit's use the engine.
 */
export const QUICK_ISOLATION: { isolation?: 'namespace' } = canIsolate() ? { isolation: 'namespace' } : {};

/** The same as command-line arguments for `quotecheck evaluate`. */
export const QUICK_ISOLATION_ARGS: string[] = QUICK_ISOLATION.isolation ? ['--isolation', 'namespace'] : [];
