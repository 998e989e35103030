// Issue 33: the frozen-edition check runs each task's own solve.sh (its retries, its arguments), so a source recorded
// as 503 then 200 passes, as it does in the container; and the check stays fast (a replay waits for no backoff).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tasksByName, writeDataset } from '../src/dataset/export.js';
import { readLabelled } from '../src/dataset/labelled.js';
import { readRecordedRuns, writeTaskArchives } from '../src/dataset/recorded-runs.js';
import { frozenDisagreements } from '../src/dataset/frozen-check.js';
import { runEvaluation } from '../src/evaluate/evaluate.js';
import { QUICK_ISOLATION } from './support/engine.js';
import { PROVIDERS } from '../src/dataset/providers.js';
import { pdftotextVersion } from '../src/extract/pdf/pdftotext-version.js';
import { parse as parseToml } from 'smol-toml';
import { runCli, runCliInProcess, serve, tempDir, writeJson } from './support/helpers.js';

const page = (words: string): string => `<html><body><p>${words}</p></body></html>`;
const html = { 'content-type': 'text/html; charset=utf-8' };
const FLAKY = 'The ferry timetable changes on the first Monday of March.';
const STEADY = 'Lighthouse keepers logged every passing vessel by hand.';

/** Two sources on loopback, one answering 503 (Retry-After: 1) once before its 200; a run of their claims recorded; the labelled file. */
async function recordedRun(): Promise<{ dir: string; labelled: string; warc: string; hits: () => number }> {
  const dir = tempDir();
  const server = await serve([
    {
      path: '/flaky',
      body: page(FLAKY),
      headers: html,
      failFirst: { count: 1, status: 503, headers: { 'retry-after': '1' } },
    },
    { path: '/steady', body: page(STEADY), headers: html },
  ]);
  const rows = [
    {
      task: 'ferry',
      id: 'f1',
      quote: 'changes on the first Monday of March',
      url: `${server.origin}/flaky`,
      label: 'verbatim',
    },
    {
      task: 'ferry',
      id: 'f2',
      quote: 'changes on the last Monday of March',
      url: `${server.origin}/flaky`,
      label: 'no_match',
    },
    {
      task: 'light',
      id: 's1',
      quote: 'logged every passing vessel by hand',
      url: `${server.origin}/steady`,
      label: 'verbatim',
    },
    {
      task: 'light',
      id: 's2',
      quote: 'logged every passing ship by hand',
      url: `${server.origin}/steady`,
      label: 'no_match',
    },
  ];
  const labelled = join(dir, 'labelled.jsonl');
  writeFileSync(labelled, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const warc = join(dir, 'run.warc.gz');
  const claims = writeJson(
    join(dir, 'claims.json'),
    rows.map(({ task: _t, label: _l, ...c }) => c),
  );
  // The run's defaults, as a builder records: 3 retries, so the 503 is followed by the 200.
  const rec = await runCliInProcess([
    'run',
    '--allow-private',
    '--quiet',
    '--claims',
    claims,
    '--out',
    join(dir, 'answers.json'),
    '--record',
    warc,
  ]);
  expect(rec.code, rec.stderr).toBe(0);
  expect(JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8'))).toEqual({
    f1: 'verbatim',
    f2: 'no_match',
    s1: 'verbatim',
    s2: 'no_match',
  });
  return { dir, labelled, warc, hits: () => server.hits('/flaky') };
}

/** The recorded run written as a frozen dataset (one task per `task` field), each task with its own archive; no check run yet. */
async function frozenDataset() {
  const { dir, labelled, warc } = await recordedRun();
  const { names, tasks } = tasksByName(readLabelled(labelled, { taskField: 'task' }));
  const out = join(dir, 'dataset');
  const result = writeDataset(out, tasks, 'x', { frozen: true, taskNames: names });
  await writeTaskArchives(result, await readRecordedRuns([warc]), tasks);
  return { out, result, tasks };
}

