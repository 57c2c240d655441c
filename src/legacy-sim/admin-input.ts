// Bodies of the simulator's admin endpoints (/__sim/...): product changes made
// behind the sidecar's back and fault settings. Same field names as the legacy
// JSON (snake_case, "default?", skus keyed by id), so a style read from the
// admin view can be edited and sent back. Every problem is a ValidationError
// naming the field (400).
import { parseMoney } from '../catalog/model/money.ts';
import { ValidationError, validateProductWrite } from '../catalog/model/validation.ts';
import type { ProductChange, StyleInput } from './catalogue.ts';
import { POSTGRES_INT_MAX } from '../db/integers.ts';

const BASIC = ['name', 'slogan', 'description', 'category', 'default_price', 'features'] as const;

function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ValidationError(field, 'must be a JSON object');
  return value as Record<string, unknown>;
}

function onlyKeys(input: Record<string, unknown>, allowed: readonly string[], field: string): void {
  const unknown = Object.keys(input).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw new ValidationError(field, `unknown field ${JSON.stringify(unknown[0])} (known: ${allowed.join(', ')})`);
}

function positiveId(value: unknown, field: string): number {
  if (typeof value === 'string' && /^[1-9]\d{0,9}$/.test(value)) value = Number(value);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > POSTGRES_INT_MAX) {
    throw new ValidationError(field, 'must be a positive integer');
  }
  return value;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ValidationError(field, 'must be a non-empty string');
  return value;
}

function price(value: unknown, field: string): string {
  const parsed = parseMoney(value);
  if (parsed === undefined) throw new ValidationError(field, 'must be a price with at most two decimals, e.g. "140.00"');
  return parsed;
}

function timestamp(value: unknown, field: string): Date {
  const date = typeof value === 'string' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw new ValidationError(field, 'must be an ISO 8601 timestamp, e.g. "2021-08-13T14:38:44.509Z"');
  return date;
}

function style(value: unknown, field: string): StyleInput {
  const input = object(value, field);
  onlyKeys(input, ['style_id', 'name', 'original_price', 'sale_price', 'default?', 'photos', 'skus'], field);
  const photos = input.photos ?? [];
  if (!Array.isArray(photos)) throw new ValidationError(`${field}.photos`, 'must be a list of {thumbnail_url, url}');
  const skus = input.skus ?? {};
  if (typeof skus !== 'object' || skus === null) throw new ValidationError(`${field}.skus`, 'must be an object keyed by sku id, or a list of {quantity, size}');
  const sku = (entry: unknown, at: string, id?: number) => {
    const s = object(entry, at);
    onlyKeys(s, ['sku_id', 'quantity', 'size'], at);
    const quantity = s.quantity;
    if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity < 0) throw new ValidationError(`${at}.quantity`, 'must be a whole number of 0 or more');
    return { id: id ?? (s.sku_id === undefined ? undefined : positiveId(s.sku_id, `${at}.sku_id`)), quantity, size: text(s.size, `${at}.size`) };
  };
  const isDefault = input['default?'] ?? false;
  if (typeof isDefault !== 'boolean') throw new ValidationError(`${field}["default?"]`, 'must be true or false');
  return {
    id: input.style_id === undefined ? undefined : positiveId(input.style_id, `${field}.style_id`),
    name: text(input.name, `${field}.name`),
    originalPrice: price(input.original_price, `${field}.original_price`),
    salePrice: input.sale_price === undefined || input.sale_price === null ? null : price(input.sale_price, `${field}.sale_price`),
    isDefault,
    photos: photos.map((entry: unknown, i) => {
      const at = `${field}.photos[${i}]`;
      const p = object(entry, at);
      onlyKeys(p, ['photo_id', 'thumbnail_url', 'url'], at);
      return {
        id: p.photo_id === undefined ? undefined : positiveId(p.photo_id, `${at}.photo_id`),
        thumbnailUrl: text(p.thumbnail_url, `${at}.thumbnail_url`),
        url: text(p.url, `${at}.url`),
      };
    }),
    skus: Array.isArray(skus)
      ? skus.map((entry: unknown, i) => sku(entry, `${field}.skus[${i}]`))
      : Object.entries(skus as Record<string, unknown>).map(([key, entry]) => sku(entry, `${field}.skus["${key}"]`, positiveId(key, `${field}.skus key ${JSON.stringify(key)}`))),
  };
}

