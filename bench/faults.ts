// The real web's faults laid over a bench workload (Issue 46): sources that ask to wait once, twice or three times
// (Retry-After in seconds and as an HTTP-date), a slow host, a host that closes its connections (and cuts some bodies
// short), redirects across hosts and cookie walls; and the same workload with no latency and no waits.
import { rng } from './random.js';
import type { BenchSource, SourceFault, Workload } from './workload.js';

export interface RealWebFaults {
  /** Share of sources that ask to wait before they answer: in turn once, twice and three times. */
  waitShare: number;
  /** The wait each asks for, in seconds (as a number, or as an HTTP-date that far ahead, in turn). */
  waitSeconds: number;
  /** Share of sources moved to a slow host, which takes `slowDelayMs` for every answer. */
  slowShare: number;
  slowHost: string;
  slowDelayMs: number;
  /** A host that closes every connection after its answer, and cuts the first answer of `cutShare` of its sources. */
  closingHost: string;
  cutShare: number;
  /** Share of sources whose URL redirects (301) to another host, and share behind a cookie wall. */
  redirectShare: number;
  cookieWallShare: number;
  seed: number;
}

/** The workload with its faults: the hosts that close their connections go to the server with it. */
export type FaultyWorkload = Workload & { closingHosts: string[]; slowHosts: string[] };

/** A seeded shuffle of 0..n-1 (Fisher-Yates). */
function shuffled(n: number, random: () => number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** The errors of the i-th source that asks to wait: (i mod 3) + 1 of them, 503 and 429 in turn, the forms in turn. */
function waitFaults(i: number, seconds: number, form: { next: number }): SourceFault[] {
  return Array.from({ length: (i % 3) + 1 }, (_, k) => ({
    kind: 'status' as const,
    status: k % 2 === 0 ? 503 : 429,
    retryAfter: { seconds, form: form.next++ % 2 === 0 ? ('seconds' as const) : ('date' as const) },
  }));
}

/** `url` on `host` instead of its own. */
function onHost(url: string, host: string): string {
  const u = new URL(url);
  u.hostname = host;
  return u.href;
}

/**
 * `w` with the real web's faults on seeded, distinct sources: waits, redirects (to a path of their own on another of
 * the workload's hosts, with a latency of its own), cookie walls, the slow host; then cut answers among the closing
 * host's sources that have no fault yet. Claims follow their source to the slow host.
 */
export function withRealWebFaults(w: Workload, f: RealWebFaults): FaultyWorkload {
  const random = rng(f.seed);
  const n = w.sources.length;
  const order = shuffled(n, random);
  const take = (share: number) => order.splice(0, Math.round(share * n));
  const [waits, redirects, walls, slow] = [
    take(f.waitShare),
    take(f.redirectShare),
    take(f.cookieWallShare),
    take(f.slowShare),
  ];
  const delays = w.sources.map((s) => s.delayMs);
  const [lo, hi] = [Math.min(...delays), Math.max(...delays)];
  const sources: BenchSource[] = w.sources.map((s) => ({ ...s }));
  const form = { next: 0 };
  waits.forEach((i, k) => {
    sources[i]!.faults = waitFaults(k, f.waitSeconds, form);
  });
  for (const i of redirects) {
    const s = sources[i]!;
    const others = w.hosts.filter((h) => h !== s.host);
    const host = others[Math.floor(random() * others.length)]!;
    s.redirect = { host, path: s.path.replace(/^\/doc\//, '/moved/'), delayMs: Math.round(lo + random() * (hi - lo)) };
  }
  for (const i of walls) sources[i]!.cookieWall = true;
  const moved = new Map<string, string>();
  for (const i of slow) {
    const s = sources[i]!;
    moved.set(`http://${s.host}:${s.path}`, f.slowHost);
    Object.assign(s, { host: f.slowHost, delayMs: f.slowDelayMs });
  }
  const plain = order.filter((i) => sources[i]!.host === f.closingHost);
  for (const i of plain.slice(0, Math.round(f.cutShare * plain.length))) sources[i]!.faults = [{ kind: 'cut' }];
  const claims = w.claims.map((c) => {
    const u = new URL(c.url);
    const host = moved.get(`http://${u.hostname}:${u.pathname}`);
    return host ? { ...c, url: onHost(c.url, host) } : c;
  });
  return {
    ...w,
    sources,
    claims,
    hosts: [...w.hosts, f.slowHost],
    closingHosts: [f.closingHost],
    slowHosts: [f.slowHost],
  };
}

/** The same workload with the network costing nothing: no latency anywhere, every asked wait 0 s. */
export function withoutLatency(w: FaultyWorkload): FaultyWorkload {
  const sources = w.sources.map((s) => ({
    ...s,
    delayMs: 0,
    ...(s.redirect ? { redirect: { ...s.redirect, delayMs: 0 } } : {}),
    ...(s.faults
      ? {
          faults: s.faults.map((fault) =>
            fault.kind === 'status' && fault.retryAfter
              ? { ...fault, retryAfter: { ...fault.retryAfter, seconds: 0 } }
              : fault,
          ),
        }
      : {}),
  }));
  return { ...w, sources, routes: w.routes.map((r) => ({ ...r, delayMs: 0 })) };
}

/** A one-line account of a workload's faults, for the bench's output. */
export function describeFaults(w: FaultyWorkload): string {
  const waits = w.sources.filter((s) => s.faults?.[0]?.kind === 'status');
  const times = (n: number) => waits.filter((s) => s.faults!.length === n).length;
  const slow = new Set(w.slowHosts);
  return (
    `${waits.length} sources ask to wait (${times(1)} once, ${times(2)} twice, ${times(3)} three times), ` +
    `${w.sources.filter((s) => slow.has(s.host)).length} on a slow host, ` +
    `${w.sources.filter((s) => s.faults?.[0]?.kind === 'cut').length} cut short on a host that closes its ` +
    `connections, ${w.sources.filter((s) => s.redirect).length} redirect to another host, ` +
    `${w.sources.filter((s) => s.cookieWall).length} behind a cookie wall`
  );
}
