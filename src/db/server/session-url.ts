// Where to open a session of one's own on the primary, for what a
// transaction-mode pooler cannot carry: migrations' advisory lock, the change
// feed's LISTEN, sidecar mode's sync lock. (Its own file: open-database.ts
// imports the embedded server, which the server must not.)
import type { Config } from '../../config.ts';

/** DATABASE_DIRECT_URL when set (the API's connections go through a pooler), else the database itself. */
export function sessionDatabaseUrl(config: Config, databaseUrl: string): string {
  return config.databaseDirectUrl ?? databaseUrl;
}
