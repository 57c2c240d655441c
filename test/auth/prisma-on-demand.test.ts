// The API makes no Prisma client: only the API-key commands use one, and the
// key store makes it at the first of them (src/db/pool/prisma.ts). The
// generated client's module is wrapped to count its loads and the clients
// made; the API is built and serves a keyed write and reads (the key looked
// up on the request path), and neither is counted until a command runs.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateApiKey } from '../../src/auth/api-keys.ts';
import { ApiKeyStore } from '../../src/auth/key-store.ts';
import { connectDatabase } from '../../src/db/pool/pool.ts';
import { queryOnce as query } from '../../src/db/pool/query-once.ts';
import { createTestClient, type TestClient } from '../support/catalogue-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

const counted = vi.hoisted(() => ({ loads: 0, clients: 0 }));

vi.mock('../../src/generated/prisma/client.ts', async (importOriginal) => {
  counted.loads += 1;
  const generated = await importOriginal<typeof import('../../src/generated/prisma/client.ts')>();
  class CountedPrismaClient extends generated.PrismaClient {
    constructor(...args: ConstructorParameters<typeof generated.PrismaClient>) {
      super(...args);
      counted.clients += 1;
    }
  }
  return { ...generated, PrismaClient: CountedPrismaClient };
});

let database: TestDatabase;
let client: TestClient;
let secret: string;

beforeAll(async () => {
  database = await createTestDatabase();
  // The key written as the command writes it, without the command (which would make a client here).
  const key = generateApiKey();
  secret = key.secret;
  await query(database.url, 'INSERT INTO api_keys (name, prefix, key_hash) VALUES ($1, $2, $3)', ['api', key.prefix, key.hash]);
  client = await createTestClient(database.url, { apiKey: false });
});
afterAll(async () => {
  await client?.close();
  await database?.drop();
});

describe('the Prisma client', () => {
  it('is neither loaded nor made by the API, serving keyed writes and reads', async () => {
    const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
    const created = await client.injectAnonymous({
      method: 'POST', url: '/products', headers,
      payload: JSON.stringify({ name: 'Keyed Tee', slogan: 's', description: 'd', category: 'Shirts', default_price: '10.00' }),
    });
    expect(created.statusCode).toBe(201);
    const read = await client.injectAnonymous({ method: 'POST', url: '/graphql', headers, payload: JSON.stringify({ query: '{ products(count: 5) { name } }' }) });
    expect(read.json()).toEqual({ data: { products: [{ name: 'Keyed Tee' }] } });
    expect(counted).toEqual({ loads: 0, clients: 0 });
  });

  it('is made by the key store at its first command, once', async () => {
    const pool = connectDatabase(database.url, { poolSize: 1 });
    const store = new ApiKeyStore(pool);
    try {
      expect(counted.clients).toBe(0);
      expect((await store.list()).map((key) => key.name)).toEqual(['api']);
      await store.find('api');
      expect(counted).toEqual({ loads: 1, clients: 1 });
    } finally {
      await store.close();
      await pool.close();
    }
  });
});
