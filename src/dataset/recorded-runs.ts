// The recorded runs a frozen edition's sources come from
// (docs/datasets.md#quotecheck-export-labelled-claims-to-a-dataset): every archive given to `export --warc`, each cut
// into the runs it holds (a resumed `label --record` appends a run to its file), and for each source the one run that
// holds the bytes its claims were labelled on.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import {
  ArchiveError,
  readArchive,
  recordedWaybackBases,
  selectForSources,
  writeArchive,
  type Archive,
  type ArchivedRecord,
} from '../archive/index.js';
import { plural } from '../messages.js';
import type { ExportResult } from './export.js';
import type { LabelledClaim } from './labelled.js';
import { ExportError } from './export-error.js';
import { TASK_ARCHIVE } from '../task/paths.js';

/** One recording pass: the records from a warcinfo record to the next (or the file's end). */
interface RecordedRun {
  /** The run's records as an archive of their own (its file's path). */
  archive: Archive;
  /** The Wayback bases it asked. */
  bases: string[];
  /** Record ids of its responses and error records. */
  ids: Set<string>;
  /** The URLs it has an exchange for (responses and error records). */
  urls: Set<string>;
}

/** Each archive cut at its warcinfo records: one run of quotecheck each, in file order and the order given. */
function recordedRuns(archives: readonly Archive[]): RecordedRun[] {
  const runs: RecordedRun[] = [];
  for (const archive of archives) {
    let records: ArchivedRecord[] = [];
    const flush = (): void => {
      if (records.length === 0) return;
      const part: Archive = { path: archive.path, records };
      const exchanges = records.filter((r) => r.type === 'response' || r.type === 'metadata');
      runs.push({
        archive: part,
        bases: recordedWaybackBases(part),
        ids: new Set(exchanges.map((r) => r.recordId)),
        urls: new Set(exchanges.flatMap((r) => (r.targetUri ? [r.targetUri] : []))),
      });
      records = [];
    };
    for (const r of archive.records) {
      if (r.type === 'warcinfo') flush();
      records.push(r);
    }
    flush();
  }
  return runs;
}

/** The archives' paths, as messages name them. */
const named = (archives: readonly Archive[]): string => archives.map((a) => a.path).join(', ');

/**
 * The run a task's source is replayed from: the one holding the record most of its claims name
 * (evidence.warc_record_id, the bytes they were labelled on), later runs winning ties; for claims that name none, the
 * last run with an exchange for the URL. A record no archive holds, or a source none recorded, is an ExportError that
 * says how to give them.
 */
function runForSource(
  url: string,
  claims: readonly LabelledClaim[],
  runs: readonly RecordedRun[],
  archives: readonly Archive[],
  task: string,
): RecordedRun {
  const votes = new Map<RecordedRun, number>();
  for (const c of claims) {
    if (c.recordId === undefined) continue;
    const run = runs.findLast((r) => r.ids.has(c.recordId!));
    if (!run)
      throw new ExportError(
        `claim ${JSON.stringify(c.claim.id)} names WARC record ${c.recordId} (evidence.warc_record_id), which ` +
          `${archives.length === 1 ? `${named(archives)} does not hold` : `none of ${named(archives)} holds`}; give ` +
          `--warc the archive its label was recorded in (label --record FILE; repeat --warc for each batch)`,
      );
    votes.set(run, (votes.get(run) ?? 0) + 1);
  }
  let best: RecordedRun | undefined;
  for (const [run, n] of votes) if (!best || n >= votes.get(best)!) best = run;
  best ??= runs.findLast((r) => r.urls.has(url));
  if (best) return best;
  throw new ExportError(
    `${named(archives)}: ${archives.length === 1 ? 'has' : 'have'} no exchange for 1 source of ${task}, ${url} ` +
      `(${plural(claims.length, 'claim')}); give --warc the archive these claims were labelled with ` +
      `(label --record FILE; repeat --warc for each batch)`,
  );
}

/**
 * Reads the recorded runs a frozen edition is made from, in the order given; a missing, unreadable or cut archive is an
 * ExportError.
 */
export async function readRecordedRuns(paths: readonly string[]): Promise<Archive[]> {
  const archives: Archive[] = [];
  for (const path of paths) archives.push(await readRecordedRun(path));
  return archives;
}

/** Reads one recorded run; a missing, unreadable or cut archive is an ExportError. */
async function readRecordedRun(archivePath: string): Promise<Archive> {
  let archive: Archive;
  try {
    archive = await readArchive(archivePath);
  } catch (err) {
    if (err instanceof ArchiveError) throw new ExportError(err.message);
    throw err;
  }
  if (archive.cut)
    throw new ExportError(
      `${archivePath}: ends inside a record at byte ${archive.cut.offset} (${archive.cut.reason}); a frozen ` +
        `edition needs a whole archive`,
    );
  return archive;
}

/** The records a replay of `urls` needs from `run`, whichever Wayback base it asked. */
function recordsFor(run: RecordedRun, urls: readonly string[]): Set<ArchivedRecord> {
  const chosen = new Set<ArchivedRecord>();
  for (const base of run.bases.length ? run.bases : [undefined])
    for (const r of selectForSources(run.archive, urls, base ? { waybackBase: base } : {})) chosen.add(r);
  return chosen;
}

/**
 * Gives each task of a frozen edition its own sources: for each of its URLs, the records of the one recorded run
 * that holds the bytes its claims were labelled on (runForSource) that a replay needs (redirects, retries, Wayback
 * lookups and captures), as the task's environment/sources.warc.gz. `tasks` are the claims of `result`'s tasks, in
 * its order. Every source is placed before any archive is written; one no archive holds is an error naming it: a
 * frozen task must not depend on the live web.
 */
export async function writeTaskArchives(
  result: ExportResult,
  archives: readonly Archive[],
  tasks: readonly (readonly LabelledClaim[])[],
): Promise<{ records: number; bytes: number }> {
  const runs = recordedRuns(archives);
  const plans = result.tasks.map((task, i) => {
    const byRun = new Map<RecordedRun, string[]>();
    for (const url of task.urls) {
      const claims = tasks[i]!.filter((c) => c.claim.fetchUrl === url);
      const run = runForSource(url, claims, runs, archives, task.name);
      byRun.set(run, [...(byRun.get(run) ?? []), url]);
    }
    return { task, byRun };
  });
  let records = 0;
  let bytes = 0;
  for (const { task, byRun } of plans) {
    // In the order the runs were given and recorded, each run's records in its own order.
    const inOrder = runs.flatMap((run) => {
      const urls = byRun.get(run);
      if (!urls) return [];
      const chosen = recordsFor(run, urls);
      return run.archive.records.filter((r) => chosen.has(r));
    });
    const bases = [...new Set([...byRun.keys()].flatMap((run) => run.bases))];
    const file = join(task.dir, 'environment', TASK_ARCHIVE);
    await writeArchive(file, inOrder, { waybackBases: bases });
    records += inOrder.length;
    bytes += statSync(file).size;
  }
  return { records, bytes };
}
