// Ids arrive as GraphQL IDs (strings); the catalogue uses positive integers.
import { badInput } from './errors.ts';
import { POSTGRES_INT_MAX } from '../db/integers.ts';

export function parseId(value: string, argument = 'id'): number {
  if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > POSTGRES_INT_MAX) {
    throw badInput(`${argument} must be a positive integer id (got ${JSON.stringify(value)})`, argument);
  }
  return Number(value);
}
