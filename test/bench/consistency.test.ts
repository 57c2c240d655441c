// The soak's final check (bench/lib/consistency.ts) on a small catalogue and
// the real server: written products are found by their versions, an API that
// agrees with the database passes, and one that shows something else (a
// stale cached answer after a change behind its back) is caught, field by field.
import { describe, expect, it } from 'vitest';
import { type ApiAnswer, compareWithDatabase, differences, highestVersion, productsToCheck, type StoredProduct } from '../../bench/lib/consistency.ts';
import { randomProductUpdate } from '../../k6/lib/product-update.ts';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();
// With the response cache on: an answer the cache kept can disagree with the database.
const client = useTestClient(catalogue, { env: { CACHE: 'on' } });

async function read(id: number): Promise<ApiAnswer> {
  const response = await client.app.inject({ method: 'GET', url: `/products/${id}` });
  return { status: response.statusCode, etag: (response.headers.etag as string | undefined) ?? null, body: response.body };
}

describe('the soak\'s final check', () => {
  it('finds the written products by version, and passes when the API shows what the database holds', async () => {
    const before = await highestVersion(catalogue.db.url);
    for (const id of [3, 7, 11]) {
      const response = await client.app.inject({ method: 'PUT', url: `/products/${id}`, payload: randomProductUpdate() });
      expect(response.statusCode).toBe(200);
    }
    const { written, unwritten } = await productsToCheck(catalogue.db.url, before, 20);
    expect(written).toEqual([3, 7, 11]);
    expect(unwritten).toHaveLength(20);
    expect(unwritten.some((id) => written.includes(id))).toBe(false);
    // An id that is nowhere: 404 through the API, absent in the database, no difference.
    expect(await compareWithDatabase(catalogue.db.url, [...written, ...unwritten, 99_999_999], read)).toEqual([]);
  });

  it('names what differs when the API answers something the database no longer holds', async () => {
    const id = 5;
    expect((await read(id)).status).toBe(200);
    // Behind the API's back: its cached answer is now stale (same version, another name and price).
    await catalogue.direct.rows("UPDATE products SET name = 'Changed Behind The API', default_price = 1.5 WHERE id = $1", [id]);
    const found = await compareWithDatabase(catalogue.db.url, [id], read);
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^product 5: name "[^"]+" through the API, "Changed Behind The API" in the database$/);
    expect(found[1]).toMatch(/^product 5: default_price "\d+\.\d\d" through the API, "1\.50" in the database$/);
  });
});

describe('differences', () => {
  const stored: StoredProduct = {
    id: 1, name: 'Camo Onesie', slogan: 's', description: 'd', category: 'Jackets', default_price: '140.00',
    features: [{ feature: 'Fabric', value: 'Canvas' }, { feature: 'Non-GMO', value: null }], version: '42',
  };
  const body = { id: 1, campus: 'hr-rfp', name: 'Camo Onesie', slogan: 's', description: 'd', category: 'Jackets', default_price: '140.00',
    created_at: '2021-01-01T00:00:00.000Z', updated_at: '2021-01-01T00:00:00.000Z', features: stored.features };

  it('none when every compared field and the ETag agree', () => {
    expect(differences(stored, 1, { status: 200, etag: '"42"', body: JSON.stringify(body) })).toEqual([]);
  });

  it('the ETag, features in another order, a missing product, a failed read', () => {
    const swapped = { ...body, features: [...stored.features].reverse() };
    expect(differences(stored, 1, { status: 200, etag: '"41"', body: JSON.stringify(swapped) })).toEqual([
      'product 1: ETag "41" through the API, "42" in the database',
      'product 1: features [{"feature":"Non-GMO","value":null},{"feature":"Fabric","value":"Canvas"}] through the API, [{"feature":"Fabric","value":"Canvas"},{"feature":"Non-GMO","value":null}] in the database',
    ]);
    expect(differences(stored, 1, { status: 404, etag: null, body: '{"error":"product 1 not found"}' })).toEqual(['product 1: the API answered 404: {"error":"product 1 not found"}']);
    expect(differences(undefined, 2, { status: 200, etag: '"1"', body: '{}' })).toEqual(['product 2: not in the database, but the API answered 200']);
    expect(differences(undefined, 2, { status: 404, etag: null, body: '{}' })).toEqual([]);
  });
});