/**
 * A product change from an admin body. `create`: the legacy POST fields are
 * required (as POST /products); `patch`: any subset. Both may also set
 * `styles` (legacy shape, replaces the list), `related` (ids, replaces),
 * `created_at`, `updated_at`; a create may name its `id`; a patch may say
 * `"touch": false` to leave updated_at alone.
 */
export function parseAdminProduct(body: unknown, mode: 'create' | 'patch'): { change: ProductChange & { id?: number }; touch: boolean } {
  const input = object(body, 'body');
  const extra = ['styles', 'related', 'created_at', 'updated_at', ...(mode === 'create' ? ['id'] : ['touch'])];
  onlyKeys(input, [...BASIC, ...extra], 'body');
  const basics = Object.fromEntries(BASIC.filter((key) => input[key] !== undefined).map((key) => [key, input[key]]));
  const change: ProductChange & { id?: number } = {};
  if (mode === 'create' || Object.keys(basics).length > 0) {
    Object.assign(change, validateProductWrite(basics, mode === 'create' ? 'create' : 'update', { defaultPrice: 'default_price' }));
  }
  if (input.id !== undefined) change.id = positiveId(input.id, 'id');
  if (input.styles !== undefined) {
    if (!Array.isArray(input.styles)) throw new ValidationError('styles', 'must be a list of styles in the legacy shape');
    change.styles = input.styles.map((entry: unknown, i) => style(entry, `styles[${i}]`));
  }
  if (input.related !== undefined) {
    if (!Array.isArray(input.related)) throw new ValidationError('related', 'must be a list of product ids');
    change.related = input.related.map((id: unknown, i) => positiveId(id, `related[${i}]`));
  }
  if (input.created_at !== undefined) change.createdAt = timestamp(input.created_at, 'created_at');
  if (input.updated_at !== undefined) change.updatedAt = timestamp(input.updated_at, 'updated_at');
  const touch = input.touch ?? true;
  if (typeof touch !== 'boolean') throw new ValidationError('touch', 'must be true or false');
  if (mode === 'patch' && Object.keys(change).length === 0 && input.touch === undefined) throw new ValidationError('body', 'must contain at least one field to change');
  return { change, touch };
}

export interface FaultSettings {
  /** Fixed wait before each legacy answer, in ms. */
  overheadMs: number;
  /** Wait per item the answer returns (products of a listing, styles, related ids; 1 for a product), in ms, after the overhead. */
  perItemMs: number;
  /** Share of legacy requests answered with a random 5xx (500, 502, 503 or 504). */
  errorRate: number;
  /** Share of legacy requests answered 429 with Retry-After. */
  throttleRate: number;
  /** Share of legacy requests that wait `slowMs` more. */
  slowRate: number;
  slowMs: number;
  /** Retry-After of the 429s (and of the 503s), in seconds. */
  retryAfterSeconds: number;
}

const LIMITS: Record<keyof FaultSettings, [number, number, boolean]> = {
  overheadMs: [0, 600_000, true],
  perItemMs: [0, 60_000, false],
  errorRate: [0, 1, false],
  throttleRate: [0, 1, false],
  slowRate: [0, 1, false],
  slowMs: [0, 600_000, true],
  retryAfterSeconds: [0, 86_400, true],
};

/** Checks fault settings (all or some of them); throws ValidationError naming the field. */
export function checkFaults(input: unknown, current: FaultSettings): FaultSettings {
  const body = object(input, 'body');
  onlyKeys(body, Object.keys(LIMITS), 'body');
  const next = { ...current };
  for (const [key, [min, max, integer]] of Object.entries(LIMITS) as [keyof FaultSettings, [number, number, boolean]][]) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      throw new ValidationError(key, `must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`);
    }
    next[key] = value;
  }
  if (next.errorRate + next.throttleRate > 1) throw new ValidationError('errorRate', 'errorRate + throttleRate must be at most 1');
  return next;
}
