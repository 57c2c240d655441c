// Sidecar mode's writes: passed through to the legacy service (the source of
// truth), read back and applied at once; the legacy service's refusals come
// back as it sent them; while it is down, reads still serve the copy (with
// its age) and writes are 503s with Retry-After.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient } from '../support/catalogue-app.ts';
import { eventually, expectSameBytes, sidecarEnv, type SidecarSetup, startSidecarSetup, synced } from './support.ts';

const json = { 'content-type': 'application/json' };

describe('sidecar writes', () => {
  let setup: SidecarSetup;

  beforeAll(async () => {
    setup = await startSidecarSetup({ sim: { products: 12 } });
    await synced(setup);
  });

  afterAll(async () => {
    await setup?.close();
  });

  it('a REST PUT lands on the legacy service and reads back at once', async () => {
    const put = await setup.client.app.inject({ method: 'PUT', url: '/products/2', headers: json, payload: { name: 'Put through', features: [{ feature: 'Sole', value: 'Rubber' }] } });
    expect(put.statusCode).toBe(200);
    expect(setup.sim.view(2)).toMatchObject({ name: 'Put through', features: [{ feature: 'Sole', value: 'Rubber' }] });
    // The answer is the product as the legacy service now shows it, byte for byte.
    expect(put.body).toBe(await (await fetch(`${setup.sim.url}/products/2`)).text());
    const read = await setup.client.app.inject({ method: 'GET', url: '/products/2' });
    expect(read.body).toBe(put.body);
    expect(read.headers.etag).toBe(put.headers.etag);
  });

  it('a GraphQL updateProduct lands on the legacy service and reads back at once', async () => {
    const result = await setup.client.post(`mutation { updateProduct(id: "4", input: { name: "Via GraphQL", defaultPrice: "77.50" }) { id name defaultPrice version } }`);
    expect(result.status).toBe(200);
    expect(result.body.data?.updateProduct).toMatchObject({ id: '4', name: 'Via GraphQL', defaultPrice: '77.50' });
    expect(setup.sim.view(4)).toMatchObject({ name: 'Via GraphQL', default_price: '77.50' });
    const read = await setup.client.post('{ product(id: "4") { name defaultPrice } }');
    expect(read.body.data?.product).toEqual({ name: 'Via GraphQL', defaultPrice: '77.50' });
    await expectSameBytes(setup, '/products/4');
  });

  it('a REST POST creates the product there, once per Idempotency-Key', async () => {
    const body = { name: 'Posted', slogan: 'S', description: 'D', category: 'C', default_price: '10.00', features: [] };
    const headers = { ...json, 'idempotency-key': 'sidecar-create-1' };
    const first = await setup.client.app.inject({ method: 'POST', url: '/products', headers, payload: body });
    expect(first.statusCode).toBe(201);
    const id = (JSON.parse(first.body) as { id: number }).id;
    expect(first.body).toBe(await (await fetch(`${setup.sim.url}/products/${id}`)).text());
    const posts = setup.sim.stats().byRoute['POST /products'];
    const again = await setup.client.app.inject({ method: 'POST', url: '/products', headers, payload: body });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(JSON.parse(again.body)).toMatchObject({ id });
    expect(setup.sim.stats().byRoute['POST /products']).toBe(posts);
    const other = await setup.client.app.inject({ method: 'POST', url: '/products', headers, payload: { ...body, name: 'Other' } });
    expect(other.statusCode).toBe(422);
    expect(setup.sim.stats().byRoute['POST /products']).toBe(posts);
    await expectSameBytes(setup, `/products/${id}`);
    await expectSameBytes(setup, `/products/${id}/styles`);
  });

  it('GraphQL createProduct (once per idempotency key) and deleteProduct pass through too', async () => {
    const create = `mutation($key: String) { createProduct(input: { name: "From GraphQL", slogan: "S", description: "D", category: "C", defaultPrice: "5.00", features: [{ feature: "Fit", value: "Slim" }] }, idempotencyKey: $key) { id name features { feature value } } }`;
    const posts = setup.sim.stats().byRoute['POST /products'];
    const first = await setup.client.post(create, { key: 'graphql-create-1' });
    expect(first.body.errors).toBeUndefined();
    const id = first.body.data?.createProduct.id as string;
    expect(setup.sim.view(Number(id))).toMatchObject({ name: 'From GraphQL', features: [{ feature: 'Fit', value: 'Slim' }] });
    const again = await setup.client.post(create, { key: 'graphql-create-1' });
    expect(again.body.data?.createProduct.id).toBe(id);
    expect(setup.sim.stats().byRoute['POST /products']).toBe(posts + 1);
    await expectSameBytes(setup, `/products/${id}`);

    const deleted = await setup.client.post(`mutation { deleteProduct(id: "${id}") }`);
    expect(deleted.body).toEqual({ data: { deleteProduct: id } });
    expect(setup.sim.view(Number(id))).toBeUndefined();
    expect((await setup.client.app.inject({ method: 'GET', url: `/products/${id}` })).statusCode).toBe(404);
  });

  it('a REST DELETE removes it there and here at once', async () => {
    const response = await setup.client.app.inject({ method: 'DELETE', url: '/products/6' });
    expect(response.statusCode).toBe(204);
    expect(setup.sim.view(6)).toBeUndefined();
    await expectSameBytes(setup, '/products/6');
  });

  it('the legacy service\'s refusals come back with its status and message; nothing is written here', async () => {
    // Gone there, still here: the legacy 404 is the answer.
    setup.sim.catalogue.delete(8);
    const response = await setup.client.app.inject({ method: 'PUT', url: '/products/8', headers: json, payload: { name: 'Too late' } });
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body)).toEqual({ error: 'product 8 not found' });
    // And gone here too now.
    expect((await setup.client.app.inject({ method: 'GET', url: '/products/8' })).statusCode).toBe(404);
    const result = await setup.client.post('mutation { updateProduct(id: "10", input: { name: "" }) { id } }');
    expect(result.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    setup.sim.catalogue.delete(11);
    const gone = await setup.client.post('mutation { deleteProduct(id: "11") }');
    expect(gone.body.errors?.[0]).toMatchObject({ message: 'product 11 not found', extensions: { code: 'NOT_FOUND' } });
  });

  it('If-Match is checked against the local copy before the write passes through', async () => {
    const writes = setup.sim.stats().writes;
    const response = await setup.client.app.inject({ method: 'PUT', url: '/products/9', headers: { ...json, 'if-match': '"1"' }, payload: { name: 'Stale' } });
    expect(response.statusCode).toBe(412);
    expect(setup.sim.stats().writes).toBe(writes);
    const current = await setup.client.app.inject({ method: 'GET', url: '/products/9' });
    const ok = await setup.client.app.inject({ method: 'PUT', url: '/products/9', headers: { ...json, 'if-match': current.headers.etag as string }, payload: { name: 'Fresh' } });
    expect(ok.statusCode).toBe(200);
    expect(setup.sim.view(9)?.name).toBe('Fresh');
  });

  it('while the legacy service is down, reads serve the copy with a growing X-Source-Age, writes are 503 with Retry-After', async () => {
    const expected = await (await fetch(`${setup.sim.url}/products/1`)).text();
    await setup.sim.down('503');
    try {
      const first = await setup.client.app.inject({ method: 'GET', url: '/products/1' });
      expect(first.statusCode).toBe(200);
      expect(first.body).toBe(expected);
      const age = Number(first.headers['x-source-age']);
      const later = await eventually(async () => {
        const response = await setup.client.app.inject({ method: 'GET', url: '/products/1' });
        return Number(response.headers['x-source-age']) >= age + 2 ? response : false;
      }, 10_000, 'X-Source-Age to grow');
      expect(later.statusCode).toBe(200);
      expect(later.body).toBe(expected);

      const put = await setup.client.app.inject({ method: 'PUT', url: '/products/1', headers: json, payload: { name: 'Not now' } });
      expect(put.statusCode).toBe(503);
      expect(Number(put.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(put.body).error).toMatch(/legacy/);
      const post = await setup.client.app.inject({ method: 'POST', url: '/products', headers: json, payload: { name: 'N', slogan: 'S', description: 'D', category: 'C', default_price: '1.00' } });
      expect(post.statusCode).toBe(503);
      const result = await setup.client.post('mutation { updateProduct(id: "1", input: { name: "Not now" }) { id } }');
      expect(result.status).toBe(503);
      expect(result.headers['retry-after']).toBeDefined();
      expect(result.body.errors?.[0]?.extensions?.code).toBe('LEGACY_UNAVAILABLE');
      // Nothing was written here.
      expect((await setup.client.app.inject({ method: 'GET', url: '/products/1' })).body).toBe(expected);

      const ready = await setup.client.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(JSON.parse(ready.body).legacySync.lagSeconds).toBeGreaterThanOrEqual(2);
    } finally {
      await setup.sim.up();
    }
    // Back up: the sync succeeds again and the age falls.
    await eventually(async () => Number((await setup.client.app.inject({ method: 'GET', url: '/products/1' })).headers['x-source-age']) <= 1, 20_000, 'X-Source-Age to fall');
  });
});

