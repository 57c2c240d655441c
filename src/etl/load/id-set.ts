// A growable bitmap of positive integer ids: which parents were loaded, which
// ids were already seen. 11 million ids cost 1.4 MB.
export class IdSet {
  private bits = new Uint8Array(1 << 16);
  size = 0;

  /** A set over a copy of another set's bits (sent to a worker thread); answers has(), does not count. */
  static fromBits(bits: Uint8Array<ArrayBuffer>): IdSet {
    const set = new IdSet();
    set.bits = bits;
    return set;
  }

  /** The bitmap itself (for fromBits elsewhere). */
  get bytes(): Uint8Array<ArrayBuffer> {
    return this.bits;
  }

  has(id: number): boolean {
    const byte = id >>> 3;
    return byte < this.bits.length && ((this.bits[byte] as number) & (1 << (id & 7))) !== 0;
  }

  add(id: number): void {
    const byte = id >>> 3;
    if (byte >= this.bits.length) {
      let length = this.bits.length;
      while (length <= byte) length *= 2;
      const grown = new Uint8Array(length);
      grown.set(this.bits);
      this.bits = grown;
    }
    const current = this.bits[byte] as number;
    const mask = 1 << (id & 7);
    if ((current & mask) === 0) {
      this.bits[byte] = current | mask;
      this.size++;
    }
  }
}
