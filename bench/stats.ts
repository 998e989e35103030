// The bench's small statistics: medians (of numbers, and of runs by their wall time) and figures rounded for results.json.

/** The median of `xs` (the upper one of an even count), `xs` left as it is. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The median run by wall time, and the runs fastest first (the tables list them). */
export function medianRun<T extends { seconds: number }>(runs: readonly T[]): { median: T; bySpeed: T[] } {
  const bySpeed = [...runs].sort((a, b) => a.seconds - b.seconds);
  return { median: bySpeed[Math.floor(bySpeed.length / 2)]!, bySpeed };
}

/** `n` to `d` decimals, as a number (results.json's figures). */
export const fixed = (n: number, d = 2): number => Number(n.toFixed(d));
