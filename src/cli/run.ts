// `quotecheck run`: claims.json in, answers.json (and the evidence report) out, whatever happens.
import { resolve } from 'node:path';
import { AnswerBook, AnswersFile, type AnswerFormat } from '../answers.js';
import { describeFsError, plural } from '../messages.js';
import { OutputPathError, checkOutputPath } from '../outputs.js';
import { checkClaims, type CheckOptions } from '../check.js';
import { ClaimsFileError, describeClaim, readClaimsFile } from '../claims.js';
import { diagnosisSummary, summarize, summaryLine, writeReport } from '../report.js';
import type { HtmlViewChoice } from '../match.js';
import type { WaybackMode } from '../asof/judge.js';
import { AsOfDateError, parseAsOf } from '../asof/date.js';
import { createProgress, errorLine, messageLine } from './progress.js';
import { REPLAY_ENV, VERSION } from '../defaults.js';

export interface RunCommandOptions {
  claims: string;
  out: string;
  report?: string;
  baseline: boolean;
  format: AnswerFormat;
  htmlView: HtmlViewChoice;
  concurrency: number;
  perHost: number;
  timeout: number;
  retries: number;
  deadline?: number;
  sourceBudget: number;
  extractTimeout: number;
  blockPrivate: boolean;
  userAgent?: string;
  maxBytes?: number;
  /** Largest claims file read, in bytes (`--max-claims-mb`); default DEFAULT_MAX_CLAIMS_BYTES (64 MB). */
  maxClaimsBytes?: number;
  /** Judge every claim as of this date instead of its verify date. */
  asOf?: string;
  wayback: WaybackMode;
  waybackUrl: string;
  /** Requests a minute to the Wayback Machine. */
  waybackRate: number;
  /** Keep every HTTP exchange in this WARC file. */
  record?: string;
  /** Answer every fetch from this WARC file (default: $QUOTECHECK_REPLAY). */
  replay?: string;
  quiet?: boolean;
}


/** Exit codes: 0 done (answers written), 2 unusable input, 128+n stopped by signal n (answers written). */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

const warn = (message: string): void => messageLine(message);

/**
 * Every file the run will write, checked before the claims are read or anything is fetched:
 * a path that cannot be written is one line and exit 2, not a stack trace after all the work.
 */
function outputPathProblem(opts: RunCommandOptions): string | undefined {
  const outputs: [string, string | undefined][] = [['--out', opts.out], ['--report', opts.report], ['--record', opts.record]];
  try {
    for (const [flag, path] of outputs) if (path !== undefined) checkOutputPath(path, flag);
  } catch (err) {
    if (err instanceof OutputPathError) return err.message;
    throw err;
  }
  const given = outputs.filter((o): o is [string, string] => o[1] !== undefined);
  for (let i = 0; i < given.length; i++) {
    const [flag, path] = given[i]!;
    if (resolve(path) === resolve(opts.claims)) return `${flag} ${path}: is the claims file; writing it would destroy the claims`;
    for (const [otherFlag, other] of given.slice(i + 1)) {
      if (resolve(path) === resolve(other)) return `${flag} and ${otherFlag} name the same file ${path}; give each its own`;
    }
  }
  return undefined;
}

/** Options that are wrong whatever the claims say: one line, exit 2, before anything is read or fetched. */
function optionProblem(opts: RunCommandOptions, replay: string | undefined): string | undefined {
  if (opts.asOf !== undefined) {
    try {
      parseAsOf(opts.asOf);
    } catch (err) {
      if (err instanceof AsOfDateError) return `--as-of: ${err.message}`;
      throw err;
    }
  }
  let base: URL | undefined;
  try {
    base = new URL(opts.waybackUrl);
  } catch {
    // reported below
  }
  if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:')) return `--wayback-url: ${JSON.stringify(opts.waybackUrl)} is not an http(s) URL`;
  if (opts.record && replay) return `--record and --replay${opts.replay ? '' : ` (from $${REPLAY_ENV})`} cannot be used together: a replay makes no HTTP exchanges to record`;
  return undefined;
}

