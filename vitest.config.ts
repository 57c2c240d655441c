import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // graphql ships a CommonJS and an ES build; Node gives every importer the
  // CommonJS one, Vite would give our files the ES one, and two copies of
  // graphql cannot share a schema. Resolve it the way Node does.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Each file's own temporary folder, checked empty after it: test/support/temp-check.ts.
    setupFiles: ['test/support/temp-check.ts'],
    // After-hooks in reverse order (vitest's default, stated): the temporary folder's check runs last.
    sequence: { hooks: 'stack' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: one test file at a time per core, each on its own database.
    maxWorkers: 2,
  },
});
