// Admission: when a miss is looked up and stored (CACHE_ADMISSION, src/config.ts).
// `first-miss` stores every miss. `second-miss` stores a response only when
// its key misses again while still remembered (as CDNs offer "cache on
// second hit"). `doorkeeper` (as in TinyLFU) does not even look up a cheap
// read's key before its second sighting, and stores it from then on. Most
// keys of a long tail are asked once: a lookup and a store in Redis, and
// Redis memory, that no hit ever repays. The keys sighted are remembered in
// src/cache/seen-keys.ts.
import type { CacheAdmission } from '../config.ts';
import { SeenKeys } from './seen-keys.ts';

export type Admission = CacheAdmission;

/** The admission filter of one process. */
export class AdmissionFilter {
  private readonly mode: Admission;
  /** Keys missed (second-miss) or cheap keys sighted (doorkeeper) before; undefined under first-miss. */
  private readonly seen: SeenKeys | undefined;

  constructor(mode: Admission) {
    this.mode = mode;
    this.seen = mode === 'first-miss' ? undefined : new SeenKeys();
  }

  /**
   * Under the doorkeeper, a cheap read's sightings of `key` before this one
   * (0, 1, or 2 for more), this one counted: 0 is not looked up, 1 is stored
   * without a lookup when it can be. Undefined for every other read: looked up.
   */
  sightings(key: string, cheap: boolean): 0 | 1 | 2 | undefined {
    return cheap && this.mode === 'doorkeeper' ? this.seen!.sightings(key) : undefined;
  }

  /** Whether a miss of `key` (about to be produced) may be stored; under second-miss, this miss is remembered. */
  admits(key: string): boolean {
    return this.mode !== 'second-miss' || this.seen!.sighted(key);
  }
}
