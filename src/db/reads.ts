// Where catalogue reads run: one pool (the primary), or a router that spreads
// them over read replicas (read-router.ts). Queries hand over the work; the
// implementation picks the connection.
import type pg from 'pg';

export interface Reads {
  /** Runs one read on a connection to a server that has every write this instance knows of. */
  run<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

/**
 * Runs `work` on a connection of `pool`. connect() rather than pool.query():
 * a promise keeps the caller's async context, so the statement is counted for
 * the request that issued it (pool.query's callback may run in another's).
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    const result = await work(client);
    client.release();
    return result;
  } catch (error) {
    // A connection whose statement failed may be broken (terminated, or still
    // busy with a statement that timed out): it is closed, never reused.
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}

/** Every read on one pool. */
export function poolReads(pool: pg.Pool): Reads {
  return { run: (work) => withClient(pool, work) };
}
