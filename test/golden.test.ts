// Everything that needs the golden sources on loopback: the golden tasks run as the harness runs them (bench),
// the diagnosis confusion matrix, export -> bench round trip, the packed package, and the HTML report in Chromium.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runBench, type BenchReport } from '../src/harbor/bench.js';
import { writeBenchReports } from '../src/harbor/reports.js';
import { benchGolden, scoreDiagnosis, type GoldenBench } from '../golden/scoreboard.js';
import { goldenDir, startGoldenServer, type RunningServer } from '../golden/server.js';
import { ROOT, runCli, tempDir } from './helpers.js';

const TASKS = join(goldenDir(), 'tasks');
const execFileAsync = promisify(execFile);
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

/** An independent count of correct answers: no quotecheck code involved. */
function countCorrect(answersPath: string, goldPath: string): { correct: number; total: number } {
  const gold = readJson(goldPath) as Record<string, string>;
  const answers = existsSync(answersPath) ? (readJson(answersPath) as Record<string, string>) : {};
  const ids = Object.keys(gold);
  return { correct: ids.filter((id) => answers[id] === gold[id]).length, total: ids.length };
}

let server: RunningServer;
let golden: GoldenBench;
let outDir: string;

beforeAll(async () => {
  server = await startGoldenServer();
  // Shared by every test of this file (tempDir() folders go after each test).
  outDir = mkdtempSync(join(tmpdir(), 'quotecheck-golden-'));
  golden = await benchGolden(outDir);
}, 300_000);

