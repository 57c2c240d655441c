// Benchmarks run on a database of their own, `<database>_bench`, on the same
// server: they replace its catalogue freely and never touch the one you use.
import pg from 'pg';

export interface BenchDatabase {
  /** The bench database's URL. */
  url: string;
  name: string;
}

/**
 * The database `<database><suffix>` beside the database of `url` (on the same
 * server), after `prepare` ran on the server's `postgres` database.
 */
async function siblingDatabase(url: string, suffix: string, prepare: (client: pg.Client, name: string) => Promise<void>): Promise<BenchDatabase> {
  const name = `${new URL(url).pathname.slice(1) || 'postgres'}${suffix}`;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sibling = new URL(url);
  sibling.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await prepare(client, name);
  } finally {
    await client.end();
  }
  return { url: sibling.toString(), name };
}

/** Creates `<database>_bench` (or another suffix) beside the database of `url` if it does not exist. */
export function ensureBenchDatabase(url: string, suffix = '_bench'): Promise<BenchDatabase> {
  return siblingDatabase(url, suffix, async (client, name) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name}"`);
  });
}

/**
 * `<database><suffix>` beside the database of `url`, dropped first when it
 * exists (connections to it closed): a fresh, empty database for each run of
 * a benchmark that must start from nothing (bench/sidecar.ts).
 */
export function recreateDatabase(url: string, suffix: string): Promise<BenchDatabase> {
  return siblingDatabase(url, suffix, async (client, name) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  });
}
