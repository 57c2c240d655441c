// Small predicates the body checks are made of.

/** Money as the API sends it: a string with exactly two decimals ("140.00"). */
export function isMoney(value: unknown): boolean {
  return typeof value === 'string' && /^\d+\.\d{2}$/.test(value);
}

export function isIsoDate(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value);
}

export function isPositiveInteger(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) > 0;
}

export function isStringOrNull(value: unknown): boolean {
  return value === null || typeof value === 'string';
}

/** The object has exactly these keys (the legacy shapes are closed: no extra or missing field). */
export function hasExactKeys(value: unknown, keys: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const actual = Object.keys(value).sort();
  return actual.length === keys.length && [...keys].sort().every((key, i) => actual[i] === key);
}

/** Numbers (or numeric strings) strictly ascending: rows in id order, no duplicates. */
export function ascending(values: (number | string)[]): boolean {
  return values.every((value, i) => i === 0 || Number(value) > Number(values[i - 1]));
}

/** A page holds `count` items, except the last page, which holds 1 to `count`. */
export function isFullPage(length: number, count: number, page: number, lastPage: number): boolean {
  return length === count || (page === lastPage && length >= 1 && length <= count);
}