describe('export --warc: the frozen check runs what solve.sh runs', () => {
  it('a source recorded as 503 then 200 passes, quickly, and the frozen oracle scores 1.000', async () => {
    const { dir, labelled, warc, hits } = await recordedRun();
    expect(hits()).toBe(2);
    const out = join(dir, 'frozen');
    const started = performance.now();
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      out,
      '--warc',
      warc,
      '--task-field',
      'task',
    ]);
    const seconds = (performance.now() - started) / 1000;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wrote 2 tasks \(4 claims, 2 sources\) to .*; a frozen edition/);
    // The replay honours no Retry-After and no backoff: the recorded 503's one-second wait is not waited again.
    expect(seconds).toBeLessThan(10);
    // Nothing but the tasks is left in the dataset: the check's scratch folders are gone.
    expect(readdirSync(out).sort()).toEqual(['README.md', 'ferry', 'light']);
    expect(hits()).toBe(2);
    const bench = await runEvaluation({
      tasksDir: out,
      agent: 'oracle',
      outDir: join(dir, 'bench'),
      ...QUICK_ISOLATION,
    });
    expect(bench.tasks.map((t) => [t.task, t.reward])).toEqual([
      ['ferry', 1],
      ['light', 1],
    ]);
  }, 60_000);

  it("the check's answers are the task's solve.sh's: the same script run with --retries 0 disagrees, naming the claim", async () => {
    const { out, result, tasks } = await frozenDataset();
    const opts = { layout: 'harbor' as const, workDir: out };
    expect(await frozenDisagreements(result.tasks, tasks, opts)).toEqual([]);
    // The task's own script decides: give its run --retries 0 and the recorded 503 is all the oracle sees.
    const solve = join(out, 'ferry', 'solution', 'solve.sh');
    writeFileSync(solve, readFileSync(solve, 'utf8').replace(/"\$@"/, '"$@" --retries 0'));
    expect(await frozenDisagreements(result.tasks, tasks, opts)).toEqual([
      expect.objectContaining({
        task: 'ferry',
        id: 'f1',
        label: 'verbatim',
        oracle: 'no_match',
        diagnosis: 'fetch_failed',
      }),
    ]);
    expect(readdirSync(out).sort()).toEqual(['ferry', 'light']);
  }, 60_000);

  it('a solve.sh that fails is named, with its last lines, and the export writes nothing', async () => {
    const { out, result, tasks } = await frozenDataset();
    writeFileSync(join(out, 'light', 'environment', 'sources.warc.gz'), 'not an archive');
    await expect(frozenDisagreements(result.tasks, tasks, { layout: 'harbor', workDir: out })).rejects.toThrow(
      /^light: its solve\.sh failed \(exit status 2\) replaying its own archive: .*sources\.warc\.gz/,
    );
    expect(readdirSync(out).sort()).toEqual(['ferry', 'light']);
    expect(existsSync(join(out, '.frozen-check-0'))).toBe(false);
  }, 60_000);

  it('SIGTERM during the check: exit 143, its oracles killed with what they started, nothing at --out or beside it', async () => {
    const dir = tempDir();
    // Twelve sources, a task each: the check runs long enough to be stopped in the middle.
    const server = await serve(
      Array.from({ length: 12 }, (_, i) => ({
        path: `/p${i}`,
        body: page(`Page ${i} says the tide turned at noon.`),
        headers: html,
      })),
    );
    const rows = Array.from({ length: 12 }, (_, i) => ({
      id: `c${i}`,
      quote: 'the tide turned at noon',
      url: `${server.origin}/p${i}`,
      label: 'verbatim',
    }));
    const claims = writeJson(
      join(dir, 'claims.json'),
      rows.map(({ label: _l, ...c }) => c),
    );
    const warc = join(dir, 'run.warc.gz');
    const rec = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      claims,
      '--out',
      join(dir, 'a.json'),
      '--record',
      warc,
    ]);
    expect(rec.code, rec.stderr).toBe(0);
    const labelled = join(dir, 'labelled.jsonl');
    writeFileSync(labelled, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const parent = join(dir, 'datasets');
    mkdirSync(parent);
    let staging: string | undefined;
    const r = await runCli(
      ['export', '--labelled', labelled, '--out', join(parent, 'frozen'), '--warc', warc, '--per-task', '1'],
      {
        onSpawn: (child) => {
          const poll = setInterval(() => {
            const folder = readdirSync(parent).find((e) => e.startsWith('.frozen.partial-'));
            if (!folder || !readdirSync(join(parent, folder)).some((e) => e.startsWith('.frozen-check-'))) return;
            staging = folder;
            clearInterval(poll);
            child.kill('SIGTERM');
          }, 5);
          child.on('exit', () => clearInterval(poll));
        },
      },
    );
    expect(staging, 'the check ended before it was seen running').toBeDefined();
    expect(r.code).toBe(143);
    expect(r.stderr).toMatch(/export stopped by SIGTERM; nothing was written to /);
    expect(readdirSync(parent)).toEqual([]);
    // No solve.sh, and no quotecheck it started, is left running on the removed folders.
    const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout;
    expect(ps.split('\n').filter((l) => l.includes(staging!))).toEqual([]);
  }, 60_000);
});

