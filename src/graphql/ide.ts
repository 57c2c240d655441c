// Placeholder until the local GraphiQL page lands.
import type { FastifyInstance } from 'fastify';

export function registerIde(app: FastifyInstance): void {
  app.get('/graphql/ide', async (_request, reply) => reply.type('text/html').send('<!doctype html><title>GraphiQL</title><p>IDE coming</p>'));
}
