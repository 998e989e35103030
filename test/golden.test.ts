// Everything that needs the golden sources on loopback: the golden tasks run as the harness runs them (evaluate),
// the diagnosis confusion matrix, export -> evaluate round trip, the packed package, and the HTML report in Chromium.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runEvaluation } from '../src/evaluate/evaluate.js';
import { writeEvaluationReports } from '../src/results/report-files.js';
import { evaluateGolden, scoreDiagnosis, table, type GoldenEvaluation } from '../golden/scoreboard.js';
import { goldenWaybackUrl, startGoldenServer, type RunningServer } from '../golden/server.js';
import { goldenAtPort, type GoldenAtPort } from '../golden/lib/tasks.js';
import { WARCParser } from 'warcio';
import { readArchive } from '../src/archive/index.js';
import { QUICK_ISOLATION, QUICK_ISOLATION_ARGS } from './support/engine.js';
import { CLI, ROOT, fileTempDir, runCli, tempDir, writeJson, taskFolders } from './support/helpers.js';
import { checkTaskFolder, launchChromium } from './support/harbor-helpers.js';
import { gzipMembers, handParse } from './support/warc-hand.js';
import type { EvaluationReport } from '../src/results/evaluation-report.js';

// The golden server listens on a free port (never a demo's, another run's or another checkout's), and the tests run
// the golden files as they are for that port: a copy with its URLs moved there (golden/lib/tasks.ts goldenAtPort).
let GOLDEN: GoldenAtPort;
let TASKS: string;
/** The golden server's port, and its origins in a regular expression. */
let PORT: number;
const originRe = (host: string): string => `http:\\/\\/${host.replace(/\./g, '\\.')}:${PORT}`;
const execFileAsync = promisify(execFile);
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

/** An independent count of correct answers: no quotecheck code involved. */
function countCorrect(answersPath: string, goldPath: string): { correct: number; total: number } {
  const gold = readJson(goldPath) as Record<string, string>;
  const answers = existsSync(answersPath) ? (readJson(answersPath) as Record<string, string>) : {};
  const ids = Object.keys(gold);
  return { correct: ids.filter((id) => answers[id] === gold[id]).length, total: ids.length };
}

let server: RunningServer | undefined;
let golden: GoldenEvaluation;
let outDir: string;

const PATH_BEFORE = process.env.PATH;

beforeAll(async () => {
  server = await startGoldenServer({ port: 0 });
  PORT = server.port;
  // Shared by every test of this file (tempDir() folders go after each test).
  outDir = fileTempDir('quotecheck-golden-');
  GOLDEN = goldenAtPort(PORT, join(outDir, 'golden'));
  TASKS = GOLDEN.tasksDir;
  // A `quotecheck` first on every phase's PATH that fails loudly: each task's oracle runs the build its task ships,
  // its verifier its own grader, and nothing installed is reachable by name.
  const bin = join(outDir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'quotecheck'), '#!/bin/sh\necho "not this quotecheck" >&2\nexit 99\n', { mode: 0o755 });
  process.env.PATH = `${bin}:${PATH_BEFORE}`;
  golden = await evaluateGolden(outDir, undefined, GOLDEN);
}, 300_000);

afterAll(async () => {
  process.env.PATH = PATH_BEFORE;
  await server?.close();
  server = undefined;
});

