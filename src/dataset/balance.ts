// Splitting groups that must stay whole (the claims of one source) into tasks of at most N, as even as the groups
// allow.

/**
 * The groups (by index into `sizes`) of each task: as few tasks as fit, their sizes as even as the groups allow.
 *
 * - A group larger than `capacity` is a task alone (it cannot be split, and anything added would make it larger).
 * - The other groups go into k tasks of at most `capacity`: k starts at ceil(total / capacity) and grows only when the
 *   packing below finds no fit (groups too large to pair up: three groups of 6 under a capacity of 10 need 3 tasks).
 * - For a given k: largest group first, each to the smallest task so far (LPT), or where that stays over the capacity
 *   first-fit decreasing, or the groups in input order (`packInto`); then exchanges of up to two groups each way
 *   between two tasks while one makes them more even (`rebalance`).
 *
 * The result is balanced in this sense, which test/balance.test.ts checks against random group sizes: no exchange of
 * up to two groups each way between two tasks brings them closer in size. So the largest and the smallest task differ
 * by at most the smallest group of the largest task (moving a smaller one would even them out; by at most 1 when every
 * group is a single claim), and a tail task (one claim beside tasks of ten) is left only when no such exchange exists.
 *
 * Deterministic (ties go to the earlier group and the earlier task), and fast: O(groups x tasks) for the packing, and
 * each rebalancing step lowers the sum of squared task sizes, so there are few. Input order is not kept across tasks
 * (a task takes groups from anywhere in the input); within a task groups keep input order, and tasks are ordered by
 * their first group's place in the input.
 */
export function balancedPartition(sizes: readonly number[], capacity: number): number[][] {
  const order = sizes.map((_, i) => i);
  const oversized = order.filter((i) => sizes[i]! > capacity);
  const rest = order.filter((i) => sizes[i]! <= capacity);
  const tasks: number[][] = oversized.map((i) => [i]);
  if (rest.length > 0) tasks.push(...fewestTasks(rest, sizes, capacity));
  for (const t of tasks) t.sort((a, b) => a - b);
  return tasks.filter((t) => t.length > 0).sort((a, b) => a[0]! - b[0]!);
}

/**
 * The groups (none larger than `capacity`) in as few tasks as the packings fit, rebalanced. ceil(total / capacity)
 * first, which nearly always fits; else the first-fit decreasing and in-order packings with as many tasks as they
 * need, which fit by construction, and the fewest tasks between the two found by bisection.
 */
function fewestTasks(groups: readonly number[], sizes: readonly number[], capacity: number): number[][] {
  // Largest first; among equal sizes, input order.
  const bySize = [...groups].sort((a, b) => sizes[b]! - sizes[a]! || a - b);
  let low = Math.max(1, Math.ceil(groups.reduce((n, g) => n + sizes[g]!, 0) / capacity));
  const fits = packInto(bySize, groups, sizes, low, capacity);
  if (fits) return fits;
  const used = (bins: Bin[] | undefined): number => bins!.filter((b) => b.groups.length > 0).length;
  let high = Math.min(
    used(firstFit(bySize, sizes, groups.length, capacity)),
    used(firstFit(groups, sizes, groups.length, capacity, true)),
  );
  let best = packInto(bySize, groups, sizes, high, capacity)!;
  while (high - low > 1) {
    const k = Math.floor((low + high) / 2);
    const packed = packInto(bySize, groups, sizes, k, capacity);
    if (packed) [high, best] = [k, packed];
    else low = k;
  }
  return best;
}

/**
 * The groups in k tasks of at most `capacity`, or undefined when no packing fits. Three packings, each rebalanced: the
 * even one (largest group first, each to the smallest task; rebalancing can bring an overfull task under the capacity,
 * and never pushes one over), first-fit decreasing, and the groups in input order, a task closed when the next group
 * would overfill it (the split export made before). Of those that fit, the one whose smallest task is largest (then
 * whose largest is smallest) wins. Rebalancing never makes the smallest task smaller nor the largest larger, so the
 * result has no more tasks than first-fit decreasing or the old split need, and with as many as the old split, a
 * smallest task at least as large as its.
 */
function packInto(
  bySize: readonly number[],
  inOrder: readonly number[],
  sizes: readonly number[],
  k: number,
  capacity: number,
): number[][] | undefined {
  const packings = [
    () => leastLoaded(bySize, sizes, k),
    () => firstFit(bySize, sizes, k, capacity),
    () => firstFit(inOrder, sizes, k, capacity, true),
  ];
  let best: { bins: Bin[]; min: number; max: number } | undefined;
  for (const pack of packings) {
    const bins = pack();
    if (!bins) continue;
    rebalance(bins, sizes);
    const loads = bins.map((b) => b.load);
    const [min, max] = [Math.min(...loads), Math.max(...loads)];
    if (max > capacity || (best && (min < best.min || (min === best.min && max >= best.max)))) continue;
    best = { bins, min, max };
    // Within one claim of each other: no packing has a larger smallest task or a smaller largest one.
    if (max - min <= 1) break;
  }
  return best?.bins.map((b) => b.groups);
}

/** A task being packed: its groups (indices) and their total size; `ways` caches `exchanges` until the bin changes. */
interface Bin {
  groups: number[];
  load: number;
  ways?: Map<number, number[]>;
}

const emptyBins = (k: number): Bin[] => Array.from({ length: k }, () => ({ groups: [], load: 0 }));

/**
 * Each group to the task with the fewest claims so far (the first such task on a tie): even, but blind to the capacity.
 */
