import { it } from 'vitest';
import pg from 'pg';
import { createTestCatalogue, createTestClient } from '../support/catalogue-app.ts';
it('explore', async () => {
  const cat = await createTestCatalogue();
  console.log(await cat.direct.rows(`select version(), current_setting('autovacuum') av, current_setting('shared_preload_libraries') spl, current_user, (select rolsuper from pg_roles where rolname=current_user) su, (select count(*) from pg_available_extensions where name='pg_stat_statements') pss, current_setting('stats_fetch_consistency') sfc`));
  await cat.direct.rows('VACUUM ANALYZE');
  const adminUrl = new URL(cat.db.url); adminUrl.pathname = '/postgres';
  const dbname = new URL(cat.db.url).pathname.slice(1);
  const read = async () => { const c = new pg.Client({ connectionString: adminUrl.toString() }); await c.connect(); const r = await c.query('select xact_commit::int x from pg_stat_database where datname=$1', [dbname]); await c.end(); return r.rows[0].x as number; };
  await cat.direct.close();
  await new Promise((r) => setTimeout(r, 1500));
  const b0 = await read();
  for (const n of [0, 1, 3]) {
    const before = await read();
    const c = await createTestClient(cat.db.url, { env: { GRAPHQL_JIT: 'off' } });
    let sum = 0;
    for (let i = 0; i < n; i++) { const r = await c.post(`{ products(count: 10) { features { feature } styles { photos { url } skus { size } } related { name styles { name } } } }`); sum += r.statements; }
    const total = c.server.database.statements.total; const conns = c.server.database.pool.totalCount;
    await c.close();
    let after = before; const t0 = Date.now();
    for (let i = 0; i < 40; i++) { await new Promise((r) => setTimeout(r, 100)); after = await read(); if (after - before >= sum) break; }
    await new Promise((r) => setTimeout(r, 500)); const after2 = await read();
    console.log({ n, sum, total, conns, delta: after - before, delta2: after2 - before, ms: Date.now() - t0 });
  }
  console.log('b0', b0);
}, 120000);
