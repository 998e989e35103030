// O(1) child removal: each node's slot in its parent's childNodes and children, holes, and their compaction.
import { ELEMENT_NODE } from './nodes.js';

// Removal in O(1). JSDOMParser keeps a node's children in two arrays (childNodes, children) and removes a child
// with indexOf and splice, so emptying a parent of n children costs n² (V8's splice on an array of 100,000
// objects takes ~90 µs): Readability's moves (`while (page.firstChild) div.appendChild(page.firstChild)`, <br>
// chains made into paragraphs, a chapter's spacers removed) took 27 s on 100,000 siblings. Here each node
// remembers its slot in its parent's arrays; removing it leaves a hole (or pops it, at the end), and the arrays
// are compacted when they are next read whole (childNodes, children), which Readability does between moves, not
// per move. firstChild and lastChild skip holes without compacting. The arrays are the same objects JSDOMParser
// and Readability use; only their access goes through accessors.
interface Slotted {
  _cn: (Slotted | null)[];
  _ch: (Slotted | null)[];
  /** Holes in _cn and _ch; the first slot of _cn that may hold a node (all before it are holes). */
  _holes: number;
  _eholes: number;
  _front: number;
  /** This node's slot in its parent's _cn, and (elements) _ch: a hint, checked before use. */
  _i: number;
  _ei: number;
  nodeType: number;
  parentNode: Slotted | null;
  previousSibling: Slotted | null;
  nextSibling: Slotted | null;
  previousElementSibling: Slotted | null;
  nextElementSibling: Slotted | null;
}

function compactNodes(node: Slotted): (Slotted | null)[] {
  const a = node._cn;
  let w = 0;
  for (let r = 0; r < a.length; r++) {
    const c = a[r];
    if (c !== null && c !== undefined) {
      c._i = w;
      a[w++] = c;
    }
  }
  a.length = w;
  node._holes = 0;
  node._front = 0;
  return a;
}

function compactElements(node: Slotted): (Slotted | null)[] {
  const a = node._ch;
  let w = 0;
  for (let r = 0; r < a.length; r++) {
    const c = a[r];
    if (c !== null && c !== undefined) {
      c._ei = w;
      a[w++] = c;
    }
  }
  a.length = w;
  node._eholes = 0;
  return a;
}

/** The slot of `node` in `a`: its hint when that is right, else found. */
function slotOf(a: (Slotted | null)[], node: Slotted, hint: number): number {
  return a[hint] === node ? hint : a.indexOf(node);
}

/**
 * Takes slot `i` out of `a`: popped at the end (with the holes before it), else left a hole. Returns the holes added.
 */
function vacate(a: (Slotted | null)[], i: number): number {
  if (i !== a.length - 1) {
    a[i] = null;
    return 1;
  }
  a.pop();
  let popped = 0;
  while (a.length > 0 && a[a.length - 1] === null) {
    a.pop();
    popped--;
  }
  return popped;
}

function appendChild(this: Slotted, child: Slotted) {
  if (child.parentNode) (child as unknown as { remove(): void }).remove();
  const nodes = this._cn;
  const last = nodes[nodes.length - 1] ?? null;
  if (last) last.nextSibling = child;
  child.previousSibling = last;
  if (child.nodeType === ELEMENT_NODE) {
    const kids = this._ch;
    const lastElement = kids[kids.length - 1] ?? null;
    child.previousElementSibling = lastElement;
    child._ei = kids.length;
    kids.push(child);
    if (lastElement) lastElement.nextElementSibling = child;
  }
  child._i = nodes.length;
  nodes.push(child);
  child.parentNode = this;
}

function remove(this: Slotted) {
  const parent = this.parentNode;
  if (!parent) return this;
  const nodes = parent._cn;
  const i = slotOf(nodes, this, this._i);
  if (i === -1) throw new Error('removeChild: node not found');
  this.parentNode = null;
  const prev = this.previousSibling;
  const next = this.nextSibling;
  if (prev) prev.nextSibling = next;
  if (next) next.previousSibling = prev;
  parent._holes += vacate(nodes, i);
  if (parent._holes === 0) parent._front = 0;
  if (this.nodeType === ELEMENT_NODE) {
    const prevElement = this.previousElementSibling;
    const nextElement = this.nextElementSibling;
    if (prevElement) prevElement.nextElementSibling = nextElement;
    if (nextElement) nextElement.previousElementSibling = prevElement;
    const kids = parent._ch;
    const j = slotOf(kids, this, this._ei);
    if (j !== -1) parent._eholes += vacate(kids, j);
  }
  this.previousSibling = this.nextSibling = null;
  this.previousElementSibling = this.nextElementSibling = null;
  return this;
}