export async function runCommand(opts: RunCommandOptions): Promise<number> {
  const replayPath = opts.replay ?? (process.env[REPLAY_ENV] || undefined);
  // Input validation, in this order: options, output paths, the claims file, then (when fetching)
  // the archives. A run refused here exits 2 and writes no answers file; every run past it writes one.
  const problem = optionProblem(opts, replayPath) ?? outputPathProblem(opts);
  if (problem) {
    errorLine(problem);
    return 2;
  }
  let set;
  try {
    set = await readClaimsFile(opts.claims, opts.maxClaimsBytes ? { maxBytes: opts.maxClaimsBytes } : {});
  } catch (err) {
    if (err instanceof ClaimsFileError) {
      errorLine(err.message);
      return 2;
    }
    throw err;
  }
  for (const entry of set.entries) {
    if (entry.kind === 'invalid') warn(`warning: ${opts.claims}: ${describeClaim(entry.index, entry.id)}: ${entry.problems.join('; ')}; answered no_match`);
  }
  for (const w of set.warnings) warn(`warning: ${w}`);

  // Archives are opened before any fetch, and before the first answers are written: a path that cannot be
  // written or read is a clear error, not lost work. The WARC code (warcio) is loaded only for them: it
  // costs a third of a second at start-up. A baseline fetches nothing, so it opens none.
  let recorder: import('../archive/index.js').WarcRecorder | undefined;
  let replay: import('../archive/index.js').ReplayDispatcher | undefined;
  if (!opts.baseline && (replayPath || opts.record)) {
    const { ArchiveError, WarcRecorder, openReplay } = await import('../archive/index.js');
    try {
      if (replayPath) replay = await openReplay(replayPath);
      if (opts.record) recorder = await WarcRecorder.open(opts.record, { waybackBase: opts.waybackUrl, software: `quotecheck/${VERSION}` });
    } catch (err) {
      if (err instanceof ArchiveError) {
        errorLine(err.message);
        return 2;
      }
      throw err;
    }
  }

  const book = new AnswerBook(set.entries.map((e) => e.id));
  const answers = new AnswersFile(opts.out, opts.format, book);
  try {
    answers.write(); // every claim answered no_match before any work: the file exists from the start
  } catch (err) {
    // The path was checked above; this is a race (the folder removed) or a full disk.
    errorLine(`cannot write --out ${opts.out}: ${describeFsError(err)}`);
    await recorder?.close().catch(() => {});
    return 2;
  }

  if (opts.baseline) {
    for (const [flag, path] of [['--report', opts.report], ['--record', opts.record]] as const) {
      if (path !== undefined) warn(`warning: ${flag} is ignored with --baseline (nothing is fetched, so there is nothing to keep)`);
    }
    warn(`baseline: ${plural(book.size, 'claim')} answered no_match without fetching; wrote ${opts.out}`);
    return 0;
  }
  if (replay) warn(`replaying ${replayPath}: no request leaves this machine`);
  // The answers never depend on the archive: a write that failed (a full disk) is reported, not fatal.
  const closeArchive = async (): Promise<void> => {
    await recorder?.close().catch((err: Error) => warn(`warning: the archive ${opts.record} is incomplete: ${err.message}`));
  };

  const controller = new AbortController();
  let exitCode = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      // A second signal: the user means it. Write what is decided and leave at once.
      answers.write();
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }
    exitCode = SIGNAL_EXIT[signal] ?? 1;
    controller.abort(new Error(`received ${signal}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const deadlineTimer = opts.deadline === undefined
    ? undefined
    : setTimeout(() => controller.abort(new Error(`deadline of ${opts.deadline} s reached`)), opts.deadline * 1000);

  const valid = set.entries.filter((e) => e.kind === 'claim');
  const progress = opts.quiet
    ? { claimDone() {}, sourceDone() {}, stop() {} }
    : createProgress(set.entries.length, new Set(valid.map((c) => c.fetchUrl)).size);

  const checkOptions: Partial<CheckOptions> = {
    htmlView: opts.htmlView,
    concurrency: opts.concurrency,
    perHost: opts.perHost,
    timeoutMs: opts.timeout * 1000,
    retries: opts.retries,
    sourceBudgetMs: opts.sourceBudget * 1000,
    extractTimeoutMs: opts.extractTimeout * 1000,
    blockPrivate: opts.blockPrivate,
    asOf: opts.asOf,
    wayback: opts.wayback,
    waybackUrl: opts.waybackUrl,
    waybackPerMinute: opts.waybackRate,
    recorder,
    replay,
    signal: controller.signal,
    deadlineAt: opts.deadline === undefined ? undefined : Date.now() + opts.deadline * 1000,
    onResult: (r) => {
      book.set(r.id, r.label);
      answers.schedule();
      progress.claimDone();
    },
    onSource: (s) => progress.sourceDone(!s.fetch.ok),
  };
  if (opts.userAgent) checkOptions.userAgent = opts.userAgent;
  if (opts.maxBytes) checkOptions.maxBytes = opts.maxBytes;

  try {
    const run = await checkClaims(set.entries, checkOptions);
    progress.stop();
    answers.write();
    await closeArchive();
    let reportFailed = false;
    if (opts.report) {
      try {
        writeReport(opts.report, run.results);
      } catch (err) {
        // Checked at start-up; a full disk or a removed folder now. The answers are written already.
        errorLine(`cannot write --report ${opts.report}: ${describeFsError(err)}; the answers in ${opts.out} are complete`);
        reportFailed = true;
      }
    }
    const missingPdftotext = run.sources.find((s) => s.extractError?.kind === 'tool_missing');
    if (missingPdftotext) warn(`warning: ${missingPdftotext.extractError?.message}; PDF sources were answered no_match`);
    if (run.stopped) {
      const undecided = run.results.filter((r) => r.undecided).length;
      warn(`stopped early (${run.stopped}): ${plural(undecided, 'claim')} not decided ${undecided === 1 ? 'was' : 'were'} answered no_match`);
    }
    if (!opts.quiet) process.stderr.write(`${diagnosisSummary(run.results)}\n`);
    warn(summaryLine(summarize(run)).replace(/^quotecheck: /, ''));
    if (run.wayback?.abandoned) warn(`warning: ${run.wayback.abandoned}`);
    const written = [opts.out, reportFailed ? undefined : opts.report, recorder ? `${opts.record} (${plural(recorder.records(), 'WARC record')})` : undefined].filter(Boolean);
    warn(`wrote ${written.join(' and ')}`);
    return reportFailed && exitCode === 0 ? 2 : exitCode;
  } finally {
    await closeArchive();
    if (deadlineTimer) clearTimeout(deadlineTimer);
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    progress.stop();
  }
}
