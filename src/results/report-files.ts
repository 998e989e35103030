// Evaluation results for people and programs: the text table, report.json and report.html (of one agent, or of several
// compared).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Comparison } from './compare.js';
import { comparisonJson } from './compare-table.js';
import { BASELINE_NAME, renderComparisonHtml, renderHtmlReport } from './html-report.js';
import { unreadLine } from './failures.js';
import { confusionLines } from '../grader/grade.mjs';
import type { EvaluationReport } from './evaluation-report.js';

export function evaluationTable(r: EvaluationReport): string {
  const w = Math.max(10, ...r.tasks.map((t) => t.task.length));
  const row = (a: string, b: string, c: string, d: string, e: string) =>
    `${a.padEnd(w)}  ${b.padStart(6)}  ${c.padStart(7)}  ${d.padStart(8)}  ${e}`;
  const lines = [row('task', 'claims', 'reward', BASELINE_NAME, 'problems'), '-'.repeat(w + 40)];
  for (const t of r.tasks)
    lines.push(row(t.task, String(t.claims), t.reward.toFixed(3), t.baseline.toFixed(3), t.problems.join('; ')));
  lines.push('-'.repeat(w + 40));
  lines.push(
    row(
      'mean',
      String(r.claims),
      r.mean_reward.toFixed(3),
      r.baseline_mean_reward.toFixed(3),
      `${r.correct}/${r.claims} claims correct`,
    ),
  );
  lines.push(
    `${BASELINE_NAME}: the reward of answering no_match for every claim (each task's share of gold no_match labels)`,
  );
  lines.push('', ...confusionLines(r.confusion));
  const shape = r.failure_shape;
  if (shape)
    lines.push(
      `how it failed (reward.json, all claims): answered ${shape.answered.toFixed(3)}, overclaim ` +
        `${shape.overclaim.toFixed(3)} (verbatim on gold no_match), missed ${shape.missed.toFixed(3)} (no_match on ` +
        `gold verbatim)`,
    );
  const diagnoses = Object.entries(r.diagnoses).sort((a, b) => b[1] - a[1]);
  if (diagnoses.length) lines.push('', `diagnoses: ${diagnoses.map(([d, n]) => `${d} ${n}`).join(', ')}`);
  if (r.drifted_sources > 0 || r.claims_from_captures > 0)
    lines.push(
      `drifted sources: ${r.drifted_sources} (read, and their live bytes no longer hash to the evidence); ` +
        `claims judged on Wayback captures: ${r.claims_from_captures}`,
    );
  // Sources with no bytes at all are not drift: counted and named apart, with what happened to them.
  const unread = unreadLine(r.unread_sources ?? []);
  if (unread) lines.push(unread);
  for (const a of r.advice ?? []) lines.push('', a);
  return lines.join('\n');
}

/** report.json keeps per-task numbers and per-claim rows; the grade object is summarized by the confusion matrix. */
function reportJson(r: EvaluationReport): string {
  const tasks = r.tasks.map(({ grade: _grade, ...t }) => t);
  return `${JSON.stringify({ ...r, tasks }, null, 2)}\n`;
}

/** report.json and report.html, the two files every evaluate and comparison folder has; returns their paths. */
function writeReportPair(dir: string, json: string, html: string): { json: string; html: string } {
  const paths = { json: join(dir, 'report.json'), html: join(dir, 'report.html') };
  writeFileSync(paths.json, json);
  writeFileSync(paths.html, html);
  return paths;
}

/** Writes report.json and report.html into `dir`; returns their paths. */
export function writeEvaluationReports(report: EvaluationReport, dir: string): { json: string; html: string } {
  return writeReportPair(dir, reportJson(report), renderHtmlReport(report));
}

/**
 * Writes a comparison of agents as report.json and report.html into `dir` (beside the agents' own folders); returns
 * their paths.
 */
export function writeComparisonReports(c: Comparison, dir: string): { json: string; html: string } {
  mkdirSync(dir, { recursive: true });
  return writeReportPair(dir, comparisonJson(c), renderComparisonHtml(c));
}
