// What a browse or search request asks for, checked: the filter, the
// ordering and the search words. Every problem is a ValidationError naming
// the argument (a 400), so nothing a client sends reaches Postgres as syntax.
import { ValidationError } from '../model/validation.ts';

/** A filter of productConnection, search and facets; every part optional, all parts must hold. */
export interface BrowseFilter {
  categories?: readonly string[];
  /** Default price bounds, inclusive, as two-decimal strings (the Money scalar parsed them). */
  priceMin?: string;
  priceMax?: string;
  onSale?: boolean;
  inStock?: boolean;
  /** At least one of these sizes in stock. */
  sizes?: readonly string[];
}

export const ORDER_FIELDS = ['ID', 'NAME', 'PRICE', 'CREATED_AT', 'UPDATED_AT'] as const;
export type OrderField = (typeof ORDER_FIELDS)[number];
export type OrderDirection = 'ASC' | 'DESC';
export interface BrowseOrder {
  field: OrderField;
  direction: OrderDirection;
}
export const DEFAULT_ORDER: BrowseOrder = { field: 'ID', direction: 'ASC' };

/** Most values in one list filter (categories, sizes). */
export const MAX_FILTER_VALUES = 50;
/** Longest category or size accepted in a filter (the longest a product can have). */
const MAX_VALUE_CHARACTERS = 255;

/** Longest search text, in characters, and most words in it. */
export const MAX_QUERY_CHARACTERS = 200;
export const MAX_QUERY_WORDS = 8;
/** Longest word: longer ones are no word of any catalogue. */
const MAX_WORD_CHARACTERS = 40;

/** Characters of Postgres's tsquery syntax: the search takes words, not query syntax. */
const OPERATORS = /[&|!():*<>\\]/u;
/** A word: letters and digits (any script); everything else separates words. */
const WORD = /[\p{L}\p{N}]+/gu;

function list(values: readonly string[] | null | undefined, field: string): string[] | undefined {
  if (values === undefined || values === null) return undefined;
  if (values.length === 0) throw new ValidationError(field, 'must not be an empty list (leave it out to not filter by it)');
  if (values.length > MAX_FILTER_VALUES) throw new ValidationError(field, `must have at most ${MAX_FILTER_VALUES} entries (got ${values.length})`);
  for (const value of values) {
    if ([...value].length > MAX_VALUE_CHARACTERS) throw new ValidationError(field, `entries must be at most ${MAX_VALUE_CHARACTERS} characters`);
    if (value.includes('\u0000')) throw new ValidationError(field, 'must not contain NUL characters');
  }
  return [...new Set(values)];
}

/** The filter as GraphQL hands it over (nulls for omitted fields), checked. */
export function checkFilter(input: {
  categories?: readonly string[] | null; priceMin?: string | null; priceMax?: string | null;
  onSale?: boolean | null; inStock?: boolean | null; sizes?: readonly string[] | null;
} | null | undefined, label = 'filter'): BrowseFilter {
  if (!input) return {};
  const filter: BrowseFilter = {};
  const categories = list(input.categories, `${label}.categories`);
  if (categories) filter.categories = categories;
  const sizes = list(input.sizes, `${label}.sizes`);
  if (sizes) filter.sizes = sizes;
  if (input.priceMin !== undefined && input.priceMin !== null) filter.priceMin = input.priceMin;
  if (input.priceMax !== undefined && input.priceMax !== null) filter.priceMax = input.priceMax;
  if (filter.priceMin !== undefined && filter.priceMax !== undefined && Number(filter.priceMin) > Number(filter.priceMax)) {
    throw new ValidationError(`${label}.priceMax`, `must not be below priceMin (${filter.priceMin} > ${filter.priceMax})`);
  }
  if (input.onSale !== undefined && input.onSale !== null) filter.onSale = input.onSale;
  if (input.inStock !== undefined && input.inStock !== null) filter.inStock = input.inStock;
  return filter;
}

/**
 * The words of a search text: NFKC-normalised runs of letters and digits, in
 * order, without repeats (ignoring case). Their case is left to Postgres,
 * which lower-cases them as it lower-cased the documents (by the database's
 * ctype: under C, "Ωμέγα" stays as it is in both; lower-cased here it matched
 * nothing). A 400 (naming `query`) when there
 * are none, when the text is too long, or when it holds NUL, control
 * characters, a lone surrogate or tsquery operators: the search takes
 * plain words.
 */
export function searchWords(text: string, field = 'query'): string[] {
  const characters = [...text].length;
  if (characters > MAX_QUERY_CHARACTERS) throw new ValidationError(field, `must be at most ${MAX_QUERY_CHARACTERS} characters (got ${characters})`);
  if (text.includes('\u0000')) throw new ValidationError(field, 'must not contain NUL characters');
  // Bytes that are not UTF-8 and lone surrogates in a request are a 400 before here (src/http/unicode.ts); not text of any other way in either.
  if (/\p{Cs}/u.test(text)) throw new ValidationError(field, 'must be valid Unicode text (a lone surrogate is not)');
  // eslint-disable-next-line no-control-regex
  if (/[\u0001-\u001f\u007f]/u.test(text)) throw new ValidationError(field, 'must not contain control characters');
  const operator = OPERATORS.exec(text);
  if (operator) throw new ValidationError(field, `takes plain words, not query syntax: remove "${operator[0]}"`);
  const seen = new Set<string>();
  const words = (text.normalize('NFKC').match(WORD) ?? []).filter((word) => {
    const key = word.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (words.length === 0) throw new ValidationError(field, 'must contain at least one word (letters or digits)');
  if (words.length > MAX_QUERY_WORDS) throw new ValidationError(field, `must have at most ${MAX_QUERY_WORDS} words (got ${words.length})`);
  const long = words.find((word) => [...word].length > MAX_WORD_CHARACTERS);
  if (long) throw new ValidationError(field, `words must be at most ${MAX_WORD_CHARACTERS} characters`);
  return words;
}
