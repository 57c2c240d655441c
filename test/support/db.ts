// A fresh, migrated database per test file, on the server from global-setup.
import crypto from 'node:crypto';
import { inject } from 'vitest';
import { migrate } from '../../src/db/server/migrate.ts';
import { withAdmin, withDatabase } from './admin-db.ts';

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
  await withAdmin(serverUrl, (admin) => admin.query(options.template ? `CREATE DATABASE ${name} TEMPLATE ${options.template}` : `CREATE DATABASE ${name}`));
  const url = withDatabase(serverUrl, name);
  if (options.migrated !== false && !options.template) await migrate(url);
  return {
    url,
    drop: () => withAdmin(serverUrl, async (admin) => {
      // A pool's end() resolves before its clients' sockets close: a backend terminated by FORCE
      // while its client is ending sends that client a FATAL it has no listener for (an uncaught
      // error in the test file). Those close within milliseconds; FORCE is for what is left after.
      for (const until = Date.now() + 5_000; Date.now() < until;) {
        const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (rows[0]!.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }),
  };
}
