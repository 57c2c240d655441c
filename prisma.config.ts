// Prisma CLI configuration. The app never reads this file: src/config.ts owns the
// environment. DATABASE_URL is only needed here for CLI commands that connect
// (e.g. `prisma migrate deploy` on a machine that has the schema engine).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost/catalogue' },
});
