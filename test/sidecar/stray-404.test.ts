// A 404 proves a product gone only in the legacy service's own words
// (`{"error": "product 12 not found"}`). A gateway's HTML 404 between deploys
// deletes nothing, neither in the sync nor after a write (found by an outside
// test: one stray 404 deleted a product for good).
import { describe, expect, it } from 'vitest';
import { saysProductGone } from '../../src/catalog/writes/source.ts';
import type { LegacyResponse } from '../../src/legacy/legacy-client.ts';
import { fetchSnapshot, HttpAnswerError } from '../../src/sidecar/sync-worker.ts';

const GATEWAY_404 = '<html><body>404 Not Found (nginx)</body></html>';

function answer(status: number, body: string): LegacyResponse {
  return { status, headers: {}, bytes: Buffer.from(body), body, json: () => JSON.parse(body), attempts: 1 } as LegacyResponse;
}

describe('a product is gone', () => {
  it('when the legacy service says so for that product', () => {
    expect(saysProductGone(14, 404, '{"error":"product 14 not found"}')).toBe(true);
    expect(saysProductGone(14, 404, GATEWAY_404)).toBe(false);
    expect(saysProductGone(14, 404, '{"error":"product 140 not found"}')).toBe(false);
    expect(saysProductGone(14, 404, '{"error":"no route GET \\"/products/14/styles\\""}')).toBe(false);
    expect(saysProductGone(14, 200, '{"error":"product 14 not found"}')).toBe(false);
  });

  it('the sync: a stray 404 on any route is an error retried later, not a deletion', async () => {
    const detail = '{"id":14,"campus":"hr-rfp","name":"n","slogan":"s","description":"d","category":"c","default_price":"1.00","created_at":"2021-08-13T14:38:44.509Z","updated_at":"2021-08-13T14:38:44.509Z","features":[]}';
    const stray = (path: string) => Promise.resolve(path.endsWith('/styles') ? answer(404, GATEWAY_404) : answer(200, path.endsWith('/related') ? '[]' : detail));
    await expect(fetchSnapshot(stray, 14)).rejects.toBeInstanceOf(HttpAnswerError);
    const gone = () => Promise.resolve(answer(404, '{"error":"product 14 not found"}'));
    expect(await fetchSnapshot(gone, 14)).toBeNull();
  });
});
