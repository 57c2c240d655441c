// PostGraphile v5 serving the catalogue's base tables, for npm run
// bench:postgraphile (bench/postgraphile.ts): the amber preset with
// @graphile/simplify-inflection, as a new user would set it up, on node:http
// (grafserv's Node adaptor), GraphiQL and explain off. It is copied into the
// scratch folder PostGraphile is installed in (never the project's
// dependencies) and run from there, so its imports resolve to that folder.
//
//   DATABASE_URL  the catalogue (read only: nothing here writes or adds to it)
//   PORT, HOST    where it listens (default 127.0.0.1)
//   POOL_SIZE     the pg pool's connections (the API's DATABASE_POOL_SIZE, 10 by default)
import http from 'node:http';
import { postgraphile } from 'postgraphile';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PgSimplifyInflectionPreset } from '@graphile/simplify-inflection';

const port = Number(process.env.PORT ?? 5678);
const host = process.env.HOST ?? '127.0.0.1';

/** @type {GraphileConfig.Preset} */
const preset = {
  extends: [PostGraphileAmberPreset, PgSimplifyInflectionPreset],
  pgServices: [makePgService({ connectionString: process.env.DATABASE_URL, schemas: ['public'], poolConfig: { max: Number(process.env.POOL_SIZE ?? 10) } })],
  grafserv: { port, host, graphiql: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = http.createServer();
serv.addTo(server).then(() => {
  server.listen(port, host, () => console.log(`postgraphile ${process.pid} listening on http://${host}:${port}/graphql`));
}, (error) => {
  console.error(error);
  process.exit(1);
});
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => { server.close(); void pgl.release().finally(() => process.exit(0)); });
