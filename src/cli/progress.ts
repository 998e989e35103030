// What the commands say on stderr: progress (a bar on a terminal, a plain line every few seconds otherwise) and the one message prefix.
import cliProgress from 'cli-progress';

/** Every command's messages start with this, errors with `quotecheck: error: `, warnings with `quotecheck: warning: `. */
export const MESSAGE_PREFIX = 'quotecheck: ';

/** One line on stderr with the common prefix. */
export function messageLine(message: string, stream: NodeJS.WritableStream = process.stderr): void {
  stream.write(`${MESSAGE_PREFIX}${message}\n`);
}

/** An error on stderr: one line, `quotecheck: error: ...`, the same in every command. */
export function errorLine(message: string, stream: NodeJS.WritableStream = process.stderr): void {
  messageLine(`error: ${message}`, stream);
}

/**
 * The one way a command refuses bad input: an error of one of the `expected` kinds is one error
 * line and exit code 2; anything else is a bug, thrown on for its stack.
 */
export function refuseInput(err: unknown, ...expected: (abstract new (...args: never[]) => Error)[]): 2 {
  if (!expected.some((kind) => err instanceof kind)) throw err;
  errorLine((err as Error).message);
  return 2;
}

export interface Progress {
  claimDone(): void;
  sourceDone(failed: boolean): void;
  stop(): void;
}

/** How often a non-terminal gets a progress line. */
const PLAIN_INTERVAL_MS = 2_000;

export function createProgress(totalClaims: number, totalSources: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  let claims = 0;
  let sources = 0;
  let failed = 0;
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: 'quotecheck |{bar}| {value}/{total} claims | {sources}/{totalSources} sources, {failed} failed | {duration}s',
        hideCursor: true,
        clearOnComplete: true,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(totalClaims, 0, { sources, totalSources, failed });
    return {
      claimDone: () => bar.update(++claims, { sources, totalSources, failed }),
      sourceDone: (f) => {
        sources++;
        if (f) failed++;
        bar.update(claims, { sources, totalSources, failed });
      },
      stop: () => {
        // Idempotent: the run stops the bar before its summary, and again on the way out.
        if (bar.isActive) bar.stop();
      },
    };
  }
  const started = Date.now();
  const line = () => stream.write(`${MESSAGE_PREFIX}${claims}/${totalClaims} claims, ${sources}/${totalSources} sources (${failed} failed), ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  const timer = setInterval(line, PLAIN_INTERVAL_MS);
  timer.unref();
  return {
    claimDone: () => void claims++,
    sourceDone: (f) => {
      sources++;
      if (f) failed++;
    },
    stop: () => clearInterval(timer),
  };
}
