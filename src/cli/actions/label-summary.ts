// What `label` says when it is done (docs/make-a-benchmark.md#2-gold-labels-with-their-proof): the labels and their
// diagnoses, the claims left out and why, the labels today's sources would change, and how to go on after a stop.
import { DIAGNOSES } from '../../contract.js';
import type { LabelRun, LeftOut } from '../../dataset/label.js';
import { plural, thousands } from '../../messages.js';
import { shellQuote } from '../../sh-quote.js';
import { messageLine } from '../progress.js';

/** How many claims a list on stderr names before "and N more" (a drift check names every one). */
const LISTED = 20;
const say = (message: string): void => messageLine(message);

/** A list on stderr: the first `limit` lines, then how many more. */
function listLines(lines: readonly string[], limit = LISTED): void {
  for (const line of lines.slice(0, limit)) say(`  ${line}`);
  if (lines.length > limit) say(`  and ${thousands(lines.length - limit)} more`);
}

/** Why claims were left out, in words that read after a count: "2 with an HTTP error status". */
const LEFT_OUT_WORDS: Record<string, string> = {
  http_status: 'with an HTTP error status',
  timeout: 'timed out',
  dns: 'whose host name did not resolve',
  connection: 'whose server could not be reached',
  tls: 'with a TLS failure',
  too_large: 'over the size limit (--max-mb)',
  redirects: 'with broken redirects',
  aborted: 'cut off by the stop',
  refused: 'refused by the network rule',
  not_archived: 'not in the archive',
  other: 'that failed otherwise',
  unreadable: 'unreadable',
  invalid: 'malformed',
  stopped: 'not reached before the stop',
};

/** "2 with an HTTP error status, 1 refused by the network rule": the left-out claims counted by why. */
function leftOutCounts(leftOut: readonly LeftOut[]): string {
  const counts = new Map<string, number>();
  for (const l of leftOut) {
    const why = l.cause === 'unreadable' ? (l.kind ?? l.cause) : l.cause;
    counts.set(why, (counts.get(why) ?? 0) + 1);
  }
  return [...counts].map(([why, n]) => `${thousands(n)} ${LEFT_OUT_WORDS[why] ?? why}`).join(', ');
}

interface SummaryContext {
  /** Claims this run was given (a resumed run: those still to label). */
  total: number;
  /** Labels were written (--out given): else the claims were only checked. */
  writing: boolean;
  keepUnreadable: boolean;
  /** A replay: "in the recording", not "today". */
  replay: boolean;
}

/** What the run found: labels and their diagnoses, left-out claims and why, the shells labelled no_match. */
export function summarise(run: LabelRun, c: SummaryContext): void {
  for (const w of run.warnings) say(`warning: ${w}`);
  const { read, unreadable } = run.sources;
  const when = c.replay ? 'in the recording' : 'today';
  say(
    `${c.writing ? 'labelled' : 'checked'} ${thousands(run.labelled)} of ${plural(c.total, 'claim')}: ` +
      `${thousands(run.verbatim)} verbatim, ${thousands(run.labelled - run.verbatim)} no_match ${when} ` +
      `(sources: ${thousands(read)} read, ${thousands(unreadable)} could not be read)`,
  );
  const diagnoses = DIAGNOSES.filter((d) => (run.diagnoses[d] ?? 0) > 0);
  if (diagnoses.length > 0)
    say(`diagnoses of the labels: ${diagnoses.map((d) => `${d} ${thousands(run.diagnoses[d]!)}`).join(', ')}`);
  if (run.leftOut.length > 0) {
    const unreadableOnes = run.leftOut.some((l) => l.cause === 'unreadable');
    say(
      `left out ${plural(run.leftOut.length, 'claim')} with no gold label (${leftOutCounts(run.leftOut)})` +
        (unreadableOnes
          ? `: a no_match for a source that was down, gone or refused measures nothing` +
            (c.keepUnreadable ? '' : '; --keep-unreadable labels unreadable ones no_match')
          : ''),
    );
    // Claims a stop left are not listed: the resume labels them.
    listLines(
      run.leftOut.filter((l) => l.cause !== 'stopped').map((l) => `${l.id}${l.url ? ` ${l.url}` : ''}: ${l.reason}`),
    );
  }
  const shells = (['paywall', 'empty', 'unsupported'] as const).filter((d) => (run.diagnoses[d] ?? 0) > 0);
  if (shells.length > 0)
    say(
      `warning: ${shells.map((d) => `${thousands(run.diagnoses[d]!)} ${d}`).join(', ')}: labelled no_match on ` +
        `sources with no document text to test; look at them before publishing (--report has each one's evidence)`,
    );
}

/** With a labelled input: each label today's sources (or the recording's) would change and why, and each source that
 * changed under labels that hold. Every one is named: this is what a scheduled check is read for. */
export function summariseChanges(run: LabelRun, replay: boolean): void {
  const when = replay ? 'in the recording' : 'today';
  const changes = run.changes ?? [];
  const sources = [...(run.changedSources ?? [])];
  if (changes.length === 0) say(`every label given holds ${when}`);
  else {
    say(`${plural(changes.length, 'label')} given would not hold ${when}:`);
    listLines(
      changes.map((c) => `${c.id}: ${c.why}`),
      Number.POSITIVE_INFINITY,
    );
  }
  if (sources.length === 0) return;
  const claims = sources.reduce((n, [, ids]) => n + ids.length, 0);
  const one = sources.length === 1;
  say(
    `${plural(sources.length, 'source')} changed since ${one ? 'its' : 'their'} claims' evidence (the sha256 ` +
      `differs), the labels of ${claims === 1 ? 'that claim' : `those ${plural(claims, 'claim')}`} holding:`,
  );
  listLines(
    sources.map(([url, ids]) => `${url}: ${ids.join(', ')}`),
    Number.POSITIVE_INFINITY,
  );
}

/**
 * The command that goes on where a stopped run left off: the same arguments, `--force` dropped (it would replace what
 * was labelled), `--resume` added.
 */
export function resumeCommand(argv: readonly string[]): string {
  const args = argv.filter((a) => a !== '--force' && a !== '--resume');
  return ['quotecheck', ...args, '--resume'].map(shellQuote).join(' ');
}
