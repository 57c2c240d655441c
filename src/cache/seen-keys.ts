// Which cache keys this process has sighted before, for the admission
// filters of CACHE_ADMISSION (src/cache/response-cache.ts): `second-miss`
// stores a response only when its key misses again while still remembered, as
// CDNs offer "cache on second hit"; `doorkeeper` (as in TinyLFU) does not even
// look up a cheap read's key before its third sighting (its second stores it).
// Most keys of a long
// tail are asked once: a lookup (MGET) and a store script in Redis (SET, and
// per tag SADD, TTL, EXPIRE), and Redis memory, that no hit ever repays.
//
// Bounded and allocation-free: a table of SLOTS 32-bit fingerprints, each key
// owning one slot (by one hash) and marked there by another, and beside it how
// often the key was sighted (once, or twice and more). A key is forgotten when
// another key takes its slot (the table remembers roughly the last SLOTS
// distinct keys sighted); two keys sharing both hashes make one lookup or
// store early, which is harmless (both are always allowed, never required).

/** 2^20 slots: 5 MB, about the last million keys missed. */
const SLOT_BITS = 20;
const SLOTS = 1 << SLOT_BITS;

export class SeenKeys {
  private readonly marks = new Uint32Array(SLOTS);
  /** Sightings of the slot's key before the last one: 1, or 2 for two and more. */
  private readonly counts = new Uint8Array(SLOTS);

  /** Whether `key` was seen since its slot was last taken; it is remembered from now on either way. */
  sighted(key: string): boolean {
    return this.sightings(key) > 0;
  }

  /** How often `key` was sighted before, since its slot was last taken: 0, 1, or 2 for two and more. Counts this sighting. */
  sightings(key: string): 0 | 1 | 2 {
    // FNV-1a, twice in one pass with two offsets: the slot and the mark.
    let slot = 0x811c9dc5;
    let mark = 0x01000193;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      slot = Math.imul(slot ^ c, 0x01000193);
      mark = Math.imul(mark ^ c, 0x01000193) ^ (mark >>> 15);
    }
    const index = slot >>> (32 - SLOT_BITS);
    // 0 marks an empty slot: a key whose mark is 0 is marked 1.
    const value = (mark >>> 0) || 1;
    if (this.marks[index] === value) {
      const before = this.counts[index] as 1 | 2;
      if (before === 1) this.counts[index] = 2;
      return before;
    }
    this.marks[index] = value;
    this.counts[index] = 1;
    return 0;
  }
}
