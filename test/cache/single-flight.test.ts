// Single flight (src/cache/single-flight.ts), alone: one flight per key,
// followers get its response, a lost producer is not waited for long.
import { describe, expect, it } from 'vitest';
import { FOLLOW_TIMEOUT_MS, SingleFlight } from '../../src/cache/single-flight.ts';

const response = { status: 200, body: '{"data":1}', tags: ['p:1'] };

describe('single flight', () => {
  it('one flight per key: followers get the response it settles, the key is free again after', async () => {
    const flights = new SingleFlight();
    const { flight, settle } = flights.set('k', Promise.resolve(undefined));
    expect(flights.get('k')).toBe(flight);
    const followers = [SingleFlight.follow(flight), SingleFlight.follow(flight)];
    settle(response);
    expect(await Promise.all(followers)).toEqual([response, response]);
    expect(flights.get('k')).toBeUndefined();
  });

  it('a later flight for the key replaces the first; the first settling does not free the later one', () => {
    const flights = new SingleFlight();
    const first = flights.set('k', Promise.resolve(undefined));
    const second = flights.set('k', Promise.resolve(undefined));
    first.settle(undefined);
    expect(flights.get('k')).toBe(second.flight);
    second.settle(undefined);
    expect(flights.get('k')).toBeUndefined();
  });

  it('a follower stops waiting after FOLLOW_TIMEOUT_MS', async () => {
    const flights = new SingleFlight();
    const { flight } = flights.set('k', Promise.resolve(undefined));
    const started = Date.now();
    expect(await SingleFlight.follow(flight)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(FOLLOW_TIMEOUT_MS - 50);
  }, FOLLOW_TIMEOUT_MS + 2_000);
});