function replaceChild(this: Slotted, newNode: Slotted, oldNode: Slotted) {
  if (oldNode.parentNode !== this || slotOf(this._cn, oldNode, oldNode._i) === -1)
    throw new Error('replaceChild: node not found');
  // This takes care of updating the new node if it was somewhere else before (here too: then the slots move).
  if (newNode.parentNode) (newNode as unknown as { remove(): void }).remove();
  const nodes = this._cn;
  const index = slotOf(nodes, oldNode, oldNode._i);
  nodes[index] = newNode;
  newNode._i = index;
  newNode.nextSibling = oldNode.nextSibling;
  newNode.previousSibling = oldNode.previousSibling;
  if (newNode.nextSibling) newNode.nextSibling.previousSibling = newNode;
  if (newNode.previousSibling) newNode.previousSibling.nextSibling = newNode;
  newNode.parentNode = this;
  if (newNode.nodeType === ELEMENT_NODE) {
    if (oldNode.nodeType === ELEMENT_NODE) {
      newNode.previousElementSibling = oldNode.previousElementSibling;
      newNode.nextElementSibling = oldNode.nextElementSibling;
      if (newNode.previousElementSibling) newNode.previousElementSibling.nextElementSibling = newNode;
      if (newNode.nextElementSibling) newNode.nextElementSibling.previousElementSibling = newNode;
      const kids = this._ch;
      const j = slotOf(kids, oldNode, oldNode._ei);
      kids[j] = newNode;
      newNode._ei = j;
    } else {
      // The new element's element siblings: the nearest elements before and after it.
      let prevElement: Slotted | null = null;
      for (let k = index - 1; k >= 0 && !prevElement; k--)
        if (nodes[k] && nodes[k]!.nodeType === ELEMENT_NODE) prevElement = nodes[k]!;
      let nextElement: Slotted | null = prevElement ? prevElement.nextElementSibling : null;
      if (!prevElement)
        for (let k = index + 1; k < nodes.length && !nextElement; k++)
          if (nodes[k] && nodes[k]!.nodeType === ELEMENT_NODE) nextElement = nodes[k]!;
      newNode.previousElementSibling = prevElement;
      newNode.nextElementSibling = nextElement;
      if (prevElement) prevElement.nextElementSibling = newNode;
      if (nextElement) nextElement.previousElementSibling = newNode;
      const kids = this._eholes > 0 ? compactElements(this) : this._ch;
      if (nextElement) {
        const at = slotOf(kids, nextElement, nextElement._ei);
        kids.splice(at, 0, newNode);
        for (let k = at; k < kids.length; k++) kids[k]!._ei = k;
      } else {
        newNode._ei = kids.length;
        kids.push(newNode);
      }
    }
  } else if (oldNode.nodeType === ELEMENT_NODE) {
    if (oldNode.previousElementSibling) oldNode.previousElementSibling.nextElementSibling = oldNode.nextElementSibling;
    if (oldNode.nextElementSibling) oldNode.nextElementSibling.previousElementSibling = oldNode.previousElementSibling;
    const kids = this._ch;
    const j = slotOf(kids, oldNode, oldNode._ei);
    if (j !== -1) this._eholes += vacate(kids, j);
  }
  oldNode.parentNode = null;
  oldNode.previousSibling = null;
  oldNode.nextSibling = null;
  if (oldNode.nodeType === ELEMENT_NODE) {
    oldNode.previousElementSibling = null;
    oldNode.nextElementSibling = null;
  }
  return oldNode;
}

/**
 * The accessors and methods that give JSDOMParser's nodes their slots, for the prototype its nodes share (elements,
 * text, the document): patches.ts installs them (installLightDomPatches).
 */
export const SLOT_ACCESSORS: PropertyDescriptorMap = {
  childNodes: {
    configurable: true,
    get(this: Slotted) {
      return this._holes > 0 ? compactNodes(this) : this._cn;
    },
    set(this: Slotted, value: (Slotted | null)[]) {
      this._cn = value;
      this._holes = 0;
      this._front = 0;
      if (this._ch === undefined) {
        // first set (a constructor): give every node the same fields, in the same order
        this._ch = undefined as unknown as Slotted[];
        this._eholes = 0;
        this._i = -1;
        this._ei = -1;
      }
      for (let i = 0; i < value.length; i++) value[i]!._i = i;
    },
  },
  children: {
    configurable: true,
    get(this: Slotted) {
      return this._eholes > 0 ? compactElements(this) : this._ch;
    },
    set(this: Slotted, value: (Slotted | null)[]) {
      this._ch = value;
      this._eholes = 0;
      for (let i = 0; i < value.length; i++) value[i]!._ei = i;
    },
  },
  firstChild: {
    configurable: true,
    get(this: Slotted) {
      const a = this._cn;
      if (this._holes === 0) return a[0] ?? null;
      let i = this._front;
      while (i < a.length && a[i] === null) i++;
      this._front = i;
      return a[i] ?? null;
    },
  },
  lastChild: {
    configurable: true,
    get(this: Slotted) {
      const a = this._cn;
      return a[a.length - 1] ?? null; // (trailing holes are always popped)
    },
  },
  firstElementChild: {
    configurable: true,
    get(this: Slotted) {
      const a = this._eholes > 0 ? compactElements(this) : this._ch;
      return a[0] ?? null;
    },
  },
  lastElementChild: {
    configurable: true,
    get(this: Slotted) {
      const a = this._ch;
      return a[a.length - 1] ?? null;
    },
  },
};

export const SLOT_METHODS = { appendChild, remove, replaceChild } as const;
