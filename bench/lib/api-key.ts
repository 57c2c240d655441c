// The API key a benchmark's writes send (Authorization: Bearer): created in the
// bench database before the generators run, revoked when the benchmark ends.
// The API runs with RATE_LIMIT=off there (server-process.ts), so the key has
// no budget to run out of.
import { ApiKeyStore } from '../../src/auth/key-store.ts';
import { migrate } from '../../src/db/server/migrate.ts';
import { connectDatabase } from '../../src/db/pool/pool.ts';

export interface BenchApiKey {
  /** The key itself, for the generators' API_KEY. */
  secret: string;
  prefix: string;
  revoke(): Promise<void>;
}

async function withStore<T>(databaseUrl: string, use: (store: ApiKeyStore) => Promise<T>): Promise<T> {
  const database = connectDatabase(databaseUrl, { poolSize: 1 });
  try {
    return await use(new ApiKeyStore(database));
  } finally {
    await database.close();
  }
}

export async function createBenchApiKey(databaseUrl: string, name: string): Promise<BenchApiKey> {
  // A catalogue loaded before the api_keys table existed: the API would migrate it at its start, but the key comes first.
  await migrate(databaseUrl);
  const { key, secret } = await withStore(databaseUrl, (store) => store.create(name, null));
  return { secret, prefix: key.prefix, revoke: () => withStore(databaseUrl, async (store) => { await store.revoke(key.id); }) };
}
