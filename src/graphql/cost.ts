// The estimated cost of a GraphQL operation, from the document and its
// variables alone (no execution): what the GRAPHQL_MAX_COST limit compares,
// and what per-key rate limits can charge.
//
// graphql-armor's formula, with lists multiplying by their size:
//   a leaf field costs   size × SCALAR_COST
//   an object field      size × OBJECT_COST + max(size, DEPTH_COST_FACTOR) × (cost of its selections)
//   the operation        OBJECT_COST + DEPTH_COST_FACTOR × (cost of its selections)
// where size is 1 for a field that is not a list. With every size 1 this is
// exactly graphql-armor's cost of a query written without fragments, and
// longer lists only cost more, so a limit is at least as strict as the same
// limit there. (graphql-armor also charges a fragment as an extra level; here
// a fragment costs what the selections it stands for cost.) A list of n > 1
// elements costs what n single elements do.
//
// Browse and search fields add a fixed surcharge for their statements
// (STATEMENT_SURCHARGES). A list's size comes from the argument that bounds it when there is one
// (`count`, `first`, the length of `ids`; literal or variable, else the
// schema's default), otherwise the measured average in LIST_SIZES
// (MEASURED_CARDINALITIES: the full-scale catalogue's, in docs/graphql.md "GraphQL limits");
// a product's paged lists (`styles(first:)`, `related(first:)`) the smaller of the two.
import {
  type DocumentNode, type FieldNode, type GraphQLField, type GraphQLNamedType, type GraphQLSchema, Kind,
  type OperationDefinitionNode, type SelectionSetNode, TypeMetaFieldDef, type ValueNode, getArgumentValues, getNamedType, getNullableType, getOperationAST,
  getVariableValues,
  isListType, isObjectType, isInterfaceType,
} from 'graphql';
import { fragmentsByName } from './fragments.ts';

type Variables = Record<string, unknown>;

export const OBJECT_COST = 2;
export const SCALAR_COST = 1;
export const DEPTH_COST_FACTOR = 1.5;

export interface ListSize {
  /** The argument whose value (an Int, or a list's length) is the size. */
  argument?: string;
  /** The argument sizes this child list rather than the field itself (connections: `edges`). */
  sizedField?: string;
  /** The size when no argument gives one; with an argument too, the size is the smaller of the two. */
  assumed?: number;
}

