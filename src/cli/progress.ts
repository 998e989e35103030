// Progress on stderr: a bar on a terminal, a plain line every few seconds otherwise.
import cliProgress from 'cli-progress';

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
  const line = () => stream.write(`quotecheck: ${claims}/${totalClaims} claims, ${sources}/${totalSources} sources (${failed} failed), ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
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
