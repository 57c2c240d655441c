// Ids arrive as GraphQL IDs (strings); the catalogue uses positive integers.
import { badInput } from './errors.ts';
import { POSTGRES_INT_MAX } from '../db/integers.ts';

export function parseId(value: string, argument = 'id'): number {
  if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > POSTGRES_INT_MAX) {
    throw badInput(`${argument} must be a positive integer id (got ${JSON.stringify(value)})`, argument);
  }
  return Number(value);
}

/** Opaque cursors: base64url of "product:<id>". */
export function encodeCursor(id: number): string {
  return Buffer.from(`product:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const match = /^product:([1-9]\d{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || Number(match[1]) > POSTGRES_INT_MAX) throw badInput('after is not a cursor returned by this API', 'after');
  return Number(match[1]);
}
