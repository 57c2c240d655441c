// npm start: configuration, database (embedded or DATABASE_URL), migrations,
// sample data on an empty embedded database, then the HTTP server.
import { loadConfig } from './config.ts';
import { runCommand } from './commands/run.ts';
import { openDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { catalogueIsEmpty, loadSampleCatalogue } from './db/sample.ts';
import { startServer } from './server.ts';

const log = (message: string) => console.log(message);

runCommand(async () => {
  const config = loadConfig();
  const database = await openDatabase(config, log);
  await migrate(database.url, log);
  if (database.embedded && (await catalogueIsEmpty(database.url))) {
    await loadSampleCatalogue(config, database.url, log);
  }
  const server = await startServer(config, database.url, log);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log(`${signal} received, shutting down`);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  await database.close();
});
