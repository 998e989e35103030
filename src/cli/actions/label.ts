// `quotecheck label`: claims in, gold labels with their proof out (JSON Lines, each line written as its claim is
// decided, a stopped run resumed where it stopped), or a labelled file checked against today's sources.
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import type { CheckOptions } from '../../check.js';
import { ClaimsFileError, type ClaimSet } from '../../claims/schema.js';
import { DEFAULT_MAX_CLAIMS_BYTES } from '../../claims/claims-file.js';
import { CLI_DEFAULTS, VERSION } from '../../config/defaults.js';
import { UserError } from '../../errors.js';
import { hasLabels, parseClaimRows, readClaimRows, type LabelRow } from '../../dataset/labelled.js';
import { labelClaims, type LabelEvidence, type LabelRun, type RecordedBodies } from '../../dataset/label.js';
import { plural, readTextFile, thousands } from '../../messages.js';
import { OutputPathError, checkOutputPaths } from '../../output/output-files.js';
import { ReportFile } from '../../output/report-file.js';
import type { ReplayDispatcher, WarcRecorder } from '../../archive/index.js';
import { SIGNAL_EXIT, claimsProgress, messageLine, refuseInput } from '../progress.js';
import { transportOf } from '../../run/check-options.js';
import { fetchSettings, type FetchFlags } from '../../config/fetch-options.js';
import { LinesFile, type WriteMode } from '../../output/lines-file.js';
import { inInputOrder, prepareResume, type ResumeState } from './label-files.js';
import { resumeCommand, summarise, summariseChanges } from './label-summary.js';
import { describeFsError } from '../../grader/grade.mjs';

/** `label`'s options as commander gives them: the table's (src/config/fetch-options.ts) and its own. */
interface LabelCommandOptions extends FetchFlags<'label'> {
  claims: string;
  out?: string;
  force: boolean;
  /** Go on where an earlier run of these claims stopped: append to its files, label only claims not yet in --out. */
  resume?: boolean;
  keepUnreadable: boolean;
  leftOut?: string;
  record?: string;
  replay?: string;
  report?: string;
  quiet?: boolean;
  /** The command line as given after the program (`label --claims ...`): the resume command is made from it. */
  argv?: readonly string[];
}

/** A label run refused before its first fetch: one error line, exit 2. */
class LabelRefused extends UserError {
  override readonly name = 'LabelRefused';
}

/** Exit code of a run that could label no claim: every one was left out (docs/cli.md). */
const NOTHING_LABELLED = 3;

const say = (message: string): void => messageLine(message);

/** The files label writes, by option, in the order messages name them. */
function outputsOf(opts: LabelCommandOptions): [flag: string, path: string | undefined][] {
  return [
    ['--out', opts.out],
    ['--left-out', opts.leftOut],
    ['--record', opts.record],
    ['--report', opts.report],
  ];
}

/**
 * Every file label writes, checked before anything is read or fetched: writable, and none that exists replaced unless
 * --force, or appended to unless --resume.
 */
function checkOutputs(opts: LabelCommandOptions): void {
  checkOutputPaths(outputsOf(opts), opts.claims);
  if (opts.record && opts.replay)
    throw new LabelRefused('--record and --replay cannot be used together: a replay makes no HTTP exchanges to record');
  if (opts.resume && opts.force)
    throw new LabelRefused('--resume appends to the files of an earlier run, --force replaces them: give one');
  if (opts.resume && opts.out === undefined)
    throw new LabelRefused('--resume needs --out: the labelled claims of the run it goes on with');
  if (opts.force || opts.resume) return;
  const existing = outputsOf(opts).filter(([, path]) => path !== undefined && existsSync(path));
  if (existing.length === 0) return;
  const named = existing.map(([flag, path]) => `${flag} ${path}`).join(', ');
  const one = existing.length === 1;
  throw new LabelRefused(
    `${named}: ${one ? 'exists' : 'exist'}; label never overwrites a file unless asked: --resume appends to ` +
      `${one ? 'it' : 'them'}, labelling only the claims not yet in --out; --force replaces ${one ? 'it' : 'them'}`,
  );
}

