// The run's bound on sources held once fetched (src/run/held.ts): by count and by bytes, granted in the order asked.
import { describe, expect, test } from 'vitest';
import { HeldSources } from '../../src/run/held.js';

const settle = () => new Promise((r) => setImmediate(r));

describe('HeldSources', () => {
  test('holds up to its count, then grants the next as one is released', async () => {
    const held = new HeldSources(2, 1_000);
    const a = await held.acquire(10);
    await held.acquire(10);
    let third = false;
    void held.acquire(10).then(() => (third = true));
    await settle();
    expect(third).toBe(false);
    a();
    await settle();
    expect(third).toBe(true);
    expect(held.held).toEqual({ count: 2, bytes: 20 });
  });

  test('holds up to its bytes; a body larger than the whole budget is held alone', async () => {
    const held = new HeldSources(10, 100);
    const a = await held.acquire(60);
    let big = false;
    let small = false;
    void held.acquire(500).then((release) => {
      big = true;
      release();
    });
    // Asked after the big one: it waits its turn, though it would fit now.
    void held.acquire(10).then(() => (small = true));
    await settle();
    expect([big, small]).toEqual([false, false]);
    a();
    await settle();
    expect([big, small]).toEqual([true, true]);
    expect(held.held).toEqual({ count: 1, bytes: 10 });
  });

  test('a release called twice gives back its place once', async () => {
    const held = new HeldSources(1, 100);
    const a = await held.acquire(50);
    a();
    a();
    expect(held.held).toEqual({ count: 0, bytes: 0 });
    await held.acquire(50);
    expect(held.held).toEqual({ count: 1, bytes: 50 });
  });
});
