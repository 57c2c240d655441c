// A fresh, migrated database per test file, on the server from global-setup.
import crypto from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate } from '../../src/db/server/migrate.ts';
import { withDatabase } from './catalogue-template.ts';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * On the shared test server, unless `serverUrl` names another (a test's own,
 * e.g. one it stops); a copy of the `template` database if given (then not migrated again).
 */
export async function createTestDatabase(options: { migrated?: boolean; serverUrl?: string; template?: string } = {}): Promise<TestDatabase> {
  const serverUrl = options.serverUrl ?? inject('serverUrl');
  const name = `test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  await admin.query(options.template ? `CREATE DATABASE ${name} TEMPLATE ${options.template}` : `CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDatabase(serverUrl, name);
  if (options.migrated !== false && !options.template) await migrate(url);
  return {
    url,
    async drop() {
      const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
