// No log line keeps an API key (issue 32: under `accessToken`, `auth`,
// `authorization=Bearer…`, `api_key[]`, `q` and other query parameters the
// whole key was logged, and a key sent as x-request-id was logged as the
// request id). A real server process at LOG_LEVEL=debug gets a freshly minted
// key under 200 random parameter names (random characters and case, and the
// names the hostile run used), plain, after "Bearer ", percent-encoded once and
// twice, in path segments, in headers that end up in error lines, and as
// x-request-id; what it printed must not hold the key in any form, while every
// request's completion line is there (with the redaction mark).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { loggerOptions } from '../../src/observability/logging.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { CapturedLog } from '../support/captured-log.ts';
import { createTestApiKey, useTestCatalogue } from '../support/catalogue-app.ts';
import { rawGet, rawRequest } from '../support/raw-http.ts';

const NAMES_FROM_THE_ISSUE = ['accessToken', 'access-token', 'auth', 'authorization', 'bearer', 'password', 'secret', 'x_api_key', 'api_key[]', 'q', 'apiKey', 'X-API-KEY', 'key[0]'];
const RANDOM_NAMES = 200;
const NAME_CHARACTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.[]';

function randomName(): string {
  const length = 1 + crypto.randomInt(24);
  return Array.from({ length }, () => NAME_CHARACTERS[crypto.randomInt(NAME_CHARACTERS.length)]).join('');
}

