// One statement on a connection of its own: for commands, checks and tests
// that touch a database once, not for request paths (those use the pool).
import pg from 'pg';

export async function queryOnce<Row extends pg.QueryResultRow = pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
