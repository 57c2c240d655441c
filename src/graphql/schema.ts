// The SDL in schema/*.graphql is the source of truth; this reads it.
import fs from 'node:fs';
import path from 'node:path';

export const SCHEMA_DIR = path.resolve(import.meta.dirname, '../../schema');

export function readTypeDefs(dir = SCHEMA_DIR): string {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.graphql')).sort()
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
}
