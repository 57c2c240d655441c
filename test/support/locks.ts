// Row locks a test holds on a connection of its own, to make the server's
// requests wait exactly where the test wants them (in-flight during a
// shutdown, a pool saturated, a write conflict or a deadlock), and a way to
// see that they are waiting.
import pg from 'pg';

export class HeldLocks {
  private readonly client: pg.Client;
  private constructor(client: pg.Client) {
    this.client = client;
  }

  /** Opens a transaction on its own connection and runs `statements` in it (e.g. SELECT ... FOR UPDATE). */
  static async take(url: string, ...statements: string[]): Promise<HeldLocks> {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {});
    await client.connect();
    await client.query('BEGIN');
    for (const sql of statements) await client.query(sql);
    return new HeldLocks(client);
  }

  /** Another statement in the same transaction. */
  async query(sql: string): Promise<void> {
    await this.client.query(sql);
  }

  /** Rolls back: the locks go, nothing is changed. */
  async release(): Promise<void> {
    await this.client.query('ROLLBACK').catch(() => {});
    await this.client.end().catch(() => {});
  }
}

/** Resolves once at least `count` other sessions on this database are waiting for a lock. */
export async function lockWaiters(url: string, count: number, timeoutMs = 15_000): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = Date.now();
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`);
      if ((rows[0]?.n ?? 0) >= count) return;
      if (Date.now() - started > timeoutMs) throw new Error(`expected ${count} sessions waiting for a lock, saw ${rows[0]?.n ?? 0}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    await client.end();
  }
}
