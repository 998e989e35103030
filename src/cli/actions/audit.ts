// `quotecheck audit DATASET`: before publishing, every task's oracle, doing nothing and the baseline, then the cheat
// suite as the agent's user and as root in each verifier mode, through evaluate; a table, JSON for CI, exit 1 when
// anything failed its expectation (src/audit/audit.ts).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { thousands } from '../../messages.js';
import { AuditSetupError, auditIsolation, runAudit, type AuditReport } from '../../audit/audit.js';
import type { AuditUser } from '../../audit/attacks.js';
import type { VerifierMode } from '../../task/verifier-mode.js';
import { DatasetError, listTasks } from '../../task/task-dir.js';
import { EvaluationSetupError } from '../../evaluate/evaluate.js';
import { GOLDEN_SERVER_HINT, isGoldenTasks } from './evaluate.js';
import { cliIo, errorLine, etaText, messageLine, refuseInput } from '../progress.js';
import { describeFsError } from '../../grader/grade.mjs';
import type { Isolation } from '../../results/evaluation-report.js';
import { auditJson, auditTable } from '../../audit/table.js';
import { failureLine } from '../../audit/judge.js';

interface AuditCommandOptions {
  dataset: string;
  sample?: number | 'all';
  modes?: VerifierMode[];
  users?: AuditUser[];
  attacks?: string[];
  jobs?: number;
  json?: string;
  out?: string;
  answers?: string;
  isolation?: 'auto' | 'docker' | 'podman' | 'namespace';
  agentNetwork?: 'auto' | 'task' | 'host';
  quiet?: boolean;
}

/** `inner` is `outer` or inside it. */
function within(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** How many failures stderr names before "and N more" (all of them are in the table and the JSON). */
const FAILURES_SHOWN = 5;

/**
 * Where the audit reads and writes (the dataset, --out, --json, resolved), once the places keep apart; undefined when
 * not, the reason said in one line.
 */
function auditPlaces(
  opts: AuditCommandOptions,
): { dataset: string; out: string | undefined; json: string | undefined; isolation: Isolation } | undefined {
  // Where the trials run is settled before anything is said or made: an audit that cannot certify is refused first.
  let isolation: Isolation;
  try {
    isolation = auditIsolation(opts.isolation);
  } catch (err) {
    refuseInput(err, AuditSetupError, EvaluationSetupError);
    return undefined;
  }
  const dataset = realpathSync(resolve(opts.dataset));
  const out = opts.out ? resolve(opts.out) : undefined;
  if (out && (within(out, dataset) || within(dataset, out))) {
    errorLine(
      `--out ${opts.out}: the trials may not be kept inside the dataset, nor the dataset inside them (each trial ` +
        `hides both from the agent)`,
    );
    return undefined;
  }
  const json = opts.json ? resolve(opts.json) : undefined;
  if (json && within(json, dataset)) {
    errorLine(`--json ${opts.json}: not inside the dataset`);
    return undefined;
  }
  return { dataset, out, json, isolation };
}

export async function auditCommand(opts: AuditCommandOptions): Promise<number> {
  let tasks: number;
  try {
    tasks = listTasks(opts.dataset).length;
  } catch (err) {
    return refuseInput(err, DatasetError);
  }
  const places = auditPlaces(opts);
  if (places === undefined) return 2;
  const { dataset, out, json, isolation } = places;
  let trialsDir: string;
  try {
    if (out) mkdirSync(out, { recursive: true });
    trialsDir = out ? join(out, 'trials') : mkdtempSync(join(tmpdir(), 'quotecheck-audit-'));
  } catch (err) {
    errorLine(`--out ${opts.out}: ${describeFsError(err)}`);
    return 2;
  }
  const progress = !opts.quiet;
  let lastShown = 0;
  const started = Date.now();
  let report: AuditReport;
  try {
    if (progress)
      messageLine(
        `audit: ${tasks} ${tasks === 1 ? 'task' : 'tasks'} in ${dataset}; trials in ` +
          `${trialsDir}${out ? '' : ' (removed at the end)'}`,
      );
    report = await runAudit({
      dataset,
      ...(opts.sample !== undefined ? { sample: opts.sample } : {}),
      ...(opts.modes ? { modes: opts.modes } : {}),
      ...(opts.users ? { users: opts.users } : {}),
      ...(opts.attacks ? { attacks: opts.attacks } : {}),
      ...(opts.jobs ? { jobs: opts.jobs } : {}),
      ...(opts.answers ? { answers: opts.answers } : {}),
      isolation,
      ...(opts.agentNetwork ? { agentNetwork: opts.agentNetwork } : {}),
      outDir: trialsDir,
      ...(isGoldenTasks(dataset) ? { sourcesHint: GOLDEN_SERVER_HINT } : {}),
      onTrialDone: (t, done, total) => {
        if (!progress) return;
        // A line at every tenth of the way, and for each trial that failed its expectation as it happens.
        if (t.verdict === 'fail' || t.verdict === 'error') messageLine(`audit: ${failureLine(t)}`);
        if (done === total || done - lastShown >= Math.max(1, Math.ceil(total / 10))) {
          lastShown = done;
          const left = etaText(Date.now() - started, done / total);
          messageLine(`audit: ${thousands(done)}/${thousands(total)} trials${left && done < total ? `, ${left}` : ''}`);
        }
      },
    });
  } catch (err) {
    if (!out) rmSync(trialsDir, { recursive: true, force: true });
    return refuseInput(err, AuditSetupError, EvaluationSetupError, DatasetError);
  }
  try {
    writeReports(report, out, json, trialsDir);
  } catch (err) {
    errorLine(`cannot write the report: ${describeFsError(err)}`);
    return 2;
  } finally {
    if (!out) rmSync(trialsDir, { recursive: true, force: true });
  }
  if (report.ok) return 0;
  errorLine(failedLine(report.failures));
  return 1;
}

/** The table on stdout, audit.json under --out and the --json file (paths relative to where each is read from). */
function writeReports(report: AuditReport, out: string | undefined, json: string | undefined, trialsDir: string): void {
  const io = cliIo();
  io.stdout.write(`${auditTable(report)}\n`);
  // Without --out the trials are removed at the end: the JSON does not point at them.
  const kept: AuditReport = out ? report : { ...report, trials: report.trials.map(({ trialDir: _gone, ...t }) => t) };
  const text = (base?: string) => auditJson(kept, base);
  if (out) {
    writeFileSync(join(out, 'audit.json'), text(out));
    io.stdout.write(`wrote ${join(out, 'audit.json')} (trials in ${trialsDir})\n`);
  }
  if (json) {
    mkdirSync(dirname(json), { recursive: true });
    writeFileSync(json, text(out ? dirname(json) : undefined));
    io.stdout.write(`wrote ${json}\n`);
  }
}

/** The one line that says the audit failed, naming the first FAILURES_SHOWN trials that did not meet expectations. */
function failedLine(failures: readonly string[]): string {
  const shown = failures.slice(0, FAILURES_SHOWN);
  const more = failures.length - shown.length;
  const one = failures.length === 1;
  return (
    `audit failed: ${failures.length} ${one ? 'trial' : 'trials'} did not meet ${one ? 'its' : 'their'} expectation: ` +
    `${shown.join(' | ')}${more > 0 ? ` | and ${more} more (the table above)` : ''}`
  );
}
