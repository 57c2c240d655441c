// Which Postgres to use: DATABASE_URL when set, otherwise the embedded server.
import path from 'node:path';
import type { Config } from '../../config.ts';
import { startEmbeddedPostgres } from './embedded.ts';

export interface DatabaseHandle {
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

export async function openDatabase(config: Config, log: (message: string) => void): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    return { url: config.databaseUrl, embedded: false, close: async () => {} };
  }
  const embedded = await startEmbeddedPostgres({
    dir: path.join(config.dataDir, 'postgres'),
    port: config.embeddedPostgresPort,
    sharedBuffers: config.embeddedPostgresSharedBuffers,
    log,
  });
  return { url: embedded.url, embedded: true, close: () => embedded.stop() };
}
