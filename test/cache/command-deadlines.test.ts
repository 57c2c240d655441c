// Every Redis command is bounded by one shared queue and timer
// (src/cache/command-deadlines.ts) instead of a timer each: a command not
// answered within the bound fails with "Command timed out", an answered one
// never does, later commands expire later, and the queue empties.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandDeadlines } from '../../src/cache/command-deadlines.ts';
import { connectRedis } from '../../src/cache/redis-client.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A command as the deadlines see it: answered or not, and what it was failed with. */
function fakeCommand() {
  const command = { isResolved: false, failedWith: undefined as Error | undefined, failedAt: 0, reject(error: Error) { this.failedWith ??= error; this.failedAt ||= performance.now(); } };
  return command;
}

describe('command deadlines', () => {
  it('fail each unanswered command once its own bound has passed, in the order sent, and forget answered ones', async () => {
    const deadlines = new CommandDeadlines(60);
    const started = performance.now();
    const first = fakeCommand();
    const answered = fakeCommand();
    deadlines.watch(first);
    deadlines.watch(answered);
    await sleep(40);
    const later = fakeCommand();
    const laterSent = performance.now();
    deadlines.watch(later);
    answered.isResolved = true;
    await sleep(40); // 80 ms: the first is past its bound, the later one (sent at about 40 ms) is not
    expect(first.failedWith?.message).toBe('Command timed out');
    expect(first.failedAt - started).toBeGreaterThanOrEqual(60);
    expect(answered.failedWith).toBeUndefined();
    expect(later.failedWith).toBeUndefined();
    await sleep(60);
    expect(later.failedWith?.message).toBe('Command timed out');
    expect(later.failedAt - laterSent).toBeGreaterThanOrEqual(60);
    expect(deadlines.watched).toBe(0);
  });

  it('keep no timer of their own alive once every command is answered', async () => {
    const deadlines = new CommandDeadlines(30);
    for (let i = 0; i < 1_000; i++) {
      const command = fakeCommand();
      deadlines.watch(command);
      command.isResolved = true;
    }
    expect(deadlines.watched).toBe(1_000);
    await sleep(80);
    expect(deadlines.watched).toBe(0);
  });
});

describe.skipIf(!redisAvailable())('a Redis client from connectRedis', () => {
  let redis: TestRedis;
  beforeAll(async () => { redis = await startTestRedis(); });
  afterAll(async () => { await redis?.stop(); });

  it('answers within the bound as usual, and fails every command (pipelined ones too) within a few bounds while Redis is stalled', async () => {
    const client = connectRedis({ target: { url: redis.url }, timeoutMs: 80, autoPipelining: true });
    const admin = new Redis(redis.url);
    try {
      while (client.status !== 'ready') await sleep(10);
      await client.set('k', 'v');
      const answers = await Promise.all(Array.from({ length: 500 }, () => client.get('k')));
      expect(answers.every((answer) => answer === 'v')).toBe(true);
      await admin.call('CLIENT', 'PAUSE', '1500', 'ALL');
      const started = performance.now();
      const outcomes = await Promise.allSettled(Array.from({ length: 500 }, () => client.get('k')));
      const elapsed = performance.now() - started;
      expect(outcomes.every((outcome) => outcome.status === 'rejected' && /timed out/.test(String(outcome.reason)))).toBe(true);
      expect(elapsed).toBeGreaterThanOrEqual(80);
      expect(elapsed).toBeLessThan(600);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE').catch(() => {});
      admin.disconnect();
      client.disconnect();
    }
  });
});
