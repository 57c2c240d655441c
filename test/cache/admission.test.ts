// Admission (src/cache/admission.ts), alone: which reads are looked up and
// which misses stored, under each CACHE_ADMISSION.
import { describe, expect, it } from 'vitest';
import { AdmissionFilter } from '../../src/cache/admission.ts';

describe('admission', () => {
  it('first-miss: every read looked up, every miss stored', () => {
    const filter = new AdmissionFilter('first-miss');
    expect(filter.sightings('k', true)).toBeUndefined();
    expect(filter.admits('k')).toBe(true);
  });

  it('second-miss: a key\'s first miss is not stored, its second is', () => {
    const filter = new AdmissionFilter('second-miss');
    expect(filter.sightings('k', true)).toBeUndefined();
    expect([filter.admits('k'), filter.admits('k')]).toEqual([false, true]);
  });

  it('doorkeeper: a cheap read\'s sightings are counted (0, 1, then 2), other reads are looked up; every miss looked up is stored', () => {
    const filter = new AdmissionFilter('doorkeeper');
    expect([filter.sightings('k', true), filter.sightings('k', true), filter.sightings('k', true)]).toEqual([0, 1, 2]);
    expect(filter.sightings('other', false)).toBeUndefined();
    expect(filter.admits('new')).toBe(true);
  });
});
