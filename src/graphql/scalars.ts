// Money (two-decimal strings) and DateTime (ISO-8601 UTC) scalars.
import { GraphQLScalarType, Kind } from 'graphql';
import { formatMoney, parseMoney } from '../catalog/model/money.ts';
import { badInput } from './errors.ts';

function moneyFromInput(value: unknown): string {
  const parsed = parseMoney(value);
  if (parsed === undefined) throw badInput(`Money must be a decimal string with at most two decimals from 0 to 99999999.99, e.g. "140.00" (got ${JSON.stringify(value)})`);
  return parsed;
}

export const Money = new GraphQLScalarType({
  name: 'Money',
  description: 'A price with exactly two decimals, as a string ("140.00").',
  serialize: (value) => (typeof value === 'string' ? value : formatMoney(value as { toFixed(d: number): string })),
  parseValue: moneyFromInput,
  parseLiteral: (ast) => moneyFromInput(ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT ? ast.value : undefined),
});

export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An ISO-8601 date-time in UTC.',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => new Date(String(value)),
  parseLiteral: (ast) => (ast.kind === Kind.STRING ? new Date(ast.value) : null),
});
