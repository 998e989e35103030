// `quotecheck verify`: one quote, one URL, an answer an LLM agent can read (or parse with --json); exit 0 verbatim, 1
// no_match, 2 bad input.
import { VIEW_NAMES, type Diagnosis, type DiffRun } from '../../diagnose/index.js';
import { checkQuote, type QuoteCheck, type RedirectCheck } from '../../verify.js';
import { toVerifyResult } from '../../output/evidence-report.js';
import { asOfProblem } from '../../asof/date.js';
import { replayFromEnv } from '../../config/defaults.js';
import { evidenceHash } from '../../claims/schema.js';
import { fetchSettings, type FetchFlags } from '../../config/fetch-options.js';
import { cliIo, errorLine, messageLine, outputLine, refuseInput } from '../progress.js';

/** `verify`'s options as commander gives them: the table's (src/config/fetch-options.ts) and its own. */
interface VerifyCommandOptions extends FetchFlags<'verify'> {
  url: string;
  quote: string;
  json: boolean;
  /** `--evidence`: the sha256 of the source as labelled (the claim's evidence.sha256). */
  evidence?: string;
  asOf?: string;
  replay?: string;
}

/** Diagnoses whose nearest span is the quote with words changed: their difference is shown word by word. */
const DIFF_SHOWN: ReadonlySet<Diagnosis> = new Set(['near_miss', 'partial', 'extraction_artifact']);

/** On a terminal: missing words red and struck through, extra words green (SGR codes, each closed by its own reset). */
const COLOURS = { missing: ['\x1b[31;9m', '\x1b[29;39m'], extra: ['\x1b[32m', '\x1b[39m'] } as const;
/** Elsewhere: git's plain word-diff markers. */
const MARKERS = { missing: ['[-', '-]'], extra: ['{+', '+}'] } as const;

/** Whether to colour: stdout is a terminal and NO_COLOR (https://no-color.org) is unset or empty. */
export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = cliIo().env): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

/** The word diff on one line: equal words as they are, missing and extra words coloured or marked. */
export function renderDiff(diff: readonly DiffRun[], colour: boolean): string {
  const marks = colour ? COLOURS : MARKERS;
  return diff
    .map((run) => (run.op === 'equal' ? run.text : `${marks[run.op][0]}${run.text}${marks[run.op][1]}`))
    .join(' ');
}

/**
 * Page text on one printed line: the page's own line breaks (and the blank lines around them) become one space. --json
 * keeps them.
 */
function flat(text: string): string {
  return text.replace(/[ \t]*[\r\n\u2028\u2029][\s]*/g, ' ');
}

/** What `verify` prints without --json, for a person or an agent to read. */
export function describe(r: QuoteCheck, colour = false): string {
  const lines = [`${r.label} (diagnosis: ${r.diagnosis})`];
  const source = [r.httpStatus, r.contentType, r.charset, r.extractor].filter((x) => x !== undefined).join(', ');
  lines.push(
    `source: ${r.url}${r.finalUrl && r.finalUrl !== r.url ? ` -> ${r.finalUrl}` : ''}${source ? ` (${source})` : ''}`,
  );
  if (r.match) {
    lines.push(`found in the ${VIEW_NAMES[r.match.view]} at offset ${r.match.offset}:`);
    // In the page's own wording (the TextQuoteSelector) where it could be mapped back; else normalized.
    const shown = r.selector ?? r.match;
    lines.push(`  ...${flat(shown.prefix)}[${flat(shown.exact)}]${flat(shown.suffix)}...`);
  }
  if (r.nearest) {
    // The similarity is said here only: the diagnosis note leaves it to the nearest span.
    lines.push(
      `nearest span (similarity ${r.nearest.similarity.toFixed(2)}, ${VIEW_NAMES[r.nearest.view]} at offset ` +
        `${r.nearest.offset}):`,
      `  ${flat(r.nearest.raw)}`,
    );
    if (DIFF_SHOWN.has(r.diagnosis) && r.nearest.diff.some((run) => run.op !== 'equal')) {
      const legend = colour
        ? 'red, struck: only in the quote; green: only in the source'
        : '[-only in the quote-] {+only in the source+}';
      lines.push(`the quote against it (${legend}):`, `  ${renderDiff(r.nearest.diff, colour)}`);
    }
  }
  if (r.asOf && (r.asOf.captureUrl || r.drift === 'changed' || r.asOf.source === 'replay')) {
    const { captureUrl, timestamp, source, proof } = r.asOf;
    const text = captureUrl
      ? `the Wayback capture of ${timestamp} (${captureUrl})`
      : `${source === 'replay' ? 'the recorded' : "today's"} text of ${timestamp}`;
    const proven =
      proof === 'sha256' ? ', proven by its sha256' : proof === 'nearest' ? ', the nearest to the date' : '';
    lines.push(`as of ${r.asOf.date ?? 'today'}: ${text}${proven}`);
  }
  if (r.note) lines.push(`note: ${r.note}`);
  if (r.redirect) lines.push(describeRedirect(r.redirect));
  return lines.join('\n');
}

