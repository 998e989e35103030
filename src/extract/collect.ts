// A full garbage collection on the calling thread, from V8's own `gc`: after a large page's work, before the next one.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's `gc` (exposed once, at first use); undefined where V8 refuses the flag. */
let collect: (() => void) | undefined | null = null;

/**
 * Collects the garbage a large page's work left (its markup, its texts' pieces, copies of its body) on this thread:
 * V8 would otherwise grow the heap to hold it beside what comes next, and the process keeps what the heap once took.
 */
export function collectGarbage(): void {
  if (collect === null) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = undefined;
    }
  }
  collect?.();
}
