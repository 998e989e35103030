// The evaluate's HTML report, checked in headless Chromium from the page itself: column alignment, the wrong-answers toggle, task links, evidence.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { withOracleEvidence } from '../src/results/compare.js';
import { renderHtmlReport } from '../src/results/html-report.js';
import { CHROMIUM, EDGE_PX, HAVE_CHROMIUM, pageInChromium, textRights } from './support/harbor-helpers.js';
import { emptyConfusion, type Grade } from '../src/grader/grade.mjs';
import type { EvaluationReport, ClaimRow, TaskRun } from '../src/results/evaluation-report.js';

if (!HAVE_CHROMIUM)
  console.warn(
    `test/report-html.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM)`,
  );

const row = (over: Partial<ClaimRow> & Pick<ClaimRow, 'id'>): ClaimRow => ({
  quote: 'a quote',
  url: 'http://127.0.0.1:9/page',
  gold: 'verbatim',
  answer: 'verbatim',
  correct: true,
  diagnosis: 'verbatim',
  ...over,
});

function task(name: string, rows: ClaimRow[], over: Partial<TaskRun> = {}): TaskRun {
  const correct = rows.filter((r) => r.correct).length;
  const baseline = rows.filter((r) => r.gold === 'no_match').length / rows.length;
  return {
    task: name,
    reward: correct / rows.length,
    claims: rows.length,
    correct,
    baseline,
    floor: baseline,
    agentExit: 0,
    verifierExit: 0,
    verifierMode: 'separate',
    agentUser: 'agent',
    seconds: 12.25,
    problems: [],
    grade: { correct } as Grade,
    rows,
    ...over,
  };
}

/** Two tasks: "clean" (all right: its section starts closed) and "mixed" (two wrong answers, with evidence of every kind). */
function sampleReport(): EvaluationReport {
  const clean = task('clean', [
    row({
      id: 'c-1',
      quote: 'The Budget Was Approved',
      selector: {
        exact: 'The Budget Was Approved',
        prefix: 'xxxxxx On Tuesday, after debate, ',
        suffix: ' by the full Committee in March.',
      },
    }),
    row({ id: 'c-2', quote: 'nothing to see', gold: 'no_match', answer: 'no_match', diagnosis: 'not_found' }),
  ]);
  const mixed = task(
    'mixed',
    [
      row({
        id: 'm-1',
        quote: 'the cat sat on the mat',
        gold: 'no_match',
        answer: 'verbatim',
        correct: false,
        diagnosis: 'near_miss',
        nearest: {
          text: 'the cat sat upon the mat',
          raw: 'The Cat sat UPON the mat',
          similarity: 0.91,
          diff: [
            { op: 'equal', text: 'the cat sat' },
            { op: 'missing', text: 'on' },
            { op: 'extra', text: 'UPON' },
            { op: 'equal', text: 'the mat' },
          ],
        },
      }),
      row({
        id: 'm-2',
        quote: 'old style',
        gold: 'no_match',
        answer: 'no_match',
        diagnosis: 'near_miss',
        nearest: { text: 'old styles', similarity: 0.8 },
      }),
      row({
        id: 'm-3',
        quote: 'Context Only',
        gold: 'verbatim',
        answer: 'no_match',
        correct: false,
        diagnosis: 'fetch_failed',
        note: 'connection failed',
      }),
      row({ id: 'm-4', quote: 'Mixed Case Words', context: 'before mixed case words after' }),
    ],
    { problems: ['agent exited 1'] },
  );
  const long = task('long', [
    row({
      id: 'm-5',
      quote: 'a capture',
      gold: 'no_match',
      answer: 'no_match',
      diagnosis: 'not_found',
      url: `http://127.0.0.1:9/${'deep/'.repeat(60)}page`,
      note: `judged on the Wayback capture of 2024-04-15T09:00:00Z, the latest at or before 2024-05-01: http://127.0.0.4:41733/web/20240415090000id_/http://127.0.0.1:9/${'very-long-path-segment-'.repeat(30)}page?query=${'x'.repeat(200)}`,
    }),
  ]);
  return {
    agent: 'oracle',
    isolation: 'paths',
    tasks_dir: '/tmp/tasks',
    mean_reward: (clean.reward + mixed.reward) / 2,
    baseline_mean_reward: (clean.baseline + mixed.baseline) / 2,
    claims: 7,
    correct: clean.correct + mixed.correct,
    seconds: 24.5,
    confusion: emptyConfusion(),
    diagnoses: { near_miss: 2, verbatim: 2, not_found: 2, fetch_failed: 1 },
    drifted_sources: 0,
    claims_from_captures: 0,
    advice: ['every source failed in 1 of 2 tasks (mixed): connection failed. Check: is the server running?'],
    tasks: [clean, mixed, long],
  };
}