/** Children per parent in the full-scale catalogue: every parent counted, one without any as 0. */
export interface Cardinality {
  average: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Measured on the full-scale legacy catalogue (database `catalogue_bench`:
 * 1,000,011 products, 1,957,702 styles) by
 * scripts/cardinalities.sql. docs/graphql.md "GraphQL limits" shows them in a table,
 * which test/graphql/cost.test.ts holds to exactly these numbers.
 * `Product.related` counts what the field returns (distinct related products
 * that exist), `relatedIds` the rows.
 */
export const MEASURED_CARDINALITIES = {
  'Product.features': { average: 2.25, p50: 2, p99: 4, max: 4 },
  'Product.related': { average: 4.45, p50: 4, p99: 8, max: 10 },
  'Product.relatedIds': { average: 4.49, p50: 4, p99: 8, max: 10 },
  'Product.styles': { average: 1.96, p50: 2, p99: 3, max: 4 },
  'Style.photos': { average: 2.89, p50: 3, p99: 5, max: 5 },
  'Style.skus': { average: 5.78, p50: 6, p99: 11, max: 11 },
} as const satisfies Record<string, Cardinality>;

/**
 * Sizes of the schema's lists, by field coordinate. A list bounded by an
 * argument is as long as the argument says; the others are assumed as long
 * as the measured average (MEASURED_CARDINALITIES), so the cost estimates
 * what an operation reads on average, not at worst: a listing's products are
 * representative, and a client that picks the largest parents on purpose gets
 * at most the max/average ratios more (about 2 per list level: skus 11 / 5.78,
 * related 10 / 4.45), which GRAPHQL_MAX_COST's margin over real operations
 * absorbs. `related` is the recursive one: each level of related { related
 * { ... } } multiplies what is under it by 4.45.
 */
export const LIST_SIZES: Readonly<Record<string, ListSize>> = {
  'Query.products': { argument: 'count' },
  'Query.productsByIds': { argument: 'ids' },
  'Query.productConnection': { argument: 'first', sizedField: 'edges' },
  // FEDERATION=on: one entity per reference a router sends.
  'Query._entities': { argument: 'representations' },
  'Query.search': { argument: 'first', sizedField: 'edges' },
  // Facet lists: at most one entry per category (16 in the full-scale
  // catalogue), size (19) and price band (PRICE_BANDS: 6).
  'ProductFacets.categories': { assumed: 16 },
  'ProductFacets.sizes': { assumed: 19 },
  'ProductFacets.priceBands': { assumed: 6 },
  ...Object.fromEntries(Object.entries(MEASURED_CARDINALITIES).map(([field, measured]) => [field, { assumed: measured.average }])),
  // Paged when `first` is given: then as long as the smaller of the two (a
  // product has 1.96 styles on average, so `styles(first: 2)` reads about that,
  // and `related(first: 100)` no more than `related`).
  'Product.styles': { argument: 'first', assumed: MEASURED_CARDINALITIES['Product.styles'].average },
  'Product.related': { argument: 'first', assumed: MEASURED_CARDINALITIES['Product.related'].average },
};

/**
 * Fields whose statement reads many rows to answer with few (browse and
 * search: docs/browse.md), charged this much on top of what they return, in
 * cost units (an object costs OBJECT_COST): a search page (its words and its
 * page: two statements) and a facet count (one statement over the facet
 * cells, or over a search's matches) each cost about as much Postgres time at
 * full scale as 25 product pages (EXPLAIN ANALYZE figures in docs/browse.md).
 * totalCount and facets of one connection share their statement, so each is
 * charged half.
 */
export const STATEMENT_SURCHARGES: Readonly<Record<string, number>> = {
  'Query.search': 50,
  'Query.productFacets': 50,
  'ProductConnection.totalCount': 25,
  'ProductConnection.facets': 25,
  'SearchConnection.totalCount': 25,
  'SearchConnection.facets': 25,
};

/**
 * Root fields that read products by their ids: one indexed statement per
 * batch of ids (and per nested list under them), whatever the catalogue's
 * size. Every other root field (a listing page, a filtered or ordered
 * connection, a search, facet counts) runs a statement over many rows.
 */
export const KEYED_ROOT_FIELDS: ReadonlySet<string> = new Set(['product', 'productsByIds', '_entities']);

/**
 * The most a cheap read may cost: a query that reads by key only
 * (KEYED_ROOT_FIELDS) and costs no more than this is a read whose answer
 * Postgres makes about as cheaply as Redis looks up and stores it. The
 * response cache's doorkeeper (CACHE_ADMISSION=doorkeeper,
 * src/cache/response-cache.ts) answers such a read's first sighting without
 * asking Redis, since most keys of a long tail are asked once; anything
 * dearer is looked up and stored from its first miss, since reading it twice
 * costs more than a lookup and a store. 600 admits a product page with its
 * related products' cards (504: two keyed statements) and every REST product
 * route (styles: 215), and keeps out a page of many ids or of related
 * products nested deeper (each level multiplies by 4.45).
 */
export const CHEAP_READ_MAX_COST = 600;

/** Whether every root field `operation` selects reads products by their ids (fragments at the root followed). */
export function readsByKey(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  if (operation.operation !== 'query') return false;
  const fragments = fragmentsByName(document);
  const seen = new Set<string>();
  const keyed = (selectionSet: SelectionSetNode): boolean => selectionSet.selections.every((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === '__typename' || KEYED_ROOT_FIELDS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return keyed(selection.selectionSet);
    const name = selection.name.value;
    if (seen.has(name)) return true;
    seen.add(name);
    const fragment = fragments.get(name);
    return fragment !== undefined && keyed(fragment.selectionSet);
  });
  return keyed(operation.selectionSet);
}

/** A cheap read (see CHEAP_READ_MAX_COST): by key only, at most that cost. */
export function isCheapRead(byKey: boolean, cost: number): boolean {
  return byKey && cost <= CHEAP_READ_MAX_COST;
}

/** Any list not in LIST_SIZES (introspection's lists, fields added later). */
export const UNKNOWN_LIST_SIZE = 10;

/** Introspection's schema query is free, as in graphql-armor (it is refused outright where introspection is off). */
const FREE_FIELD = '__schema';

function containsVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(containsVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => containsVariable(field.value));
  return false;
}

/** A size handed from a field to one of its children (a connection's `first` to its `edges`). */
interface HandedSize {
  field: string;
  size: number;
}

