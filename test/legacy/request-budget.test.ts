// The request budget's rules on a clock moved by hand. The ceiling as seen by
// a real server is measured in legacy-client.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Permit, type Priority, RequestBudget } from '../../src/legacy/request-budget.ts';
import { FakeClock, flush } from './fake-clock.ts';

function setup(maxRps: number, maxConcurrency: number) {
  const clock = new FakeClock();
  const budget = new RequestBudget({ maxRps, maxConcurrency, clock });
  const granted: { label: string; at: number; permit: Permit }[] = [];
  const ask = (label: string, priority: Priority = 'background', signal?: AbortSignal) =>
    budget.acquire(priority, signal).then((permit) => {
      granted.push({ label, at: clock.now(), permit });
      return permit;
    });
  return { clock, budget, granted, ask };
}

describe('the request budget', () => {
  it('grants at most maxRps per window, counting each request until a window after it arrived', async () => {
    const { clock, granted, ask } = setup(3, 10);
    for (let i = 0; i < 7; i++) void ask(`r${i}`);
    await flush();
    expect(granted.map((g) => g.label)).toEqual(['r0', 'r1', 'r2']);
    await clock.advance(100);
    for (const g of granted) g.permit.release(); // all three arrived at t=100
    await clock.advance(999);
    expect(granted).toHaveLength(3);
    await clock.advance(1); // t=1100: the window after their arrival is over
    expect(granted.map((g) => g.label)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    expect(granted.slice(3).every((g) => g.at === 1100)).toBe(true);
  });

  it('counts a request with no answer yet in every window: the budget waits for it', async () => {
    const { clock, granted, ask } = setup(2, 10);
    void ask('a');
    void ask('b');
    void ask('c');
    await clock.advance(5000);
    expect(granted.map((g) => g.label)).toEqual(['a', 'b']);
    granted[0]!.permit.arrived(); // a's answer starts at t=5000
    await clock.advance(999);
    expect(granted).toHaveLength(2);
    await clock.advance(1);
    expect(granted.map((g) => [g.label, g.at])).toEqual([['a', 0], ['b', 0], ['c', 6000]]);
  });

  it('holds at most maxConcurrency in flight, whatever the rate allows', async () => {
    const { clock, granted, ask } = setup(100, 2);
    for (let i = 0; i < 4; i++) void ask(`r${i}`);
    await flush();
    expect(granted).toHaveLength(2);
    granted[0]!.permit.arrived(); // answered, body still coming: still in flight
    await clock.advance(10);
    expect(granted).toHaveLength(2);
    granted[0]!.permit.release();
    await flush();
    expect(granted).toHaveLength(3);
  });

  it('gives both slots back for a request that was never sent', async () => {
    const { granted, ask } = setup(1, 1);
    void ask('a');
    void ask('b');
    await flush();
    granted[0]!.permit.cancel();
    await flush();
    expect(granted.map((g) => g.label)).toEqual(['a', 'b']);
  });

  it('serves interactive waiters first, each queue in order', async () => {
    const { granted, ask } = setup(100, 1);
    void ask('first');
    void ask('b1');
    void ask('b2');
    void ask('i1', 'interactive');
    void ask('i2', 'interactive');
    for (let i = 0; i < 5; i++) {
      await flush();
      granted.at(-1)!.permit.release();
    }
    await flush();
    expect(granted.map((g) => g.label)).toEqual(['first', 'i1', 'i2', 'b1', 'b2']);
  });

  it('grants nothing during a pause', async () => {
    const { clock, budget, granted, ask } = setup(100, 10);
    budget.pauseUntil(500);
    budget.pauseUntil(200); // never shortens a pause
    void ask('a', 'interactive');
    await clock.advance(499);
    expect(granted).toHaveLength(0);
    await clock.advance(1);
    expect(granted.map((g) => [g.label, g.at])).toEqual([['a', 500]]);
    expect(budget.snapshot().pausedUntil).toBeUndefined();
  });

  it('drops a waiter whose signal is aborted, and rejects everyone on close', async () => {
    const { budget, granted, ask } = setup(100, 1);
    void ask('a');
    const controller = new AbortController();
    const aborted = ask('b', 'background', controller.signal);
    const closed = ask('c');
    controller.abort(new Error('client gone'));
    await expect(aborted).rejects.toThrow('client gone');
    budget.close();
    await expect(closed).rejects.toThrow('closed');
    expect(granted.map((g) => g.label)).toEqual(['a']);
    expect(budget.snapshot().queued).toEqual({ interactive: 0, background: 0 });
  });

  it('keeps the ceiling at the server whatever the network delays (simulation)', async () => {
    // Each request arrives at some random point between its grant and its
    // answer; whatever those points are, no window of 1000 ms holds more than maxRps.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.record({ latency: fc.integer({ min: 0, max: 1500 }), arrival: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 5, maxLength: 30 }),
        async (maxRps, maxConcurrency, requests) => {
          const { clock, ask } = setup(maxRps, maxConcurrency);
          const arrivals: number[] = [];
          const done = requests.map(async ({ latency, arrival }) => {
            const permit = await ask('r');
            const grantedAt = clock.now();
            arrivals.push(grantedAt + arrival * latency);
            await new Promise<void>((resolve) => clock.setTimeout(resolve, latency));
            permit.release();
          });
          await clock.advance(requests.length * 3000);
          await Promise.all(done);
          arrivals.sort((a, b) => a - b);
          for (let i = 0; i < arrivals.length; i++) {
            const inWindow = arrivals.filter((t) => t >= arrivals[i]! && t < arrivals[i]! + 1000).length;
            expect(inWindow).toBeLessThanOrEqual(maxRps);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
