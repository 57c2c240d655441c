// npm run keys, run for real as a child process: create prints the secret
// once (stdout, alone) and stores only its sha256; list never shows secrets;
// revoke works by prefix or id; mistakes end with one `error:` line.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryOnce as query } from '../../src/db/pool/query-once.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = path.join(ROOT, 'node_modules/.bin/node');

interface Result { code: number | null; stdout: string; stderr: string }

function keys(args: string[], databaseUrl: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['src/commands/keys.ts', ...args], {
      cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl, RATE_LIMIT_KEY_PER_MINUTE: '6000', API_KEY_CACHE_SECONDS: '5' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Exit 1, one `error: ...` line matching `message`, no stack trace. */
function expectFailure(result: Result, message: RegExp): void {
  const output = JSON.stringify(result);
  expect(result.code, output).toBe(1);
  const errors = result.stderr.split('\n').filter((line) => line.startsWith('error:'));
  expect(errors, output).toHaveLength(1);
  expect(errors[0], output).toMatch(message);
  expect(result.stderr, output).not.toMatch(/\n\s+at /);
}

/** Every api_keys row as text, every column included. */
const allKeyText = async (url: string) => (await query<{ row: string }>(url, 'SELECT row_to_json(k)::text AS row FROM api_keys k')).map((r) => r.row).join('\n');

describe('npm run keys', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  let secret: string;
  let prefix: string;

  it('create prints the secret once, alone on stdout, and stores only its sha256', async () => {
    const result = await keys(['create', '--name', 'storefront'], database.url);
    expect(result.code, result.stderr).toBe(0);
    secret = result.stdout.trim();
    expect(result.stdout).toBe(`${secret}\n`);
    expect(secret).toMatch(/^cat_[A-Za-z0-9_-]{43}$/);
    prefix = secret.slice(0, 12);
    expect(result.stderr).toContain(`created API key 1 "storefront" (prefix ${prefix}, rate limit the default, 6000 per minute (RATE_LIMIT_KEY_PER_MINUTE))`);
    expect(result.stderr).toContain('shown only this once');
    expect(result.stderr).not.toContain(secret);

    const [row] = await query<{ key_hash: string; prefix: string; name: string; rate_per_minute: number | null }>(database.url, 'SELECT key_hash, prefix, name, rate_per_minute FROM api_keys');
    expect(row).toEqual({ key_hash: crypto.createHash('sha256').update(secret).digest('hex'), prefix, name: 'storefront', rate_per_minute: null });
    // Nowhere in the table: neither the secret nor its random part.
    const stored = await allKeyText(database.url);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(12));
  });

  it('create --rate stores the key\'s own limit; two keys never share a secret', async () => {
    const result = await keys(['create', '--name', 'partner feed', '--rate', '120'], database.url);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('"partner feed"');
    expect(result.stderr).toContain('rate limit 120 per minute');
    expect(result.stdout.trim()).not.toBe(secret);
    expect(await allKeyText(database.url)).not.toContain(result.stdout.trim());
  });

  it('list prints a table of prefixes, names, rates and dates, never a secret', async () => {
    const result = await keys(['list'], database.url);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+prefix\s+name\s+rate\/min\s+created\s+revoked$/);
    expect(lines[1]).toMatch(new RegExp(`^1\\s+${prefix}\\s+storefront\\s+6000 \\(default\\)\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\s+-$`));
    expect(lines[2]).toMatch(/^2\s+cat_\S{8}\s+partner feed\s+120\s+\d{4}-.* UTC\s+-$/);
    expect(lines).toHaveLength(3);
    expect(result.stdout).not.toContain(secret);
  });

  it('revoke by prefix marks the key revoked; list shows when', async () => {
    const result = await keys(['revoke', prefix], database.url);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^revoked API key 1 "storefront" \\(${prefix}\\) at \\d{4}-.* UTC; running servers refuse it within 5 s \\(API_KEY_CACHE_SECONDS\\)\\n$`));
    const [row] = await query<{ revoked_at: Date | null }>(database.url, 'SELECT revoked_at FROM api_keys WHERE id = 1');
    expect(row?.revoked_at).toBeInstanceOf(Date);
    expect((await keys(['list'], database.url)).stdout.split('\n')[1]).toMatch(/UTC\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  });

  it('revoke by id works too; revoking twice or an unknown key is a clear error', async () => {
    expect((await keys(['revoke', '2'], database.url)).code).toBe(0);
    expectFailure(await keys(['revoke', '2'], database.url), /^error: API key 2 "partner feed" \(cat_\S{8}\) was already revoked at /);
    expectFailure(await keys(['revoke', 'cat_nothere'], database.url), /^error: no API key has the id or prefix "cat_nothere"/);
  });

  it.each([
    [['create'], /^error: create needs --name <name>/],
    [['create', '--name', 'x', '--rate', '0'], /^error: --rate must be an integer from 1 to /],
    [['create', '--name', 'x', '--rate', 'lots'], /^error: --rate must be an integer/],
    [['revoke'], /^error: revoke needs the key's prefix or id/],
    [['rotate'], /^error: unknown action "rotate"/],
    [[], /^error: usage: npm run keys -- create/],
    [['list', 'extra'], /^error: unexpected argument "extra"/],
  ])('refuses %j with one error line', async (args, message) => {
    expectFailure(await keys(args, database.url), message);
  });

  it('tells to migrate first on a database without the api_keys table', async () => {
    const bare = await createTestDatabase({ migrated: false });
    try {
      expectFailure(await keys(['list'], bare.url), /^error: the database has no api_keys table yet: run npm run db:migrate first$/);
    } finally {
      await bare.drop();
    }
  });
});
