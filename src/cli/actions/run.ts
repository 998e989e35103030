// `quotecheck run`: claims.json in, answers.json (and the evidence report) out, whatever happens.
import type { AnswerFormat, AnswersFile } from '../../output/answers.js';
import { plural } from '../../messages.js';
import { OutputPathError, checkOutputPaths } from '../../output/output-files.js';
import type { CheckOptions, StreamedRun } from '../../check.js';
import { AnswersSession } from '../../run/session.js';
import { describeClaim, type ClaimSet } from '../../claims/schema.js';
import { UserError } from '../../errors.js';
import { readClaimsFile } from '../../claims/claims-file.js';
import { refusedLine, summaryLine, type RunTally } from '../../output/evidence-report.js';
import { ReportFile, reorderReport, type ReportOrder } from '../../output/report-file.js';
import { asOfProblem } from '../../asof/date.js';
import type { ReplayDispatcher, WarcRecorder } from '../../archive/index.js';
import { SIGNAL_EXIT, claimsProgress, cliIo, errorLine, messageLine, refuseInput, type Progress } from '../progress.js';
import { fetchSettings, type FetchFlags } from '../../config/fetch-options.js';
import { REPLAY_ENV, VERSION, replayFromEnv } from '../../config/defaults.js';
import { transportOf } from '../../run/check-options.js';
import { describeFsError } from '../../grader/grade.mjs';

/** `run`'s options as commander gives them: the table's (src/config/fetch-options.ts) and its own. */
interface RunCommandOptions extends FetchFlags<'run'> {
  claims: string;
  out: string;
  report?: string;
  /** The report's line order: as claims are decided (appended as they come), or the input's (rewritten at the end). */
  reportOrder: ReportOrder;
  baseline: boolean;
  format: AnswerFormat;
  deadline?: number;
  /** Largest claims file read, in bytes (`--max-claims-mb`); default DEFAULT_MAX_CLAIMS_BYTES (64 MB). */
  maxClaimsBytes?: number;
  /** Judge every claim as of this date instead of its verify date. */
  asOf?: string;
  /** Keep every HTTP exchange in this WARC file. */
  record?: string;
  /** Answer every fetch from this WARC file (default: $QUOTECHECK_REPLAY). */
  replay?: string;
  quiet?: boolean;
}

const warn = (message: string): void => messageLine(message);

/**
 * Every file the run will write, checked before the claims are read or anything is fetched:
 * a path that cannot be written is one line and exit 2, not a stack trace after all the work.
 */
function outputPathProblem(opts: RunCommandOptions): string | undefined {
  try {
    checkOutputPaths(
      [
        ['--out', opts.out],
        ['--report', opts.report],
        ['--record', opts.record],
      ],
      opts.claims,
    );
  } catch (err) {
    if (err instanceof OutputPathError) return err.message;
    throw err;
  }
  return undefined;
}

/** Options that are wrong whatever the claims say: one line, exit 2, before anything is read or fetched. */
function optionProblem(opts: RunCommandOptions, replay: string | undefined): string | undefined {
  const asOf = opts.asOf === undefined ? undefined : asOfProblem(opts.asOf);
  if (asOf) return `--as-of: ${asOf}`;
  let base: URL | undefined;
  try {
    base = new URL(opts.waybackUrl);
  } catch {
    // reported below
  }
  if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:'))
    return `--wayback-url: ${JSON.stringify(opts.waybackUrl)} is not an http(s) URL`;
  if (opts.record && replay)
    return (
      `--record and --replay${opts.replay ? '' : ` (from $${REPLAY_ENV})`} cannot be used together: a replay ` +
      `makes no HTTP exchanges to record`
    );
  return undefined;
}

/** A run refused before its first fetch: one error line and exit 2 (refuseInput), as every UserError is. */
class RunRefused extends UserError {
  override readonly name = 'RunRefused';
}

/**
 * The claims file (a ClaimsFileError when it cannot be used); each claim answered no_match for a reason is one warning.
 */
async function readClaims(opts: RunCommandOptions): Promise<ClaimSet> {
  const set = await readClaimsFile(opts.claims, opts.maxClaimsBytes ? { maxBytes: opts.maxClaimsBytes } : {});
  for (const entry of set.entries) {
    if (entry.kind === 'invalid')
      warn(
        `warning: ${opts.claims}: ${describeClaim(entry.index, entry.id)}: ${entry.problems.join('; ')}; answered ` +
          `no_match`,
      );
  }
  for (const w of set.warnings) warn(`warning: ${w}`);
  return set;
}

type Archives = { recorder?: WarcRecorder; replay?: ReplayDispatcher };

/**
 * Archives are opened before any fetch, and before the first answers are written: a path that cannot be
 * written or read is a clear error, not lost work. The WARC code (warcio) is loaded only for them: it
 * costs a third of a second at start-up. A baseline fetches nothing, so it opens none.
 */
