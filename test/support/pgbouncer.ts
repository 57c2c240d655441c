// PgBouncer for tests (bench/lib/pgbouncer.ts starts it). Tests that need it
// never skip in CI: there, a missing binary is a failure.
import { spawnSync } from 'node:child_process';
import { PGBOUNCER } from '../../bench/lib/pgbouncer.ts';

export { type PgBouncer, startPgBouncer } from '../../bench/lib/pgbouncer.ts';

export function pgbouncerAvailable(): boolean {
  const found = spawnSync(PGBOUNCER, ['--version']).status === 0;
  if (!found && process.env.CI) throw new Error('pgbouncer is not installed; .ci/run must install it (tests that need PgBouncer never skip in CI)');
  return found;
}
