// Freshness: which cached responses may still be served, by what the change
// feed (src/cache/change-feed.ts) heard. Every instance hears every committed
// write through Postgres, whether or not the writer's invalidation reached
// the store: it remembers when it heard that each product changed, and an
// entry read before that moment is not served (entries carry the time their
// read began, on the feed's clock). Without a feed nothing is heard and every
// entry is fresh (the store's own invalidations are then the only guard).
//
// A single process with its own cache that is the only writer through the
// API (config soleWriter) drops its own writes when they commit: it does not
// remember them again when the feed repeats them, and keeps serving while
// its feed reconnects (nothing writes then), dropping everything once it is
// back.

/**
 * What freshness needs of the change feed: whether every committed write is
 * being heard, and a clock all instances share.
 */
export interface ChangeListening {
  readonly listening: boolean;
  /** Milliseconds since the epoch on a clock shared by every instance (Postgres's), within a few ms. */
  now(): number;
}

/**
 * How much the feed clocks of two instances may disagree (each is Postgres's
 * clock measured over a round trip of at most 40 ms). An entry whose read
 * began less than this after a change was heard is not served either.
 */
export const HEARD_MARGIN_MS = 50;
/** More remembered changes than this: remember one moment for all instead. */
const MAX_HEARD_TAGS = 100_000;

/** Freshness as the response cache asks it: is an entry still fresh, and what was heard. */
export interface Freshness {
  /** Whether the entries served now can miss no write: the feed listening (or no feed, or a sole writer). */
  readonly trusted: boolean;
  /** Now on the clock entries are stamped with (the feed's: shared by every instance). */
  now(): number;
  /** Whether a response read from `readAt` on, showing `tags`, may predate a change heard (or is older than the TTL). */
  stale(readAt: number | undefined, tags: readonly string[]): boolean;
  /** These tags changed (a committed write): entries read before now are stale. False when nothing was noted (no feed, or a sole writer's own). */
  heard(tags: readonly string[]): boolean;
  /** Anything may have changed (the feed reconnected after a gap). False without a feed. */
  heardEverything(): boolean;
}

/** Freshness from a change feed (none: every entry is fresh). */
export class HeardChanges implements Freshness {
  private readonly feed: ChangeListening | undefined;
  private readonly ttlMs: number;
  private readonly soleWriter: boolean;
  /** When the feed told this instance that each tag changed (feed clock), in order of time heard. */
  private readonly heardAt = new Map<string, number>();
  /** When anything may have changed (the feed (re)connected): entries read before are stale. */
  private heardAllAt = Number.NEGATIVE_INFINITY;

  constructor(feed: ChangeListening | undefined, options: { ttlSeconds: number; soleWriter: boolean }) {
    this.feed = feed;
    this.ttlMs = options.ttlSeconds * 1000;
    this.soleWriter = options.soleWriter;
  }

  /** Whether there is a feed and it is listening (true without one: nothing to hear). */
  get listening(): boolean {
    return !this.feed || this.feed.listening;
  }

  get trusted(): boolean {
    return !this.feed || this.feed.listening || this.soleWriter;
  }

  now(): number {
    return this.feed ? this.feed.now() : Date.now();
  }

  stale(readAt: number | undefined, tags: readonly string[]): boolean {
    if (!this.feed) return false;
    if (readAt === undefined) return true;
    // A sole writer stamps reads and hears changes on its own clock: no other clock to disagree with.
    const before = readAt - (this.soleWriter ? 0 : HEARD_MARGIN_MS);
    if (before < this.heardAllAt || readAt < this.feed.now() - this.ttlMs) return true;
    for (const tag of tags) {
      const heard = this.heardAt.get(tag);
      if (heard !== undefined && before < heard) return true;
    }
    return false;
  }

  heard(tags: readonly string[]): boolean {
    // A sole writer's changes are its own, dropped when they committed: heard
    // again a moment later, they would only refuse entries read since.
    if (!this.feed || this.soleWriter) return false;
    const now = this.feed.now();
    for (const tag of tags) {
      this.heardAt.delete(tag); // re-inserted last: the map stays in order of time heard
      this.heardAt.set(tag, now);
    }
    if (this.heardAt.size > MAX_HEARD_TAGS) this.forgetOldChanges(now);
    return true;
  }

  heardEverything(): boolean {
    if (!this.feed) return false;
    this.heardAllAt = this.feed.now();
    this.heardAt.clear();
    return true;
  }

  /** Heard changes older than the TTL can go: entries read before them are stale as too old anyway. */
  private forgetOldChanges(now: number): void {
    const horizon = now - this.ttlMs;
    for (const [tag, at] of this.heardAt) {
      if (at >= horizon) break;
      this.heardAt.delete(tag);
    }
    if (this.heardAt.size > MAX_HEARD_TAGS) {
      // Too many recent ones to keep: one moment for all of them.
      this.heardAllAt = now;
      this.heardAt.clear();
    }
  }
}