afterAll(async () => {
  await server?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('golden tasks through their own solve.sh and test.sh (quotecheck bench)', () => {
  test('oracle scores 1.000 on every task; the baseline scores exactly the no_match share', () => {
    expect(golden.oracle.tasks.length).toBeGreaterThanOrEqual(6);
    expect(golden.oracle.claims).toBeGreaterThanOrEqual(60);
    for (const t of golden.oracle.tasks) {
      expect(t.reward, `oracle on ${t.task}: ${t.problems.join('; ')}`).toBe(1);
      expect(t.problems, t.task).toEqual([]);
    }
    for (const t of golden.baseline.tasks) expect(t.reward, `baseline on ${t.task}`).toBeCloseTo(t.floor, 5);
    expect(golden.oracle.mean_reward).toBe(1);
    expect(golden.baseline.mean_reward).toBeCloseTo(golden.oracle.baseline_mean_reward, 5);
  });

  test("the verifier's reward equals an independent count on every task", () => {
    for (const [agent, report] of [['oracle', golden.oracle], ['baseline', golden.baseline]] as const) {
      for (const t of report.tasks) {
        const trial = join(outDir, agent, 'trials', t.task);
        const { correct, total } = countCorrect(join(trial, 'app', 'answers.json'), join(TASKS, t.task, 'tests', 'gold.json'));
        const reward = Number(readFileSync(join(trial, 'logs', 'verifier', 'reward.txt'), 'utf8'));
        expect(reward, `${agent} ${t.task}`).toBeCloseTo(correct / total, 6);
      }
    }
  });

  test('the oracle leaves its evidence in the agent log: a diagnosis for every claim', () => {
    for (const t of golden.oracle.tasks) {
      const log = join(outDir, 'oracle', 'trials', t.task, 'logs', 'agent');
      expect(readFileSync(join(log, 'quotecheck.log'), 'utf8')).toMatch(/\d+ claims, \d+ verbatim, \d+ no_match/);
      expect(t.rows.every((r) => r.diagnosis), t.task).toBe(true);
    }
    expect(golden.oracle.diagnoses.verbatim).toBe(golden.oracle.confusion.verbatim.verbatim);
  });

  test('without root, the same tasks run with the path override (QUOTECHECK_*_DIR) and score the same', async () => {
    const report = await runBench({ tasksDir: join(TASKS, 'pdf-papers'), agent: 'oracle', outDir: tempDir(), quotecheckBin: join(ROOT, 'bin', 'quotecheck.js'), isolation: 'paths' });
    expect(report.isolation).toBe('paths');
    expect(report.tasks[0]!.reward).toBe(1);
  }, 120_000);

  test('a custom agent command runs in /app and is graded by the task', async () => {
    const dir = tempDir();
    // Answers verbatim for everything: scores the verbatim share.
    const agent = `node -e "const c=require(process.env.QUOTECHECK_APP_DIR+'/claims.json'); require('fs').writeFileSync(process.env.QUOTECHECK_APP_DIR+'/answers.json', JSON.stringify(Object.fromEntries(c.map(x=>[x.id,'verbatim']))))"`;
    const report = await runBench({ tasksDir: join(TASKS, 'news-wire'), agent, outDir: dir, quotecheckBin: join(ROOT, 'bin', 'quotecheck.js'), isolation: 'paths' });
    expect(report.tasks[0]!.reward).toBeCloseTo(1 - report.tasks[0]!.floor, 5);
  }, 60_000);
});

describe('the HTML report, in a real browser', () => {
  test('headless Chromium shows the summary, the tasks and every claim with its evidence', async () => {
    const dir = tempDir();
    // A report with wrong answers in it: the baseline's.
    const { html } = writeBenchReports(golden.baseline, dir);
    const oracle = writeBenchReports(golden.oracle, tempDir());
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(html).href);
      expect(await page.title()).toMatch(/quotecheck bench: baseline/);
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
      expect(await page.locator('#confusion').innerText()).toMatch(/verbatim\s+68\s+0\s+0\s+0/);
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('diagnosis on golden/diagnosis', () => {
  test('precision and recall of at least 0.9 for every code; labels unchanged', async () => {
    const s = await scoreDiagnosis(join(goldenDir(), 'diagnosis'), tempDir());
    expect(s.total).toBeGreaterThanOrEqual(60);
    expect(s.relabelled, 'every case is mechanically no_match; diagnosis never changes a label').toEqual([]);
    for (const code of ['extraction_artifact', 'near_miss', 'partial', 'not_found', 'paywall', 'empty', 'fetch_failed']) {
      expect(Object.values(s.matrix[code] ?? {}).reduce((n, v) => n + v, 0), `cases of ${code}`).toBeGreaterThanOrEqual(9);
      expect(s.precision[code], `precision of ${code}; misses: ${JSON.stringify(s.misses)}`).toBeGreaterThanOrEqual(0.9);
      expect(s.recall[code], `recall of ${code}; misses: ${JSON.stringify(s.misses)}`).toBeGreaterThanOrEqual(0.9);
    }
  }, 240_000);
});

describe('export, then bench: a labelled file round-trips', () => {
  test('tasks of about 10 claims, sources never split, no labels in claims.json, oracle 1.000', async () => {
    const out = join(tempDir(), 'dataset');
    const r = await runCli(['export', '--labelled', join(goldenDir(), 'labelled.jsonl'), '--out', out, '--per-task', '10', '--name', 'rt']);
    expect(r.code, r.stderr).toBe(0);
    const labelled = readFileSync(join(goldenDir(), 'labelled.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const tasks = readdirSync(out).sort();
    expect(tasks[0]).toBe('rt-001');
    const taskOfUrl = new Map<string, string>();
    let claims = 0;
    for (const task of tasks) {
      const dir = join(out, task);
      for (const f of ['instruction.md', 'task.toml', 'environment/Dockerfile', 'environment/claims.json', 'solution/solve.sh', 'tests/test.sh', 'tests/gold.json']) {
        expect(existsSync(join(dir, f)), `${task}/${f}`).toBe(true);
      }
      expect(statSync(join(dir, 'solution', 'solve.sh')).mode & 0o111).not.toBe(0);
      expect(readFileSync(join(dir, 'task.toml'), 'utf8')).toMatch(/\[agent\]\ntimeout_sec = 600\.0[\s\S]*\[environment\][\s\S]*memory_mb = 2048/);
      const cl = readJson(join(dir, 'environment', 'claims.json')) as Record<string, unknown>[];
      claims += cl.length;
      for (const c of cl) {
        expect(Object.keys(c).sort(), 'no label or rule leaks into the agent\'s claims').toEqual(expect.arrayContaining(['id', 'quote', 'url']));
        expect(c).not.toHaveProperty('label');
        expect(c).not.toHaveProperty('rule');
        const url = String(c.url).replace(/#.*/, '');
        expect(taskOfUrl.get(url) ?? task, `claims citing ${url} split across tasks`).toBe(task);
        taskOfUrl.set(url, task);
      }
      expect(readJson(join(dir, 'tests', 'gold.json'))).toEqual(Object.fromEntries(cl.map((c) => [c.id, labelled.find((l) => l.id === c.id).label])));
    }
    expect(claims).toBe(labelled.length);
    const sizes = tasks.map((t) => (readJson(join(out, t, 'environment', 'claims.json')) as unknown[]).length);
    expect(Math.max(...sizes.slice(0, -1))).toBeLessThanOrEqual(16); // about ten: a source's claims may push a task past 10

    const report: BenchReport = await runBench({ tasksDir: out, agent: 'oracle', outDir: tempDir(), quotecheckBin: join(ROOT, 'bin', 'quotecheck.js') });
    for (const t of report.tasks) expect(t.reward, `${t.task}: ${t.problems.join('; ')}`).toBe(1);
  }, 300_000);
});

describe('the package as the Dockerfile installs it', () => {
  test('npm pack, install the tarball with production dependencies into an empty folder, run its quotecheck on a golden task', async () => {
    const work = tempDir();
    const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!;
    const app = join(work, 'opt');
    execFileSync('mkdir', ['-p', app]);
    execFileSync('tar', ['-xzf', join(work, tarball), '--strip-components=1', '-C', app]);
    execFileSync('cp', [join(ROOT, 'package-lock.json'), app]);
    execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app, stdio: 'ignore' });
    // Production install only: no TypeScript, no test tools; the bin runs from the packed dist/.
    expect(existsSync(join(app, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'vitest'))).toBe(false);
    expect(existsSync(join(app, 'src'))).toBe(false);
    const task = join(TASKS, 'pdf-papers');
    const answers = join(work, 'answers.json');
    // Asynchronously: the golden server answers from this very process.
    await execFileAsync(process.execPath, [join(app, 'bin', 'quotecheck.js'), 'run', '--quiet', '--claims', join(task, 'environment', 'claims.json'), '--out', answers]);
    const { correct, total } = countCorrect(answers, join(task, 'tests', 'gold.json'));
    expect(correct).toBe(total);
  }, 180_000);
});
