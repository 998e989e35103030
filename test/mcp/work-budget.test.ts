// The MCP server's work budget (src/mcp/work.ts) and the cache's room for work (src/mcp/cache.ts), in process: leases
// granted in arrival order while they fit, a page larger than the budget alone, a stopped waiter leaving the queue.
import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../../src/mcp/cache.js';
import { WorkBudget } from '../../src/mcp/work.js';

const MB = 1024 * 1024;

describe('WorkBudget', () => {
  it('grants in arrival order while pages fit, a larger one never passing the first waiting', async () => {
    const budget = new WorkBudget(10 * MB);
    const signal = new AbortController().signal;
    const granted: string[] = [];
    const first = await budget.take(6 * MB, signal);
    const taken = (mb: number) =>
      budget.take(mb * MB, signal).then((lease) => {
        granted.push(`${mb} MB`);
        return lease;
      });
    const waiting = [taken(8), taken(3)];
    await new Promise((r) => setImmediate(r));
    // 3 MB would fit beside the 6, but the 8 MB page came first.
    expect(granted).toEqual([]);
    expect(budget.waiting).toBe(2);
    budget.release(first);
    const eight = await waiting[0]!;
    expect(granted).toEqual(['8 MB']);
    budget.release(eight);
    budget.release(await waiting[1]!);
    expect(granted).toEqual(['8 MB', '3 MB']);
    expect(budget.inUse).toBe(0);
  });

  it('lets a page larger than the whole budget run alone, and a stopped waiter leave the queue', async () => {
    const budget = new WorkBudget(4 * MB);
    const huge = budget.tryTake(30 * MB);
    expect(huge).toBeDefined();
    expect(budget.tryTake(1 * MB + 1)).toBeUndefined();
    const stop = new AbortController();
    const given = budget.take(3 * MB, stop.signal);
    stop.abort(new Error('cancelled by the client'));
    await expect(given).rejects.toThrow('cancelled by the client');
    expect(budget.waiting).toBe(0);
    budget.release(huge!);
    expect(budget.tryTake(4 * MB)).toBeDefined();
  });

  it('tells the cache what is in work, with the URL, as leases are granted', () => {
    const told: [number, string | undefined][] = [];
    const budget = new WorkBudget(16 * MB, (inUse, url) => told.push([inUse, url]));
    budget.tryTake(8 * MB, 'http://a.test/one');
    budget.tryTake(4 * MB, 'http://a.test/two');
    expect(told).toEqual([
      [8 * MB, 'http://a.test/one'],
      [12 * MB, 'http://a.test/two'],
    ]);
  });
});

describe('ByteBudget.makeRoom', () => {
  it('drops the least recently used entries to make room, never those of the page in work', () => {
    const kept = new ByteBudget(100);
    const dropped: string[] = [];
    for (const key of ['http\nhttp://a.test/old', 'record\nhttp://a.test/page', 'http\nhttp://a.test/new'])
      kept.keep(key, 30, () => dropped.push(key));
    kept.makeRoom(70, 'http://a.test/page');
    expect(dropped).toEqual(['http\nhttp://a.test/old', 'http\nhttp://a.test/new']);
    expect(kept.bytes).toBe(30);
  });
});
