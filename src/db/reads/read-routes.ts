// Where catalogue reads run: one pool (the primary), or a router that spreads
// them over read replicas (read-router.ts). A request asks for its route once
// per read; reads of requests given the same route may share a statement
// (coalesced-reads.ts).
import type pg from 'pg';

/** One server's connections, as reads use them: a pool, with the router's fallbacks when it is a replica. */
export interface ReadRoute {
  run<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

export interface Reads {
  /**
   * Where the running request's next read goes: a server that has every write
   * this instance knows of. Routes are long-lived objects, the same for every
   * request sent to the same server.
   */
  route(): ReadRoute | Promise<ReadRoute>;
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
  const route: ReadRoute = { run: (work) => withClient(pool, work) };
  return { route: () => route };
}