/** The claims file's rows (JSON array, {"claims": [...]}, or JSON Lines), at most the claims-file cap. */
function readRows(path: string): LabelRow[] {
  try {
    if (statSync(path).size > DEFAULT_MAX_CLAIMS_BYTES)
      throw new ClaimsFileError(`--claims ${path}: is over the ${CLI_DEFAULTS.maxClaimsMb} MB limit of a claims file`);
  } catch (err) {
    if (err instanceof UserError) throw err;
    // A missing or unreadable file: readTextFile says why.
  }
  const text = readTextFile(path, (reason) => new ClaimsFileError(`cannot read --claims ${path}: ${reason}`));
  const rows = readClaimRows(path, text, ClaimsFileError);
  if (rows.length === 0) throw new ClaimsFileError(`${path}: has no claims`);
  return rows;
}

/** The recorder and where its responses' hashes go (for evidence.warc_record_id), or the replay, or neither. */
async function openArchives(
  opts: LabelCommandOptions,
  recorded: RecordedBodies,
): Promise<{ recorder?: WarcRecorder; replay?: ReplayDispatcher }> {
  if (!opts.record && !opts.replay) return {};
  const { WarcRecorder, decodeContent, openReplay } = await import('../../archive/index.js');
  if (opts.replay) return { replay: await openReplay(opts.replay) };
  const recorder = await WarcRecorder.open(opts.record!, {
    software: `quotecheck/${VERSION}`,
    append: opts.resume === true,
    onResponse: ({ recordId, targetUri, headers, body }) => {
      // Hashed as the fetch layer hashes a source: after Content-Encoding is removed.
      const encoding = headers.find(([k]) => k.toLowerCase() === 'content-encoding')?.[1];
      const bytes = Buffer.concat(body);
      const plain =
        encoding && encoding.trim().toLowerCase() !== 'identity' ? (decodeContent(bytes, encoding) ?? bytes) : bytes;
      const list = recorded.get(targetUri) ?? [];
      list.push({ sha256: createHash('sha256').update(plain).digest('hex'), recordId });
      recorded.set(targetUri, list);
    },
  });
  return { recorder };
}

interface Prepared {
  rows: LabelRow[];
  /** Every claim of the file. */
  all: ClaimSet;
  /** The claims this run labels: all of them, or with --resume those not yet decided. */
  set: ClaimSet;
  /** The claims carry labels: they are checked against today's sources. */
  labelled: boolean;
  resumed?: ResumeState;
}

/** Refuses what cannot work, reads the claims and says what will be done with them. */
function prepare(opts: LabelCommandOptions): Prepared {
  checkOutputs(opts);
  const rows = readRows(opts.claims);
  // Parsed before anything is opened or fetched: a duplicate id or a claim without one refuses the run, naming its
  // line.
  const all = parseClaimRows(rows, opts.claims, ClaimsFileError);
  const labelled = hasLabels(rows);
  if (opts.out === undefined && !labelled)
    throw new LabelRefused(
      `--out is required: ${opts.claims} carries no labels to check, so the labels made must be written somewhere`,
    );
  if (opts.replay && opts.out !== undefined)
    throw new LabelRefused(
      '--replay checks labels against a recorded run; it writes none (--out): a label is dated when its source is ' +
        'read, live',
    );
  if (!opts.resume) return { rows, all, set: all, labelled };
  const resumed = prepareResume({ out: opts.out!, leftOut: opts.leftOut, report: opts.report });
  const todo = all.entries.filter((e) => !resumed.labelled.has(e.id) && !resumed.leftOut.has(e.id));
  return { rows, all, set: { entries: todo, warnings: all.warnings }, labelled, resumed };
}

/** What a resumed run says first: what it found, and what it goes on to label. */
function sayResumed(p: Prepared, opts: LabelCommandOptions): void {
  const r = p.resumed!;
  const inOut = p.all.entries.filter((e) => r.labelled.has(e.id)).length;
  const left = r.leftOut.size ? ` and ${plural(r.leftOut.size, 'claim')} left out in ${opts.leftOut}` : '';
  const cut = r.cut.length ? `; the cut last line of ${r.cut.join(', ')} was dropped (a run killed mid-write)` : '';
  const todo = p.set.entries.length;
  say(
    `resuming: ${thousands(inOut)} of ${plural(p.all.entries.length, 'claim')} labelled in ${opts.out}${left}${cut}` +
      (todo > 0 ? `; labelling the ${thousands(todo)} not decided` : ''),
  );
}

/**
 * Where each decided claim goes: its line in --out (after the WARC record its evidence names is in the archive, so a
 * stop at any moment never leaves a label naming a record that is not there) or in --left-out.
 */
class LabelWriter {
  #chain: Promise<void> = Promise.resolve();

