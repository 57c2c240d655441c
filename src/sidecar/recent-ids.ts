// Product ids clients read or wrote recently, for the sync's priority queue:
// a bounded set, oldest forgotten first, each id once however often it is asked for.
export class RecentIds {
  private readonly ids = new Set<number>();
  private readonly capacity: number;
  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.ids.size;
  }

  add(id: number): void {
    if (this.capacity === 0 || !Number.isSafeInteger(id) || id <= 0) return;
    // Asked again: to the back of the line (still one entry).
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!);
  }

  /** Takes up to `n` ids, most recent first, and forgets them. */
  take(n: number): number[] {
    const all = [...this.ids];
    const taken = all.slice(Math.max(0, all.length - n)).reverse();
    for (const id of taken) this.ids.delete(id);
    return taken;
  }
}