/** Where a redirect shell sends the reader, and whether the quote is there (the label above stays the page's own). */
function describeRedirect(r: RedirectCheck): string {
  const where = `the page redirects (${r.via}) to ${r.target}`;
  if (r.found) return `${where}: the quote is there (verbatim)`;
  const why =
    r.diagnosis === 'fetch_failed' || r.diagnosis === 'invalid_claim'
      ? `the target could not be checked (${r.diagnosis}${r.note ? `: ${r.note}` : ''})`
      : `the quote is not there either (diagnosis: ${r.diagnosis}${r.note ? `; ${r.note}` : ''})`;
  return `${where}: ${why}`;
}

export async function verifyCommand(opts: VerifyCommandOptions): Promise<number> {
  const io = cliIo();
  // "--quote -" reads the quote from stdin: long quotes need no shell quoting.
  const quote = opts.quote === '-' ? io.readStdin() : opts.quote;
  const evidence = opts.evidence === undefined ? undefined : evidenceHash(opts.evidence);
  if (opts.evidence !== undefined && evidence === undefined) {
    errorLine(
      `--evidence ${JSON.stringify(opts.evidence.slice(0, 80))}: not a sha256 (64 hex digits, optionally prefixed ` +
        `sha256:)`,
    );
    return 2;
  }
  const asOf = opts.asOf === undefined ? undefined : asOfProblem(opts.asOf);
  if (asOf) {
    errorLine(`--as-of: ${asOf}`);
    return 2;
  }
  const replayPath = opts.replay ?? replayFromEnv(io.env);
  let replay;
  if (replayPath) {
    const { openReplay } = await import('../../archive/index.js');
    try {
      replay = await openReplay(replayPath, { waybackUrl: opts.waybackUrl });
    } catch (err) {
      return refuseInput(err);
    }
    // Said once, when the recording asked another Wayback Machine than --wayback-url: its answers are used.
    if (replay.waybackBase !== undefined && replay.waybackBase !== replay.askedBase)
      messageLine(`replaying ${replayPath}: ${replay.describeWaybackBase()}`);
  }
  // The same options, and the same defaults, as `run` gives a claim with this date and evidence: one code path.
  const options = {
    ...fetchSettings('verify', opts),
    asOf: opts.asOf,
    evidence,
    ...(replay ? { transport: { kind: 'replay', archive: replay } as const } : {}),
  };
  const result = await checkQuote(opts.url, quote, options);
  if (opts.json) outputLine(JSON.stringify(toVerifyResult(result, quote)));
  else outputLine(describe(result, useColour(io.stdout, io.env)));
  if (result.diagnosis === 'invalid_claim') {
    if (!opts.json) errorLine(`${result.note}`);
    return 2;
  }
  return result.label === 'verbatim' ? 0 : 1;
}
