// Who sees the operational details (issue 13: in production /metrics and
// /readyz answered anyone, and /readyz showed "connect ECONNREFUSED
// 127.0.0.1:5432"). Anonymous /healthz and /readyz say only ok / ready or
// unavailable (200/503, orchestrators keep working); /metrics and the details
// need ADMIN_TOKEN or the ADMIN_PORT listener; production without either
// refuses /metrics with a 403 saying what to set. Development and test
// without either keep showing everything (the other tests rely on it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';
import { startServer } from '../../src/server.ts';
import { freePort } from '../../bench/lib/free-port.ts';
import { startApiProcess } from '../support/api-process.ts';
import { createTestClient, type NodeEnv, type TestClient } from '../support/catalogue-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { Scrape } from '../support/prometheus.ts';

const TOKEN = 'admin-test-token-9f8e7d6c5b4a';

let database: TestDatabase;
const clients: TestClient[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await database?.drop();
});

async function client(options: { nodeEnv: NodeEnv; env?: Record<string, string>; databaseUrl?: string }): Promise<TestClient> {
  const created = await createTestClient(options.databaseUrl ?? database.url, { apiKey: false, nodeEnv: options.nodeEnv, env: options.env });
  clients.push(created);
  return created;
}

/** A server whose Postgres is a closed port: /readyz fails with a driver message. */
async function unreachable(nodeEnv: NodeEnv, env: Record<string, string> = {}): Promise<TestClient> {
  return client({ nodeEnv, env, databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/catalogue` });
}

async function get(app: FastifyInstance, url: string, token?: string) {
  const response = await app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.statusCode, headers: response.headers, text: response.body, json: () => JSON.parse(response.body) as Record<string, unknown> };
}

describe('production without ADMIN_TOKEN or ADMIN_PORT', () => {
  it('/readyz and /healthz say only ready/ok; /metrics is a 403 saying what to configure', async () => {
    const { app } = await client({ nodeEnv: 'production' });
    const ready = await get(app, '/readyz');
    expect([ready.status, ready.json()]).toEqual([200, { status: 'ready' }]);
    const health = await get(app, '/healthz');
    expect([health.status, health.json()]).toEqual([200, { status: 'ok' }]);
    const metrics = await get(app, '/metrics');
    expect(metrics.status).toBe(403);
    expect(metrics.json()).toEqual({ error: '/metrics is not served to anonymous callers in production: set ADMIN_TOKEN (then send "Authorization: Bearer <token>") or ADMIN_PORT (a separate admin listener)' });
    expect(metrics.text).not.toMatch(/http_requests_total/);
  });

  it('/readyz is a bare 503 when Postgres is down: no driver message, host or port', async () => {
    const { app } = await unreachable('production');
    const ready = await get(app, '/readyz');
    expect([ready.status, ready.text]).toEqual([503, '{"status":"unavailable"}']);
    expect((await get(app, '/healthz')).text).toBe('{"status":"ok"}');
  });
});

describe('ADMIN_TOKEN', () => {
  it('shows /metrics and the details to the token only, in production and in development alike', async () => {
    for (const nodeEnv of ['production', 'development'] as const) {
      const { app } = await unreachable(nodeEnv, { ADMIN_TOKEN: TOKEN });
      for (const token of [undefined, 'wrong-token-wrong-token', `${TOKEN}x`]) {
        const metrics = await get(app, '/metrics', token);
        expect(metrics.status).toBe(401);
        expect(metrics.headers['www-authenticate']).toBe('Bearer realm="catalogue-admin"');
        expect(metrics.json()).toEqual({ error: '/metrics needs the admin token: send "Authorization: Bearer <ADMIN_TOKEN>"' });
        expect((await get(app, '/readyz', token)).text).toBe('{"status":"unavailable"}');
        expect((await get(app, '/healthz', token)).text).toBe('{"status":"ok"}');
      }
      const metrics = await get(app, '/metrics', TOKEN);
      expect(metrics.status).toBe(200);
      expect(new Scrape(metrics.text).types.get('http_requests_total')).toBe('counter');
      const ready = await get(app, '/readyz', TOKEN);
      expect(ready.status).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'unavailable', checks: { postgres: { ok: false, error: expect.stringMatching(/ECONNREFUSED/) } } });
      expect((await get(app, '/healthz', TOKEN)).json()).toMatchObject({ status: 'ok', pid: process.pid, cache: { store: 'off' } });
    }
  });
});

// Issue 45: 2,000 wrong admin tokens in 0.9 s all got 401, each compared.
describe('wrong admin tokens', () => {
  const remote = (address: string) => ({ remoteAddress: address });
  const inject = (app: FastifyInstance, url: string, address: string, token?: string) =>
    app.inject({ method: 'GET', url, ...remote(address), headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('are throttled per address: past ADMIN_AUTH_FAILURES_PER_MINUTE, 429 with Retry-After, the token not even compared; probes and other addresses unaffected', async () => {
    const { app } = await client({ nodeEnv: 'production', env: { ADMIN_TOKEN: TOKEN, ADMIN_AUTH_FAILURES_PER_MINUTE: '3' } });
    const attacker = '203.0.113.7';
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await inject(app, ['/metrics', '/healthz', '/readyz'][i % 3]!, attacker, `wrong-token-${i}-padding`)).statusCode);
    // /healthz and /readyz answer a wrong token with the summary (200); /metrics with 401; then the budget is spent.
    expect(statuses).toEqual([401, 200, 200, 429, 429, 429]);
    const refused = await inject(app, '/metrics', attacker, TOKEN);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('20');
    expect(refused.json()).toEqual({ error: `too many wrong admin tokens from ${attacker}: at most 3 a minute (ADMIN_AUTH_FAILURES_PER_MINUTE); retry in 20 s` });
    // Probes send no token: never throttled, from the same address either.
    expect([(await inject(app, '/healthz', attacker)).body, (await inject(app, '/readyz', attacker)).body]).toEqual(['{"status":"ok"}', '{"status":"ready"}']);
    expect((await inject(app, '/metrics', attacker)).statusCode).toBe(401);
    // Another address keeps its own budget, and the right token works there.
    expect((await inject(app, '/metrics', '198.51.100.2', TOKEN)).statusCode).toBe(200);
    expect((await inject(app, '/metrics', '198.51.100.2', 'wrong-token-from-elsewhere')).statusCode).toBe(401);
  });
});

describe('ADMIN_PORT', () => {
  it('serves the details on the admin listener only; the API port answers the summaries and a 404 for /metrics', async () => {
    const { app, server } = await client({ nodeEnv: 'production', env: { ADMIN_PORT: '0' } });
    expect((await get(app, '/readyz')).text).toBe('{"status":"ready"}');
    expect((await get(app, '/healthz')).text).toBe('{"status":"ok"}');
    const refused = await get(app, '/metrics');
    expect([refused.status, refused.json()]).toEqual([404, { error: '/metrics is served on the admin listener (ADMIN_PORT), not on this port' }]);

    const admin = server.admin!;
    expect(admin).toBeDefined();
    const metrics = await get(admin, '/metrics');
    expect(metrics.status).toBe(200);
    // The API's requests are counted; the admin listener's own are not.
    expect(new Scrape(metrics.text).sum('http_requests_total', { route: '/readyz' })).toBe(1);
    expect((await get(admin, '/readyz')).json()).toEqual({ status: 'ready', checks: { postgres: { ok: true, ms: expect.any(Number) } } });
    expect((await get(admin, '/healthz')).json()).toMatchObject({ status: 'ok', pid: process.pid });
    // Nothing else is served there.
    expect((await get(admin, '/products/1')).status).toBe(404);
    expect((await get(admin, '/graphql?query={__typename}')).status).toBe(404);
  });

  it('with ADMIN_TOKEN too, the admin listener needs the token as well', async () => {
    const { server } = await client({ nodeEnv: 'production', env: { ADMIN_PORT: '0', ADMIN_TOKEN: TOKEN } });
    expect((await get(server.admin!, '/metrics')).status).toBe(401);
    expect((await get(server.admin!, '/metrics', TOKEN)).status).toBe(200);
  });

  it('startServer listens on both (ADMIN_HOST, 127.0.0.1 by default) and closing the API closes the admin listener', async () => {
    const lines: string[] = [];
    const config = loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'production', CACHE: 'off', PORT: '0', HOST: '127.0.0.1', ADMIN_PORT: '0' });
    const app = await startServer(config, database.url, (line) => lines.push(line));
    try {
      const adminUrl = /admin endpoints \(\/healthz, \/readyz, \/metrics\) on (http:\/\/127\.0\.0\.1:\d+)/.exec(lines.join('\n'))?.[1];
      expect(adminUrl, lines.join('\n')).toBeDefined();
      const apiUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      expect((await fetch(`${apiUrl}/metrics`)).status).toBe(404);
      const metrics = await fetch(`${adminUrl}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^# HELP /);
      await app.close();
      await expect(fetch(`${adminUrl}/healthz`)).rejects.toThrow();
    } finally {
      await app.close();
    }
  });

  it('in a real process (npm start), with its own port', async () => {
    const adminPort = await freePort();
    const api = await startApiProcess({ DATABASE_URL: database.url, CACHE: 'off', ADMIN_PORT: String(adminPort), ADMIN_TOKEN: '' });
    try {
      expect((await fetch(`${api.url}/metrics`)).status).toBe(404);
      expect(await (await fetch(`${api.url}/readyz`)).json()).toEqual({ status: 'ready' });
      const metrics = await fetch(`http://127.0.0.1:${adminPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(new Scrape(await metrics.text()).sum('http_requests_total', { route: '/readyz' })).toBe(1);
      expect(await (await fetch(`http://127.0.0.1:${adminPort}/readyz`)).json()).toMatchObject({ status: 'ready', checks: { postgres: { ok: true } } });
    } finally {
      api.child.kill('SIGTERM');
      expect(await api.exited).toEqual({ code: 0, signal: null });
    }
  });
});

