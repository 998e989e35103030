// Before a frozen edition is kept: each task's own solve.sh run on its own archive, and the claims where it would
// disagree with the labels; and the pdftotext the labels were made with, against the image's and the check's.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { readReportLine } from '../contract.js';
import { plural } from '../messages.js';
import type { LabelledClaim } from './labelled.js';
import { ExportError } from './export-error.js';
import { LAYOUTS, type Layout } from '../task/layout.js';
import { upstreamVersion } from '../task/task-image.js';
import { pdftotextVersion } from '../extract/pdf/pdftotext-version.js';
import { CONTAINER_PATHS, TASK_ARCHIVE } from '../task/paths.js';

/** One claim the frozen oracle would answer otherwise than its label. */
export interface Disagreement {
  task: string;
  id: string;
  label: LabelledClaim['label'];
  oracle: LabelledClaim['label'];
  diagnosis: string;
  note?: string;
}

/** Claims named in the refusal; the rest are counted. */
const NAMED = 10;

/** Tasks checked at once: each is one Node.js process replaying its archive (CPU-bound: extraction). */
const MAX_JOBS = 4;

/** The longest one task's oracle may take here: its archive answers at once, so this is for a solve.sh that hangs. */
const SOLVE_TIMEOUT_MS = 10 * 60_000;

/** The lines of a failed solve.sh's output the refusal quotes. */
const TAIL_LINES = 3;

export interface FrozenCheckOptions {
  /** The dataset's layout: where each task's solve.sh is. */
  layout: Layout;
  /**
   * Where the runs' scratch folders go (the export's staging folder): `.frozen-check-<i>/`, each removed after its run.
   */
  workDir: string;
  /** Aborted (the export was stopped): every running solve.sh is killed, with what it started. */
  signal?: AbortSignal;
}

/** The PATH every solve.sh of the check runs with: the Node.js running this export, then the system's tools. */
const checkPath = (): string => `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;

/** What one task's solve.sh left: its answers and, from its evidence report, each claim's diagnosis and note. */
interface OracleRun {
  answers: Record<string, unknown>;
  report: Map<string, { diagnosis?: string; note?: string }>;
}

/**
 * Runs every task's own solve.sh, as a harness's oracle agent would, and lists the claims whose answer is not their
 * label. The check runs the script rather than a copy of its options, so that the two cannot drift apart: the same
 * shipped quotecheck (solution/quotecheck/), the same arguments (--allow-private, ...), its defaults (3 retries, so a
 * recorded 503 then 200 replays as it was recorded) and the replay of /app/sources.warc.gz its QUOTECHECK_REPLAY line
 * sets. Only the folders move, by the variables solve.sh honours (QUOTECHECK_APP_DIR, QUOTECHECK_AGENT_LOGS), to a
 * scratch /app holding copies of the task's claims.json and archive. A replay waits for nothing (no backoff, no
 * Retry-After: src/run/transport.ts), so a task takes about a process start. `tasks[i]` are the labelled claims
 * written into `dirs[i]`; a solve.sh that fails is an ExportError naming the task and its last lines.
 */
export async function frozenDisagreements(
  dirs: readonly { name: string; dir: string }[],
  tasks: readonly (readonly LabelledClaim[])[],
  opts: FrozenCheckOptions,
): Promise<Disagreement[]> {
  const runs = await runAll(dirs, opts);
  const found: Disagreement[] = [];
  for (const [i, { name }] of dirs.entries()) {
    const { answers, report } = runs[i]!;
    for (const c of tasks[i]!) {
      const given = answers[c.claim.id];
      const oracle = given === 'verbatim' ? 'verbatim' : 'no_match';
      if (oracle === c.label) continue;
      const r = report.get(c.claim.id) ?? {};
      found.push({
        task: name,
        id: c.claim.id,
        label: c.label,
        oracle,
        diagnosis: r.diagnosis ?? 'no_answer',
        ...(r.note ? { note: r.note } : {}),
      });
    }
  }
  return found;
}

/**
 * Runs every task's oracle, a few at once. The first failure (or the caller's stop) stops the others, and every run has
 * ended, its scratch folder removed, before this returns or throws: nothing writes into the staging folder after.
 */
async function runAll(dirs: readonly { name: string; dir: string }[], opts: FrozenCheckOptions): Promise<OracleRun[]> {
  const stop = new AbortController();
  const onStop = (): void => stop.abort(opts.signal?.reason);
  if (opts.signal?.aborted) onStop();
  else opts.signal?.addEventListener('abort', onStop, { once: true });
  const limit = pLimit(Math.max(1, Math.min(MAX_JOBS, availableParallelism())));
  try {
    const settled = await Promise.allSettled(
      dirs.map(({ name, dir }, i) =>
        limit(async () => {
          stop.signal.throwIfAborted();
          try {
            return await runOracle(name, dir, join(opts.workDir, `.frozen-check-${i}`), {
              ...opts,
              signal: stop.signal,
            });
          } catch (err) {
            stop.abort(err);
            throw err;
          }
        }),
      ),
    );
    if (stop.signal.aborted) throw stop.signal.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<OracleRun>).value);
  } finally {
    opts.signal?.removeEventListener('abort', onStop);
  }
}

/**
 * Runs one task's solve.sh on a scratch /app (its claims and archive copied in) and reads what it left; the scratch
 * folder goes after.
 */
async function runOracle(name: string, taskDir: string, work: string, opts: FrozenCheckOptions): Promise<OracleRun> {
  const app = join(work, 'app');
  const logs = join(work, 'logs');
  mkdirSync(app, { recursive: true });
  try {
    for (const file of ['claims.json', TASK_ARCHIVE]) copyFileSync(join(taskDir, 'environment', file), join(app, file));
    const solve = join(taskDir, LAYOUTS[opts.layout].oracle.folder, 'solve.sh');
    const env: NodeJS.ProcessEnv = {
      // The Node.js running this export, then the system's tools; nothing else of the caller's environment (a
      // QUOTECHECK_REPLAY or NODE_OPTIONS of theirs would change what the script does).
      PATH: checkPath(),
      HOME: work,
      [CONTAINER_PATHS.app.env]: app,
      [CONTAINER_PATHS.agentLogs.env]: logs,
    };
    const { code, output } = await runScript(solve, app, env, opts.signal);
    if (code !== 0) {
      const tail = output.trim().split('\n').slice(-TAIL_LINES).join(' | ');
      throw new ExportError(
        `${name}: its solve.sh failed (${code === null ? 'stopped' : `exit status ${code}`}) replaying its own ` +
          `archive: ${tail}`,
      );
    }
    return { answers: readAnswers(name, join(app, 'answers.json')), report: readReport(join(logs, 'report.jsonl')) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Runs `bash script` in its own process group (so that a stop, or the time limit, kills bash and the quotecheck it
 * started together) and resolves with its exit status and its output (stdout and stderr, interleaved).
 */
function runScript(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const child = spawn('bash', [script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.on('data', (d: Buffer) => chunks.push(d));
    const kill = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(kill, SOLVE_TIMEOUT_MS);
    signal?.addEventListener('abort', kill, { once: true });
    const settle = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
    };
    child.on('error', (err) => {
      settle();
      reject(err);
    });
    child.on('close', (code) => {
      settle();
      if (signal?.aborted) reject(signal.reason as Error);
      else resolve({ code, output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

/** The answers file solve.sh wrote: a JSON object of labels; anything else is an ExportError naming the task. */
function readAnswers(name: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ExportError(`${name}: its solve.sh wrote no readable answers file (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ExportError(`${name}: its solve.sh wrote answers that are not a JSON object`);
  return value as Record<string, unknown>;
}