  constructor(
    readonly out: LinesFile | undefined,
    readonly leftOut: LinesFile | undefined,
    readonly recorder: WarcRecorder | undefined,
  ) {}

  labelled(row: Record<string, unknown>): void {
    const out = this.out;
    if (!out) return;
    const evidence = row.evidence as LabelEvidence;
    if (!this.recorder || evidence.warc_record_id === undefined) {
      out.append(row);
      return;
    }
    // The record was queued when its response ended, before the claim was decided: waiting for what is queued now is
    // enough.
    const flushed = this.recorder.flushed();
    this.#chain = this.#chain.then(async () => {
      // A record the archive could not take is named by no label (the archive's failure is reported at the end).
      if (!(await flushed)) delete evidence.warc_record_id;
      out.append(row);
    });
  }

  leftOutClaim(row: Record<string, unknown>): void {
    this.leftOut?.append(row);
  }

  /** Every line handed over so far written. */
  drained(): Promise<void> {
    return this.#chain;
  }

  close(): void {
    this.out?.close();
    this.leftOut?.close();
  }

  /** A file whose writing failed, and why (its lines up to the failure are whole). */
  failure(): string | undefined {
    for (const [flag, f] of [
      ['--out', this.out],
      ['--left-out', this.leftOut],
    ] as const)
      if (f?.failure !== undefined)
        return `writing ${flag} ${f.path} failed: ${f.failure}; it holds the first ${plural(f.lines, 'line')}`;
    return undefined;
  }
}

/**
 * What stops a run: SIGINT, SIGTERM and SIGHUP (a closed terminal, an ended SSH session) stop it the same way: the
 * claims decided are already written, the rest are left out as `stopped`. A second signal leaves at once.
 */
class Stopper {
  readonly controller = new AbortController();
  exitCode = 0;

