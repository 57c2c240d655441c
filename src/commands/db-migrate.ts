// npm run db:migrate — applies pending migrations to DATABASE_URL (or the embedded server).
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/server/open-database.ts';
import { migrate } from '../db/server/migrate.ts';
import { runCommand } from './run.ts';

runCommand(async () => {
  const config = loadConfig();
  const database = await openDatabase(config, console.log);
  try {
    const applied = await migrate(database.url, console.log);
    console.log(applied.length === 0 ? 'database is up to date' : `applied ${applied.length} migration(s)`);
  } finally {
    await database.close();
  }
});