/** Every byte as %XX: what a client that encodes everything sends. */
function encodeEvery(text: string): string {
  return [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** The ways a value carries the key into a query string. */
function carried(key: string, i: number): string {
  switch (i % 6) {
    case 0: return key;
    case 1: return `Bearer%20${key}`;
    case 2: return `Bearer+${key}`;
    case 3: return encodeEvery(key);
    case 4: return encodeURIComponent(encodeEvery(key)); // encoded twice
    default: return `prefix-${key}-suffix`;
  }
}

const catalogue = useTestCatalogue({ scale: 0.0001 });

describe('API keys in what a request sends are never logged', () => {
  let server: ApiProcess;
  let key: string;
  /** The x-request-id of every request whose completion line must be found, with its URL's expectations. */
  const sent: { id: string; path: string }[] = [];

  beforeAll(async () => {
    key = await createTestApiKey(catalogue.db.url, { name: 'leaky client' });
    server = await startApiProcess({ DATABASE_URL: catalogue.db.url, LOG_LEVEL: 'debug' });
  });
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  /** What the process printed since `from` (an offset in its output): it must hold no form of the key. */
  function expectNoKey(from: number): void {
    const output = server.output().slice(from);
    for (const form of [key, encodeEvery(key), encodeURIComponent(encodeEvery(key)), key.slice(4)]) {
      expect(output.includes(form), `the log holds ${form === key ? 'the key' : `a form of the key (${form.slice(0, 20)}…)`}`).toBe(false);
    }
  }

  function linesOf(id: string): Record<string, unknown>[] {
    return server.stdout().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.reqId === id);
  }

  it(`under ${RANDOM_NAMES} random parameter names and the issue's, any case, any encoding, REST and GraphQL`, async () => {
    const from = server.output().length;
    const names = [...NAMES_FROM_THE_ISSUE, ...NAMES_FROM_THE_ISSUE.map((name) => name.toUpperCase()), ...Array.from({ length: RANDOM_NAMES }, randomName)];
    let i = 0;
    for (const name of names) {
      const id = `redact-${i}`;
      const value = carried(key, i);
      const base = ['/products/1', '/products/2/styles', '/graphql?query=%7B__typename%7D', '/products?count=2'][i % 4]!;
      const path = `${base}${base.includes('?') ? '&' : '?'}${i % 3 === 0 ? `page=1&${name}=${value}` : `${name}=${value}&page=1`}`;
      const response = await rawRequest(server.url, { method: 'GET', target: path, headers: [['Host', '127.0.0.1'], ['x-request-id', id], ['accept', 'application/json']] });
      expect(response.status, `${path}: ${response.body.toString()}`).toBeLessThan(500);
      sent.push({ id, path });
      i++;
    }
    // Parameter names and path segments that are keys themselves, and a key in a GraphQL GET's variables.
    const odd = [
      `/products/1?${key}=1`, `/products/1?${key}`, `/products/${key}`, `/products/${key}/styles`, `/${key}`, `/products/1/${encodeEvery(key)}`,
      `/graphql?query=${encodeURIComponent('query($id: ID!) { product(id: $id) { name } }')}&variables=${encodeURIComponent(JSON.stringify({ id: key }))}`,
      `/graphql?query=${encodeURIComponent(`{ product(id: "${key}") { name } }`)}`,
    ];
    for (const path of odd) {
      const id = `redact-${i++}`;
      const response = await rawRequest(server.url, { method: 'GET', target: path, headers: [['Host', '127.0.0.1'], ['x-request-id', id], ['accept', 'application/json']] });
      expect(response.status, path).toBeLessThan(500);
      sent.push({ id, path });
    }
    await expect.poll(() => sent.filter(({ id }) => linesOf(id).some((line) => line.msg === 'request completed')).length, { timeout: 10_000 }).toBe(sent.length);
    expectNoKey(from);
    for (const { id, path } of sent) {
      const completion = linesOf(id).find((line) => line.msg === 'request completed')!;
      expect(completion.url, path).toContain('[REDACTED]');
    }
  });

  it('in headers that reach the log: a content type, a malformed key, a bad URL', async () => {
    const from = server.output().length;
    const cases: { name: string; send: () => Promise<unknown> }[] = [
      // Fastify's 415 quotes the content type in the error it logs.
      { name: 'content-type', send: () => fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': `application/${key}`, 'x-request-id': 'redact-header-1' }, body: '{}' }) },
      { name: 'authorization (key and junk)', send: () => fetch(`${server.url}/products/1`, { headers: { authorization: `Bearer ${key}x`, 'x-request-id': 'redact-header-2' } }) },
      { name: 'x-api-key (key and junk)', send: () => fetch(`${server.url}/graphql?query=%7B__typename%7D`, { headers: { 'x-api-key': `${key}=`, 'x-request-id': 'redact-header-3' } }) },
      { name: 'a URL the router cannot decode', send: () => rawGet(server.url, `/products/%E0%A4%A/${key}?x=%zz${key}`) },
      { name: 'host', send: () => rawRequest(server.url, { method: 'GET', target: '/products/1', headers: [['Host', `${key}.example`], ['x-request-id', 'redact-header-5']] }) },
    ];
    for (const { send } of cases) await send();
    await expect.poll(() => linesOf('redact-header-5').length, { timeout: 10_000 }).toBeGreaterThan(0);
    expectNoKey(from);
  });

  it('as x-request-id: refused as the request id (a fresh UUID is logged and echoed instead)', async () => {
    const from = server.output().length;
    for (const header of [key, `trace-${key}`, `${key}.1`]) {
      const response = await fetch(`${server.url}/products/1`, { headers: { 'x-request-id': header } });
      expect(response.status).toBe(200);
      const id = response.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      await expect.poll(() => linesOf(id).length, { timeout: 10_000 }).toBeGreaterThan(0);
    }
    // An id one character short of a key's shape is still the caller's.
    const short = `cat_${'a'.repeat(42)}`;
    const kept = await fetch(`${server.url}/products/1`, { headers: { 'x-request-id': short } });
    expect(kept.headers.get('x-request-id')).toBe(short);
    expectNoKey(from);
  });
});

describe('the server\'s logger', () => {
  // The API logs no request header today; any line that ever does (a header
  // echoed, Fastify's `req`, an error quoting its input) is redacted as it is
  // written. A route on the server's logger options that logs all of them.
  it('writes no key whatever a line holds: the headers, the request, an error quoting a header', async () => {
    const key = `cat_${crypto.randomBytes(32).toString('base64url')}`;
    const log = new CapturedLog();
    const app = Fastify({ ...loggerOptions('debug', log), requestIdHeader: 'x-request-id' });
    app.get('/echo', async (request) => {
      request.log.warn({ headers: request.headers, req: request }, `headers of ${request.url}`);
      throw new Error(`refused the header ${String(request.headers['x-token'])}`);
    });
    try {
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      const response = await fetch(`${url}/echo`, { headers: { 'x-token': key, authorization: `Bearer ${key}`, 'x-request-id': 'echo-1' } });
      expect(response.status).toBe(500);
      await expect.poll(() => log.of('echo-1').length).toBe(3);
      const mine = log.of('echo-1');
      // Fastify's error handler logs the error (its message as the line's), then the completion line.
      expect(mine.map((line) => line.msg)).toEqual(['headers of /echo', `refused the header ${key.slice(0, 12)}[REDACTED]`, 'request completed']);
      const written = JSON.stringify(log.lines);
      expect(written).not.toContain(key);
      expect(written).not.toContain(key.slice(4));
      // What is left names the key by its display prefix.
      expect((mine[0]!.headers as Record<string, string>)['x-token']).toBe(`${key.slice(0, 12)}[REDACTED]`);
      expect((mine[1]!.err as { message: string }).message).toBe(`refused the header ${key.slice(0, 12)}[REDACTED]`);
    } finally {
      await app.close();
    }
  });
});

// Issue 45: a key garbled or split so that no piece of the URL holds it whole
// (`?x=cat_%25` + 43 characters, a `%0A` inside it, half in each of two
// parameters) was logged whole or in two halves. Now the URL is cut at it.
describe('a key garbled or split in the URL', () => {
  it('is not logged, whole or in pieces: the URL is redacted from where it starts', async () => {
    const key = `cat_${crypto.randomBytes(32).toString('base64url')}`;
    const body = key.slice(4);
    const targets = [
      `/products/1?x=cat_%25${body}`,
      `/products/1?x=cat_%2525${body}&page=2`,
      `/products/1?x=${key.slice(0, 20)}%0A${key.slice(20)}&page=2`,
      `/products/1?x=${key.slice(0, 20)}%250A${key.slice(20)}`,
      `/products/1?a=${key.slice(0, 24)}&b=${key.slice(24)}`,
      `/products/1?a=${key.slice(0, 15)}&b=${key.slice(15, 30)}&c=${key.slice(30)}`,
      `/products/1?x=%2563at_${body}`,
      `/products/1?x=c%0Aat_${body}`,
      `/products/${key.slice(0, 25)}%0A${key.slice(25)}`,
    ];
    const log = new CapturedLog();
    const app = Fastify({ ...loggerOptions('info', log), requestIdHeader: 'x-request-id' });
    app.get('/products/:id', async () => ({ ok: true }));
    try {
      for (const [i, url] of targets.entries()) {
        const response = await app.inject({ method: 'GET', url, headers: { 'x-request-id': `garbled-${i}` } });
        expect(response.statusCode, url).toBe(200);
      }
      const written = JSON.stringify(log.lines);
      // No run of 12 of the key's characters (its display prefix shows 8) is anywhere in the log.
      for (let at = 0; at + 12 <= body.length; at++) expect(written, `${body.slice(at, at + 12)} (at ${at})`).not.toContain(body.slice(at, at + 12));
      for (const [i, url] of targets.entries()) {
        const [completion] = log.of(`garbled-${i}`);
        expect(completion?.msg, url).toBe('request completed');
        expect(completion?.url, url).toMatch(/^\/products\/(1\?[a-z]=)?\[REDACTED\]$/);
      }
      // A URL holding nothing key-shaped is logged as it was.
      await app.inject({ method: 'GET', url: '/products/1?q=cat_food&page=2&x=%0A', headers: { 'x-request-id': 'plain' } });
      expect(log.of('plain')[0]?.url).toBe('/products/1?q=cat_food&page=2&x=%0A');
    } finally {
      await app.close();
    }
  });
});
