// npm run db:migrate — applies pending migrations to DATABASE_DIRECT_URL, else DATABASE_URL (or the embedded server).
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/server/open-database.ts';
import { sessionDatabaseUrl } from '../db/server/session-url.ts';
import { migrate } from '../db/server/migrate.ts';
import { runCommand } from './run.ts';

runCommand(async () => {
  const config = loadConfig();
  const database = await openDatabase(config, console.log);
  try {
    const applied = await migrate(sessionDatabaseUrl(config, database.url), console.log);
    console.log(applied.length === 0 ? 'database is up to date' : `applied ${applied.length} migration(s)`);
  } finally {
    await database.close();
  }
});