describe("export --warc: the agent's network, and the labels' pdftotext", () => {
  /** task.toml's [agent] table of one task. */
  const agentTable = (out: string, task: string): Record<string, unknown> =>
    (parseToml(readFileSync(join(out, task, 'task.toml'), 'utf8')) as { agent: Record<string, unknown> }).agent;

  it("a frozen edition's agent has no network for its run by default; --agent-network public keeps it; export names the providers", async () => {
    const { dir, labelled, warc } = await recordedRun();
    const frozen = join(dir, 'frozen');
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      frozen,
      '--warc',
      warc,
      '--task-field',
      'task',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(agentTable(frozen, 'ferry')).toMatchObject({ user: 'agent', network_mode: 'no-network' });
    // Only the providers that switch the network per phase run it; the others are named with what would fix it.
    const runsOn = r.stdout.split('\n').find((l) => l.startsWith('runs on '))!;
    expect(runsOn.split(': ')[1]!.split(', ')).toEqual(
      PROVIDERS.filter((p) => p.phaseNetwork && p.separate === 'own' && p.image === 'dockerfile').map((p) => p.name),
    );
    expect(r.stdout).toContain('\n  langsmith: needs --agent-network public\n');
    const kept = join(dir, 'kept');
    const k = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      kept,
      '--warc',
      warc,
      '--task-field',
      'task',
      '--agent-network',
      'public',
    ]);
    expect(k.code, k.stderr).toBe(0);
    expect(agentTable(kept, 'ferry').network_mode).toBeUndefined();
    expect(k.stdout).toMatch(/runs on .*langsmith/);
    // A live edition's agent reads the web: no-network is refused, before anything is written.
    const live = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      join(dir, 'live'),
      '--agent-network',
      'no-network',
    ]);
    expect(live.code).toBe(2);
    expect(live.stderr).toMatch(/--agent-network no-network: a live edition's agent reads its sources on the web/);
    expect(existsSync(join(dir, 'live'))).toBe(false);
  }, 60_000);

  it("the labels' pdftotext against the check's and the pinned one: another version refuses the export, naming both", async () => {
    const { dir, labelled, warc } = await recordedRun();
    const here = pdftotextVersion();
    expect(here, 'pdftotext on this machine').toBeDefined();
    // The labelled file, its claims said to be made by pdftotext of a version `v`.
    const withVersion = (v: string): string => {
      const file = join(dir, `labelled-${v}.jsonl`);
      const rows = readFileSync(labelled, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const made = rows.map((r) => ({
        ...r,
        evidence: { extractor: 'pdftotext', versions: { quotecheck: '0.1.0', pdftotext: v } },
      }));
      writeFileSync(file, `${made.map((r) => JSON.stringify(r)).join('\n')}\n`);
      return file;
    };
    const exportOf = (file: string, name: string, ...args: string[]) =>
      runCliInProcess([
        'export',
        '--labelled',
        file,
        '--out',
        join(dir, name),
        '--warc',
        warc,
        '--task-field',
        'task',
        ...args,
      ]);
    const other = await exportOf(withVersion('0.1.0'), 'other');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`this check's oracles ran pdftotext ${here}, yet 4 PDF labels by pdftotext 0.1.0`);
    expect(existsSync(join(dir, 'other'))).toBe(false);
    // The labels' own version, pinned to another: refused, naming the pin.
    const same = withVersion(here!);
    const pinned = await exportOf(same, 'pinned', '--apt-version', 'poppler-utils=0.2.0-1');
    expect(pinned.code).toBe(2);
    expect(pinned.stderr).toContain(
      `the image pins poppler-utils=0.2.0-1 (pdftotext 0.2.0), yet 4 PDF labels by pdftotext ${here}`,
    );
    // The labels' version, unpinned: written, with a warning to pin it; pinned to it: written, no warning.
    const unpinned = await exportOf(same, 'unpinned');
    expect(unpinned.code, unpinned.stderr).toBe(0);
    expect(unpinned.stderr).toMatch(
      new RegExp(
        `warning: the PDF labels were made with pdftotext ${here!.replaceAll('.', '\\.')}, and the image installs whatever poppler-utils`,
      ),
    );
    const ok = await exportOf(same, 'ok', '--apt-version', `poppler-utils=${here}-2+deb12u2`);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toBe('');
    // --allow-disagreement writes it anyway.
    const forced = await exportOf(withVersion('0.1.0'), 'forced', '--allow-disagreement');
    expect(forced.code, forced.stderr).toBe(0);
  }, 120_000);
});
