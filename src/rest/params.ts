// Legacy parameters: positive integers, anything else is a 400 that says why.
import { POSTGRES_INT_MAX } from '../db/integers.ts';

export class BadRequest extends Error {}


export function positiveInt(raw: unknown, name: string, options: { fallback?: number; max?: number } = {}): number {
  if (raw === undefined && options.fallback !== undefined) return options.fallback;
  if (Array.isArray(raw)) throw new BadRequest(`${name} must be given once`);
  if (typeof raw !== 'string' || !/^[1-9]\d*$/.test(raw) || Number(raw) > POSTGRES_INT_MAX) {
    throw new BadRequest(`${name} must be a positive integer (got ${JSON.stringify(raw ?? null)})`);
  }
  const value = Number(raw);
  if (options.max !== undefined && value > options.max) throw new BadRequest(`${name} must be at most ${options.max} (got ${value})`);
  return value;
}
