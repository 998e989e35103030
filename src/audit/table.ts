// The audit's report for people and CI: the checks, the cheat suite's table (attack, mode, user), what failed and what
// only the harness can stop, as text; everything as JSON.
import { clip, r3, type TrialResult, type TrialVerdict } from './judge.js';
import type { AuditReport } from './audit.js';
import { relative } from 'node:path';
const VERDICT_WORDS: Record<TrialVerdict, string> = {
  pass: 'ok',
  fail: 'FAILED',
  'harness-only': 'harness only',
  'not-applicable': 'n/a',
  error: 'ERROR',
};

/** The word a trial's verdict is shown with: an attack that was stopped says so. */
function verdictWord(t: Pick<TrialResult, 'kind' | 'verdict'>): string {
  return t.kind === 'attack' && t.verdict === 'pass' ? 'stopped' : VERDICT_WORDS[t.verdict];
}

/** Columns padded to their widest cell (the last left as is). */
function columns(rows: readonly string[][], right: ReadonlySet<number> = new Set()): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, i) =>
        i === r.length - 1 ? cell : right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd(),
  );
}

/** The report as text: the checks of every task, the cheat suite's table (attack × mode × user), and what failed. */
export function auditTable(r: AuditReport, opts: { width?: number } = {}): string {
  const whyWidth = opts.width ?? 110;
  const lines: string[] = [];
  const checks = r.trials.filter((t) => t.kind !== 'attack');
  lines.push(`Checks: every task, as its agent user (${r.tasks.length} ${r.tasks.length === 1 ? 'task' : 'tasks'})`);
  lines.push(
    ...columns(
      [
        ['task', 'mode', 'check', 'reward', 'expected', 'verdict', 'why'],
        ...checks.map((t) => [
          t.task,
          `${t.mode}${t.forcedMode ? '*' : ''}`,
          t.kind,
          t.reward === undefined ? '-' : r3(t.reward),
          t.expected === undefined ? '-' : r3(t.expected),
          verdictWord(t),
          t.verdict === 'pass' ? '' : clip(t.why, whyWidth),
        ]),
      ],
      new Set([3, 4]),
    ),
  );
  for (const task of r.cheat_tasks) {
    const attacks = r.trials.filter((t) => t.kind === 'attack' && t.task === task);
    if (!attacks.length) continue;
    lines.push(
      '',
      `Cheat suite on ${task} (reward: at most what doing nothing scores; * a mode the task does not declare)`,
    );
    lines.push(
      ...columns(
        [
          ['attack', 'class', 'mode', 'user', 'reward', 'verdict', 'why'],
          ...attacks.map((t) => [
            `${t.attack}${t.variant ? ` ${t.variant}` : ''}`,
            t.class ?? '',
            `${t.mode}${t.forcedMode ? '*' : ''}`,
            t.user,
            t.reward === undefined ? '-' : r3(t.reward),
            verdictWord(t),
            clip(t.why, whyWidth),
          ]),
        ],
        new Set([4]),
      ),
    );
  }
  const c = r.counts;
  lines.push(
    '',
    `${r.trials.length} trials in ${r.seconds.toFixed(1)} s: ${c.pass} as expected, ${c.fail} failed, ` +
      `${c['harness-only']} only the harness can stop, ${c['not-applicable']} not applicable, ${c.error} could not run`,
  );
  if (r.harness_only.length) {
    lines.push(
      '',
      r.trials.some((t) => t.verdict === 'harness-only' && t.taskMode === 'shared' && t.layout === 'harbor')
        ? `Only the harness can stop these (${r.harness_only.length}), in shared mode: publish with the separate ` +
            `verifier ([verifier] environment_mode = "separate" in task.toml), and run agents as the [agent] user:`
        : r.trials.some((t) => t.verdict === 'harness-only' && t.layout === 'skillsbench')
          ? `Only the harness can stop these (${r.harness_only.length}), in shared mode, which SkillsBench 1.1's ` +
            `harnesses always play: Harbor's layout with the separate verifier stops them, and so does running ` +
            `agents as the [agent] user for those that need root:`
          : `Only the harness can stop these (${r.harness_only.length}), in shared mode: the tasks declare the ` +
            `separate verifier, which stops them; a harness that ignores it (or [agent] user) lets them through:`,
      ...r.harness_only.map((l) => `  ${l}`),
    );
  }
  if (r.failures.length) lines.push('', `FAILED (${r.failures.length}):`, ...r.failures.map((l) => `  ${l}`));
  else
    lines.push(
      '',
      `audit passed: every check met its expectation and every attack a task must stop was stopped${
        r.certificate
          ? ` (on ${r.isolation === 'docker' ? 'Docker' : 'Podman'}, the task's images built)`
          : `; emulated on ${r.isolation} containers, not a certificate: no image was built`
      }`,
    );
  return lines.join('\n');
}

/** The report as JSON for CI: everything, with paths relative to `base` when given. */
export function auditJson(r: AuditReport, base?: string): string {
  const trials = r.trials.map((t) => (base && t.trialDir ? { ...t, trialDir: relative(base, t.trialDir) } : t));
  // A task's claim ids are what the attacks wrote; the report says how many.
  const tasks = r.tasks.map(({ claimIds, ...t }) => ({ ...t, ...(claimIds ? { claims: claimIds.length } : {}) }));
  return `${JSON.stringify({ ...r, tasks, trials }, null, 2)}\n`;
}
