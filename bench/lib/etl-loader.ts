// How the ETL benchmark starts the loader: exactly as `npm run data:load`
// does, environment and node flags included, read from package.json so the
// two cannot drift (a moved loader fails test/bench/etl-loader.test.ts, not
// a benchmark run).
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ASSIGNMENT = /^([A-Z_][A-Z0-9_]*)=(.*)$/;

function dataLoadScript(): { env: Record<string, string>; words: string[] } {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const all = (pkg.scripts['data:load'] ?? '').split(/\s+/).filter(Boolean);
  const env: Record<string, string> = {};
  let first = 0;
  for (let match = ASSIGNMENT.exec(all[first] ?? ''); match; match = ASSIGNMENT.exec(all[++first] ?? '')) env[match[1]!] = match[2]!;
  const words = all.slice(first);
  if (words[0] !== 'node') throw new Error(`package.json's data:load script does not start with node (after its environment): ${all.join(' ')}`);
  return { env, words: words.slice(1) };
}

/** The loader's entry point, absolute. */
export const LOADER_SCRIPT = path.join(ROOT, dataLoadScript().words.find((w) => !w.startsWith('-')) ?? '');

/** The node flags `npm run data:load` passes (the heap caps). */
export function loaderArguments(): string[] {
  return dataLoadScript().words.filter((w) => w.startsWith('-'));
}

/** The environment `npm run data:load` sets before node (MALLOC_ARENA_MAX). */
export function loaderEnvironment(): Record<string, string> {
  return dataLoadScript().env;
}
