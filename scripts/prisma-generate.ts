// Generates the Prisma client into src/generated/prisma (run by `npm install`).
// The Prisma CLI insists on locating its schema-engine binary even for `generate`,
// which never runs it; on an offline machine the download fails, so point it at
// an executable that exists (this Node binary) unless the caller set a real one.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
