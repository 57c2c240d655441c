// Ids arrive as GraphQL IDs (strings); the catalogue uses positive integers.
import { badInput } from './errors.ts';

const MAX_ID = 2_147_483_647;

export function parseId(value: string, argument = 'id'): number {
  if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > MAX_ID) {
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
  if (!match || Number(match[1]) > MAX_ID) throw badInput('after is not a cursor returned by this API', 'after');
  return Number(match[1]);
}