function leastLoaded(bySize: readonly number[], sizes: readonly number[], k: number): Bin[] {
  const bins = emptyBins(k);
  for (const g of bySize) {
    let best = bins[0]!;
    for (const b of bins) if (b.load < best.load) best = b;
    best.groups.push(g);
    best.load += sizes[g]!;
  }
  return bins;
}

/**
 * Each group to the first task it fits in (`next`: to the current task, else the next one, never back): finds a fit
 * where leastLoaded does not; undefined when a group fits nowhere.
 */
function firstFit(
  groups: readonly number[],
  sizes: readonly number[],
  k: number,
  capacity: number,
  next = false,
): Bin[] | undefined {
  const bins = emptyBins(k);
  let from = 0;
  for (const g of groups) {
    const at = bins.findIndex((b, i) => i >= from && b.load + sizes[g]! <= capacity);
    if (next && at >= 0) from = at;
    const bin = bins[at];
    if (!bin) return undefined;
    bin.groups.push(g);
    bin.load += sizes[g]!;
  }
  return bins;
}

/** Every bin by its load, so that a bin finds partners by how far their loads are from its own. */
class LoadIndex {
  readonly #byLoad = new Map<number, Set<Bin>>();

  constructor(bins: readonly Bin[]) {
    for (const b of bins) this.add(b);
  }

  add(bin: Bin): void {
    const set = this.#byLoad.get(bin.load);
    if (set) set.add(bin);
    else this.#byLoad.set(bin.load, new Set([bin]));
  }

  remove(bin: Bin): void {
    const set = this.#byLoad.get(bin.load);
    set?.delete(bin);
    if (set?.size === 0) this.#byLoad.delete(bin.load);
  }

  /** The bins whose loads differ from `load` by 2 or more (less leaves no exchange to make), farthest first. */
  *farFrom(load: number): Generator<Bin> {
    const loads = [...this.#byLoad.keys()]
      .filter((l) => Math.abs(l - load) >= 2)
      .sort((a, b) => Math.abs(b - load) - Math.abs(a - load) || a - b);
    for (const l of loads) yield* [...this.#byLoad.get(l)!];
  }
}

/**
 * Exchanges groups between two bins while that makes the two closer in size, until no pair of bins has such an
 * exchange (`bestExchange`). A bin is checked against every other when it is new or has just changed; a pair that
 * had none keeps having none until one of the two changes, so each pair is looked at again only then. A step never
 * makes the larger of its two bins larger, so the largest bin never grows (a fit stays a fit), and it lowers the sum
 * of squared loads, so the loop ends.
 */
function rebalance(bins: Bin[], sizes: readonly number[]): void {
  const index = new LoadIndex(bins);
  const dirty = new Set(bins);
  while (dirty.size > 0) {
    const bin = dirty.values().next().value!;
    dirty.delete(bin);
    for (const other of index.farFrom(bin.load)) {
      const [big, small] = bin.load > other.load ? [bin, other] : [other, bin];
      const exchange = bestExchange(big, small, sizes);
      if (!exchange) continue;
      index.remove(big);
      index.remove(small);
      apply(big, small, exchange);
      index.add(big);
      index.add(small);
      dirty.add(big);
      dirty.add(small);
      break;
    }
  }
}

/**
 * An exchange between two bins: the positions of the groups each gives, and the claims that moves from big to small.
 */
interface Exchange {
  give: number[];
  take: number[];
  d: number;
}

/** The ways to take at most two groups out of a bin, by the claims they hold: one way (the first found) per total. */
function exchanges(bin: Bin, sizes: readonly number[]): Map<number, number[]> {
  if (bin.ways) return bin.ways;
  const ways = new Map<number, number[]>([[0, []]]);
  bin.ways = ways;
  const add = (total: number, at: number[]): void => {
    if (!ways.has(total)) ways.set(total, at);
  };
  for (let x = 0; x < bin.groups.length; x++) {
    add(sizes[bin.groups[x]!]!, [x]);
    for (let y = x + 1; y < bin.groups.length; y++) add(sizes[bin.groups[x]!]! + sizes[bin.groups[y]!]!, [x, y]);
  }
  return ways;
}

/**
 * The exchange that brings two bins closest, or undefined when none brings them closer. An exchange gives at most two
 * groups of `big` to `small` and takes at most two back (a move is one for none, a swap one for one); moving d claims
 * from big to small makes them closer when 0 < d < the difference, best when d is nearest half of it. Ways are
 * compared by total, so a bin of many single claims costs no more than one of a few large groups.
 */
function bestExchange(big: Bin, small: Bin, sizes: readonly number[]): Exchange | undefined {
  const diff = big.load - small.load;
  const fromSmall = exchanges(small, sizes);
  let best: Exchange | undefined;
  for (const [given, give] of exchanges(big, sizes)) {
    for (const [taken, take] of fromSmall) {
      const d = given - taken;
      if (d <= 0 || d >= diff) continue;
      if (!best || Math.abs(diff - 2 * d) < Math.abs(diff - 2 * best.d)) best = { give, take, d };
    }
  }
  return best;
}

function apply(big: Bin, small: Bin, { give, take, d }: Exchange): void {
  const gave = give.map((x) => big.groups[x]!);
  const took = take.map((y) => small.groups[y]!);
  big.groups = big.groups.filter((_, x) => !give.includes(x)).concat(took);
  small.groups = small.groups.filter((_, y) => !take.includes(y)).concat(gave);
  big.load -= d;
  small.load += d;
  big.ways = undefined;
  small.ways = undefined;
}