async function openArchives(opts: RunCommandOptions, replayPath: string | undefined): Promise<Archives> {
  if (opts.baseline || !(replayPath || opts.record)) return {};
  const { WarcRecorder, openReplay } = await import('../../archive/index.js');
  // An archive that cannot be opened is an ArchiveError (a UserError): refused, before any answers are written.
  const replay = replayPath ? await openReplay(replayPath, { waybackUrl: opts.waybackUrl }) : undefined;
  const recorder = opts.record
    ? await WarcRecorder.open(opts.record, { waybackBase: opts.waybackUrl, software: `quotecheck/${VERSION}` })
    : undefined;
  return { recorder, replay };
}

/**
 * The answers session, its file written at once with every claim no_match, so that it exists from the start; RunRefused
 * if it cannot be.
 */
async function startAnswers(
  opts: RunCommandOptions,
  set: ClaimSet,
  recorder: WarcRecorder | undefined,
): Promise<AnswersSession> {
  const session = new AnswersSession(set, opts.out, opts.format);
  try {
    session.start();
    return session;
  } catch (err) {
    // The path was checked above; this is a race (the folder removed) or a full disk.
    await recorder?.close().catch(() => {});
    throw new RunRefused(`cannot write --out ${opts.out}: ${describeFsError(err)}`);
  }
}

/** --baseline: the no_match answers are written already; say so, and which options had nothing to do. */
function finishBaseline(opts: RunCommandOptions, answers: AnswersFile): 0 {
  for (const [flag, path] of [
    ['--report', opts.report],
    ['--record', opts.record],
  ] as const) {
    if (path !== undefined)
      warn(`warning: ${flag} is ignored with --baseline (nothing is fetched, so there is nothing to keep)`);
  }
  warn(`baseline: ${plural(answers.book.size, 'claim')} answered no_match without fetching; wrote ${opts.out}`);
  return 0;
}

/**
 * What stops a run early: SIGINT/SIGTERM and --deadline abort `signal`; the run then writes what it
 * decided and exits with `exitCode` (128+n for signal n). `dispose` puts the process's handlers back.
 */
class Stopper {
  readonly #controller = new AbortController();
  readonly #deadlineTimer: NodeJS.Timeout | undefined;
  exitCode = 0;

  readonly #answers: AnswersFile;