/** The value of a sizing argument as a size: a number, a list's length; undefined when not given. */
function argumentSize(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Variables, argument: string): number | undefined {
  let values: Record<string, unknown>;
  try {
    values = getArgumentValues(field, node, variables);
  } catch {
    values = {};
  }
  const value = values[argument] ?? field.args.find((a) => a.name === argument)?.defaultValue;
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'number' && Number.isFinite(value)) return Math.max(0, value);
  return value === undefined || value === null ? undefined : 1;
}

/** What an operation of this cost takes from a rate-limit budget: budgets count REST-request units, cost points convert at `unit` each, at least 1. */
export function costUnits(cost: number, unit: number): number {
  return Math.max(1, Math.ceil(cost / unit));
}

/**
 * The cost of `operation` (of `document`) with these variables, and whether
 * any list size in it came from a variable (when none did, the cost is the
 * same whatever the variables: src/graphql/prepared-operations.ts keeps it).
 * `variables` are the coerced values (defaults applied).
 */
export function costOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): { cost: number; variableSized: boolean } {
  const root = schema.getRootType(operation.operation);
  if (!root) return { cost: 0, variableSized: false };
  let variableSized = false;
  const sizeOf = (field: GraphQLField<unknown, unknown>, node: FieldNode, argument: string): number | undefined => {
    const given = node.arguments?.find((a) => a.name.value === argument);
    if (given && containsVariable(given.value)) variableSized = true;
    return argumentSize(field, node, variables, argument);
  };
  const fragments = fragmentsByName(document);
  // A fragment costs the same at every spread with the same handed size: computed once.
  const fragmentCosts = new Map<string, number>();

  function fieldCost(parent: GraphQLNamedType, node: FieldNode, handed: HandedSize | undefined): number {
    const name = node.name.value;
    if (name === FREE_FIELD) return 0;
    const field = name === TypeMetaFieldDef.name ? TypeMetaFieldDef
      : isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
    if (!field) return node.selectionSet ? OBJECT_COST : SCALAR_COST; // __typename (validation refuses unknown fields)
    const coordinate = `${parent.name}.${name}`;
    const surcharge = STATEMENT_SURCHARGES[coordinate] ?? 0;
    const rule = LIST_SIZES[coordinate];
    const given = rule?.argument ? sizeOf(field, node, rule.argument) : undefined;
    let size = 1;
    if (handed?.field === name) size = handed.size;
    else if (isListType(getNullableType(field.type)) && !rule?.sizedField) size = Math.min(given ?? Infinity, rule?.assumed ?? Infinity);
    if (size === Infinity) size = UNKNOWN_LIST_SIZE;
    if (!node.selectionSet) return surcharge + size * SCALAR_COST;
    const toChild = rule?.sizedField ? { field: rule.sizedField, size: given ?? UNKNOWN_LIST_SIZE } : undefined;
    return surcharge + size * OBJECT_COST + Math.max(size, DEPTH_COST_FACTOR) * selectionsCost(getNamedType(field.type), node.selectionSet, toChild);
  }

  function fragmentCost(name: string, handed: HandedSize | undefined): number {
    const key = `${name}:${handed?.field ?? ''}:${handed?.size ?? ''}`;
    let cost = fragmentCosts.get(key);
    if (cost !== undefined) return cost;
    // Validation has already refused fragment cycles; the placeholder keeps a cycle finite regardless.
    fragmentCosts.set(key, 0);
    const fragment = fragments.get(name);
    const type = fragment ? schema.getType(fragment.typeCondition.name.value) : undefined;
    cost = fragment && type ? selectionsCost(type, fragment.selectionSet, handed) : 0;
    fragmentCosts.set(key, cost);
    return cost;
  }

  function selectionsCost(type: GraphQLNamedType, selectionSet: SelectionSetNode, handed: HandedSize | undefined): number {
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) cost += fieldCost(type, selection, handed);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) cost += fragmentCost(selection.name.value, handed);
      else cost += selectionsCost((selection.typeCondition && schema.getType(selection.typeCondition.name.value)) || type, selection.selectionSet, handed);
    }
    return cost;
  }

  const cost = Math.ceil(OBJECT_COST + DEPTH_COST_FACTOR * selectionsCost(root, operation.selectionSet, undefined));
  return { cost, variableSized };
}

/**
 * The cost of an operation of `document` with these variables as sent (coerced
 * first; values that do not coerce are read as sent: execution refuses such a
 * request with its own error, so nothing estimated from them is acted on
 * beyond refusing earlier).
 */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, variables?: Record<string, unknown> | null, operationName?: string | null): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 1 }).coerced;
  return costOf(schema, document, operation, coerced ?? variables ?? {}).cost;
}
