// npm run data:load -- --dir <dir> [--replace]
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config.ts';
import { UsageError, runCommand } from '../../commands/run.ts';
import { openDatabase } from '../../db/server/open-database.ts';
import { loadCatalogue } from './load.ts';
import { formatSummary } from './summary.ts';

const USAGE = 'usage: npm run data:load -- --dir <directory with the six legacy CSV files> [--replace] [--summary-json <file>]';

runCommand(async () => {
  let values;
  try {
    ({ values } = parseArgs({ options: { dir: { type: 'string' }, replace: { type: 'boolean', default: false }, 'summary-json': { type: 'string' } } }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  if (!values.dir) throw new UsageError(`--dir is required\n${USAGE}`);
  const config = loadConfig();
  const database = await openDatabase(config, console.log);
  try {
    const summary = await loadCatalogue({ databaseUrl: database.url, dir: values.dir, replace: values.replace, log: console.log, progress: true });
    console.log(formatSummary(summary));
    if (values['summary-json']) fs.writeFileSync(values['summary-json'], `${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await database.close();
  }
});
