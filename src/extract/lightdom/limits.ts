// The limits the tree builder checks as it builds (the DOM caps take this shape), and none.

/** Limits past which a tree is not worth building; the builder stops and says which it passed (`over`). */
export interface TreeLimits {
  maxElements: number;
  maxDepth: number;
  maxChildren: number;
  /**
   * Most ancestor-descendant pairs: the sum over elements of their depth, which is also the sum of the sizes of
   * all subtrees, what Readability's per-node subtree walks (textContent, getElementsByTagName) cost in all.
   */
  maxDepthSum?: number;
}

export const NO_LIMITS: TreeLimits = { maxElements: Infinity, maxDepth: Infinity, maxChildren: Infinity };
