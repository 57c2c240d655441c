// The latest write position of every instance, kept in Redis, so a read on
// one instance is not stale after a write through another. Each write raises
// the key (never lowers it) before the write is answered; each request that
// reads the catalogue reads it once. Positions are stored as 16 hex digits,
// so comparing strings compares positions.
import type { Redis } from 'ioredis';
import type { Lsn } from './wal-position.ts';

const RAISE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current or current < ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) end
return 1`;

/**
 * The key expires this long after the last write: by then every replica worth
 * reading from has replayed it, and a primary rebuilt from scratch (positions
 * starting again near zero) cannot leave a position no replica ever reaches.
 */
const KEEP_SECONDS = 3600;

export class SharedWritePosition {
  private readonly client: Redis & { raiseWritePosition(key: string, lsn: string, seconds: number): Promise<unknown> };
  private readonly key: string;
  /** A position Redis did not take (it was down): published again by retry(). */
  private unpublished: Lsn | undefined;

  constructor(client: Redis, key: string) {
    client.defineCommand('raiseWritePosition', { lua: RAISE_SCRIPT, numberOfKeys: 1 });
    this.client = client as SharedWritePosition['client'];
    this.key = key;
  }

  /** Raises the shared position to `lsn`; on failure keeps it for retry() and rethrows. */
  async publish(lsn: Lsn): Promise<void> {
    try {
      await this.client.raiseWritePosition(this.key, lsn.toString(16).padStart(16, '0'), KEEP_SECONDS);
      if (this.unpublished !== undefined && this.unpublished <= lsn) this.unpublished = undefined;
    } catch (error) {
      if (this.unpublished === undefined || this.unpublished < lsn) this.unpublished = lsn;
      throw error;
    }
  }

  /** Publishes a position an earlier publish() could not. */
  async retry(): Promise<void> {
    if (this.unpublished !== undefined) await this.publish(this.unpublished);
  }

  /** The latest write position of any instance (0 when none is recorded); undefined when Redis cannot say. */
  async latest(): Promise<Lsn | undefined> {
    try {
      const value = await this.client.get(this.key);
      return value ? BigInt(`0x${value}`) : 0n;
    } catch {
      return undefined;
    }
  }
}