describe('development and test without admin settings', () => {
  it('show everything, as before', async () => {
    for (const nodeEnv of ['development', 'test'] as const) {
      const { app } = await client({ nodeEnv });
      expect((await get(app, '/metrics')).status).toBe(200);
      expect((await get(app, '/readyz')).json()).toMatchObject({ status: 'ready', checks: { postgres: { ok: true } } });
      expect((await get(app, '/healthz')).json()).toMatchObject({ status: 'ok', pid: process.pid });
    }
  });
});

describe('configuration', () => {
  const problems = configProblems;

  it('reads ADMIN_TOKEN, ADMIN_PORT, ADMIN_HOST and ADMIN_AUTH_FAILURES_PER_MINUTE', () => {
    expect(loadConfig({}).admin).toEqual({ token: undefined, port: undefined, host: '127.0.0.1', authFailuresPerMinute: 60 });
    expect(loadConfig({ ADMIN_TOKEN: TOKEN, ADMIN_PORT: '9100', ADMIN_HOST: '10.0.0.5', ADMIN_AUTH_FAILURES_PER_MINUTE: '5' }).admin)
      .toEqual({ token: TOKEN, port: 9100, host: '10.0.0.5', authFailuresPerMinute: 5 });
  });

  it('names each bad value, never echoing the token', () => {
    expect(problems({ ADMIN_TOKEN: 'short-secret' })).toEqual(['ADMIN_TOKEN must be at least 16 visible ASCII characters without spaces (got 12 characters)']);
    expect(problems({ ADMIN_TOKEN: 'a long secret with spaces' })).toEqual(['ADMIN_TOKEN must be at least 16 visible ASCII characters without spaces (got 25 characters, some of them not allowed)']);
    expect(problems({ ADMIN_PORT: 'metrics' })).toEqual(['ADMIN_PORT must be an integer from 0 to 65535 (got "metrics")']);
    expect(problems({ ADMIN_PORT: '4000' })).toEqual(['ADMIN_PORT must differ from PORT (both are 4000)']);
    expect(problems({ ADMIN_HOST: '0.0.0.0' })).toEqual(['ADMIN_HOST is set but ADMIN_PORT is not (the admin listener needs a port)']);
  });
});
