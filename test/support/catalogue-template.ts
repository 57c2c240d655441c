// The default test catalogue, loaded once per test run: global-setup
// generates it (TEST_SCALE, TEST_SEED) and loads it by the real loader into a
// template database; a test file asking for the default catalogue gets a copy
// (CREATE DATABASE … TEMPLATE), byte for byte what its own load would give, in
// a tenth of a second against about two seconds for generating and loading it.
// Files that test the loader itself, or want another scale or seed, still load.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateCatalogue, type Manifest } from '../../src/etl/generate/generate.ts';
import { loadCatalogue } from '../../src/etl/load/load.ts';
import { migrate } from '../../src/db/server/migrate.ts';
import { withAdmin, withDatabase } from './admin-db.ts';

/** The scale and seed every GraphQL test file uses: about 500 products. */
export const TEST_SCALE = 0.0005;
export const TEST_SEED = 1;

export interface CatalogueTemplate {
  /** The template database's name, on the run's server. */
  database: string;
  manifest: Manifest;
}

/** Builds the template on `serverUrl`; `drop` removes it at the run's end. */
export async function buildCatalogueTemplate(serverUrl: string): Promise<CatalogueTemplate & { drop(): Promise<void> }> {
  const database = `test_template_${crypto.randomBytes(6).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-template-'));
  const drop = () => withAdmin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).then(() => {});
  try {
    const manifest = await generateCatalogue({ scale: TEST_SCALE, seed: TEST_SEED, out: dir, quiet: true });
    await withAdmin(serverUrl, (client) => client.query(`CREATE DATABASE ${database}`));
    await migrate(withDatabase(serverUrl, database));
    await loadCatalogue({ databaseUrl: withDatabase(serverUrl, database), dir, replace: false });
    // A copy fails while anyone is connected to its source: from here on no one can be.
    await withAdmin(serverUrl, (client) => client.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`));
    return { database, manifest, drop };
  } catch (error) {
    await drop().catch(() => {});
    throw error;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
