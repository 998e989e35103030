// The MCP server's HTML workers: small pages on a worker of their own, so a quick call is not queued behind a large
// page, and large pages on a worker let go when none is left to extract, so its heap is not held beside the next work.
import { collectSoon } from '../extract/collect.js';
import { choosePagePool, HtmlPool } from '../extract/worker/pool.js';
import { SMALL_PAGE_BYTES } from './work.js';

/**
 * A pool whose workers are stopped once it has no page left: a worker's heap grows to the largest page it parsed (some
 * 300 MB for 30 MB of HTML) and V8 keeps it, while the page's own work (search, matching) goes on on the page worker.
 * A fresh worker costs about 0.2 s to start; a large page takes seconds.
 */
class LetGoPool extends HtmlPool {
  #pending = 0;
  /** The page's body is handed to the worker: the tools keep no body of theirs once it is extracted (tools.ts). */
  protected override readonly transferBodies = true;

  override async extract(...args: Parameters<HtmlPool['extract']>): ReturnType<HtmlPool['extract']> {
    this.#pending++;
    try {
      return await super.extract(...args);
    } finally {
      if (--this.#pending === 0) {
        void this.close();
        // The buffers a large page's texts came in (src/extract/worker/units.ts) go now, not at some later collection:
        // on the next turn, once the message that brought them is let go too.
        collectSoon();
      }
    }
  }
}

/** Sends every page the server extracts to its lane's pool; the small pages' worker is started now. */
export function useLanes(): void {
  const small = new HtmlPool(1);
  const large = new LetGoPool(1);
  small.warm();
  choosePagePool((bytes) => (bytes <= SMALL_PAGE_BYTES ? small : large));
}
