// The words' resolution of recent searches, kept in the process, as a search
// engine keeps its term dictionary in memory: a search whose words were
// resolved lately (resolveStatement: stems, completions, corrections, which
// words are kept) sends only its page statement.
//
// A resolution depends on the catalogue's dictionaries (search_lexemes, and
// search_name_pairs), which writes only grow (a product created or updated
// adds its new lexemes and name pairs) and a load replaces (with new counts), and on the catalogue's size as last
// analyzed (which words are left out). So the memo is emptied whenever the
// change feed hears a create, an update, a load or "anything may have
// changed", and by this process's own writes before they answer; it serves
// and keeps nothing while the feed is not listening (a write could go
// unheard), and an entry lives at most MEMO_MAX_AGE_MS, which bounds what no
// notification announces: a new ANALYZE's size, a read replica that had not
// replayed a write yet when it answered. A resolution read before a change
// and answered after it is not kept (the generation check).
import type { Resolved } from './resolved.ts';

/** At most this many resolutions: the searches of a busy shop's last minute fit. */
export const MEMO_MAX_ENTRIES = 20_000;
/** At most about this many bytes (the words and the resolution's text, UTF-16). */
export const MEMO_MAX_BYTES = 16 * 1024 * 1024;
/** An entry is read again from the database after this long. */
export const MEMO_MAX_AGE_MS = 60_000;

interface Entry {
  resolved: Resolved | null;
  bytes: number;
  at: number;
}

export interface MemoStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
  /** Times it was emptied (a change heard, or the feed lost). */
  clears: number;
}

/** A lookup: the resolution known, or a way to keep the one read (if nothing changed meanwhile). */
export type Recall = { found: true; resolved: Resolved | null } | { found: false; keep(resolved: Resolved | null, bytes: number): void };

const NOT_KEPT: Recall = { found: false, keep: () => {} };

export class ResolutionMemo {
  private readonly entries = new Map<string, Entry>();
  private readonly listening: () => boolean;
  private readonly limits: { entries: number; bytes: number; maxAgeMs: number };
  private generation = 0;
  private bytes = 0;
  readonly stats = { hits: 0, misses: 0, clears: 0 };

  /** `listening`: whether every change from now on will be heard (the change feed's). */
  constructor(listening: () => boolean, limits: Partial<{ entries: number; bytes: number; maxAgeMs: number }> = {}) {
    this.listening = listening;
    this.limits = { entries: MEMO_MAX_ENTRIES, bytes: MEMO_MAX_BYTES, maxAgeMs: MEMO_MAX_AGE_MS, ...limits };
  }

  /** The resolution of these words if known and fresh; else a `keep` for the one about to be read. */
  recall(words: readonly string[]): Recall {
    if (!this.listening()) return NOT_KEPT;
    const key = JSON.stringify(words);
    const entry = this.entries.get(key);
    const now = performance.now();
    if (entry && now - entry.at <= this.limits.maxAgeMs) {
      // Least recently used first: a hit moves to the end.
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.stats.hits++;
      return { found: true, resolved: entry.resolved };
    }
    if (entry) this.remove(key, entry);
    this.stats.misses++;
    const generation = this.generation;
    return {
      found: false,
      keep: (resolved, bytes) => {
        if (generation !== this.generation || !this.listening()) return;
        const size = 2 * key.length + bytes;
        if (size > this.limits.bytes) return;
        const old = this.entries.get(key);
        if (old) this.remove(key, old);
        this.entries.set(key, { resolved: deepFreeze(resolved), bytes: size, at: now });
        this.bytes += size;
        for (const [oldest, first] of this.entries) {
          if (this.entries.size <= this.limits.entries && this.bytes <= this.limits.bytes) break;
          this.remove(oldest, first);
        }
      },
    };
  }

  /** The dictionary may have changed: forget everything, and what is being read now. */
  clear(): void {
    this.generation++;
    this.stats.clears++;
    this.entries.clear();
    this.bytes = 0;
  }

  snapshot(): MemoStats {
    return { ...this.stats, entries: this.entries.size, bytes: this.bytes };
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

/** Shared by every search that recalls it: nobody may change it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
