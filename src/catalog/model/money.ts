// Prices are numeric(10,2) in Postgres and two-decimal strings on the wire.
// They never pass through a float.

const MONEY = /^(0|[1-9]\d{0,7})(\.\d{1,2})?$/;

/** A Prisma Decimal (or anything with toFixed) as "140.00". */
export function formatMoney(value: { toFixed(digits: number): string }): string {
  return value.toFixed(2);
}

/** Parses a client-supplied price; undefined when it is not a valid amount. */
export function parseMoney(input: unknown): string | undefined {
  const text = typeof input === 'number' && Number.isFinite(input) ? String(input) : input;
  if (typeof text !== 'string') return undefined;
  const trimmed = text.trim();
  if (!MONEY.test(trimmed)) return undefined;
  const [whole, fraction = ''] = trimmed.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}