/** The evidence report's diagnosis and note by claim id; an unreadable report (or line) leaves them out. */
function readReport(path: string): OracleRun['report'] {
  const report: OracleRun['report'] = new Map();
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return report;
  }
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      continue;
    }
    const id = (row as { id?: unknown }).id;
    if (typeof id !== 'string') continue;
    const { diagnosis, note } = readReportLine(row);
    report.set(id, { diagnosis, note });
  }
  return report;
}

/** One line naming the disagreements: the first few claims with both answers, then how many more. */
export function describeDisagreements(found: readonly Disagreement[]): string {
  const named = found
    .slice(0, NAMED)
    .map((d) => `${d.task}/${d.id} (label ${d.label}, oracle ${d.oracle}: ${d.diagnosis})`);
  const more = found.length > NAMED ? `, and ${found.length - NAMED} more` : '';
  return (
    `the frozen oracle would answer ${plural(found.length, 'claim')} otherwise than labelled: ` +
    `${named.join(', ')}${more}`
  );
}

/** The pdftotext versions the PDF labels were made with (their evidence's versions.pdftotext), and how many each. */
function labelsPdftotext(tasks: readonly (readonly LabelledClaim[])[]): Map<string, number> {
  const found = new Map<string, number>();
  for (const c of tasks.flat()) {
    const evidence = c.made?.evidence;
    const v = (evidence?.versions as Record<string, unknown> | undefined)?.pdftotext;
    if (evidence?.extractor !== 'pdftotext' || typeof v !== 'string') continue;
    found.set(v, (found.get(v) ?? 0) + 1);
  }
  return found;
}

/**
 * Why the text of a PDF may not be the one its label was made on: the pdftotext an image pins (`pinned`, export
 * --apt-version poppler-utils=...: its upstream version is pdftotext's) or the one this check's oracles ran is another
 * version than the labels' evidence records. Another version of pdftotext may give another text, so a frozen edition
 * that scores its oracle 1 today could score it otherwise where it is built. None when the labels record no version.
 */
export function pdftotextProblems(tasks: readonly (readonly LabelledClaim[])[], pinned?: string): string[] {
  const labels = labelsPdftotext(tasks);
  if (labels.size === 0) return [];
  const problems: string[] = [];
  const mismatch = (version: string): string =>
    [...labels]
      .filter(([v]) => v !== version)
      .map(([v, n]) => `${plural(n, 'PDF label')} by pdftotext ${v}`)
      .join(', ');
  if (pinned !== undefined) {
    const image = upstreamVersion(pinned);
    const other = mismatch(image);
    if (other) problems.push(`the image pins poppler-utils=${pinned} (pdftotext ${image}), yet ${other}`);
  }
  const here = pdftotextVersion('pdftotext', checkPath());
  const other = here === undefined ? '' : mismatch(here);
  if (other)
    problems.push(`this check's oracles ran pdftotext ${here}, yet ${other}: its agreement proves nothing there`);
  return problems;
}

/** The pdftotext versions the labels record, for a warning when the image does not pin one: `22.12.0`, ... */
export const labelPdftotextVersions = (tasks: readonly (readonly LabelledClaim[])[]): string[] => [
  ...labelsPdftotext(tasks).keys(),
];
