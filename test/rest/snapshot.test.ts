// A REST product and its strong ETag come from one snapshot: while writers
// change a product's name and features together, no reader ever gets a body
// mixing two writes, and one ETag never stands for two bodies (found by an
// outside test: the product row and its features were two statements).
import { describe, expect, it } from 'vitest';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue({ scale: 0.0001 });

describe('GET /products/:id under concurrent writes', () => {
  const client = useTestClient(catalogue);

  it('never answers a torn product: every ETag has exactly one body, whose name and features agree', async () => {
    const id = 3;
    const deadline = Date.now() + 2_000;
    let mark = 0;
    const bodies = new Map<string, Set<string>>();
    const writer = async () => {
      while (Date.now() < deadline) {
        const m = `mark ${++mark}`;
        const response = await client.app.inject({ method: 'PUT', url: `/products/${id}`, payload: { name: m, features: [{ feature: 'mark', value: m }] } });
        expect(response.statusCode).toBe(200);
      }
    };
    const reader = async () => {
      let reads = 0;
      while (Date.now() < deadline) {
        const response = await client.app.inject({ method: 'GET', url: `/products/${id}` });
        expect(response.statusCode).toBe(200);
        const body = JSON.parse(response.body) as { name: string; features: { value: string }[] };
        // Any generated name may start with M; only the writers' names start with 'mark '.
        if (body.name.startsWith('mark ')) expect(body.features.map((f) => f.value)).toEqual([body.name]);
        const etag = response.headers.etag as string;
        if (!bodies.has(etag)) bodies.set(etag, new Set());
        bodies.get(etag)!.add(response.body);
        reads++;
      }
      return reads;
    };
    const [, , ...reads] = await Promise.all([writer(), writer(), reader(), reader(), reader(), reader()]);
    expect(reads.reduce((a, b) => a + b, 0)).toBeGreaterThan(50);
    expect(mark).toBeGreaterThan(10);
    expect([...bodies.entries()].filter(([, set]) => set.size > 1).map(([etag]) => etag)).toEqual([]);
  });
});
