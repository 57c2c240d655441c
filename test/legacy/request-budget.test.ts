// The request budget's rules on a clock moved by hand. The ceiling as seen by
// a real server is measured in legacy-client.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Permit, type Priority, RequestBudget } from '../../src/legacy/request-budget.ts';
import { FakeClock, flush } from './fake-clock.ts';

function setup(maxRps: number, maxConcurrency: number, slackMs = 0) {
  const clock = new FakeClock();
  const budget = new RequestBudget({ maxRps, maxConcurrency, clock, slackMs });
  const granted: { label: string; at: number; permit: Permit }[] = [];
  const ask = (label: string, priority: Priority = 'background', signal?: AbortSignal) =>
    budget.acquire(priority, signal).then((permit) => {
      granted.push({ label, at: clock.now(), permit });
      return permit;
    });
  return { clock, budget, granted, ask };
}

describe('the request budget', () => {
  it('grants at most maxRps per window, counting each request from its start, not its answer', async () => {
    const { clock, granted, ask } = setup(3, 10);
    for (let i = 0; i < 7; i++) void ask(`r${i}`);
    await flush();
    expect(granted.map((g) => g.label)).toEqual(['r0', 'r1', 'r2']);
    for (const g of granted) g.permit.sent(); // all three started at t=0
    await clock.advance(700);
    for (const g of granted) g.permit.release(); // answered at t=700: no matter
    await clock.advance(299);
    expect(granted).toHaveLength(3);
    await clock.advance(1); // t=1000: the window after their start is over
    expect(granted.map((g) => g.label)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    expect(granted.slice(3).every((g) => g.at === 1000)).toBe(true);
  });

  it('a serial service answering in half a window gets maxRps, not one request a window after each answer', async () => {
    const { clock, granted, ask } = setup(2, 1);
    const done = Array.from({ length: 10 }, async (_, i) => {
      const permit = await ask(`r${i}`);
      permit.sent();
      await new Promise<void>((resolve) => clock.setTimeout(resolve, 500));
      permit.release();
    });
    await clock.advance(10_000);
    await Promise.all(done);
    expect(granted.map((g) => g.at)).toEqual([0, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500]);
  });

  it('the slack lengthens the window at our end', async () => {
    const { clock, granted, ask } = setup(2, 10, 50);
    for (let i = 0; i < 3; i++) void ask(`r${i}`);
    await flush();
    for (const g of granted) g.permit.sent();
    await clock.advance(1049);
    expect(granted).toHaveLength(2);
    await clock.advance(1);
    expect(granted.map((g) => [g.label, g.at])).toEqual([['r0', 0], ['r1', 0], ['r2', 1050]]);
  });

  it('counts a request not started yet in every window: the budget waits for it', async () => {
    const { clock, granted, ask } = setup(2, 10);
    void ask('a');
    void ask('b');
    void ask('c');
    await clock.advance(5000);
    expect(granted.map((g) => g.label)).toEqual(['a', 'b']);
    granted[0]!.permit.sent(); // a's connection took until t=5000
    granted[1]!.permit.sent();
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
    granted[0]!.permit.sent(); // sent, not answered: still in flight
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

  it('keeps the ceiling at the server while network delays vary by less than the slack (simulation)', async () => {
    // Each request starts some time after its grant (its connection), and
    // reaches the server a delay later that varies within the slack; whatever
    // those are, no window of 1000 ms holds more than maxRps arrivals, nor
    // more than maxRps starts one of 1000 + slack ms.
    const slackMs = 50;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.record({ connect: fc.integer({ min: 0, max: 300 }), delay: fc.double({ min: 0, max: slackMs, maxExcluded: true, noNaN: true }), answer: fc.integer({ min: 0, max: 1500 }) }), { minLength: 5, maxLength: 30 }),
        async (maxRps, maxConcurrency, requests) => {
          const { clock, ask } = setup(maxRps, maxConcurrency, slackMs);
          const starts: number[] = [];
          const arrivals: number[] = [];
          const after = (ms: number) => new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
          const done = requests.map(async ({ connect, delay, answer }) => {
            const permit = await ask('r');
            await after(connect);
            permit.sent();
            starts.push(clock.now());
            arrivals.push(clock.now() + delay);
            await after(answer);
            permit.release();
          });
          await clock.advance(requests.length * 3000);
          await Promise.all(done);
          const most = (times: number[], windowMs: number) => Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + windowMs).length));
          expect(most(arrivals, 1000)).toBeLessThanOrEqual(maxRps);
          expect(most(starts, 1000 + slackMs)).toBeLessThanOrEqual(maxRps);
        },
      ),
      { numRuns: 200 },
    );
  });
});