  constructor(answers: AnswersFile, deadline: number | undefined) {
    this.#answers = answers;
    process.on('SIGTERM', this.#onSignal);
    process.on('SIGINT', this.#onSignal);
    this.#deadlineTimer =
      deadline === undefined
        ? undefined
        : setTimeout(() => this.#controller.abort(new Error(`deadline of ${deadline} s reached`)), deadline * 1000);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  readonly #onSignal = (signal: NodeJS.Signals): void => {
    if (this.#controller.signal.aborted) {
      // A second signal: the user means it. Write what is decided and leave at once.
      this.#answers.write();
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }
    this.exitCode = SIGNAL_EXIT[signal] ?? 1;
    this.#controller.abort(new Error(`received ${signal}`));
  };

  dispose(): void {
    if (this.#deadlineTimer) clearTimeout(this.#deadlineTimer);
    process.off('SIGTERM', this.#onSignal);
    process.off('SIGINT', this.#onSignal);
  }
}

/**
 * Where each decided claim goes besides the answers and the tally (the session's): the report (a line, first) and the
 * progress bar.
 */
interface Sinks {
  report: ReportFile | undefined;
  progress: Progress;
}

/**
 * The pipeline's options from the command's: units converted, and each decided claim and settled source passed to the
 * sinks.
 */
function checkOptionsFor(
  opts: RunCommandOptions,
  archives: Archives,
  signal: AbortSignal,
  sinks: Sinks,
): Partial<CheckOptions> {
  const { report, progress } = sinks;
  const checkOptions: Partial<CheckOptions> = {
    ...fetchSettings('run', opts),
    asOf: opts.asOf,
    transport: transportOf(archives),
    signal,
    deadlineAt: opts.deadline === undefined ? undefined : Date.now() + opts.deadline * 1000,
    // The report line first: a claim the answers file shows decided is always in the report (the session then records
    // it).
    onResult: (r) => {
      report?.append(r);
      if (!r.undecided) progress.claimDone();
    },
    onSource: (s) => progress.sourceDone(!s.fetch.ok),
    onArchive: (a) => progress.archive(a),
  };
  return checkOptions;
}

/**
 * The report file, created (emptied) before the first claim is decided; none without --report. One that cannot be
 * created is one error line and `failed` (the run goes on: the answers are written regardless, and it exits 2).
 */
function openReport(opts: RunCommandOptions): { file?: ReportFile; failed: boolean } {
  if (opts.report === undefined) return { failed: false };
  try {
    return { file: new ReportFile(opts.report), failed: false };
  } catch (err) {
    // Checked at start-up; a race (the folder removed) or a full disk now.
    errorLine(
      `cannot write --report ${opts.report}: ${describeFsError(err)}; the answers in ${opts.out} will be complete`,
    );
    return { failed: true };
  }
}

/**
 * Ends the report: closed, and with --report-order input rewritten in the claims' order. False, after one error line,
 * when it is incomplete.
 */
function finishReport(opts: RunCommandOptions, report: ReportFile, set: ClaimSet): boolean {
  report.close();
  if (report.failure !== undefined) {
    errorLine(
      `cannot write --report ${report.path}: ${report.failure}; it has the first ${plural(report.lines, 'claim')} ` +
        `decided; the answers in ${opts.out} are complete`,
    );
    return false;
  }
  if (opts.reportOrder !== 'input') return true;
  try {
    reorderReport(
      report.path,
      set.entries.map((e) => e.id),
    );
    return true;
  } catch (err) {
    errorLine(
      `cannot rewrite --report ${report.path} in input order: ${describeFsError(err)}; it is complete, in decision ` +
        `order; the answers in ${opts.out} are complete`,
    );
    return false;
  }
}

/** The lines after a run: what went missing, why it stopped, the diagnoses, the summary and what was written. */
function summariseRun(
  opts: RunCommandOptions,
  run: StreamedRun,
  tally: RunTally,
  recorder: WarcRecorder | undefined,
  reportFailed: boolean,
): void {
  if (tally.toolMissing) warn(`warning: ${tally.toolMissing}; PDF sources were answered no_match`);
  if (run.stopped) {
    const { undecided } = tally;
    warn(
      `stopped early (${run.stopped}): ${plural(undecided, 'claim')} not decided ` +
        `${undecided === 1 ? 'was' : 'were'} answered no_match`,
    );
  }
  if (!opts.quiet) cliIo().stderr.write(`${tally.diagnosisSummary()}\n`);
  const summary = tally.summary(run);
  warn(summaryLine(summary).replace(/^quotecheck: /, ''));
  // The counts say "failed"; this says why, and what reaches those sources (the refusal is otherwise only in --report).
  const refused = refusedLine(summary);
  if (refused) warn(`warning: ${refused}`);
  if (run.wayback?.abandoned) warn(`warning: ${run.wayback.abandoned}`);
  const written = [
    opts.out,
    reportFailed ? undefined : opts.report,
    recorder ? `${opts.record} (${plural(recorder.records(), 'WARC record')})` : undefined,
  ].filter(Boolean);
  warn(`wrote ${written.join(' and ')}`);
}

/** Input validation: everything a run needs before its first fetch; a UserError (exit 2) refuses it. */
async function prepare(
  opts: RunCommandOptions,
): Promise<{ set: ClaimSet; archives: Archives; session: AnswersSession }> {
  const replayPath = opts.replay ?? replayFromEnv(cliIo().env);
  // In this order: options, output paths, the claims file, then (when fetching) the archives.
  // A run refused here exits 2 and writes no answers file; every run past it writes one.
  const problem = optionProblem(opts, replayPath) ?? outputPathProblem(opts);
  if (problem) throw new RunRefused(problem);
  const set = await readClaims(opts);
  const archives = await openArchives(opts, replayPath);
  const session = await startAnswers(opts, set, archives.recorder);
  if (archives.replay) {
    const base = archives.replay.describeWaybackBase();
    warn(`replaying ${replayPath}: no request leaves this machine${base ? `; ${base}` : ''}`);
  }
  return { set, archives, session };
}

export async function runCommand(opts: RunCommandOptions): Promise<number> {
  let prepared;
  try {
    prepared = await prepare(opts);
  } catch (err) {
    return refuseInput(err);
  }
  const { set, archives, session } = prepared;
  if (opts.baseline) return finishBaseline(opts, session.answers);
  const { recorder } = archives;
  // The answers never depend on the archive: a write that failed (a full disk) is reported, not fatal.
  const closeArchive = async (): Promise<void> => {
    await recorder
      ?.close()
      .catch((err: Error) => warn(`warning: the archive ${opts.record} is incomplete: ${err.message}`));
  };
  const report = openReport(opts);
  const stopper = new Stopper(session.answers, opts.deadline);
  const progress = await claimsProgress(set, opts.quiet);
  const sinks: Sinks = { report: report.file, progress };
  try {
    const run = await session.run(checkOptionsFor(opts, archives, stopper.signal, sinks));
    progress.stop();
    session.finish();
    await closeArchive();
    const reportFailed = report.failed || (sinks.report !== undefined && !finishReport(opts, sinks.report, set));
    summariseRun(opts, run, session.tally, recorder, reportFailed);
    return reportFailed && stopper.exitCode === 0 ? 2 : stopper.exitCode;
  } finally {
    sinks.report?.close();
    await closeArchive();
    stopper.dispose();
    progress.stop();
  }
}
