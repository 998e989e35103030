// The run's own slot rule (src/fetch/slots.ts) simulated on the real-pages profile's draws at several limits, every
// answer its latency and nothing else: `node dist/bench/slot-simulation.js [draws]` prints, per pair of limits, the
// five bench draws' ratios to their bounds and the median over more draws (docs/performance.md#real-pages).
import { join } from 'node:path';
import { goldenDir } from '../golden/server.js';
import { lowerBound } from './bound.js';
import { realPagesWorkloads } from './real-pages.js';
import { simulateSlots } from './slot-rule.js';
import { median } from './stats.js';

/** The run's start-up and its exit after the last answer, as measured (seconds): the simulation has neither. */
const START_UP_SECONDS = 0.3;
const EXIT_SECONDS = 0.05;
/** The pairs of limits (at once, a host) simulated. */
const LIMITS: readonly [number, number][] = [
  [16, 2],
  [16, 4],
  [24, 3],
  [32, 4],
  [48, 6],
];
/** The draws the bench runs (real-pages.ts: run 1 to 5). */
const BENCH_DRAWS = 5;

async function main(draws: number): Promise<void> {
  const w = await realPagesWorkloads(join(goldenDir(), 'sources'), () => {});
  const sources = Array.from({ length: draws }, (_, i) => w.draw(i + 1).latency.sources);
  process.stdout.write(
    `the slot rule on the real-pages profile's draws (start-up ${START_UP_SECONDS} s and exit ${EXIT_SECONDS} s ` +
      'added, no CPU), wall over the bound:\n',
  );
  for (const [concurrency, perHost] of LIMITS) {
    const ratios = sources.map((s) => {
      const bound = lowerBound(s, concurrency, perHost, { cpuSeconds: 0, cores: 2, startupSeconds: START_UP_SECONDS });
      return (START_UP_SECONDS + simulateSlots(s, concurrency, perHost) / 1000 + EXIT_SECONDS) / bound.seconds;
    });
    const bench = ratios.slice(0, BENCH_DRAWS);
    process.stdout.write(
      `  ${concurrency} at once, ${perHost} a host: the bench's draws ${bench.map((r) => r.toFixed(2)).join(', ')} ` +
        `(median ${median(bench).toFixed(2)}); ${draws} draws: median ${median(ratios).toFixed(2)}, ` +
        `max ${Math.max(...ratios).toFixed(2)}\n`,
    );
  }
}

const draws = Number(process.argv[2] ?? 40);
if (!Number.isInteger(draws) || draws < BENCH_DRAWS) {
  process.stderr.write(`slot-simulation: draws must be an integer >= ${BENCH_DRAWS}, got ${process.argv[2]}\n`);
  process.exit(2);
}
await main(draws);
