// Idempotency-Key on creates, REST and GraphQL, against real Postgres: a
// retried create never makes a second product, even when the retries arrive
// at once; the same key with other content is a 422; the key is stored in the
// product's own transaction; keys expire.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestClient, EXECUTORS, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';

const TTL_SECONDS = 3600;

const catalogue = useTestCatalogue();
const client = useTestClient(catalogue, { nodeEnv: 'production', env: { IDEMPOTENCY_KEY_TTL_SECONDS: String(TTL_SECONDS) } });

const newKey = () => crypto.randomUUID();
const product = (name: string) => ({ name, slogan: 'Once only', description: 'd', category: 'Keys', default_price: '12.50', features: [{ feature: 'Fabric', value: 'Wool' }] });

async function post(body: unknown, key?: string) {
  const response = await client.app.inject({
    method: 'POST', url: '/products', payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
  });
  const parsed = JSON.parse(response.body);
  assertMatchesOpenApi({ method: 'POST', path: '/products', status: response.statusCode, body: parsed });
  return { status: response.statusCode, body: parsed, replayed: response.headers['idempotent-replayed'] };
}

async function productsNamed(name: string): Promise<number[]> {
  return (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products WHERE name = $1 ORDER BY id', [name])).map((r) => r.id);
}

describe('POST /products with an Idempotency-Key', () => {
  it('a repeat answers 201 with the same product, marked as replayed, and creates nothing', async () => {
    const key = newKey();
    const first = await post(product('Repeated'), key);
    expect(first.status).toBe(201);
    expect(first.replayed).toBeUndefined();
    // The same content spelled differently (number price, stray spaces, keys reordered) is the same request.
    const { default_price: _price, ...rest } = product('  Repeated ');
    const again = await post({ default_price: 12.5, ...rest }, key);
    expect(again).toMatchObject({ status: 201, replayed: 'true' });
    expect(again.body).toEqual(first.body);
    expect(await productsNamed('Repeated')).toEqual([first.body.id]);
  });

  it('the same key with other content is a 422 that says why, and creates nothing', async () => {
    const key = newKey();
    const first = await post(product('Original'), key);
    const other = await post(product('Something else'), key);
    expect(other.status).toBe(422);
    expect(other.body.error).toBe(`Idempotency-Key "${key}" was already used for a create with different content; send a new key for a new product`);
    expect(await productsNamed('Something else')).toEqual([]);
    expect(await productsNamed('Original')).toEqual([first.body.id]);
  });

  it('five identical creates at once make exactly one product; all five answer with it', async () => {
    const key = newKey();
    const retriesBefore = client.server.service.transactionRetries;
    const responses = await Promise.all(Array.from({ length: 5 }, () => post(product('Five at once'), key)));
    // They did overlap: the ones that lost the race were run again and found the key.
    expect(client.server.service.transactionRetries).toBeGreaterThan(retriesBefore);
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const ids = await productsNamed('Five at once');
    expect(ids).toHaveLength(1);
    expect(new Set(responses.map((r) => r.body.id))).toEqual(new Set(ids));
    expect(responses.filter((r) => r.replayed === 'true')).toHaveLength(4);
    expect(await catalogue.direct.rows('SELECT product_id FROM idempotency_keys WHERE key = $1', [key])).toEqual([{ product_id: ids[0] }]);
  });

  it('without a key, every create makes a product; a malformed key is a 400', async () => {
    await post(product('No key'));
    await post(product('No key'));
    expect(await productsNamed('No key')).toHaveLength(2);
    for (const bad of ['', 'has space', 'x'.repeat(256), 'ключ']) {
      const response = await client.app.inject({ method: 'POST', url: '/products', payload: JSON.stringify(product('Bad key')), headers: { 'content-type': 'application/json', 'idempotency-key': bad } });
      expect(response.statusCode, JSON.stringify(bad)).toBe(400);
      expect(JSON.parse(response.body).error).toMatch(/^Idempotency-Key: must be 1 to 255 visible ASCII characters/);
    }
    expect(await productsNamed('Bad key')).toEqual([]);
  });

  it('stores the key in the product\'s transaction: when storing the key fails, there is no product either', async () => {
    await catalogue.direct.rows("ALTER TABLE idempotency_keys ADD CONSTRAINT test_refuses_key CHECK (key <> 'refused-key')");
    try {
      const response = await post(product('Half written?'), 'refused-key');
      expect(response.status).toBe(500);
      expect(await productsNamed('Half written?')).toEqual([]);
    } finally {
      await catalogue.direct.rows('ALTER TABLE idempotency_keys DROP CONSTRAINT test_refuses_key');
    }
    expect((await post(product('Half written?'), 'refused-key')).status).toBe(201);
    expect(await productsNamed('Half written?')).toHaveLength(1);
  });

  it('keys expire after IDEMPOTENCY_KEY_TTL_SECONDS: then the key makes a new product', async () => {
    const key = newKey();
    const first = await post(product('Expiring'), key);
    const { seconds } = await catalogue.direct.one<{ seconds: number }>('SELECT extract(epoch FROM expires_at - created_at)::float AS seconds FROM idempotency_keys WHERE key = $1', [key]);
    expect(seconds).toBeGreaterThan(TTL_SECONDS - 5);
    expect(seconds).toBeLessThan(TTL_SECONDS + 5);
    await catalogue.direct.rows("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1", [key]);
    const later = await post(product('Expiring'), key);
    expect(later).toMatchObject({ status: 201, replayed: undefined });
    expect(later.body.id).not.toBe(first.body.id);
    expect(await productsNamed('Expiring')).toEqual([first.body.id, later.body.id]);
  });

  it('expired keys of other creates are swept (by the first keyed create of a process)', async () => {
    const stale = newKey();
    await catalogue.direct.rows("INSERT INTO idempotency_keys (key, request_hash, product_id, expires_at) VALUES ($1, 'h', 1, now() - interval '1 hour')", [stale]);
    const fresh = await createTestClient(catalogue.db.url, { nodeEnv: 'production' });
    try {
      const response = await fresh.app.inject({ method: 'POST', url: '/products', payload: JSON.stringify(product('Sweeper')), headers: { 'content-type': 'application/json', 'idempotency-key': newKey() } });
      expect(response.statusCode).toBe(201);
      const remaining = async () => (await catalogue.direct.rows('SELECT key FROM idempotency_keys WHERE key = $1', [stale])).length;
      for (let i = 0; i < 100 && (await remaining()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await remaining()).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('a repeat after the product was deleted is a 404 that says so', async () => {
    const key = newKey();
    const first = await post(product('Deleted since'), key);
    expect((await client.app.inject({ method: 'DELETE', url: `/products/${first.body.id}` })).statusCode).toBe(204);
    const again = await post(product('Deleted since'), key);
    expect(again).toMatchObject({ status: 404, body: { error: `product ${first.body.id}, created with this Idempotency-Key, has been deleted since` } });
    expect(await productsNamed('Deleted since')).toEqual([]);
  });
});

const CREATE = `mutation Create($input: CreateProductInput!, $key: String) { createProduct(input: $input, idempotencyKey: $key) { id name features { feature value } } }`;
const input = (name: string) => ({ name, slogan: 'Once only', description: 'd', category: 'Keys', defaultPrice: '12.50', features: [{ feature: 'Fabric', value: 'Wool' }] });

describe.each(EXECUTORS)('createProduct with an idempotency key ($engine)', ({ engine, env }) => {
  const graphql = useTestClient(catalogue, { nodeEnv: 'production', env });
  const create = (name: string, options: { key?: string; header?: string } = {}) =>
    graphql.post<{ createProduct: { id: string } }>(CREATE, { input: input(name), ...(options.key ? { key: options.key } : {}) }, { headers: options.header ? { 'idempotency-key': options.header } : {} });

  it('by argument or by header: a repeat returns the same product; other content is IDEMPOTENCY_KEY_REUSED (HTTP 200: the mutation ran)', async () => {
    const byArgument = newKey();
    const first = await create(`Argument ${engine}`, { key: byArgument });
    const again = await create(`Argument ${engine}`, { key: byArgument });
    expect(again.body.data?.createProduct).toEqual(first.body.data?.createProduct);
    const byHeader = newKey();
    const viaHeader = await create(`Header ${engine}`, { header: byHeader });
    expect((await create(`Header ${engine}`, { header: byHeader })).body.data?.createProduct.id).toBe(viaHeader.body.data?.createProduct.id);
    expect(await productsNamed(`Argument ${engine}`)).toHaveLength(1);
    expect(await productsNamed(`Header ${engine}`)).toHaveLength(1);

    const reused = await create(`Other ${engine}`, { key: byArgument });
    expect(reused.status).toBe(200);
    expect(reused.body.errors?.[0]).toMatchObject({ message: expect.stringContaining(`Idempotency-Key "${byArgument}" was already used`), extensions: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    expect(await productsNamed(`Other ${engine}`)).toEqual([]);

    const malformed = await create(`Malformed ${engine}`, { key: 'has space' });
    expect(malformed.status).toBe(200);
    expect(malformed.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'idempotencyKey' });
  });

  it('five at once make exactly one product', async () => {
    const key = newKey();
    const responses = await Promise.all(Array.from({ length: 5 }, () => create(`Five ${engine}`, { key })));
    expect(responses.map((r) => r.body.errors)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    const ids = await productsNamed(`Five ${engine}`);
    expect(ids).toHaveLength(1);
    expect(new Set(responses.map((r) => Number(r.body.data?.createProduct.id)))).toEqual(new Set(ids));
  });

  it('one key space with REST: the same product through either API', async () => {
    const key = newKey();
    const rest = await post(product(`Both APIs ${engine}`), key);
    const viaGraphQL = await create(`Both APIs ${engine}`, { header: key });
    expect(Number(viaGraphQL.body.data?.createProduct.id)).toBe(rest.body.id);
    expect(await productsNamed(`Both APIs ${engine}`)).toHaveLength(1);
  });
});
