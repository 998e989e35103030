// Entry points: a page's document in one tokenizer pass (within limits). Each installs the light DOM's adjustments to
// JSDOMParser's prototypes first (patches.ts; once per process), so that every caller gets the DOM Readability needs.
import { NO_LIMITS, type TreeLimits } from './tree-limits.js';
import type { LightDocument } from './nodes.js';
import { installLightDomPatches } from './patches.js';
import { tokenizeInto } from './tokenizer.js';
import { LightTreeBuilder } from './tree.js';

/**
 * Builds a page's light document in one tokenizer pass; stops (no document, `over` says why) as soon as the
 * tree passes one of `limits`.
 */
export function buildDocument(html: string, limits: TreeLimits = NO_LIMITS): { doc?: LightDocument; over?: string } {
  installLightDomPatches();
  const tree = new LightTreeBuilder(limits);
  tokenizeInto(html, tree);
  const doc = tree.over ? undefined : tree.finish();
  return tree.over ? { over: tree.over } : { doc };
}
