// bench:etl starts the loader the way `npm run data:load` does; a loader moved
// without its benchmark following (as once happened) fails here, not mid-benchmark.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LOADER_SCRIPT, loaderArguments, loaderEnvironment } from '../../bench/lib/etl-loader.ts';

describe('the ETL benchmark\'s loader', () => {
  it('is a file that exists, started with the heap caps of npm run data:load', () => {
    expect(fs.statSync(LOADER_SCRIPT).isFile(), LOADER_SCRIPT).toBe(true);
    expect(LOADER_SCRIPT).toMatch(/src\/etl\/load\/cli\.ts$/);
    expect(loaderArguments().some((a) => a.startsWith('--max-old-space-size='))).toBe(true);
  });

  it('is started with the environment npm run data:load sets (two malloc arenas)', () => {
    expect(loaderEnvironment()).toEqual({ MALLOC_ARENA_MAX: '2' });
  });
});
