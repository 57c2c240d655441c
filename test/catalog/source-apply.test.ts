// Sidecar mode's sync reads a product's version here, then fetches the
// product from the legacy service, then applies it. A write here in between
// (through the sidecar, which applies the legacy service's answer to the PUT)
// is newer than that snapshot: applying the snapshot would undo it until the
// next round. applySourceProduct refuses it ('superseded') and the sync
// verifies the product again. A CI run under load once served a product's old
// name after a write through the sidecar (test/sidecar/acceptance.test.ts).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogService } from '../../src/catalog/writes/service.ts';
import type { SourceSnapshot } from '../../src/catalog/writes/source.ts';
import { useTestCatalogue } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();

function snapshot(id: number, name: string): SourceSnapshot {
  return {
    id, name, slogan: 'From the source', description: 'As the legacy service had it', category: 'Jackets', defaultPrice: '10.00',
    createdAt: '2021-01-01T00:00:00.000Z', updatedAt: '2021-01-01T00:00:00.000Z',
    features: [], styles: [], related: [], hash: `hash of ${name}`,
  };
}

describe('applySourceProduct with the version read before the fetch', () => {
  let pool: pg.Pool;
  let service: CatalogService;
  const name = async (id: number) => (await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = $1', [id])).name;

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: catalogue.db.url, max: 2 });
    service = new CatalogService(pool);
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('does not apply a snapshot fetched before a write here, and applies one fetched after', async () => {
    const readBefore = await service.localVersion(1);
    expect(readBefore).toMatch(/^\d+$/);
    const stale = snapshot(1, 'Stale from the source');
    const written = await service.updateProduct(1, { name: 'Written here meanwhile' });
    expect(written.product.version).not.toBe(readBefore);

    expect((await service.applySourceProduct(1, stale, readBefore)).outcome).toBe('superseded');
    expect(await name(1)).toBe('Written here meanwhile');
    expect(await service.localVersion(1)).toBe(written.product.version);

    const fresh = await service.applySourceProduct(1, snapshot(1, 'Fetched after the write'), await service.localVersion(1));
    expect(fresh.outcome).toBe('updated');
    expect(await name(1)).toBe('Fetched after the write');
  });

  it('does not delete or create on a snapshot that a write here overtook, and applies without a version (the write-through path)', async () => {
    const before = await service.localVersion(2);
    await service.updateProduct(2, { name: 'Renamed here' });
    expect((await service.applySourceProduct(2, null, before)).outcome).toBe('superseded');
    expect(await name(2)).toBe('Renamed here');

    const absent = 2_000_000_000;
    expect(await service.localVersion(absent)).toBeNull();
    // Created here after a version was read as "none": a snapshot of it fetched before is not applied.
    await catalogue.direct.rows(`INSERT INTO products (id, name, slogan, description, category, default_price) VALUES ($1, 'Created here', 's', 'd', 'c', 1.00)`, [absent]);
    expect((await service.applySourceProduct(absent, snapshot(absent, 'Older'), null)).outcome).toBe('superseded');
    expect(await name(absent)).toBe('Created here');

    expect((await service.applySourceProduct(2, snapshot(2, 'Applied as the source says'))).outcome).toBe('updated');
    expect(await name(2)).toBe('Applied as the source says');
  });
});
