// The api_keys table. Creating, listing and revoking (the keys command) go
// through the Prisma client (rare, off the request path), made at the first
// of them; the lookup on the request path is one named prepared statement on
// plain `pg`, like the catalogue reads (see src/catalog/reads/queries.ts for why),
// and the key resolver caches it. A process that only looks keys up (the
// API) never creates a Prisma client.
import type pg from 'pg';
import { createPrismaClient, type Prisma } from '../db/pool/prisma.ts';
import { type ActiveApiKey, generateApiKey } from './api-keys.ts';
import type { ListedKey } from './key-resolver.ts';
import { POSTGRES_INT_MAX } from '../db/integers.ts';

export interface ApiKeyRecord extends ActiveApiKey {
  createdAt: Date;
  revokedAt: Date | null;
}

const FIND_ACTIVE = {
  name: 'api_key_by_hash',
  text: `SELECT id, name, prefix, rate_per_minute AS "ratePerMinute" FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`,
};

const LIST_ACTIVE = {
  name: 'api_keys_active',
  text: `SELECT key_hash AS hash, id, name, prefix, rate_per_minute AS "ratePerMinute" FROM api_keys WHERE revoked_at IS NULL LIMIT $1`,
};

const RECORD_FIELDS = { id: true, name: true, prefix: true, ratePerMinute: true, createdAt: true, revokedAt: true } as const;

export class ApiKeyStore {
  private readonly pool: pg.Pool;
  private client: Promise<Prisma> | undefined;
  constructor(database: { pool: pg.Pool }) {
    this.pool = database.pool;
  }

  /** The Prisma client of the commands, made at the first one. */
  private prisma(): Promise<Prisma> {
    this.client ??= createPrismaClient(this.pool);
    return this.client;
  }

  /** Creates a key; the returned secret exists nowhere else. */
  async create(name: string, ratePerMinute: number | null): Promise<{ key: ApiKeyRecord; secret: string }> {
    const { secret, prefix, hash } = generateApiKey();
    const key = await (await this.prisma()).apiKey.create({ data: { name, prefix, keyHash: hash, ratePerMinute }, select: RECORD_FIELDS });
    return { key, secret };
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await this.prisma()).apiKey.findMany({ orderBy: { id: 'asc' }, select: RECORD_FIELDS });
  }

  /** The key with this id or display prefix, revoked or not. */
  async find(idOrPrefix: string): Promise<ApiKeyRecord | null> {
    const where = /^\d+$/.test(idOrPrefix) && Number(idOrPrefix) <= POSTGRES_INT_MAX ? { id: Number(idOrPrefix) } : { prefix: idOrPrefix };
    return (await this.prisma()).apiKey.findUnique({ where, select: RECORD_FIELDS });
  }

  /** Marks the key revoked (once: a revoked key keeps its first revocation time). */
  async revoke(id: number): Promise<ApiKeyRecord> {
    const prisma = await this.prisma();
    await prisma.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    return prisma.apiKey.findUniqueOrThrow({ where: { id }, select: RECORD_FIELDS });
  }

  /** Lets go of the Prisma client, if a command made one; the pool stays its owner's. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await (await client).$disconnect();
  }

  /** Every unrevoked key (at most `limit`) with the hash of its secret: what the key resolver checks unknown keys against. */
  async listActive(limit: number): Promise<ListedKey[]> {
    const { rows } = await this.pool.query<ActiveApiKey & { hash: string }>({ ...LIST_ACTIVE, values: [limit] });
    return rows.map(({ hash, ...key }) => ({ hash, key }));
  }

  /** The unrevoked key whose secret hashes to `hash`, if any. */
  async findActive(hash: string): Promise<ActiveApiKey | undefined> {
    const { rows } = await this.pool.query<ActiveApiKey>({ ...FIND_ACTIVE, values: [hash] });
    return rows[0];
  }
}
