// Where catalogue reads run: one pool (the primary), or a router that spreads
// them over read replicas (read-router.ts). Queries hand over the work; the
// implementation picks the connection.
import type pg from 'pg';

export interface Reads {
  /** Runs one read on a connection to a server that has every write this instance knows of. */
  run<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  // connect() rather than pool.query(): a promise keeps the caller's async
  // context, so the statement is counted for the request that issued it.
  const client = await pool.connect();
  try {
    return await work(client);
  } finally {
    client.release();
  }
}

/** Every read on one pool. */
export function poolReads(pool: pg.Pool): Reads {
  return { run: (work) => withClient(pool, work) };
}
