// CORS by HTTP (test/http/browser.test.ts has Chromium apply it): the default
// `*`, an allowlist with Vary: Origin, credentials only where configured, off.
import { describe, expect, it } from 'vitest';
import { EXPOSED_HEADERS } from '../../src/http/cors.ts';
import { READ_METHODS, WRITE_METHODS } from '../../src/http/methods.ts';
import { useTestCatalogue, withTestClient, type TestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue({ scale: 0.0001 });

const ORIGIN = 'https://shop.example.com';
const preflight = (path: string, origin = ORIGIN) => ({
  method: 'OPTIONS' as const, url: path,
  headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,if-match,x-api-key' },
});

const withClient = (env: Record<string, string>, run: (client: TestClient) => Promise<void>) => withTestClient(catalogue.db.url, { env }, run);

describe('CORS', () => {
  it('by default: any origin, every route, no credentials; the headers a client needs exposed', async () => {
    await withClient({}, async (client) => {
      for (const url of ['/graphql', '/products/1', '/products']) {
        const answer = await client.app.inject(preflight(url));
        expect(answer.statusCode).toBe(204);
        expect(answer.headers['access-control-allow-origin']).toBe('*');
        expect(answer.headers['access-control-allow-methods']).toBe([...READ_METHODS, ...WRITE_METHODS].join(', '));
        expect(answer.headers['access-control-allow-headers']).toBe('content-type,if-match,x-api-key');
        expect(answer.headers['access-control-max-age']).toBe('600');
        expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
      }
      const read = await client.app.inject({ method: 'GET', url: '/products/1', headers: { origin: ORIGIN } });
      expect(read.headers['access-control-allow-origin']).toBe('*');
      expect(read.headers['access-control-expose-headers']).toBe(EXPOSED_HEADERS.join(', '));
      for (const name of ['x-request-id', 'etag', 'ratelimit-remaining', 'retry-after']) expect(EXPOSED_HEADERS).toContain(name);
      // `*` answers the same to every origin: nothing to vary on.
      expect(read.headers.vary ?? '').not.toMatch(/Origin/);
    });
  });

  it('an allowlist: listed origins echoed, with Vary: Origin; others get no CORS headers', async () => {
    await withClient({ CORS_ORIGINS: `${ORIGIN},http://localhost:3000` }, async (client) => {
      const allowed = await client.app.inject({ method: 'GET', url: '/products/1', headers: { origin: 'http://localhost:3000' } });
      expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:3000');
      expect(allowed.headers.vary).toMatch(/\bOrigin\b/);
      for (const origin of ['https://evil.example', 'null', undefined]) {
        const other = await client.app.inject({ method: 'GET', url: '/products/1', headers: origin ? { origin } : {} });
        expect(other.statusCode).toBe(200);
        expect(Object.keys(other.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
      }
      const other = await client.app.inject({ method: 'GET', url: '/products/1', headers: { origin: 'https://evil.example' } });
      expect(other.headers.vary).toMatch(/\bOrigin\b/);
      // Preflights: a listed origin's is allowed; an unlisted one's (or a plain
      // OPTIONS) is a 204 too (issue 32: 404 "no route OPTIONS"), without any
      // Access-Control-* header, which is what makes its browser refuse.
      for (const url of ['/graphql', '/products/1', '/products/1/styles']) {
        const listed = await client.app.inject(preflight(url));
        expect([listed.statusCode, listed.headers['access-control-allow-origin']]).toEqual([204, ORIGIN]);
        for (const origin of ['https://evil.example', 'null', undefined]) {
          const refused = await client.app.inject(origin ? preflight(url, origin) : { method: 'OPTIONS', url });
          expect([url, origin, refused.statusCode, refused.body]).toEqual([url, origin, 204, '']);
          expect(Object.keys(refused.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
          expect(refused.headers.vary).toMatch(/\bOrigin\b/);
        }
      }
      const graphql = await client.app.inject({ method: 'GET', url: '/graphql?query=%7B__typename%7D', headers: { origin: ORIGIN, accept: 'application/json' } });
      expect(graphql.headers.vary).toBe('Origin, Accept');
      // The IDE page adds to Vary rather than replacing it.
      const ide = await client.app.inject({ method: 'GET', url: '/graphql', headers: { origin: ORIGIN, accept: 'text/html' } });
      expect(ide.headers['content-type']).toContain('text/html');
      expect(ide.headers.vary).toBe('Origin, Accept');
    });
  });

  it('credentials only when configured, for listed origins', async () => {
    await withClient({ CORS_ORIGINS: ORIGIN, CORS_CREDENTIALS: 'on' }, async (client) => {
      const answer = await client.app.inject(preflight('/graphql'));
      expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(answer.headers['access-control-allow-credentials']).toBe('true');
    });
  });

  it('CORS_ORIGINS=off: no CORS headers, and OPTIONS is not a route', async () => {
    await withClient({ CORS_ORIGINS: 'off' }, async (client) => {
      const read = await client.app.inject({ method: 'GET', url: '/products/1', headers: { origin: ORIGIN } });
      expect(read.headers['access-control-allow-origin']).toBeUndefined();
      expect((await client.app.inject(preflight('/graphql'))).statusCode).toBe(404);
    });
  });
});
