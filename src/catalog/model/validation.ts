// Validation of product writes, shared by GraphQL mutations and REST routes.
// Every problem names the field, so clients can act on it.
import { parseMoney } from './money.ts';

export class ValidationError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'ValidationError';
    this.field = field;
  }
}

export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/**
 * A product version as `version` gives it: products.version, a bigint from a
 * sequence, as decimal text. What cannot be one is the client's mistake (400),
 * not a conflict with the stored product.
 */
const VERSION = /^[1-9][0-9]*$/;

/** A version a client sent back (GraphQL expectedVersion), checked for its form. */
export function parseVersion(value: string, field: string): string {
  if (!VERSION.test(value)) throw new ValidationError(field, `must be a product's \`version\` as read (decimal digits, e.g. "1000342"), got ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`);
  return value;
}

export interface FeatureWrite { feature: string; value: string | null }
export interface ProductWrite {
  name?: string;
  slogan?: string;
  description?: string;
  category?: string;
  defaultPrice?: string;
  features?: FeatureWrite[];
}

const LIMITS = { name: 255, slogan: 1000, description: 10_000, category: 255 } as const;

/** Length in characters (code points), as Postgres and JSON Schema count: an emoji is one, not two UTF-16 units. */
function characters(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}
const MAX_FEATURES = 100;

function text(input: Record<string, unknown>, field: keyof typeof LIMITS, required: boolean, label: string = field): string | undefined {
  const value = input[field];
  if (value === undefined || (value === null && !required)) {
    if (required) throw new ValidationError(label, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') throw new ValidationError(label, 'must be a string');
  const trimmed = value.trim();
  if ((field === 'name' || field === 'category') && trimmed.length === 0) throw new ValidationError(label, 'must not be empty');
  if (characters(trimmed) > LIMITS[field]) throw new ValidationError(label, `must be at most ${LIMITS[field]} characters`);
  if (trimmed.includes('\u0000')) throw new ValidationError(label, 'must not contain NUL characters');
  return trimmed;
}

function features(value: unknown, label: string): FeatureWrite[] {
  if (!Array.isArray(value)) throw new ValidationError(label, 'must be a list of {feature, value}');
  if (value.length > MAX_FEATURES) throw new ValidationError(label, `must have at most ${MAX_FEATURES} entries`);
  return value.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null) throw new ValidationError(`${label}[${i}]`, 'must be an object {feature, value}');
    const { feature, value: featureValue } = entry as Record<string, unknown>;
    if (typeof feature !== 'string' || feature.trim().length === 0 || characters(feature) > 255 || feature.includes('\u0000')) {
      throw new ValidationError(`${label}[${i}].feature`, 'must be a non-empty string of at most 255 characters, without NUL characters');
    }
    if (featureValue !== null && featureValue !== undefined && (typeof featureValue !== 'string' || characters(featureValue) > 255 || featureValue.includes('\u0000'))) {
      throw new ValidationError(`${label}[${i}].value`, 'must be a string of at most 255 characters without NUL characters, or null');
    }
    return { feature: feature.trim(), value: (featureValue as string | null | undefined) ?? null };
  });
}

/**
 * Checks a create (all fields required but features) or an update (any subset,
 * at least one). `names` maps our field names to the caller's (REST uses snake_case).
 */
export function validateProductWrite(input: unknown, mode: 'create' | 'update', names: Partial<Record<keyof ProductWrite, string>> = {}): ProductWrite {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ValidationError('body', 'must be a JSON object');
  const raw = input as Record<string, unknown>;
  const key = (field: keyof ProductWrite) => names[field] ?? field;
  const get = (field: keyof ProductWrite) => raw[key(field)];
  const required = mode === 'create';
  const source = Object.fromEntries((['name', 'slogan', 'description', 'category'] as const).map((f) => [f, get(f)]));
  const write: ProductWrite = {
    name: text(source, 'name', required, key('name')),
    slogan: text(source, 'slogan', required, key('slogan')),
    description: text(source, 'description', required, key('description')),
    category: text(source, 'category', required, key('category')),
  };
  const price = get('defaultPrice');
  if (price !== undefined && price !== null) {
    const parsed = parseMoney(price);
    if (parsed === undefined) throw new ValidationError(key('defaultPrice'), 'must be a price from 0 to 99999999.99 with at most two decimals, e.g. "140.00"');
    write.defaultPrice = parsed;
  } else if (required || price === null) {
    throw new ValidationError(key('defaultPrice'), 'is required');
  }
  const featureInput = get('features');
  if (featureInput !== undefined && featureInput !== null) write.features = features(featureInput, key('features'));
  else if (required) write.features = [];
  for (const field of Object.keys(write) as (keyof ProductWrite)[]) if (write[field] === undefined) delete write[field];
  if (mode === 'update' && Object.keys(write).length === 0) throw new ValidationError('body', 'must contain at least one field to change');
  return write;
}
