// deploy/nginx/nginx.conf run by Debian's nginx in front of two real API
// processes on one database (what `npm run bench:nginx` does before its k6
// smoke run): requests reach both, none fails, and the connections to the
// API processes are kept alive between requests. With the public deployment's
// gateway-side limit enabled (its commented "# public: " lines), nginx -t
// accepts it and one address gets its burst of 600, then 429s.
import fs from 'node:fs';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NGINX_CONF, type RunningNginx, renderNginxConfig, requestsPerUpstream, startNginx, withPublicLimits } from '../../bench/lib/nginx.ts';
import { type ServerProcess, startApi } from '../../bench/lib/server-process.ts';
import { useTestCatalogue } from '../support/catalogue-app.ts';
import { establishedConnections, nginxAvailable } from '../support/nginx.ts';
import { sseClient, subscribeSse, subscribeWs, wsClient } from '../support/live-clients.ts';

describe('the production nginx configuration', () => {
  const source = fs.readFileSync(NGINX_CONF, 'utf8');

  it('keeps connections to the upstreams alive and is sized for tens of thousands of requests per second', () => {
    expect(source).toMatch(/^\s*proxy_http_version 1\.1;/m);
    expect(source).toMatch(/^\s*proxy_set_header Connection "";/m);
    expect(Number(/^\s*keepalive (\d+);/m.exec(source)?.[1])).toBeGreaterThanOrEqual(64);
    const connections = Number(/worker_connections (\d+);/.exec(source)?.[1]);
    expect(connections).toBeGreaterThanOrEqual(10_000);
    // Two descriptors per proxied request: client and upstream.
    expect(Number(/worker_rlimit_nofile (\d+);/.exec(source)?.[1])).toBeGreaterThanOrEqual(2 * connections);
  });

  it('limits nothing per address by default; a public deployment uncomments limit_req keyed on the client address, with a burst', () => {
    const active = (config: string) => config.split('\n').filter((line) => !/^\s*#/.test(line)).join('\n');
    // The legacy service had no limit, and the load benchmarks send thousands of requests a second from one address.
    expect(active(source)).not.toMatch(/limit_req/);
    const enabled = active(withPublicLimits(source));
    expect(enabled).not.toMatch(/# public: /);
    expect(enabled).toMatch(/^\s*0 \$binary_remote_addr;/m);
    // 10 requests/s with a burst of 600: RATE_LIMIT_ANONYMOUS_PER_MINUTE=600's token bucket.
    expect(enabled).toMatch(/^\s*limit_req_zone \$limit_key zone=per_address:\d+m rate=10r\/s;/m);
    expect(enabled).toMatch(/^\s*limit_req zone=per_address burst=600 nodelay;/m);
    expect(enabled).toMatch(/^\s*limit_req_status 429;/m);
  });

  it('caps connections per client address, always: limit_conn of 1,000, its 429 naming it with Retry-After', () => {
    const active = source.split('\n').filter((line) => !/^\s*#/.test(line)).join('\n');
    expect(active).toMatch(/^\s*limit_conn_zone \$binary_remote_addr zone=conn_per_address:\d+m;/m);
    expect(active).toMatch(/^\s*limit_conn conn_per_address 1000;/m);
    expect(active).toMatch(/^\s*limit_conn_status 429;/m);
    expect(active).toMatch(/at most 1000 at once \(limit_conn\)/);
  });

  it('is run locally with only its machine-specific lines changed', () => {
    const rendered = renderNginxConfig(source, '/tmp/run', 4321);
    expect(rendered).toContain('include /tmp/run/upstreams.conf;');
    expect(rendered).toMatch(/listen 127\.0\.0\.1:4321 /);
    expect(rendered).not.toContain('/etc/nginx');
    const changed = /upstreams\.conf|listen|access_log/;
    for (const line of source.split('\n').filter((l) => !changed.test(l))) expect(rendered).toContain(line);
  });
});

describe.skipIf(!nginxAvailable())('nginx in front of two API processes', () => {
  const catalogue = useTestCatalogue();
  let apis: ServerProcess[] = [];
  let nginx: RunningNginx;

  beforeAll(async () => {
    apis = await Promise.all([1, 2].map(() => startApi({ databaseUrl: catalogue.db.url, workers: 1, cache: 'off' })));
    nginx = await startNginx(apis.map((api) => `127.0.0.1:${api.port}`));
  }, 90_000);
  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(apis.map((api) => api.stop()));
  });

  it('spreads requests over both processes with zero errors, over kept-alive upstream connections', async () => {
    const ids = Array.from({ length: 200 }, (_, i) => 1 + (i % catalogue.manifest.expected.products));
    for (let i = 0; i < ids.length; i += 20) {
      const answers = await Promise.all(ids.slice(i, i + 20).map(async (id) => {
        const response = await fetch(`${nginx.url}/products/${id}/styles`);
        return { id, status: response.status, body: await response.json() as { product_id: string } };
      }));
      for (const answer of answers) expect(answer).toMatchObject({ status: 200, body: { product_id: String(answer.id) } });
    }
    // nginx logs after answering, so the readiness probe's line may come late: count by URI.
    const logged = () => nginx.accessLog().filter((e) => e.uri.startsWith('/products/'));
    let entries = logged();
    // The last answers' lines may still be on their way to the file.
    for (let waited = 0; entries.length < ids.length && waited < 2_000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      entries = logged();
    }
    expect(entries).toHaveLength(ids.length);
    expect(entries.every((e) => e.status === 200)).toBe(true);
    const perUpstream = requestsPerUpstream(entries);
    for (const api of apis) expect(perUpstream.get(`127.0.0.1:${api.port}`)).toBeGreaterThan(0);
    // Idle connections stay open to each API process (without keep-alive nginx closes every one after its response).
    for (const api of apis) expect(establishedConnections(api.port)).toBeGreaterThan(0);
  });

  it('passes subscriptions through: graphql-ws on the WebSocket upgrade of /graphql, and SSE on /graphql/stream, unbuffered', async () => {
    const id = String((await catalogue.direct.one<{ id: number }>('SELECT min(id) AS id FROM products')).id);
    const query = 'subscription($ids: [ID!]!) { productChanged(ids: $ids) { id product { name } } }';
    const ws = wsClient(nginx.url);
    const sse = sseClient(nginx.url);
    const overWs = subscribeWs(ws, { query, variables: { ids: [id] } });
    const overSse = subscribeSse(sse, { query, variables: { ids: [id] } });
    try {
      for (const { received } of [overWs, overSse]) await received.until((r) => r.latest(id) !== undefined, 20_000, 'the current state');
      await catalogue.direct.rows(`UPDATE products SET name = 'Through nginx' WHERE id = $1`, [id]);
      for (const { received } of [overWs, overSse]) await received.until((r) => r.latest(id)?.name === 'Through nginx', 20_000, 'the change');
    } finally {
      overWs.dispose();
      overSse.dispose();
      await ws.dispose();
      sse.dispose();
    }
  });

  it('caps connections per address (limit_conn, here 5): WebSockets held, the next upgrade and request get 429 naming it; room again once one closes', async () => {
    const capped = await startNginx(apis.map((api) => `127.0.0.1:${api.port}`), {
      edit: (config) => config.replace('limit_conn conn_per_address 1000;', 'limit_conn conn_per_address 5;').replace('at most 1000 at once', 'at most 5 at once'),
    });
    const clients = Array.from({ length: 5 }, () => wsClient(capped.url));
    try {
      const id = String((await catalogue.direct.one<{ id: number }>('SELECT min(id) AS id FROM products')).id);
      const held = clients.map((client) => subscribeWs(client, { query: 'subscription($ids: [ID!]!) { productChanged(ids: $ids) { id } }', variables: { ids: [id] } }));
      for (const { received } of held) await received.until((r) => r.changes.length > 0, 20_000, 'the current state');
      const upgrade = new WebSocket(`${capped.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
      const refusedUpgrade = await new Promise<number>((resolve) => {
        upgrade.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        upgrade.on('open', () => resolve(101));
        upgrade.on('error', () => resolve(-1));
      });
      upgrade.terminate();
      expect(refusedUpgrade).toBe(429);
      const refused = await fetch(`${capped.url}/products/${id}/styles`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await refused.json()).toEqual({ error: 'too many connections from this address at the gateway: at most 5 at once (limit_conn); close one first, or retry in 5 s' });
      await clients[0]!.dispose();
      await expect.poll(async () => (await fetch(`${capped.url}/products/${id}/styles`)).status, { timeout: 5_000 }).toBe(200);
    } finally {
      await Promise.all(clients.map((client) => client.dispose()));
      await capped.stop();
    }
  });

  it('with the public deployment\'s limit enabled: one address gets its burst of 600, then 429 with Retry-After', async () => {
    const limited = await startNginx(apis.map((api) => `127.0.0.1:${api.port}`), { publicLimits: true });
    try {
      const started = performance.now();
      const statuses: number[] = [];
      let refusal: { retryAfter: string | null; body: unknown } | undefined;
      for (let i = 0; i < 800; i += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, async () => {
          const response = await fetch(`${limited.url}/products/1`);
          const body = await response.json();
          if (response.status === 429) refusal ??= { retryAfter: response.headers.get('retry-after'), body };
          return response.status;
        }));
        statuses.push(...batch);
      }
      // Refilled at 10 a second meanwhile (nginx's readiness probe took one).
      const refill = Math.ceil(((performance.now() - started) / 1000) * 10) + 1;
      const served = statuses.filter((status) => status === 200).length;
      expect(served).toBeGreaterThanOrEqual(590);
      expect(served).toBeLessThanOrEqual(601 + refill);
      expect(statuses.filter((status) => status === 429).length).toBe(800 - served);
      expect(refusal).toEqual({ retryAfter: '1', body: { error: 'rate limit exceeded: 10 requests per second per address at the gateway; retry in 1 s' } });
    } finally {
      await limited.stop();
    }
  });
});
