// Caps on the arguments that size what a request reads, checked before the
// cost estimate so a client is told the cap it went over, not only the cost:
// - page sizes (`count`, `first`: the Int sizing arguments of cost.ts's
//   LIST_SIZES) at most MAX_PAGE_SIZE, as the resolvers also check;
// - every list argument, at any depth inside input objects (`ids`,
//   `input.features`, and any list argument added later), at most
//   GRAPHQL_MAX_LIST_LENGTH entries.
// - the value checks of ../argument-checks.ts (search text, filters, cursors).
// Values come from literals and variables alike. Refusals are the same
// BAD_USER_INPUT errors the resolvers give, naming the argument, as request
// errors: HTTP 400 under every media type.
import {
  type DocumentNode, type FieldNode, type GraphQLArgument, type GraphQLError, type GraphQLField, type GraphQLInputType,
  type GraphQLNamedType, type GraphQLSchema, GraphQLInt, Kind, type OperationDefinitionNode, type SelectionSetNode,
  getArgumentValues, getNamedType, getNullableType, isInputObjectType, isInterfaceType, isListType, isObjectType,
} from 'graphql';
import { LIST_SIZES } from '../cost.ts';
import { aboveMaximum, fromValidationError, tooManyEntries } from '../errors.ts';
import { ARGUMENT_CHECKS } from '../argument-checks.ts';
import { ValidationError } from '../../catalog/model/validation.ts';
import { fragmentsByName } from '../fragments.ts';

type Variables = Record<string, unknown>;

export interface ArgumentCaps {
  maxPageSize: number;
  maxListLength: number;
}

/** The first list in `value` (of `type`) longer than the cap, as an error naming its path. */
function overlongList(value: unknown, type: GraphQLInputType, path: string, maxLength: number): GraphQLError | undefined {
  const nullable = getNullableType(type);
  if (isListType(nullable) && Array.isArray(value)) {
    if (value.length > maxLength) return tooManyEntries(path, maxLength, value.length);
    for (const item of value) {
      const inner = overlongList(item, nullable.ofType, path, maxLength);
      if (inner) return inner;
    }
  } else if (isInputObjectType(nullable) && value !== null && typeof value === 'object') {
    for (const field of Object.values(nullable.getFields())) {
      const inner = overlongList((value as Record<string, unknown>)[field.name], field.type, `${path}.${field.name}`, maxLength);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** Whether a value of the type can hold a list (directly or in an input object's fields, recursive ones followed once). */
function holdsList(type: GraphQLInputType, seen: Set<string> = new Set()): boolean {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return true;
  if (!isInputObjectType(nullable) || seen.has(nullable.name)) return false;
  seen.add(nullable.name);
  return Object.values(nullable.getFields()).some((field) => holdsList(field.type, seen));
}

/** Per argument definition, computed once: most arguments (an `id`) can never go over a cap, and are not even read. */
const listHolding = new WeakMap<GraphQLArgument, boolean>();

function canHoldList(argument: GraphQLArgument): boolean {
  let holds = listHolding.get(argument);
  if (holds === undefined) listHolding.set(argument, holds = holdsList(argument.type));
  return holds;
}

function argumentError(parent: GraphQLNamedType, field: GraphQLField<unknown, unknown>, node: FieldNode, variables: () => Variables, caps: ArgumentCaps): GraphQLError | undefined {
  if (field.args.length === 0 || !node.arguments?.length) return undefined;
  const coordinate = `${parent.name}.${field.name}`;
  const pageSize = LIST_SIZES[coordinate]?.argument;
  // Only arguments the operation passes: an omitted one takes the schema's
  // default, which is within every cap (and reading the variables for nothing
  // would keep a repeated operation from being known as uncapped).
  const passed = new Set(node.arguments.map((argument) => argument.name.value));
  const capped = field.args.filter((argument) => passed.has(argument.name) && (argument.name === pageSize || canHoldList(argument)));
  const valueCheck = ARGUMENT_CHECKS[coordinate];
  const checked = valueCheck !== undefined && valueCheck.reads.some((name) => passed.has(name));
  if (capped.length === 0 && !checked) return undefined;
  let values: Record<string, unknown>;
  try {
    values = getArgumentValues(field, node, variables());
  } catch {
    return undefined; // not coercible: execution refuses it with its own error
  }
  for (const argument of capped) {
    const value = values[argument.name];
    if (argument.name === pageSize && getNamedType(argument.type) === GraphQLInt && typeof value === 'number' && value > caps.maxPageSize) {
      return aboveMaximum(argument.name, caps.maxPageSize, value);
    }
    const overlong = overlongList(value, argument.type, argument.name, caps.maxListLength);
    if (overlong) return overlong;
  }
  if (checked) {
    try {
      valueCheck.check(values);
    } catch (error) {
      if (error instanceof ValidationError) return fromValidationError(error);
      throw error;
    }
  }
  return undefined;
}

function notCoercible(): never {
  throw new Error('variables do not coerce');
}

/**
 * The first argument of the operation over its cap, as a 400 error (undefined
 * when all are within), and whether any argument was read at all: when none
 * was, no variables can ever make the operation go over a cap
 * (src/graphql/prepared-operations.ts remembers that and asks no more).
 * `coerced`: the operation's coerced variables, undefined when they do not
 * coerce; then nothing is checked here (execution refuses them with its own
 * error, and the value checks expect coerced values: `sizes: [null]` reached
 * them as a TypeError, a 500).
 */
export function argumentCapError(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, coerced: Variables | undefined, caps: ArgumentCaps): { error: GraphQLError | undefined; readArguments: boolean } {
  let readArguments = false;
  const variables = () => {
    readArguments = true;
    return coerced ?? notCoercible();
  };
  const fragments = fragmentsByName(document);
  const checked = new Set<string>();

  function check(type: GraphQLNamedType | undefined, selectionSet: SelectionSetNode): GraphQLError | undefined {
    for (const selection of selectionSet.selections) {
      let error: GraphQLError | undefined;
      if (selection.kind === Kind.FIELD) {
        const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[selection.name.value] : undefined;
        if (!type || !field) continue; // __typename and introspection take no capped arguments
        error = argumentError(type, field, selection, variables, caps)
          ?? (selection.selectionSet ? check(getNamedType(field.type), selection.selectionSet) : undefined);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        error = check(selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type, selection.selectionSet);
      } else if (!checked.has(selection.name.value)) {
        // A fragment's arguments are the same at every spread: checked once.
        checked.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) error = check(schema.getType(fragment.typeCondition.name.value), fragment.selectionSet);
      }
      if (error) return error;
    }
    return undefined;
  }

  const error = check(schema.getRootType(operation.operation) ?? undefined, operation.selectionSet);
  return { error, readArguments };
}
