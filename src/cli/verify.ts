// `quotecheck verify`: one quote, one URL, an answer an LLM agent can read (or parse with --json); exit 0 verbatim, 1 no_match, 2 bad input.
import { readFileSync } from 'node:fs';
import type { ClaimResult } from '../check.js';
import { VIEW_NAMES } from '../diagnose/index.js';
import type { HtmlViewChoice } from '../match.js';
import { toReportRecord } from '../report.js';
import { verifyQuote } from '../verify.js';
import type { WaybackMode } from '../asof/judge.js';
import { AsOfDateError, parseAsOf } from '../asof/date.js';
import { REPLAY_ENV } from '../defaults.js';

export interface VerifyCommandOptions {
  url: string;
  quote: string;
  json: boolean;
  htmlView: HtmlViewChoice;
  timeout: number;
  retries: number;
  userAgent?: string;
  blockPrivate: boolean;
  asOf?: string;
  wayback: WaybackMode;
  waybackUrl: string;
  replay?: string;
}

function describe(r: ClaimResult): string {
  const lines = [`${r.label} (diagnosis: ${r.diagnosis})`];
  const source = [r.httpStatus, r.contentType, r.charset, r.extractor].filter((x) => x !== undefined).join(', ');
  lines.push(`source: ${r.url}${r.finalUrl && r.finalUrl !== r.url ? ` -> ${r.finalUrl}` : ''}${source ? ` (${source})` : ''}`);
  if (r.match) {
    lines.push(`found in the ${VIEW_NAMES[r.match.view]} at offset ${r.match.offset}:`);
    lines.push(`  ...${r.match.prefix}[${r.match.exact}]${r.match.suffix}...`);
  }
  if (r.nearest) lines.push(`nearest span (similarity ${r.nearest.similarity.toFixed(2)}, ${VIEW_NAMES[r.nearest.view]} at offset ${r.nearest.offset}):`, `  ${r.nearest.text}`);
  if (r.asOf && (r.asOf.captureUrl || r.drift === 'changed' || r.asOf.source === 'replay')) {
    lines.push(`as of ${r.asOf.date ?? 'today'}: ${r.asOf.captureUrl ? `the Wayback capture of ${r.asOf.timestamp} (${r.asOf.captureUrl})` : `${r.asOf.source === 'replay' ? 'the recorded' : 'today\'s'} text of ${r.asOf.timestamp}`}${r.asOf.proof === 'sha256' ? ', proven by its sha256' : r.asOf.proof === 'nearest' ? ', the nearest to the date' : ''}`);
  }
  if (r.note) lines.push(`note: ${r.note}`);
  return lines.join('\n');
}

export async function verifyCommand(opts: VerifyCommandOptions): Promise<number> {
  // "--quote -" reads the quote from stdin: long quotes need no shell quoting.
  const quote = opts.quote === '-' ? readFileSync(0, 'utf8') : opts.quote;
  if (opts.asOf !== undefined) {
    try {
      parseAsOf(opts.asOf);
    } catch (err) {
      if (!(err instanceof AsOfDateError)) throw err;
      process.stderr.write(`quotecheck verify: error: --as-of: ${err.message}\n`);
      return 2;
    }
  }
  const replayPath = opts.replay ?? (process.env[REPLAY_ENV] || undefined);
  let replay;
  if (replayPath) {
    const { ArchiveError, openReplay } = await import('../archive/index.js');
    try {
      replay = await openReplay(replayPath);
    } catch (err) {
      if (!(err instanceof ArchiveError)) throw err;
      process.stderr.write(`quotecheck verify: error: ${err.message}\n`);
      return 2;
    }
  }
  const options = {
    htmlView: opts.htmlView,
    timeoutMs: opts.timeout * 1000,
    retries: opts.retries,
    blockPrivate: opts.blockPrivate,
    asOf: opts.asOf,
    wayback: opts.wayback,
    waybackUrl: opts.waybackUrl,
    replay,
    ...(opts.userAgent ? { userAgent: opts.userAgent } : {}),
  };
  const result = await verifyQuote(opts.url, quote, options);
  if (opts.json) process.stdout.write(`${JSON.stringify({ ...toReportRecord(result), quote })}\n`);
  else process.stdout.write(`${describe(result)}\n`);
  if (result.diagnosis === 'invalid_claim') {
    if (!opts.json) process.stderr.write(`quotecheck verify: error: ${result.note}\n`);
    return 2;
  }
  return result.label === 'verbatim' ? 0 : 1;
}
