// Behind a transaction-mode pooler the API cannot give its connections their
// timeouts: startup parameters are refused, and a SET would stay on a server
// connection every other client shares. The pooler's server connections take
// them from the role or the database (ALTER ROLE … SET, docs/scaling.md);
// at start-up the API reads what a connection through the pooler gets, and
// says what differs from its configuration.
import { queryOnce } from './query-once.ts';

export interface ExpectedTimeouts {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
}

/** What a fresh session through `url` has that differs from `expected`: one message each, empty when all match. */
export async function poolerTimeoutProblems(url: string, expected: ExpectedTimeouts): Promise<string[]> {
  // pg_settings gives both in milliseconds (their unit), 0 meaning none.
  const rows = await queryOnce<{ name: string; setting: string; role: string }>(url,
    `SELECT name, setting, current_user AS role FROM pg_settings WHERE name IN ('statement_timeout', 'lock_timeout') ORDER BY name DESC`);
  const wanted: Record<string, number> = { statement_timeout: expected.statementTimeoutMs, lock_timeout: expected.lockTimeoutMs };
  return rows.filter((row) => Number(row.setting) !== wanted[row.name]).map((row) =>
    `behind the transaction pooler, connections have ${row.name} = ${row.setting} ms, not the configured ${wanted[row.name]} ms`
    + ` (the API cannot set it per connection there): ALTER ROLE ${row.role} SET ${row.name} = ${wanted[row.name]};`);
}
