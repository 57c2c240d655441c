// How the ETL benchmark starts the loader: exactly as `npm run data:load`
// does, node flags included, read from package.json so the two cannot drift
// (a moved loader fails test/bench/etl-loader.test.ts, not a benchmark run).
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

function dataLoadScript(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = (pkg.scripts['data:load'] ?? '').split(/\s+/).filter(Boolean);
  if (words[0] !== 'node') throw new Error(`package.json's data:load script does not start with node: ${words.join(' ')}`);
  return words.slice(1);
}

/** The loader's entry point, absolute. */
export const LOADER_SCRIPT = path.join(ROOT, dataLoadScript().find((w) => !w.startsWith('-')) ?? '');

/** The node flags `npm run data:load` passes (the heap caps). */
export function loaderArguments(): string[] {
  return dataLoadScript().filter((w) => w.startsWith('-'));
}
