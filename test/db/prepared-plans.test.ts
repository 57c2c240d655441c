// Catalogue reads are prepared once per connection and planned once too: with
// the session settings of src/db/pool/session-settings.ts, Postgres keeps one
// generic plan per statement instead of re-planning every execution (which it
// does for `= ANY($1::int[])` statements under its default plan_cache_mode).
import { describe, expect, it } from 'vitest';
import { CatalogQueries } from '../../src/catalog/reads/queries.ts';
import { connectDatabase, type Database } from '../../src/db/pool/pool.ts';
import { poolReads } from '../../src/db/reads/read-routes.ts';
import { withSessionSettings } from '../../src/db/pool/session-settings.ts';
import { useTestCatalogue } from '../support/catalogue-app.ts';
import { loadConfig } from '../../src/config.ts';

const catalogue = useTestCatalogue();

function catalogueQueries(database: Database): CatalogQueries {
  return new CatalogQueries(poolReads(database.pool), database.statements);
}

/** The plans of the named statements prepared on the pool's one connection. */
async function preparedPlans(database: Database) {
  const { rows } = await database.pool.query<{ name: string; generic_plans: string; custom_plans: string }>(
    'SELECT name, generic_plans::text, custom_plans::text FROM pg_prepared_statements ORDER BY name');
  return new Map(rows.map((row) => [row.name, { generic: Number(row.generic_plans), custom: Number(row.custom_plans) }]));
}

describe('prepared catalogue reads', () => {
  it('are planned once: every execution, of one key or many, reuses the generic plan', async () => {
    const database = connectDatabase(catalogue.db.url, { poolSize: 1 });
    try {
      const queries = catalogueQueries(database);
      const ids = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id LIMIT 12')).map((row) => row.id);
      // Beyond the five custom plans Postgres tries before it compares costs.
      for (let i = 0; i < 8; i++) {
        const batch = i % 2 === 0 ? [ids[i]!] : ids.slice(i, i + 4);
        expect((await queries.productsWithStylesByIds(batch)).length).toBe(batch.length);
        await queries.productsByIds(batch);
        await queries.featuresByProductIds(batch);
      }
      const plans = await preparedPlans(database);
      for (const name of ['productsWithStylesByIds', 'productsByIds', 'featuresByProductIds']) {
        expect(plans.get(name), name).toEqual({ generic: 8, custom: 0 });
      }
      // Nor compiled: generic plans costed above jit_above_cost would be JIT-compiled at every execution.
      const { rows: [jit] } = await database.pool.query<{ jit: string }>("SELECT current_setting('jit') AS jit");
      expect(jit?.jit).toBe('off');
    } finally {
      await database.close();
    }
  });

  it('re-plan every execution without the session settings (what the settings are for)', async () => {
    // The same statement on a connection whose URL asks for Postgres's default mode back.
    const url = new URL(catalogue.db.url);
    url.searchParams.set('options', '-c plan_cache_mode=auto');
    const database = connectDatabase(url.toString(), { poolSize: 1 });
    try {
      const queries = catalogueQueries(database);
      for (let id = 1; id <= 8; id++) await queries.productsWithStylesByIds([id]);
      expect((await preparedPlans(database)).get('productsWithStylesByIds')).toEqual({ generic: 0, custom: 8 });
    } finally {
      await database.close();
    }
  });
});

describe('withSessionSettings', () => {
  it('adds the settings to a URL and keeps the URL\'s own options after them, so they win', () => {
    const url = new URL(withSessionSettings('postgresql://u:p%40ss@db.example:5433/shop?sslmode=require&options=-c%20work_mem%3D8MB'));
    expect(url.searchParams.get('options')).toBe('-c plan_cache_mode=force_generic_plan -c max_parallel_workers_per_gather=0 -c jit=off -c work_mem=16MB -c work_mem=8MB');
    expect(url.searchParams.get('sslmode')).toBe('require');
    expect([url.username, url.password, url.host, url.pathname]).toEqual(['u', 'p%40ss', 'db.example:5433', '/shop']);
  });

  it('takes PGOPTIONS into account when the URL has no options (the URL\'s would replace it)', () => {
    const { pgOptions } = loadConfig({ PGOPTIONS: '-c search_path=shop' });
    expect(new URL(withSessionSettings('postgresql://localhost/shop', { pgOptions })).searchParams.get('options'))
      .toBe('-c plan_cache_mode=force_generic_plan -c max_parallel_workers_per_gather=0 -c jit=off -c work_mem=16MB -c search_path=shop');
  });
});
