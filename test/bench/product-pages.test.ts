// bench/lib/product-pages.ts: the page client of bench:sidecar against a small
// node:http server (no database): pages, byte checks, X-Source-Age, percentiles.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type References, pagePaths, pageProblem, percentile, runClients, seededRandom } from '../../bench/lib/product-pages.ts';

const body = (path: string) => Buffer.from(JSON.stringify({ path }));

let server: http.Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    seen.push(request.url!);
    // Product 3's styles differ from the reference; product 4 has no X-Source-Age.
    const text = request.url === '/products/3/styles' ? Buffer.from('{"path":"changed"}') : body(request.url!);
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...(request.url!.startsWith('/products/4') ? {} : { 'x-source-age': '2' }) });
    response.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const references = (ids: number[]): References => new Map(ids.map((id) => [id, pagePaths(id).map(body)]));

describe('product pages', () => {
  it('a page is detail, styles and related; every client loads its pages; latencies ascending', async () => {
    seen.length = 0;
    const result = await runClients({ base, clients: 3, ids: [1, 2], mode: 'parallel', until: { pagesPerClient: 4 }, references: references([1, 2]), needSourceAge: true, seed: 1 });
    expect(result).toMatchObject({ clients: 3, pages: 12, failed: 0 });
    expect(seen).toHaveLength(36);
    expect(new Set(seen)).toEqual(new Set([...pagePaths(1), ...pagePaths(2)]));
    expect(result.latenciesMs).toEqual([...result.latenciesMs].sort((a, b) => a - b));
  });

  it('counts pages whose bytes differ from the reference, or (sidecar) lack X-Source-Age', async () => {
    const differing = await runClients({ base, clients: 1, ids: [3], mode: 'sequential', until: { pagesPerClient: 2 }, references: references([3]), needSourceAge: false, seed: 1 });
    expect(differing.failed).toBe(2);
    expect(differing.firstProblem).toMatch(/^GET \/products\/3\/styles: 18 bytes where 29 were expected, first difference at byte 9/);
    const noAge = await runClients({ base, clients: 1, ids: [4], mode: 'sequential', until: { pagesPerClient: 1 }, references: references([4]), needSourceAge: true, seed: 1 });
    expect(noAge.firstProblem).toBe('GET /products/4: no X-Source-Age header');
    expect(pageProblem(5, [{ status: 503, body: Buffer.from('down'), sourceAge: undefined }], new Map(), false)).toBe('GET /products/5 answered 503: down');
  });

  it('runs for a duration', async () => {
    const result = await runClients({ base, clients: 2, ids: [1], mode: 'parallel', until: { seconds: 0.3 }, references: references([1]), needSourceAge: true, seed: 1 });
    expect(result.pages).toBeGreaterThan(2);
    expect(result.seconds).toBeGreaterThanOrEqual(0.3);
    expect(result.seconds).toBeLessThan(2);
  });

  it('nearest-rank percentiles; seeded ids repeat', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
    const a = seededRandom(5);
    const b = seededRandom(5);
    const draws = Array.from({ length: 5 }, () => a());
    expect(draws).toEqual(Array.from({ length: 5 }, () => b()));
    for (const x of draws) expect(x >= 0 && x < 1).toBe(true);
  });
});