describe('golden tasks through their own solve.sh and test.sh (quotecheck evaluate)', () => {
  test('oracle scores 1.000 on every task; the baseline scores exactly the no_match share', () => {
    expect(golden.oracle.tasks.length).toBeGreaterThanOrEqual(6);
    expect(golden.oracle.claims).toBeGreaterThanOrEqual(60);
    for (const t of golden.oracle.tasks) {
      expect(t.reward, `oracle on ${t.task}: ${t.problems.join('; ')}`).toBe(1);
      expect(t.problems, t.task).toEqual([]);
    }
    for (const t of golden.baseline.tasks) expect(t.reward, `baseline on ${t.task}`).toBeCloseTo(t.baseline, 5);
    expect(golden.oracle.mean_reward).toBe(1);
    expect(golden.baseline.mean_reward).toBeCloseTo(golden.oracle.baseline_mean_reward, 5);
  });

  test("the drift task needs the archive: 1.000 with --wayback auto (the oracle), less with today's pages only", () => {
    const drift = golden.oracle.tasks.find((t) => t.task === 'drift')!;
    expect(drift.reward).toBe(1);
    const byId = new Map(drift.rows.map((r) => [r.id, r]));
    // Claims whose quote is gone from today's page are judged on a capture, proven by its hash where one exists.
    expect(byId.get('drift-01')?.asOf).toMatchObject({ source: 'wayback', proof: 'sha256', date: '2024-03-10' });
    expect(byId.get('drift-06')?.asOf).toMatchObject({
      source: 'wayback',
      proof: 'sha256',
      timestamp: '2024-02-01T10:10:10Z',
    });
    expect(byId.get('drift-08')?.asOf).toMatchObject({ source: 'wayback', proof: 'nearest' });
    expect(byId.get('drift-12')).toMatchObject({ drift: 'same', asOf: { source: 'live', proof: 'sha256' } });
    expect(byId.get('drift-14')).toMatchObject({ drift: 'unknown' });
    // Six sources changed since their evidence; one of them (oil-prices) answers 410 today: no bytes, so it is not
    // drifted but unread, its claims judged on their captures.
    expect(golden.oracle.drifted_sources).toBe(5);
    expect(golden.oracle.unread_sources?.filter((s) => s.task === 'drift')).toEqual([
      expect.objectContaining({
        url: expect.stringMatching(/\/drift\/markets\/oil-prices\.html$/),
        cause: 'http_status',
        fromCaptures: true,
      }),
    ]);
    const off = golden.waybackOff.tasks[0]!;
    expect(off.task).toBe('drift');
    expect(off.reward).toBeLessThan(0.7);
    expect(off.grade.confusion.verbatim.no_match, 'verbatim claims lost without the archive').toBe(5);
    expect(table(golden)).toMatch(/drift with --wayback off \(today's pages only\): 0\.643/);
  });

  test("the verifier's reward equals an independent count on every task", () => {
    for (const [agent, report] of [
      ['oracle', golden.oracle],
      ['baseline', golden.baseline],
    ] as const) {
      for (const t of report.tasks) {
        const trial = join(outDir, agent, 'trials', t.task);
        const { correct, total } = countCorrect(
          join(trial, 'app', 'answers.json'),
          join(TASKS, t.task, 'tests', 'gold.json'),
        );
        const reward = Number(readFileSync(join(trial, 'logs', 'verifier', 'reward.txt'), 'utf8'));
        expect(reward, `${agent} ${t.task}`).toBeCloseTo(correct / total, 6);
      }
    }
  });

  test('the oracle leaves its evidence in the agent log: a diagnosis for every claim', () => {
    for (const t of golden.oracle.tasks) {
      const log = join(outDir, 'oracle', 'trials', t.task, 'logs', 'agent');
      expect(readFileSync(join(log, 'quotecheck.log'), 'utf8')).toMatch(/\d+ claims, \d+ verbatim, \d+ no_match/);
      expect(
        t.rows.every((r) => r.diagnosis),
        t.task,
      ).toBe(true);
    }
    expect(golden.oracle.diagnoses.verbatim).toBe(golden.oracle.confusion.verbatim.verbatim);
  });

  test('without root, the same tasks run with the path override (QUOTECHECK_*_DIR) and score the same', async () => {
    const report = await runEvaluation({
      tasksDir: join(TASKS, 'pdf-papers'),
      agent: 'oracle',
      outDir: tempDir(),
      isolation: 'paths',
    });
    expect(report.isolation).toBe('paths');
    expect(report.tasks[0]!.reward).toBe(1);
  }, 120_000);

  test('a custom agent command runs in /app and is graded by the task', async () => {
    const dir = tempDir();
    // Answers verbatim for everything: scores the verbatim share.
    const agent = `node -e "const c=require(process.env.QUOTECHECK_APP_DIR+'/claims.json'); require('fs').writeFileSync(process.env.QUOTECHECK_APP_DIR+'/answers.json', JSON.stringify(Object.fromEntries(c.map(x=>[x.id,'verbatim']))))"`;
    const report = await runEvaluation({ tasksDir: join(TASKS, 'news-wire'), agent, outDir: dir, isolation: 'paths' });
    expect(report.tasks[0]!.reward).toBeCloseTo(1 - report.tasks[0]!.baseline, 5);
  }, 60_000);
});

describe('the HTML report, in a real browser', () => {
  test('headless Chromium shows the summary, the tasks and every claim with its evidence', async () => {
    const dir = tempDir();
    // A report with wrong answers in it: the baseline's.
    const { html } = writeEvaluationReports(golden.baseline, dir);
    const oracle = writeEvaluationReports(golden.oracle, tempDir());
    const browser = await launchChromium(tempDir('quotecheck-chromium-'));
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(html).href);
      expect(await page.title()).toMatch(/quotecheck evaluate: baseline/);
      expect(await page.locator('#mean-reward').innerText()).toBe(golden.baseline.mean_reward.toFixed(3));
      expect(await page.locator('#tasks tbody tr').count()).toBe(golden.baseline.tasks.length);
      const total = golden.baseline.claims;
      expect(await page.locator('tr.claim').count()).toBe(total);
      // Tasks with wrong answers are open; the filter hides the right answers.
      const wrong = golden.baseline.claims - golden.baseline.correct;
      await page.locator('#only-wrong').check();
      expect(await page.locator('tr.claim:visible').count()).toBe(wrong);
      expect(await page.locator('tr.claim.wrong:visible td.label.gold').first().innerText()).toBe('verbatim');

      await page.goto(pathToFileURL(oracle.html).href);
      expect(await page.locator('#mean-reward').innerText()).toBe('1.000');
      // The oracle's evidence: a verbatim claim shows its matched context with the quote marked,
      // a no_match claim its diagnosis; source links are clickable.
      const task = golden.oracle.tasks.find((t) => t.task === 'news-wire')!;
      await page.locator('#task-news-wire > summary').click();
      const verbatim = task.rows.find((r) => r.answer === 'verbatim')!;
      const row = page.locator('tr.claim', { has: page.locator('td.id', { hasText: verbatim.id }) });
      await expect(row.locator('mark').innerText()).resolves.not.toBe('');
      expect(await row.locator('.code').innerText()).toBe('verbatim');
      expect(await row.locator('.src a').getAttribute('href')).toBe(verbatim.url);
      const miss = task.rows.find((r) => r.diagnosis === 'near_miss')!;
      const missRow = page.locator('tr.claim', { has: page.locator('td.id', { hasText: miss.id }) });
      expect(await missRow.locator('.ev.nearest').innerText()).toMatch(/nearest \(similarity 0\.\d+\)/);
      const verbatimCount = golden.oracle.confusion.verbatim.verbatim;
      expect(verbatimCount).toBeGreaterThanOrEqual(60);
      expect(await page.locator('#confusion').innerText()).toMatch(
        new RegExp(`verbatim\\s+${verbatimCount}\\s+0\\s+0\\s+0`),
      );
      // A claim judged as of its date says on which capture, and why that capture.
      await page.locator('#task-drift > summary').click();
      const judged = page.locator('tr.claim', { has: page.locator('td.id', { hasText: 'drift-01' }) });
      expect(await judged.locator('.ev.asof').innerText()).toMatch(
        new RegExp(
          `as of 2024-03-10: judged on the capture of 2024-03-09T12:00:00Z \\(${originRe('127.0.0.4')}\\/web\\/20240309120000id_\\/.*\\), its sha256 equals the evidence; drift changed`,
        ),
      );
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('diagnosis on golden/diagnosis', () => {
  test('precision and recall of at least 0.9 for every code the set labels, unsupported included (as README.md says); labels unchanged', async () => {
    const s = await scoreDiagnosis(GOLDEN.diagnosisDir, tempDir());
    expect(s.total).toBeGreaterThanOrEqual(60);
    expect(s.relabelled, 'every case is mechanically no_match; diagnosis never changes a label').toEqual([]);
    // The fewest cases of each code, as golden/diagnosis/check.ts requires them (few files have no text extractor).
    const fewest: Record<string, number> = {
      extraction_artifact: 9,
      near_miss: 9,
      partial: 9,
      not_found: 9,
      paywall: 9,
      empty: 9,
      fetch_failed: 9,
      unsupported: 2,
    };
    expect(Object.keys(s.matrix).sort(), 'the codes golden/diagnosis labels').toEqual(Object.keys(fewest).sort());
    for (const [code, least] of Object.entries(fewest)) {
      expect(
        Object.values(s.matrix[code] ?? {}).reduce((n, v) => n + v, 0),
        `cases of ${code}`,
      ).toBeGreaterThanOrEqual(least);
      expect(s.precision[code], `precision of ${code}; misses: ${JSON.stringify(s.misses)}`).toBeGreaterThanOrEqual(
        0.9,
      );
      expect(s.recall[code], `recall of ${code}; misses: ${JSON.stringify(s.misses)}`).toBeGreaterThanOrEqual(0.9);
    }
  }, 240_000);
});

describe('export, then evaluate: a labelled file round-trips', () => {
  test('tasks of about 10 claims, sources never split, no labels in claims.json, oracle 1.000', async () => {
    const out = join(tempDir(), 'dataset');
    const r = await runCli([
      'export',
      '--allow-private',
      '--labelled',
      GOLDEN.labelled,
      '--out',
      out,
      '--per-task',
      '10',
      '--name',
      'rt',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const labelled = readFileSync(GOLDEN.labelled, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const tasks = taskFolders(out);
    expect(tasks[0]).toBe('rt-001');
    const taskOfUrl = new Map<string, string>();
    let claims = 0;
    for (const task of tasks) {
      const dir = join(out, task);
      for (const f of [
        'instruction.md',
        'task.toml',
        'environment/Dockerfile',
        'environment/claims.json',
        'solution/solve.sh',
        'tests/test.sh',
        'tests/gold.json',
      ]) {
        expect(existsSync(join(dir, f)), `${task}/${f}`).toBe(true);
      }
      expect(statSync(join(dir, 'solution', 'solve.sh')).mode & 0o111).not.toBe(0);
      expect(readFileSync(join(dir, 'task.toml'), 'utf8')).toMatch(
        /\[agent\]\ntimeout_sec = 600\.0[\s\S]*\[environment\][\s\S]*memory_mb = 2048/,
      );
      const cl = readJson(join(dir, 'environment', 'claims.json')) as Record<string, unknown>[];
      claims += cl.length;
      for (const c of cl) {
        expect(Object.keys(c).sort(), "no label or rule leaks into the agent's claims").toEqual(
          expect.arrayContaining(['id', 'quote', 'url']),
        );
        expect(c).not.toHaveProperty('label');
        expect(c).not.toHaveProperty('rule');
        const url = String(c.url).replace(/#.*/, '');
        expect(taskOfUrl.get(url) ?? task, `claims citing ${url} split across tasks`).toBe(task);
        taskOfUrl.set(url, task);
      }
      expect(readJson(join(dir, 'tests', 'gold.json'))).toEqual(
        Object.fromEntries(cl.map((c) => [c.id, labelled.find((l) => l.id === c.id).label])),
      );
    }
    expect(claims).toBe(labelled.length);
    const sizes = tasks.map((t) => (readJson(join(out, t, 'environment', 'claims.json')) as unknown[]).length);
    expect(Math.max(...sizes.slice(0, -1))).toBeLessThanOrEqual(16); // about ten: a source's claims may push a task past 10

    const report: EvaluationReport = await runEvaluation({
      tasksDir: out,
      agent: 'oracle',
      outDir: tempDir(),
      ...QUICK_ISOLATION,
    });
    for (const t of report.tasks) expect(t.reward, `${t.task}: ${t.problems.join('; ')}`).toBe(1);
  }, 300_000);
});

describe("the golden tasks in SkillsBench 1.1's layout (task.md, oracle/, verifier/)", () => {
  test('exported by their task field, benched at /oracle and /verifier: the same reward on every task as the Harbor layout, oracle and baseline', async () => {
    const out = join(tempDir(), 'skillsbench');
    const r = await runCli([
      'export',
      '--allow-private',
      '--labelled',
      GOLDEN.labelled,
      '--out',
      out,
      '--layout',
      'skillsbench',
      '--task-field',
      'task',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rewards = (report: EvaluationReport) => Object.fromEntries(report.tasks.map((t) => [t.task, t.reward]));
    const oracle = await runEvaluation({ tasksDir: out, agent: 'oracle', outDir: tempDir(), ...QUICK_ISOLATION });
    const baseline = await runEvaluation({ tasksDir: out, agent: 'baseline', outDir: tempDir(), ...QUICK_ISOLATION });
    // Every golden task but drift (its claims are in drift/labelled.jsonl, and its oracle needs the Wayback stub).
    const names = oracle.tasks.map((t) => t.task);
    expect(names).toEqual(golden.oracle.tasks.map((t) => t.task).filter((n) => n !== 'drift'));
    const harbor = (report: EvaluationReport) =>
      Object.fromEntries(report.tasks.filter((t) => names.includes(t.task)).map((t) => [t.task, t.reward]));
    expect(rewards(oracle)).toEqual(harbor(golden.oracle));
    expect(rewards(baseline)).toEqual(harbor(golden.baseline));
    for (const t of oracle.tasks) expect(t.reward, `${t.task}: ${t.problems.join('; ')}`).toBe(1);
  }, 300_000);
});

describe('the package as the Dockerfile installs it', () => {
  test('npm pack, install the tarball with production dependencies into an empty folder, run its quotecheck on a golden task', async () => {
    const work = tempDir();
    // Without prepack's `npm run build`: the global setup built dist/ from these very sources, and a build here would
    // rewrite dist/ under another test run of this checkout.
    const tarball = execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', work], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop()!;
    const app = join(work, 'opt');
    execFileSync('mkdir', ['-p', app]);
    execFileSync('tar', ['-xzf', join(work, tarball), '--strip-components=1', '-C', app]);
    execFileSync('cp', [join(ROOT, 'package-lock.json'), app]);
    execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts'], {
      cwd: app,
      stdio: 'ignore',
    });
    // Production install only: no TypeScript, no test tools; the bin runs from the packed dist/.
    expect(existsSync(join(app, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'vitest'))).toBe(false);
    expect(existsSync(join(app, 'src'))).toBe(false);
    const task = join(TASKS, 'pdf-papers');
    const answers = join(work, 'answers.json');
    // Asynchronously: the golden server answers from this very process.
    await execFileAsync(process.execPath, [
      join(app, 'bin', 'quotecheck.js'),
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      join(task, 'environment', 'claims.json'),
      '--out',
      answers,
    ]);
    const { correct, total } = countCorrect(answers, join(task, 'tests', 'gold.json'));
    expect(correct).toBe(total);
  }, 180_000);
});

/** Whether a process can be started in a network namespace of its own (root, util-linux): no network at all, not even loopback. */
function canUnshareNet(): boolean {
  return process.getuid?.() === 0 && spawnSync('unshare', ['--net', 'true'], { stdio: 'ignore' }).status === 0;
}

type ReportRow = Record<string, unknown> & { id: string; as_of: Record<string, unknown> | null };

/** A report's rows by id: a run appends them as claims are decided, in an order the network decides. */
const reportRows = (path: string): ReportRow[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ReportRow)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** A report row without what may differ between a live run and its replay: times, and which kind of text (live or replay) it was. */
function comparable(row: ReportRow): ReportRow {
  const { ms: _ms, ...rest } = row;
  const asOf: Record<string, unknown> | null = row.as_of
    ? {
        ...row.as_of,
        source: row.as_of.source === 'replay' ? (row.as_of.capture_url ? 'wayback' : 'live') : row.as_of.source,
      }
    : null;
  // A live text's timestamp is a time like `ms`: when it was fetched, or when the replayed exchange was recorded.
  if (asOf && !asOf.capture_url) delete asOf.timestamp;
  return { ...rest, as_of: asOf } as ReportRow;
}

describe('sources change: the golden run recorded, then replayed with the golden server stopped', () => {
  test('same answers and report with no network; the archive reads whole with warcio and by hand; a cut archive keeps its whole records; a frozen export scores 1.000', async () => {
    const dir = tempDir();
    const claims = readdirSync(TASKS)
      .sort()
      .flatMap((t) => readJson(join(TASKS, t, 'environment', 'claims.json')) as unknown[]);
    const claimsPath = writeJson(join(dir, 'claims.json'), claims);
    const warc = join(dir, 'golden.warc.gz');
    const live = await runCli([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      claimsPath,
      '--out',
      join(dir, 'live.json'),
      '--report',
      join(dir, 'live.jsonl'),
      '--record',
      warc,
      '--wayback-url',
      goldenWaybackUrl(PORT),
      '--wayback-rate',
      '6000',
    ]);
    expect(live.code, live.stderr).toBe(0);
    const records = Number(/\((\d+) WARC records\)/.exec(live.stderr)?.[1]);

    await server!.close();
    server = undefined;

    // In a network namespace of its own (when root) the replay could not reach anything even if it tried.
    const replayArgs = [
      CLI,
      'run',
      '--quiet',
      '--claims',
      claimsPath,
      '--out',
      join(dir, 'replay.json'),
      '--report',
      join(dir, 'replay.jsonl'),
      '--replay',
      warc,
      '--wayback-url',
      goldenWaybackUrl(PORT),
    ];
    const replay = canUnshareNet()
      ? spawnSync('unshare', ['--net', process.execPath, ...replayArgs], { encoding: 'utf8' })
      : spawnSync(process.execPath, replayArgs, { encoding: 'utf8' });
    expect(replay.status, replay.stderr).toBe(0);
    expect(readJson(join(dir, 'replay.json'))).toEqual(readJson(join(dir, 'live.json')));
    const liveRows = reportRows(join(dir, 'live.jsonl'));
    const replayRows = reportRows(join(dir, 'replay.jsonl'));
    expect(replayRows.map(comparable)).toEqual(liveRows.map(comparable));
    expect(replayRows.every((r) => r.as_of === null || r.as_of.source === 'replay')).toBe(true);
    // Every answer is the gold label, drift task included.
    const gold = Object.assign(
      {},
      ...readdirSync(TASKS).map((t) => readJson(join(TASKS, t, 'tests', 'gold.json'))),
    ) as Record<string, string>;
    expect(readJson(join(dir, 'replay.json'))).toEqual(gold);

    // warcio's own parser reads every record.
    const bytes = readFileSync(warc);
    const types = new Map<string, number>();
    for await (const record of new WARCParser([bytes])) {
      const type = record.warcType ?? '?';
      types.set(type, (types.get(type) ?? 0) + 1);
      await record.readFully();
    }
    expect(types.get('warcinfo')).toBe(1);
    expect(types.get('request')).toBe((types.get('response') ?? 0) + (types.get('metadata') ?? 0));
    expect([...types.values()].reduce((a, b) => a + b, 0)).toBe(records);
    // The independent reader: one gzip member per record, every payload and block digest recomputed.
    const members = gzipMembers(bytes);
    const hand = members.map((m) => handParse(m.bytes));
    expect(hand).toHaveLength(records);
    // Wayback captures are filed under their original URL, with the capture date (pywb's convention).
    const captures = hand.filter((r) => r.fields.get('warc-type') === 'response' && r.fields.has('warc-source-uri'));
    const judged = new Set(liveRows.map((r) => r.as_of?.capture_url).filter(Boolean));
    expect(captures.length).toBeGreaterThanOrEqual(judged.size);
    for (const c of captures) {
      expect(c.fields.get('warc-source-uri')).toMatch(
        new RegExp(`\\/web\\/\\d{14}id_\\/${originRe('127.0.0.1')}\\/drift\\/`),
      );
      expect(c.fields.get('warc-target-uri')).toMatch(new RegExp(`^${originRe('127.0.0.1')}\\/drift\\/`));
      expect(c.fields.get('warc-date')?.slice(0, 4)).toMatch(/^202[34]$/);
    }

    // Cut in the middle of a record: every whole record before it still reads.
    const k = Math.floor(members.length / 2);
    const cutFile = join(dir, 'cut.warc.gz');
    writeFileSync(cutFile, bytes.subarray(0, members[k]!.offset + Math.floor(members[k]!.bytes.length / 2)));
    const cut = await readArchive(cutFile);
    expect(cut.records).toHaveLength(k);
    expect(cut.cut).toBeDefined();

    // evaluate --replay: every golden task's own solve.sh, unchanged, answers from the archive.
    const replayed = await runCli([
      'evaluate',
      '--quiet',
      '--tasks',
      TASKS,
      '--out',
      join(dir, 'bench-replay'),
      '--replay',
      warc,
      ...QUICK_ISOLATION_ARGS,
    ]);
    expect(replayed.code, replayed.stderr).toBe(0);
    const replayedReport = readJson(join(dir, 'bench-replay', 'report.json')) as EvaluationReport;
    for (const t of replayedReport.tasks) expect(t.reward, `${t.task} replayed: ${t.problems.join('; ')}`).toBe(1);

    // A frozen edition: each task ships its own sources and scores 1.000 with nothing served.
    const labelled = join(dir, 'labelled.jsonl');
    writeFileSync(labelled, readFileSync(GOLDEN.labelled, 'utf8') + readFileSync(GOLDEN.driftLabelled, 'utf8'));
    const out = join(dir, 'frozen');
    const exported = await runCli(['export', '--labelled', labelled, '--out', out, '--warc', warc, '--name', 'frozen']);
    expect(exported.code, exported.stderr).toBe(0);
    const evidence = new Set<string>();
    const bodies = new Set<string>();
    for (const t of taskFolders(out)) {
      const env = join(out, t, 'environment');
      expect(existsSync(join(env, 'sources.warc.gz'))).toBe(true);
      expect(readFileSync(join(env, 'Dockerfile'), 'utf8')).toMatch(/COPY sources\.warc\.gz \/app\/sources\.warc\.gz/);
      expect(readFileSync(join(out, t, 'instruction.md'), 'utf8')).toMatch(/sources are in \/app\/sources\.warc\.gz/);
      // No oracle in the agent's image: a frozen task is a plain task plus its archive and a WARC reader.
      checkTaskFolder(join(out, t));
      // The agent's way into the archive is that reader, not the oracle: every claim's source has a response there.
      const extracted = join(dir, 'extracted', t);
      const x = spawnSync(process.execPath, [join(env, 'warc-extract.mjs'), join(env, 'sources.warc.gz'), extracted], {
        encoding: 'utf8',
      });
      expect(x.status, x.stderr).toBe(0);
      const index = readJson(join(extracted, 'index.json')) as { url: string; status: number; file?: string }[];
      const claimsOfTask = readJson(join(env, 'claims.json')) as { url: string; evidence?: { sha256: string } }[];
      for (const c of claimsOfTask) {
        expect(
          index.some((e) => e.url === c.url.replace(/#.*$/, '')),
          `${t}: ${c.url} in the extracted index`,
        ).toBe(true);
        if (c.evidence) evidence.add(c.evidence.sha256);
      }
      for (const e of index.filter((e) => e.file)) {
        const body = readFileSync(join(extracted, e.file!));
        if (e.file!.endsWith('.pdf')) expect(body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
        bodies.add(createHash('sha256').update(body).digest('hex'));
      }
    }
    // Every text that decided a label (live or a capture, by its bytes' sha256) is among what the reader extracts.
    const decided = liveRows.map((r) => r.as_of?.sha256).filter((h): h is string => typeof h === 'string');
    expect(decided.length).toBeGreaterThan(100);
    expect(decided.filter((h) => !bodies.has(h))).toEqual([]);
    expect(
      [...evidence].some((h) => bodies.has(h)),
      'a labelled version of a drifted page, by its evidence hash',
    ).toBe(true);
    const frozen = await runEvaluation({ tasksDir: out, agent: 'oracle', outDir: tempDir(), ...QUICK_ISOLATION });
    for (const t of frozen.tasks) expect(t.reward, `${t.task}: ${t.problems.join('; ')}`).toBe(1);
  }, 300_000);
});