describe.skipIf(!HAVE_CHROMIUM)('the HTML report in headless Chromium', () => {
  const report = sampleReport();
  const open = pageInChromium('report', (dir) => {
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHtmlReport(report));
    return file;
  });

  test('numeric columns are right-aligned under their headers; text columns start where their headers do', async () => {
    const page = await open();
    for (const table of ['#tasks', '#confusion', '#diagnoses']) {
      const heads = page.locator(`${table} thead th`);
      const n = await heads.count();
      let numeric = 0;
      for (let col = 0; col < n; col++) {
        const isNum = await heads.nth(col).evaluate((el) => el.classList.contains('num'));
        const cells = `${table} tbody tr > :nth-child(${col + 1})`;
        const count = await page.locator(cells).count();
        expect(count).toBeGreaterThan(0);
        const head = await heads.nth(col).boundingBox();
        for (let i = 0; i < count; i++) {
          const cell = await page.locator(cells).nth(i).boundingBox();
          expect(
            Math.abs(cell!.x - head!.x),
            `${table} column ${col + 1}: cell ${i} under its header`,
          ).toBeLessThanOrEqual(EDGE_PX);
          if (isNum) {
            const [cellRight] = await textRights(page.locator(cells).nth(i));
            const [headRight] = await textRights(heads.nth(col));
            expect(
              Math.abs(cellRight! - headRight!),
              `${table} column ${col + 1}: number ${i} ends where its header ends`,
            ).toBeLessThanOrEqual(EDGE_PX);
          }
        }
        if (isNum) numeric++;
      }
      expect(numeric, `${table} has numeric columns`).toBeGreaterThan(0);
    }
    // The tasks table's numeric columns, by name.
    expect(await page.locator('#tasks thead th.num').allInnerTexts()).toEqual([
      'claims',
      'correct',
      'reward',
      'baseline',
      'secs',
    ]);
    await page.close();
  });

  test('"show only wrong answers" leaves exactly the wrong answers on screen, opening their tasks', async () => {
    const page = await open();
    // The reader closed the task with wrong answers; the toggle must open it again.
    await page.locator('#task-mixed > summary').click();
    expect(await page.locator('#task-mixed').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.locator('tr.claim:visible').count()).toBe(0); // "clean" starts closed, "mixed" is closed now
    await page.locator('#only-wrong').check();
    const visible = await page.locator('tr.claim:visible td.id').allInnerTexts();
    expect(visible.sort()).toEqual(['m-1', 'm-3']);
    expect(await page.locator('#task-mixed').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    expect(await page.locator('#task-clean').isVisible()).toBe(false); // no wrong answer: nothing to show
    await page.locator('#only-wrong').uncheck();
    expect(await page.locator('#task-clean').isVisible()).toBe(true);
    expect((await page.locator('tr.claim:visible td.id').allInnerTexts()).sort()).toEqual(['m-1', 'm-2', 'm-3', 'm-4']);
    await page.close();
  });

  test('following a task link, or arriving with its fragment, opens the task', async () => {
    const page = await open();
    expect(await page.locator('#task-clean').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await page.locator('#tasks a', { hasText: 'clean' }).click();
    expect(await page.locator('#task-clean').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    expect(await page.locator('#task-clean tr.claim:visible').count()).toBe(2);
    // Closed again by the reader, the same link (same fragment: no hashchange) opens it again.
    await page.locator('#task-clean > summary').click();
    await page.locator('#tasks a', { hasText: 'clean' }).click();
    expect(await page.locator('#task-clean').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    await page.close();
    const arriving = await open('#task-clean');
    expect(await arriving.locator('#task-clean').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    await arriving.close();
  });

  test("evidence in the page's own case, whole words, the difference struck and inserted; one name for the no_match share", async () => {
    const page = await open('#task-clean');
    const found = page.locator('tr.claim', { has: page.locator('td.id', { hasText: 'c-1' }) }).locator('.ev.match');
    expect(await found.locator('mark').innerText()).toBe('The Budget Was Approved');
    // The selector's 32-character context was cut mid-word ("xxxxxx", "March."): whole words only, marked as cut.
    expect(await found.innerText()).toBe(
      'found: … On Tuesday, after debate, The Budget Was Approved by the full Committee in…',
    );

    const m1 = page.locator('tr.claim', { has: page.locator('td.id', { hasText: 'm-1' }) }).locator('.ev.nearest');
    expect(await m1.locator('q.span').innerText()).toBe('The Cat sat UPON the mat');
    expect(await m1.locator('del').allInnerTexts()).toEqual(['on']);
    expect(await m1.locator('ins').allInnerTexts()).toEqual(['UPON']);
    expect(await m1.locator('del').evaluate((e) => getComputedStyle(e).textDecorationLine)).toBe('line-through');
    expect(await m1.innerText()).toMatch(/^nearest \(similarity 0\.91\): /);
    expect((await m1.innerText()).match(/similarity/g)).toHaveLength(1);
    // A report without raw or diff (older agents): the span as given, and no difference line.
    const m2 = page.locator('tr.claim', { has: page.locator('td.id', { hasText: 'm-2' }) }).locator('.ev.nearest');
    expect(await m2.locator('q.span').innerText()).toBe('old styles');
    expect(await m2.locator('.diff').count()).toBe(0);
    // Only a normalized context: the quote is still marked in it.
    const m4 = page.locator('tr.claim', { has: page.locator('td.id', { hasText: 'm-4' }) }).locator('.ev.match mark');
    expect(await m4.innerText()).toBe('mixed case words');

    const text = await page.locator('body').innerText();
    expect(text).not.toMatch(/floor/i);
    expect(await page.locator('#task-mixed .meta').innerText()).toContain('baseline 0.500');
    expect(await page.locator('#advice').innerText()).toContain('every source failed in 1 of 2 tasks (mixed)');
    await page.close();
  });
  test("a note with a long capture URL wraps inside its column: nothing runs past the page's width", async () => {
    const page = await open('#task-long');
    await page.setViewportSize({ width: 1100, height: 800 });
    const width = await page.evaluate(() => document.documentElement.clientWidth);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    const note = page.locator('tr', { hasText: 'm-5' }).locator('.note');
    const box = (await note.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(width + EDGE_PX);
    expect(box.height).toBeGreaterThan(40); // wrapped onto several lines
  });
});

/** An agent that wrote no evidence report, on the sample's claims: its rows as evaluate makes them (answers and gold, no diagnosis). */
function agentReport(): EvaluationReport {
  const oracle = sampleReport();
  return {
    ...oracle,
    agent: 'my-agent --fast',
    name: 'agent-2',
    tasks_dir: '/data/my tasks',
    diagnoses: {},
    tasks: oracle.tasks.map((t) => ({
      ...t,
      rows: t.rows.map(({ id, quote, url, gold, answer, correct }) => ({
        id,
        quote,
        url,
        gold,
        // The agent answers every claim the other way from the oracle on task mixed.
        answer: t.task === 'mixed' ? (answer === 'verbatim' ? 'no_match' : 'verbatim') : answer,
        correct: t.task === 'mixed' ? !correct : correct,
      })),
    })),
  };
}

describe.skipIf(!HAVE_CHROMIUM)(
  "an agent's own HTML report: the oracle's evidence when it ran beside it, how to get it when not",
  () => {
    const open = pageInChromium('agent-report', (dir) => {
      writeFileSync(join(dir, 'without.html'), renderHtmlReport(agentReport()));
      mkdirSync(join(dir, 'oracle'));
      writeFileSync(join(dir, 'oracle', 'report.html'), '<!doctype html><title>oracle</title><p id="agent">oracle</p>');
      mkdirSync(join(dir, 'agent-2'));
      writeFileSync(
        join(dir, 'agent-2', 'report.html'),
        renderHtmlReport(withOracleEvidence(agentReport(), sampleReport(), '../oracle')),
      );
      return join(dir, 'agent-2', 'report.html');
    });

    test("each claim shows the oracle's diagnosis, note and evidence, marked as the oracle's, with a link to its report", async () => {
      const page = await open('#task-mixed');
      const diag = (id: string) =>
        page.locator('tr.claim', { has: page.locator('td.id', { hasText: id }) }).locator('td.diag');
      expect(await page.locator('#oracle-run').innerText()).toBe(
        'from ../oracle, on each claim this agent reported no evidence on or answered wrongly',
      );
      // The misquote the agent called verbatim: the oracle's near miss, its span and the words that differ.
      const m1 = diag('m-1').locator('.oracle-ev');
      expect(await m1.locator('.by').innerText()).toBe("the oracle's evidence (its report):");
      expect(await m1.locator('.code').innerText()).toBe('near_miss');
      expect(await m1.locator('q.span').innerText()).toBe('The Cat sat UPON the mat');
      expect(await m1.locator('del').allInnerTexts()).toEqual(['on']);
      expect(await diag('m-3').locator('.oracle-ev .note').innerText()).toBe('connection failed');
      // Every claim has the oracle's evidence; nothing says "no report" or "no evidence".
      expect(await page.locator('td.diag').count()).toBe(7);
      expect(await page.locator('td.diag .oracle-ev').count()).toBe(7);
      for (const cell of await page.locator('td.diag').allInnerTexts())
        expect(cell).not.toMatch(/no report|no evidence/);
      expect(await page.locator('body').innerText()).toContain(
        "The agent wrote no evidence report (the oracle writes /logs/agent/report.jsonl); each claim below shows the oracle's.",
      );
      expect(await page.locator('#oracle-evidence').count()).toBe(0);
      await m1.locator('.by a').click();
      await page.waitForURL(/oracle\/report\.html$/);
      expect(await page.locator('#agent').innerText()).toBe('oracle');
      await page.close();
    });

    test("without the oracle, each claim says what it lacks and links to how to get the oracle's evidence, with this run's own commands", async () => {
      const page = await open();
      await page.goto(page.url().replace(/agent-2\/report\.html$/, 'without.html#task-mixed'));
      const m1 = page.locator('tr.claim', { has: page.locator('td.id', { hasText: 'm-1' }) }).locator('td.diag');
      expect(await m1.locator('.code').innerText()).toBe('no evidence');
      expect(await m1.locator('.note').innerText()).toBe(
        "this agent wrote no evidence report: how to see the oracle's here",
      );
      expect(await page.locator('body').innerText()).not.toContain('no report');
      await m1.locator('.note a').click();
      await page.waitForURL(/#oracle-evidence$/);
      const help = page.locator('#oracle-evidence');
      expect(await help.isVisible()).toBe(true);
      expect(await help.locator('code').allInnerTexts()).toEqual([
        "quotecheck evaluate --tasks '/data/my tasks' --agent oracle --agent 'my-agent --fast'",
        'quotecheck compare THIS_RUN --oracle ORACLE_RUN --out DIR',
      ]);
      await page.close();
    });
  },
);
