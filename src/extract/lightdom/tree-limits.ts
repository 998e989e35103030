// The limits the tree builder checks as it builds (the DOM caps take this shape), none, and the budget that counts
// against them.

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

/**
 * What the tree builder has made, against its limits: the deepest stack, the elements, their depths' sum, the most
 * children of one node; `over` names the first limit passed. The stack of open elements and the node insertion
 * report to it as they grow.
 */
export class TreeBudget {
  /** Why building stopped (a limit passed); the document is then incomplete and should be dropped. */
  over?: string;
  maxDepth = 0;
  /** Elements made so far. */
  elements = 0;
  /** The sum of the elements' depths when made (their ancestor-descendant pairs). */
  depthSum = 0;
  maxChildren = 0;

  constructor(readonly limits: TreeLimits) {}

  /** The stack of open elements is now `depth` deep. */
  depth(depth: number): void {
    if (depth > this.maxDepth) {
      this.maxDepth = depth;
      if (depth > this.limits.maxDepth)
        this.over ??= `elements nested more than ${this.limits.maxDepth} deep (the DOM cap)`;
    }
  }

  /** An element was made with `depth` elements open. */
  element(depth: number): void {
    if (++this.elements > this.limits.maxElements)
      this.over ??= `more than ${this.limits.maxElements} elements (the DOM cap)`;
    this.depthSum += depth;
    if (this.depthSum > (this.limits.maxDepthSum ?? Infinity))
      this.over ??= `more than ${this.limits.maxDepthSum} ancestor-descendant pairs of elements (the DOM cap)`;
  }

  /** A node now has `n` children. */
  children(n: number): void {
    if (n > this.maxChildren) {
      this.maxChildren = n;
      if (n > this.limits.maxChildren)
        this.over ??= `more than ${this.limits.maxChildren} children in one element (the DOM cap)`;
    }
  }
}
