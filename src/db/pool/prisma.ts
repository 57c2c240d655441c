// The Prisma client, for the only code that uses it: the API-key commands
// (src/auth/key-store.ts). Made on demand over a pool of ours, and imported
// only then, so a process that never manages keys (the API) neither loads
// Prisma's runtime nor creates a client (test/auth/prisma-on-demand.test.ts).
import type pg from 'pg';
import type { PrismaClient } from '../../generated/prisma/client.ts';

export type Prisma = PrismaClient;

export async function createPrismaClient(pool: pg.Pool): Promise<Prisma> {
  const [{ PrismaClient: Client }, { PrismaPg }] = await Promise.all([import('../../generated/prisma/client.ts'), import('@prisma/adapter-pg')]);
  return new Client({ adapter: new PrismaPg(pool) });
}
