// The answers session: a claims file's entries turned into an answers file kept in step with the run, and the run's
// tally.
import { AnswerBook, AnswersFile, type AnswerFormat, type AnswersTarget } from '../output/answers.js';
import type { ClaimSet } from '../claims/schema.js';
import type { CheckOptions, StreamedRun } from './check-options.js';
import { RunTally } from './tally.js';

/**
 * One run over one claims file, as `quotecheck run` and the MCP server's check_claims make it: the answers file is
 * written at once with every claim `no_match` (so it exists, complete and valid, from the start), rewritten soon after
 * each decision, and written a last time at the end; a stopped run leaves every decision made. The run is streamed:
 * memory follows the sources in flight, and the tally, never the number of claims.
 */
export class AnswersSession {
  readonly answers: AnswersFile;
  readonly tally = new RunTally();
  readonly set: ClaimSet;

  constructor(set: ClaimSet, target: string | AnswersTarget, format: AnswerFormat = 'map') {
    this.set = set;
    this.answers = new AnswersFile(target, format, new AnswerBook(set.entries.map((e) => e.id)));
  }

  /** The first write: every claim no_match. Throws when the file cannot be written (nothing has been fetched yet). */
  start(): void {
    this.answers.write();
  }

  /**
   * Runs the pipeline on the session's claims. Each claim goes first to `options.onResult` (a report line, so that a
   * claim the answers file shows decided is always in the report), then into the answers and the tally; each source
   * to `options.onSource`, then the tally. Ends with no write pending: the caller makes the final write (`finish`).
   */
  async run(options: Partial<CheckOptions>): Promise<StreamedRun> {
    const { answers, tally } = this;
    // The pipeline (the HTTP client, the network rule, the stages) loads here, not with the session: a baseline run
    // writes its answers without it.
    const { runClaims } = await import('./loop.js');
    const onResult: CheckOptions['onResult'] = (r) => {
      options.onResult?.(r);
      answers.book.set(r.id, r.label);
      answers.schedule();
      tally.addResult(r);
    };
    try {
      return await runClaims(
        this.set,
        {
          ...options,
          onResult,
          onSource: (s) => {
            tally.addSource(s);
            options.onSource?.(s);
          },
        },
        (r) => onResult(r),
      );
    } finally {
      answers.cancel();
    }
  }

  /** The last write, with every decision made. Throws when it fails (a full disk, the folder gone). */
  finish(): void {
    this.answers.write();
  }
}