  readonly #onSignal = (signal: NodeJS.Signals): void => {
    const code = SIGNAL_EXIT[signal] ?? 1;
    if (this.controller.signal.aborted) process.exit(code);
    // The terminal is gone: writing to it must not throw (what is left to write goes to the files).
    if (signal === 'SIGHUP') for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
    this.exitCode = code;
    this.controller.abort(new Error(`received ${signal}`));
  };

  constructor() {
    for (const s of STOP_SIGNALS) process.on(s, this.#onSignal);
  }

  dispose(): void {
    for (const s of STOP_SIGNALS) process.off(s, this.#onSignal);
  }
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The run's settings: the network (recorded or not) or a replay; Wayback is never asked (labels are made now). */
function checkOptions(
  opts: LabelCommandOptions,
  archives: { recorder?: WarcRecorder; replay?: ReplayDispatcher },
  signal: AbortSignal,
): Partial<CheckOptions> {
  return { ...fetchSettings('label', opts), signal, transport: transportOf(archives) };
}

/** How label opens the files it appends to: new, replacing (--force) or appended to (--resume). */
const modeOf = (opts: LabelCommandOptions): WriteMode => (opts.resume ? 'append' : opts.force ? 'replace' : 'new');

export async function labelCommand(opts: LabelCommandOptions): Promise<number> {
  let prepared: Prepared;
  try {
    prepared = prepare(opts);
  } catch (err) {
    return refuseInput(err, OutputPathError);
  }
  if (prepared.resumed) {
    sayResumed(prepared, opts);
    if (prepared.set.entries.length === 0) {
      finishFiles(prepared, opts);
      say(`nothing left to label: every claim of ${opts.claims} is decided`);
      return 0;
    }
  }
  const recorded: RecordedBodies = new Map();
  let archives: Awaited<ReturnType<typeof openArchives>>;
  try {
    archives = await openArchives(opts, recorded);
  } catch (err) {
    return refuseInput(err);
  }
  const mode = modeOf(opts);
  const writer = new LabelWriter(
    opts.out === undefined ? undefined : new LinesFile(opts.out, mode),
    opts.leftOut === undefined ? undefined : new LinesFile(opts.leftOut, mode),
    archives.recorder,
  );
  const stopper = new Stopper();
  try {
    return await labelAndSay(prepared, opts, { archives, recorded, writer, stopper });
  } catch (err) {
    if (err instanceof UserError) return refuseInput(err);
    if ((err as NodeJS.ErrnoException).syscall !== undefined) {
      messageLine(`error: writing the labels failed: ${describeFsError(err)}`);
      return 2;
    }
    throw err;
  } finally {
    writer.close();
    await archives.recorder?.close().catch(() => {});
    await archives.replay?.close();
    stopper.dispose();
  }
}

interface Running {
  archives: Awaited<ReturnType<typeof openArchives>>;
  recorded: RecordedBodies;
  writer: LabelWriter;
  stopper: Stopper;
}

/** The run itself, each claim written as it is decided, then what it found, what it wrote and its exit code. */
async function labelAndSay(p: Prepared, opts: LabelCommandOptions, r: Running): Promise<number> {
  const { archives, writer, stopper } = r;
  const report = opts.report !== undefined ? new ReportFile(opts.report, { append: opts.resume === true }) : undefined;
  const progress = await claimsProgress(p.set, opts.quiet);
  let run: LabelRun;
  try {
    const check = checkOptions(opts, archives, stopper.controller.signal);
    check.onResult = (res) => {
      report?.append(res);
      if (!res.undecided) progress.claimDone();
    };
    check.onSource = (s) => progress.sourceDone(!s.fetch.ok);
    run = await labelClaims(p.rows, p.set, {
      keepUnreadable: opts.keepUnreadable,
      check,
      recorded: r.recorded,
      sinks: { labelled: (row) => writer.labelled(row), leftOut: (row) => writer.leftOutClaim(row) },
    });
    await writer.drained();
  } finally {
    progress.stop();
    report?.close();
  }
  await archives.recorder?.close();
  summarise(run, {
    total: p.set.entries.length,
    writing: opts.out !== undefined,
    keepUnreadable: opts.keepUnreadable,
    replay: opts.replay !== undefined,
  });
  if (p.labelled) summariseChanges(run, opts.replay !== undefined);
  const failed =
    writer.failure() ?? (report?.failure ? `writing --report ${opts.report} failed: ${report.failure}` : undefined);
  if (failed) {
    messageLine(`error: ${failed}`);
    return 2;
  }
  if (!run.stopped) finishFiles(p, opts);
  sayWritten(opts, r, report !== undefined);
  if (run.stopped) {
    sayStopped(run, opts);
    return stopper.exitCode || 1;
  }
  if (opts.out !== undefined && run.labelled === 0) {
    messageLine(
      `error: no claim could be labelled: every one of the ${plural(p.set.entries.length, 'claim')} was left ` +
        `out (above); nothing written to --out ${opts.out}`,
    );
    return NOTHING_LABELLED;
  }
  return p.labelled && (run.changes?.length ?? 0) > 0 ? 1 : 0;
}

/** A finished run's files in the claims file's order (a resumed one's included), by temp file and rename. */
function finishFiles(p: Prepared, opts: LabelCommandOptions): void {
  const ids = p.all.entries.map((e) => e.id);
  if (opts.out !== undefined) inInputOrder(opts.out, ids);
  if (opts.leftOut !== undefined) inInputOrder(opts.leftOut, ids);
}

/** The files written, and what each holds. */
function sayWritten(opts: LabelCommandOptions, r: Running, report: boolean): void {
  const written: string[] = [];
  const { out, leftOut } = r.writer;
  const verb = opts.resume ? 'added to' : 'wrote';
  if (out && out.lines > 0) written.push(`${opts.out} (${plural(out.lines, 'labelled claim')})`);
  if (leftOut && leftOut.lines > 0) written.push(`${opts.leftOut} (${plural(leftOut.lines, 'claim')} left out)`);
  if (report) written.push(opts.report!);
  const recorder = r.archives.recorder;
  if (recorder) written.push(`${opts.record} (${plural(recorder.records(), 'WARC record')})`);
  if (written.length) say(`${verb} ${written.join(', ')}`);
  else if (opts.replay) say('nothing written: a replay checks the labels given against the recording, it makes none');
  else if (opts.out === undefined) say('nothing written (give --out to write the labels of today)');
}

/** A stopped run: what is kept, and the command that goes on with the rest. */
function sayStopped(run: LabelRun, opts: LabelCommandOptions): void {
  const notReached = run.leftOut.filter((l) => l.cause === 'stopped').length;
  const kept = opts.out !== undefined ? `every claim decided is in ${opts.out}` : 'nothing was to be written';
  say(`stopped early (${run.stopped}): ${plural(notReached, 'claim')} not reached; ${kept}`);
  if (opts.out === undefined || opts.argv === undefined) return;
  say(`to label the rest, appending to the same files: ${resumeCommand(opts.argv)}`);
}
