// `quotecheck label`: claims in, gold labels with their proof out (JSON Lines), or a labelled file checked against
// today's sources.
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import type { CheckOptions } from '../check.js';
import { ClaimsFileError, type ClaimSet } from '../claims.js';
import { DEFAULT_MAX_CLAIMS_BYTES } from '../claims-file.js';
import { CLI_DEFAULTS, VERSION } from '../defaults.js';
import { UserError } from '../errors.js';
import { hasLabels, parseClaimRows, readClaimRows, type ClaimRow } from '../harbor/labelled.js';
import { labelClaims, type LabelRun, type RecordedBodies } from '../harbor/label.js';
import { describeFsError, plural, readTextFile } from '../messages.js';
import { OutputPathError, checkOutputPaths, writeFileAtomicSync } from '../outputs.js';
import { ReportFile } from '../report-file.js';
import type { ReplayDispatcher, WarcRecorder } from '../archive/index.js';
import { SIGNAL_EXIT, claimsProgress, messageLine, refuseInput } from './progress.js';
import { transportOf } from '../run/options.js';
import { fetchSettings, type FetchFlags } from '../options.js';

/** `label`'s options as commander gives them: the table's (src/options.ts) and its own. */
export interface LabelCommandOptions extends FetchFlags<'label'> {
  claims: string;
  out?: string;
  force: boolean;
  keepUnreadable: boolean;
  leftOut?: string;
  record?: string;
  replay?: string;
  report?: string;
  quiet?: boolean;
}

/** A label run refused before its first fetch: one error line, exit 2. */
class LabelRefused extends UserError {
  override readonly name = 'LabelRefused';
}

/** How many claims a list on stderr names before "and N more". */
const LISTED = 20;
const say = (message: string): void => messageLine(message);

/** Every file label writes, checked before anything is read or fetched; --out is never overwritten unless --force. */
function checkOutputs(opts: LabelCommandOptions): void {
  checkOutputPaths(
    [
      ['--out', opts.out],
      ['--left-out', opts.leftOut],
      ['--record', opts.record],
      ['--report', opts.report],
    ],
    opts.claims,
  );
  if (opts.out !== undefined && existsSync(opts.out) && !opts.force)
    throw new LabelRefused(`--out ${opts.out}: exists; label never overwrites a file unless asked (--force)`);
  if (opts.record && opts.replay)
    throw new LabelRefused('--record and --replay cannot be used together: a replay makes no HTTP exchanges to record');
}

