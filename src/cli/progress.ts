// What the commands say on stderr: progress (a bar on a terminal, a plain line every few seconds otherwise; the
// archive's pacing wait too) and the one message prefix.
import { UserError } from '../errors.js';
import { GradeInputError } from '../grader/grade.mjs';
import { plural, thousands } from '../messages.js';
import type { ClaimSet } from '../claims/schema.js';
import type { ArchiveActivity } from '../wayback/client.js';
import { cliIo, type CliWriter } from './io.js';

export { cliIo, withIo, type CliIo, type CliWriter } from './io.js';

/** The exit code of a command stopped by a signal: 128 + its number, as a shell reports it. */
export const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * Every command's messages start with this, errors with `quotecheck: error: `, warnings with `quotecheck: warning: `.
 */
const MESSAGE_PREFIX = 'quotecheck: ';

/** One line on the command's stderr (cliIo) with the common prefix. */
export function messageLine(message: string, stream: CliWriter = cliIo().stderr): void {
  stream.write(`${MESSAGE_PREFIX}${message}\n`);
}

/** An error on the command's stderr: one line, `quotecheck: error: ...`, the same in every command. */
export function errorLine(message: string, stream: CliWriter = cliIo().stderr): void {
  messageLine(`error: ${message}`, stream);
}

/** A line of a command's result on its stdout (cliIo). */
export function outputLine(text: string): void {
  cliIo().stdout.write(`${text}\n`);
}

/**
 * The one way a command refuses bad input: a UserError (src/errors.ts), the grader's GradeInputError (answers or gold
 * that cannot be graded: the grader imports nothing of quotecheck, so its error is no UserError), or an error of one of
 * the `expected` kinds, is one error line and exit code 2; anything else is a bug, thrown on for its stack.
 */
export function refuseInput(err: unknown, ...expected: (abstract new (...args: never[]) => Error)[]): 2 {
  const input = err instanceof UserError || err instanceof GradeInputError;
  if (!input && !expected.some((kind) => err instanceof kind)) throw err;
  errorLine((err as Error).message);
  return 2;
}

export interface Progress {
  claimDone(): void;
  sourceDone(failed: boolean): void;
  /** What the Wayback Machine is doing: its requests, and those waiting for their paced slot. */
  archive(activity: ArchiveActivity): void;
  stop(): void;
}

/** How often a non-terminal gets a progress line. */
const PLAIN_INTERVAL_MS = 2_000;
/** How often the bar is redrawn though nothing was done: its clock, its ETA and the archive's "next in N s" move. */
const BAR_TICK_MS = 1_000;
/** No ETA before this long: the first sources say little about the rest. */
const ETA_AFTER_MS = 1_000;

/** A duration as progress shows it: "45 s", "3 min 05 s", "2 h 04 min". */
function durationText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/**
 * The time left at the pace so far, "ETA 3 min 05 s", or '' while it cannot be told (nothing done yet, or too early):
 * `done` is the share of the work done (0 to 1), `elapsedMs` the time it took.
 */
export function etaText(elapsedMs: number, done: number): string {
  if (!(done > 0) || elapsedMs < ETA_AFTER_MS) return '';
  if (done >= 1) return 'ETA 0 s';
  return `ETA ${durationText((elapsedMs * (1 - done)) / done)}`;
}

/**
 * The share of a run done, from its claims decided and its sources settled (a source's fetch is most of the time; a
 * claim is decided once its source is read): their mean.
 */
function runShareDone(claims: number, totalClaims: number, sources: number, totalSources: number): number {
  const parts = [
    totalClaims > 0 ? claims / totalClaims : undefined,
    totalSources > 0 ? sources / totalSources : undefined,
  ];
  const known = parts.filter((p): p is number => p !== undefined);
  return known.length ? known.reduce((a, b) => a + b, 0) / known.length : 0;
}

/**
 * The archive's part of a progress line, or '' before it is asked anything: requests sent, and while some wait for
 * their paced slot, `waiting for the archive: 3 lookups queued, next in 4 s` (a run paced at 15 a minute is slow
 * there).
 */
function archiveProgress(a: ArchiveActivity | undefined, now = Date.now()): string {
  if (!a || (a.requests === 0 && a.queued === 0 && a.abandoned === undefined)) return '';
  const sent = `${plural(a.requests, 'archive request')} sent`;
  if (a.abandoned !== undefined) return `${sent}, archive left alone for the run`;
  if (a.queued === 0 || a.nextAt === undefined) return sent;
  return (
    `${sent}, waiting for the archive: ${plural(a.queued, 'lookup')} queued, next in ` +
    `${Math.max(1, Math.ceil((a.nextAt - now) / 1000))} s`
  );
}

