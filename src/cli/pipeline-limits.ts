// The fetch limits `run` and `mcp` both take, turned from the command line's units into the pipeline's.
import type { CheckOptions } from '../check.js';

/** The options as commander gives them: seconds, and a rate a minute. */
export interface LimitOptions {
  timeout: number;
  retries: number;
  sourceBudget: number;
  extractTimeout: number;
  waybackUrl: string;
  waybackRate: number;
}

export type PipelineLimits = Pick<CheckOptions, 'timeoutMs' | 'retries' | 'sourceBudgetMs' | 'extractTimeoutMs' | 'waybackUrl' | 'waybackPerMinute'>;

/** The same limits in the pipeline's units (milliseconds), so that both commands convert them alike. */
export function pipelineLimits(o: LimitOptions): PipelineLimits {
  return {
    timeoutMs: o.timeout * 1000,
    retries: o.retries,
    sourceBudgetMs: o.sourceBudget * 1000,
    extractTimeoutMs: o.extractTimeout * 1000,
    waybackUrl: o.waybackUrl,
    waybackPerMinute: o.waybackRate,
  };
}