/** The claims file's rows (JSON array, {"claims": [...]}, or JSON Lines), at most the claims-file cap. */
function readRows(path: string): ClaimRow[] {
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
  const { WarcRecorder, decodeContent, openReplay } = await import('../archive/index.js');
  if (opts.replay) return { replay: await openReplay(opts.replay) };
  const recorder = await WarcRecorder.open(opts.record!, {
    software: `quotecheck/${VERSION}`,
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

/** A list on stderr: the first LISTED lines, then how many more. */
function listLines(lines: readonly string[]): void {
  for (const line of lines.slice(0, LISTED)) say(`  ${line}`);
  if (lines.length > LISTED) say(`  and ${lines.length - LISTED} more`);
}

/** What the run found: labels, left-out claims and their reasons, changes against a labelled input. */
function summarise(run: LabelRun, opts: LabelCommandOptions, total: number): void {
  for (const w of run.warnings) say(`warning: ${w}`);
  const labels = run.rows.reduce((n, r) => n + (r.label === 'verbatim' ? 1 : 0), 0);
  const { read, unreadable } = run.sources;
  // A labelled file given without --out is only checked: its claims are labelled today, and nothing is written.
  const done = opts.out === undefined ? 'checked' : 'labelled';
  say(
    `${done} ${run.rows.length} of ${plural(total, 'claim')}: ${labels} verbatim, ${run.rows.length - labels} ` +
      `no_match today (sources: ${read} read, ${unreadable} could not be read)`,
  );
  if (run.stopped) say(`stopped early (${run.stopped})`);
  if (run.leftOut.length > 0) {
    const causes = new Map<string, number>();
    for (const l of run.leftOut) causes.set(l.kind ?? l.cause, (causes.get(l.kind ?? l.cause) ?? 0) + 1);
    say(
      `left out ${plural(run.leftOut.length, 'claim')} with no gold label ` +
        `(${[...causes].map(([c, n]) => `${c} ${n}`).join(', ')}): a no_match for a source that was down, gone or ` +
        `refused measures nothing${opts.keepUnreadable ? '' : '; --keep-unreadable labels unreadable ones no_match'}`,
    );
    listLines(run.leftOut.map((l) => `${l.id}${l.url ? ` ${l.url}` : ''}: ${l.reason}`));
  }
  const shells = (['paywall', 'empty', 'unsupported'] as const).filter((d) => (run.diagnoses[d] ?? 0) > 0);
  if (shells.length > 0)
    say(
      `warning: ${shells.map((d) => `${run.diagnoses[d]} ${d}`).join(', ')}: labelled no_match on sources with no ` +
        `document text to test; look at them before publishing (--report has each one's evidence)`,
    );
}

/** With a labelled input: which labels today's sources would change, and why. */
function summariseChanges(run: LabelRun): void {
  const changes = run.changes ?? [];
  const n = run.changedButHolding ?? 0;
  const held = n
    ? `; ${plural(n, 'claim')} ` +
      `${n === 1 ? 'keeps its label though its source' : 'keep their labels though their sources'} changed since ` +
      `the evidence`
    : '';
  if (changes.length === 0) {
    say(`every label given holds today${held}`);
    return;
  }
  say(`${plural(changes.length, 'label')} given would not hold today${held}:`);
  listLines(changes.map((c) => `${c.id}: ${c.why}`));
}

/** The labelled claims as JSON Lines, and the left-out ones (each with `left_out`), written atomically. */
function writeOutputs(run: LabelRun, rows: readonly ClaimRow[], opts: LabelCommandOptions): string[] {
  const written: string[] = [];
  const lines = (objs: readonly object[]) => objs.map((o) => `${JSON.stringify(o)}\n`).join('');
  if (opts.out !== undefined) {
    writeFileAtomicSync(opts.out, lines(run.rows));
    written.push(`${opts.out} (${plural(run.rows.length, 'labelled claim')})`);
  }
  if (opts.leftOut !== undefined) {
    const left = run.leftOut.map((l) => ({
      ...rows[l.index]!.raw,
      left_out: { cause: l.cause, ...(l.kind ? { kind: l.kind } : {}), reason: l.reason },
    }));
    writeFileAtomicSync(opts.leftOut, lines(left));
    written.push(`${opts.leftOut} (${plural(left.length, 'claim')} left out)`);
  }
  return written;
}

/**
 * The run's settings from the command's: the network (recorded or not) or a replay; Wayback is never asked (labels are
 * made now).
 */
function checkOptions(
  opts: LabelCommandOptions,
  archives: { recorder?: WarcRecorder; replay?: ReplayDispatcher },
  signal: AbortSignal,
): Partial<CheckOptions> {
  return { ...fetchSettings('label', opts), signal, transport: transportOf(archives) };
}

interface Prepared {
  rows: ClaimRow[];
  set: ClaimSet;
  /** The claims carry labels: they are checked against today's sources. */
  labelled: boolean;
}

/** Refuses what cannot work, reads the claims and says what will be done with them. */
function prepare(opts: LabelCommandOptions): Prepared {
  checkOutputs(opts);
  const rows = readRows(opts.claims);
  // Parsed before anything is opened or fetched: a duplicate id or a claim without one refuses the run, naming its
  // line.
  const set = parseClaimRows(rows, opts.claims, ClaimsFileError);
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
  return { rows, set, labelled };
}

export async function labelCommand(opts: LabelCommandOptions): Promise<number> {
  let prepared: Prepared;
  try {
    prepared = prepare(opts);
  } catch (err) {
    return refuseInput(err, OutputPathError);
  }
  const { rows, set, labelled } = prepared;
  const recorded: RecordedBodies = new Map();
  let archives: Awaited<ReturnType<typeof openArchives>>;
  try {
    archives = await openArchives(opts, recorded);
  } catch (err) {
    return refuseInput(err);
  }
  const controller = new AbortController();
  let exitCode = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    exitCode = SIGNAL_EXIT[signal] ?? 1;
    controller.abort(new Error(`received ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const report = opts.report !== undefined ? new ReportFile(opts.report) : undefined;
  const progress = await claimsProgress(set, opts.quiet);
  try {
    const check = checkOptions(opts, archives, controller.signal);
    check.onResult = (r) => {
      report?.append(r);
      if (!r.undecided) progress.claimDone();
    };
    check.onSource = (s) => progress.sourceDone(!s.fetch.ok);
    const run = await labelClaims(rows, set, { keepUnreadable: opts.keepUnreadable, check, recorded });
    progress.stop();
    await archives.recorder?.close();
    summarise(run, opts, rows.length);
    if (labelled) summariseChanges(run);
    const written = writeOutputs(run, rows, opts);
    if (report) written.push(opts.report!);
    if (archives.recorder) written.push(`${opts.record} (${plural(archives.recorder.records(), 'WARC record')})`);
    say(written.length ? `wrote ${written.join(', ')}` : 'nothing written (give --out to write the labels of today)');
    if (exitCode !== 0) return exitCode;
    return labelled && (run.changes?.length ?? 0) > 0 ? 1 : 0;
  } catch (err) {
    if (err instanceof UserError) return refuseInput(err);
    if ((err as NodeJS.ErrnoException).syscall !== undefined) {
      messageLine(`error: writing the labels failed: ${describeFsError(err)}`);
      return 2;
    }
    throw err;
  } finally {
    progress.stop();
    report?.close();
    await archives.recorder?.close().catch(() => {});
    await archives.replay?.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
