// The run's own slot rule (src/fetch/slots.ts) as a schedule: every answer its latency and nothing else, the waits
// its servers ask for holding no slot; what bench/slot-simulation.ts runs on the real-pages draws.
import type { BenchSource, SourceRequest } from './workload.js';
import { requestsOf } from './workload.js';

/** A request ready to take its slots: its source, its place in the source's chain, its rank and arrival. */
interface Ready {
  source: number;
  step: number;
  /** When it may go (a wait its server asked for ends then), ms. */
  at: number;
  /** slots.ts SlotPriority: 0 first requests, 1 a retry after an asked wait, 2 another hop. */
  rank: number;
  seq: number;
}

/** The run's last answer (ms from its first request) when `sources` go through the slot rule at these limits. */
export function simulateSlots(sources: readonly BenchSource[], concurrency: number, perHost: number): number {
  const chains: SourceRequest[][] = sources.map((s) => requestsOf(s, 0));
  let seq = 0;
  const queue: Ready[] = chains.map((_, source) => ({ source, step: 0, at: 0, rank: 0, seq: seq++ }));
  const inFlight: { ready: Ready; done: number }[] = [];
  const hostBusy = new Map<string, number>();
  let busy = 0;
  let now = 0;
  let last = 0;
  const request = (r: Ready): SourceRequest => chains[r.source]![r.step]!;
  for (;;) {
    // Grant slots: the best ready request of a host with a slot free, by rank, then arrival.
    for (;;) {
      if (busy >= concurrency) break;
      let best: Ready | undefined;
      for (const r of queue) {
        if (r.at > now || (hostBusy.get(request(r).host) ?? 0) >= perHost) continue;
        if (!best || r.rank < best.rank || (r.rank === best.rank && r.seq < best.seq)) best = r;
      }
      if (!best) break;
      queue.splice(queue.indexOf(best), 1);
      const { host, costMs } = request(best);
      hostBusy.set(host, (hostBusy.get(host) ?? 0) + 1);
      busy++;
      inFlight.push({ ready: best, done: now + costMs });
    }
    const next = Math.min(...inFlight.map((f) => f.done), ...queue.filter((r) => r.at > now).map((r) => r.at));
    if (!Number.isFinite(next)) return last;
    now = next;
    for (const f of inFlight.filter((x) => x.done <= now)) {
      inFlight.splice(inFlight.indexOf(f), 1);
      const { host, waitAfterMs } = request(f.ready);
      hostBusy.set(host, hostBusy.get(host)! - 1);
      busy--;
      const step = f.ready.step + 1;
      if (step < chains[f.ready.source]!.length) {
        const rank = waitAfterMs > 0 ? 1 : 2;
        queue.push({ source: f.ready.source, step, at: now + waitAfterMs, rank, seq: f.ready.seq });
      } else last = Math.max(last, now);
    }
  }
}