describe('a style the legacy service moves to another product', () => {
  let setup: SidecarSetup;

  beforeAll(async () => {
    const syncing = await startSidecarSetup({ sim: { products: 12 } });
    await synced(syncing);
    // From here on no sync round runs: only the read-back after a write applies anything.
    await syncing.client.close();
    const client = await createTestClient(syncing.database.url, { env: sidecarEnv(syncing.sim, { CACHE: 'on', LEGACY_SYNC: 'off' }) });
    setup = {
      ...syncing, client,
      async close() {
        await client.close();
        await syncing.sim.close();
        await syncing.database.drop();
      },
    };
  });

  afterAll(async () => {
    await setup?.close();
  });

  it('changes the product it left too: a new version, and no cached answer shows the style twice (found from outside)', async () => {
    const from = [...Array(12).keys()].map((i) => i + 1).find((id) => (setup.sim.catalogue.get(id)?.styles.length ?? 0) >= 2)!;
    const to = from === 1 ? 2 : 1;
    const source = setup.sim.catalogue.get(from)!;
    const moving = source.styles[0]!;
    const before = await setup.client.app.inject({ method: 'GET', url: `/products/${from}/styles` });
    expect(before.body).toContain(`"style_id":${moving.id},`);
    const etag = (await setup.client.app.inject({ method: 'GET', url: `/products/${from}` })).headers.etag;
    // Behind the sidecar's back: the style moves, with its photos and skus.
    setup.sim.catalogue.update(from, { styles: source.styles.slice(1) });
    setup.sim.catalogue.update(to, { styles: [...setup.sim.catalogue.get(to)!.styles, moving] });
    // A write to the product it moved to reads that product back, and applies it.
    const put = await setup.client.app.inject({ method: 'PUT', url: `/products/${to}`, headers: json, payload: { slogan: 'took a style' } });
    expect(put.statusCode).toBe(200);
    const after = await setup.client.app.inject({ method: 'GET', url: `/products/${from}/styles` });
    expect(after.headers['x-cache']).toBe('miss');
    expect(after.body).not.toContain(`"style_id":${moving.id},`);
    expect((await setup.client.app.inject({ method: 'GET', url: `/products/${from}` })).headers.etag).not.toBe(etag);
    await expectSameBytes(setup, `/products/${from}/styles`);
    await expectSameBytes(setup, `/products/${to}/styles`);
  });
});
