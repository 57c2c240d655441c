// Builds and starts the HTTP server.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.ts';

export async function buildServer(_config: Config, _databaseUrl: string): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok' }));
  return app;
}

export async function startServer(config: Config, databaseUrl: string, log: (message: string) => void): Promise<FastifyInstance> {
  const app = await buildServer(config, databaseUrl);
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log(`listening on http://localhost:${port}`);
  return app;
}
