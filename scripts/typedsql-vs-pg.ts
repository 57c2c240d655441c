// Prisma TypedSQL ($queryRawTyped) against the API's pg path, on the same
// statements, the same pool and the same database, in one process:
//  - the product page's keyed read (KEYED.productPagesByIds, one id a batch,
//    as a page request's loader sends it), and
//  - a write (lock the product row, rename it and replace its features:
//    UPDATE_PRODUCT, in one transaction), as PUT /products/:id runs it.
// Each path runs `--seconds` with `--concurrency` callers, the paths
// alternated for `--rounds` rounds; prints per round and path the operations
// per second and the Node CPU per operation, then the medians and ratios.
// The typed queries are made as `prisma generate --sql` makes them
// (makeTypedQueryFactory over the .sql text; types aside, that is what
// runs): `prisma generate --sql` itself needs Prisma's schema-engine binary,
// which it downloads from binaries.prisma.sh. $queryRawTyped also needs the
// client generated with `previewFeatures = ["typedSql"]`; without it the
// script sends the same text and values with $queryRawUnsafe, which takes the
// same path through the client and the pg adapter (it says which it used).
//
//   node scripts/typedsql-vs-pg.ts <database URL of a loaded catalogue> [--seconds 5] [--rounds 3] [--concurrency 10]
//
// Writes change the names and features of random products of that database.
import { makeTypedQueryFactory } from '@prisma/client/runtime/client';
import { connectDatabase } from '../src/db/pool/pool.ts';
import { createPrismaClient } from '../src/db/pool/prisma.ts';
import { KEYED } from '../src/catalog/reads/queries.ts';
import { lockProduct, UPDATE_PRODUCT } from '../src/catalog/writes/write-statements.ts';
import { Transactions } from '../src/db/writes/transaction.ts';
import { median } from '../bench/lib/median.ts';

const args = process.argv.slice(2);
const url = args.find((arg) => !arg.startsWith('--'));
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
if (!url) {
  console.error('usage: node scripts/typedsql-vs-pg.ts <database URL> [--seconds 5] [--rounds 3] [--concurrency 10]');
  process.exit(2);
}
const seconds = option('seconds', 5);
const rounds = option('rounds', 3);
const concurrency = option('concurrency', 10);

const database = connectDatabase(url, { poolSize: concurrency });
const prisma = await createPrismaClient(database.pool);
const transactions = new Transactions(database.pool);
const [{ max }] = (await database.pool.query<{ max: number }>('SELECT max(id)::int AS max FROM products')).rows as [{ max: number }];
const randomId = () => 1 + Math.floor(Math.random() * max);
const features = () => JSON.stringify([{ feature: 'Fabric', value: `Canvas ${Math.random()}` }, { feature: 'Cut', value: 'Loose' }]);

// As `prisma generate --sql` writes prisma/sql/*.sql: one static text each, parameters by position.
const PAGE_TEXT = KEYED.productPagesByIds.text;
const typedPage = makeTypedQueryFactory(PAGE_TEXT) as (ids: number[]) => never;
const typedLock = makeTypedQueryFactory('SELECT version::text AS version FROM products WHERE id = $1 FOR UPDATE') as (id: number) => never;
// Prisma's pg adapter cannot return a `void` column (UnsupportedNativeDataType): the
// announcement (pg_notify) is cast to text, the one change a TypedSQL file needs.
const typedUpdate = makeTypedQueryFactory(UPDATE_PRODUCT.text.replace(/(pg_notify\([\s\S]*?::text\)) AS announced/, '$1::text AS announced')) as (...values: unknown[]) => never;

const typed = (prisma as unknown as { _previewFeatures: string[] })._previewFeatures.includes('typedSql');
const raw = (query: { sql: string; values: unknown[] }, client: { $queryRawUnsafe: (sql: string, ...values: unknown[]) => Promise<unknown> } = prisma) =>
  client.$queryRawUnsafe(query.sql, ...query.values);
console.log(`Prisma path: ${typed ? '$queryRawTyped (the client has the typedSql preview feature)' : '$queryRawUnsafe (same SQL and values; the client lacks the typedSql preview feature)'}`);

type Operation = () => Promise<unknown>;
const operations: Record<string, Record<'pg' | 'prisma', Operation>> = {
  'product page read': {
    pg: () => database.pool.query({ name: 'productPagesByIds', text: PAGE_TEXT, values: [[randomId()]] }),
    prisma: () => (typed ? prisma.$queryRawTyped(typedPage([randomId()])) : raw(typedPage([randomId()]))),
  },
  'write (lock, rename, features)': {
    pg: () => {
      const id = randomId();
      return transactions.run('bench', async (tx) => tx.query(UPDATE_PRODUCT, [id, `Renamed ${id}`, null, null, null, null, features()]), { opening: lockProduct(id) });
    },
    prisma: () => {
      const id = randomId();
      return prisma.$transaction(async (tx) => {
        await (typed ? tx.$queryRawTyped(typedLock(id)) : raw(typedLock(id), tx));
        return typed ? tx.$queryRawTyped(typedUpdate(id, `Renamed ${id}`, null, null, null, null, features())) : raw(typedUpdate(id, `Renamed ${id}`, null, null, null, null, features()), tx);
      });
    },
  },
};

async function measure(operation: Operation): Promise<{ perSecond: number; cpuMicros: number }> {
  let count = 0;
  const deadline = performance.now() + seconds * 1000;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      await operation();
      count += 1;
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { perSecond: count / elapsed, cpuMicros: (used.user + used.system) / count };
}

try {
  for (const [label, paths] of Object.entries(operations)) {
    // Warm-up: prepared statements, the Prisma engine's first query, JIT.
    for (const path of ['pg', 'prisma'] as const) {
      const until = performance.now() + 1000;
      while (performance.now() < until) await paths[path]();
    }
    const results: Record<'pg' | 'prisma', { perSecond: number; cpuMicros: number }[]> = { pg: [], prisma: [] };
    for (let round = 1; round <= rounds; round++) {
      for (const path of (round % 2 ? ['pg', 'prisma'] : ['prisma', 'pg']) as ('pg' | 'prisma')[]) {
        const result = await measure(paths[path]);
        results[path].push(result);
        console.log(`${label}, round ${round}, ${path}: ${Math.round(result.perSecond).toLocaleString('en-US')}/s, ${Math.round(result.cpuMicros)} µs of Node CPU each`);
      }
    }
    const pgRate = median(results.pg.map((r) => r.perSecond));
    const prismaRate = median(results.prisma.map((r) => r.perSecond));
    const pgCpu = median(results.pg.map((r) => r.cpuMicros));
    const prismaCpu = median(results.prisma.map((r) => r.cpuMicros));
    console.log(`${label}: medians pg ${Math.round(pgRate).toLocaleString('en-US')}/s (${Math.round(pgCpu)} µs), Prisma TypedSQL ${Math.round(prismaRate).toLocaleString('en-US')}/s (${Math.round(prismaCpu)} µs): Prisma at ${(prismaRate / pgRate).toFixed(2)}x the rate, ${(prismaCpu / pgCpu).toFixed(2)}x the CPU per operation`);
  }
} finally {
  await prisma.$disconnect();
  await database.close();
}
