// Checks of argument values that refuse the whole request (HTTP 400 under
// every media type), run before anything executes (limits/argument-caps.ts
// calls them with the operation's coerced arguments): search text, filters
// and cursors. As field errors they would be HTTP 200 with `data: null` under
// application/json; a search box sending "&&" deserves a 400 naming `query`.
// The resolvers call the same functions for the values they use, so a check
// cannot drift from what is executed.
import { checkFilter, DEFAULT_ORDER, searchWords } from '../catalog/browse/browse-input.ts';
import { decodeCursor, orderingOf } from '../catalog/browse/browse-cursor.ts';
import type { BrowseOrder } from '../catalog/browse/browse-input.ts';

type Values = Record<string, unknown>;

export interface ArgumentCheck {
  /** The arguments the check reads: it runs only when the operation passes one of them. */
  reads: readonly string[];
  /** Throws a ValidationError naming the argument for a value the field would refuse. */
  check(values: Values): void;
}

type FilterInput = Parameters<typeof checkFilter>[0];

const orderOf = (values: Values): BrowseOrder => {
  const given = values.orderBy as Partial<BrowseOrder> | null | undefined;
  return { field: given?.field ?? DEFAULT_ORDER.field, direction: given?.direction ?? DEFAULT_ORDER.direction };
};

const afterCursor = (values: Values, ordering: Parameters<typeof decodeCursor>[1]) => {
  if (typeof values.after === 'string') decodeCursor(values.after, ordering);
};

/** By field coordinate ("Type.field"). */
export const ARGUMENT_CHECKS: Readonly<Record<string, ArgumentCheck>> = {
  'Query.productConnection': {
    reads: ['filter', 'after'],
    check: (values) => {
      checkFilter(values.filter as FilterInput);
      afterCursor(values, orderingOf(orderOf(values)));
    },
  },
  'Query.search': {
    reads: ['query', 'filter', 'after'],
    check: (values) => {
      searchWords(values.query as string);
      checkFilter(values.filter as FilterInput);
      afterCursor(values, 'SEARCH');
    },
  },
  'Query.productFacets': {
    reads: ['query', 'filter'],
    check: (values) => {
      if (typeof values.query === 'string') searchWords(values.query);
      checkFilter(values.filter as FilterInput);
    },
  },
};
