// Listing page anchors (src/catalog/reads/listing-anchors.ts) are rebuilt in the background
// only when products were created or deleted since the last build: a rebuild
// reads the whole primary key, and every worker process used to do it every
// LISTING_REFRESH_MS whether or not anything had changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProductPages } from '../../src/catalog/reads/listing-anchors.ts';
import { CatalogQueries } from '../../src/catalog/reads/queries.ts';
import { connectDatabase, type Database } from '../../src/db/pool/pool.ts';
import { poolReads } from '../../src/db/reads/read-routes.ts';
import { useTestCatalogue } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();
let database: Database;
beforeAll(() => {
  database = connectDatabase(catalogue.db.url, { poolSize: 2 });
});
afterAll(async () => {
  await database?.close();
});

const REFRESH_MS = 100;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pages over real queries, counting how often the anchors are read. */
function countingPages() {
  const queries = new CatalogQueries(poolReads(database.pool), database.statements);
  const counts = { builds: 0 };
  const pageAnchors = queries.pageAnchors.bind(queries);
  queries.pageAnchors = (spacing) => {
    counts.builds++;
    return pageAnchors(spacing);
  };
  return { pages: new ProductPages(queries, { refreshMs: REFRESH_MS }), counts };
}

/** Asks for a page after the refresh interval (which starts a background check), then lets the check finish. */
async function afterInterval(pages: ProductPages) {
  await pause(REFRESH_MS * 1.5);
  await pages.page(1, 5);
  await pause(REFRESH_MS);
}

describe('listing page anchors', () => {
  it('are not rebuilt while no product was created or deleted', async () => {
    const { pages, counts } = countingPages();
    await pages.warm();
    expect(counts.builds).toBe(1);
    for (let i = 0; i < 3; i++) await afterInterval(pages);
    expect(counts.builds).toBe(1);
  });

  it('are rebuilt once Postgres counts a product created elsewhere, which then shows on the last page', async () => {
    const { pages, counts } = countingPages();
    await pages.warm();
    const [{ n }] = await catalogue.direct.rows<{ n: number }>('SELECT count(*)::int AS n FROM products') as [{ n: number }];
    const [{ id }] = await catalogue.direct.rows<{ id: number }>(
      `INSERT INTO products (name, slogan, description, category, default_price) VALUES ('Made elsewhere', 's', 'd', 'c', 1) RETURNING id`,
    ) as [{ id: number }];
    // Statistics reach other sessions when this one reports them (at most a few seconds later by itself).
    await catalogue.direct.rows('SELECT pg_stat_force_next_flush()');
    await catalogue.direct.rows('SELECT 1');
    const lastPage = () => pages.page(n + 1, 1);
    for (let i = 0; i < 50 && counts.builds < 2; i++) await afterInterval(pages);
    expect(counts.builds).toBe(2);
    expect((await lastPage()).map((product) => product.id)).toEqual([id]);
    await catalogue.direct.rows('DELETE FROM products WHERE id = $1', [id]);
  });
});
