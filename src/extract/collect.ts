// A full garbage collection on the calling thread, from V8's own `gc`: after a large page's work, before the next one.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Matches the empty string. */
const FORGET_LAST_MATCH = /(?:)/;

/** V8's `gc` (exposed once, at first use); undefined where V8 refuses the flag. */
let collect: (() => void) | undefined | null = null;

/**
 * Collects the garbage a large page's work left (its markup, its texts' pieces, copies of its body) on this thread:
 * V8 would otherwise grow the heap to hold it beside what comes next, and the process keeps what the heap once took.
 */
export function collectGarbage(): void {
  // The last string a regular expression matched in stays reachable (RegExp.input, `$_`, the legacy statics) until
  // another match: a page's 56 MB text, held through its worker's collection (Issue 46). A match on nothing forgets it.
  FORGET_LAST_MATCH.exec('');
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

let soon = false;

/**
 * collectGarbage() once what runs now has finished (the next turn of the event loop), and once however often it is
 * asked for meanwhile: a call that let a page go may still hold it until its answer is sent.
 */
export function collectSoon(): void {
  if (soon) return;
  soon = true;
  setImmediate(() => {
    soon = false;
    collectGarbage();
  });
}
