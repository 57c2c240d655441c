// The environment variables src/config.ts reads, found in its source: the
// documentation test and the Helm chart test both check names against them.
import fs from 'node:fs';
import path from 'node:path';

const CONFIG_SOURCE = fs.readFileSync(path.resolve(import.meta.dirname, '../../src/config.ts'), 'utf8');

/** Every variable read through the Reader (`read.integer('PORT', …)` and the like). */
export function configVariables(): Set<string> {
  return new Set([...CONFIG_SOURCE.matchAll(/read\.\w+\(\s*'([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1]!));
}

/**
 * The variables that hold secrets: read as secrets (`read.secret`), URLs of
 * Postgres or Redis (they carry passwords), and the legacy service's header
 * line and the OTLP export headers (they carry tokens; config.ts never echoes them).
 */
export function secretVariables(): Set<string> {
  const secrets = [...CONFIG_SOURCE.matchAll(/read\.secret\(\s*'([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1]!);
  const urls = [...CONFIG_SOURCE.matchAll(/read\.(?:optionalUrl|urlList)\(\s*'([A-Z][A-Z0-9_]+)',\s*\[([^\]]*)\]/g)]
    .filter((match) => /'(postgres|redis):'/.test(match[2]!))
    .map((match) => match[1]!);
  // OTLP export headers carry a collector's or vendor's token the same way.
  return new Set([...secrets, ...urls, 'LEGACY_SOURCE_HEADER', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']);
}