/** What a run has done so far: its counts, the archive's activity, and the time left at its pace. */
class RunCounts {
  claims = 0;
  sources = 0;
  failed = 0;
  activity: ArchiveActivity | undefined;
  readonly started = Date.now();

  constructor(
    readonly totalClaims: number,
    readonly totalSources: number,
  ) {}

  claimDone(): void {
    this.claims++;
  }

  sourceDone(failed: boolean): void {
    this.sources++;
    if (failed) this.failed++;
  }

  archive(a: ArchiveActivity): void {
    this.activity = a;
  }

  eta(): string {
    const done = runShareDone(this.claims, this.totalClaims, this.sources, this.totalSources);
    return etaText(Date.now() - this.started, done);
  }
}

/** Progress as a bar on a terminal (cli-progress), redrawn as work is done and every second. */
async function barProgress(c: RunCounts, stream: CliWriter): Promise<Progress> {
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      // A terminal is a stream of the process's (an in-process command's writers are never one).
      stream: stream as NodeJS.WriteStream,
      format:
        'quotecheck |{bar}| {value}/{total} claims | {sources}/{totalSources} sources, {failed} failed | ' +
        '{duration}s{left}{archive}',
      hideCursor: true,
      clearOnComplete: true,
      // One number format: the claims' counts as the sources' ("1,500").
      formatValue: (v, _options, type) => (type === 'value' || type === 'total' ? thousands(Number(v)) : String(v)),
    },
    cliProgress.Presets.shades_classic,
  );
  const payload = () => {
    const text = archiveProgress(c.activity);
    const left = c.eta();
    return {
      sources: thousands(c.sources),
      totalSources: thousands(c.totalSources),
      failed: thousands(c.failed),
      left: left ? ` | ${left}` : '',
      archive: text ? ` | ${text}` : '',
    };
  };
  bar.start(c.totalClaims, 0, payload());
  const redraw = (): void => {
    if (bar.isActive) bar.update(c.claims, payload());
  };
  // The clock, the ETA and the archive's countdown move though nothing else does.
  const tick = setInterval(redraw, BAR_TICK_MS);
  tick.unref();
  return {
    claimDone: () => {
      c.claimDone();
      redraw();
    },
    sourceDone: (f) => {
      c.sourceDone(f);
      redraw();
    },
    archive: (a) => {
      c.archive(a);
      redraw();
    },
    stop: () => {
      clearInterval(tick);
      // Idempotent: the run stops the bar before its summary, and again on the way out.
      if (bar.isActive) bar.stop();
    },
  };
}

/** Progress as a plain line every few seconds (a log, a pipe). */
function plainProgress(c: RunCounts, stream: CliWriter): Progress {
  const line = () => {
    const text = archiveProgress(c.activity);
    const left = c.eta();
    stream.write(
      `${MESSAGE_PREFIX}${thousands(c.claims)}/${thousands(c.totalClaims)} claims, ${thousands(c.sources)}/` +
        `${thousands(c.totalSources)} sources (${thousands(c.failed)} failed), ` +
        `${((Date.now() - c.started) / 1000).toFixed(1)} s${left ? `, ${left}` : ''}${text ? `; ${text}` : ''}\n`,
    );
  };
  const timer = setInterval(line, PLAIN_INTERVAL_MS);
  timer.unref();
  return {
    claimDone: () => c.claimDone(),
    sourceDone: (f) => c.sourceDone(f),
    archive: (a) => c.archive(a),
    stop: () => clearInterval(timer),
  };
}

/**
 * Progress on `stream`: a bar on a terminal (cli-progress, loaded only then: a task's log is no terminal), a plain line
 * every few seconds otherwise.
 */
function createProgress(
  totalClaims: number,
  totalSources: number,
  stream: CliWriter = cliIo().stderr,
): Promise<Progress> {
  const counts = new RunCounts(totalClaims, totalSources);
  return stream.isTTY ? barProgress(counts, stream) : Promise.resolve(plainProgress(counts, stream));
}

/** Progress that shows nothing (--quiet). */
const SILENT: Progress = { claimDone() {}, sourceDone() {}, archive() {}, stop() {} };

/** A run's progress over a claims set: its claims and distinct sources, or nothing with --quiet. */
export function claimsProgress(set: ClaimSet, quiet: boolean | undefined): Promise<Progress> {
  if (quiet) return Promise.resolve(SILENT);
  const sources = new Set(set.entries.flatMap((e) => (e.kind === 'claim' ? [e.fetchUrl] : [])));
  return createProgress(set.entries.length, sources.size);
}
