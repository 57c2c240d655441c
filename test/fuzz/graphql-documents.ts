// Random GraphQL documents generated from the schema (schema/*.graphql):
// operations on the real root fields with sub-selections of real fields, their
// arguments given inline or as variables, with values of the right shape (but
// hostile content: ids like "1e3", counts like -1, NULs in names) or of the wrong
// type; with `noise`, also unknown fields and arguments, missing arguments,
// wrong variable types, fragments and directives. Plus the same documents
// broken by a character, huge or very deep ones, and random text.
import fc from 'fast-check';
import {
  buildASTSchema, getNamedType, type GraphQLField, type GraphQLInputType, type GraphQLObjectType, isInputObjectType, isListType,
  isNonNullType, isObjectType, parse,
} from 'graphql';
import { readTypeDefs } from '../../src/graphql/schema.ts';
import { anyText, idLike, INJECTIONS } from './values.ts';

const schema = buildASTSchema(parse(readTypeDefs()));

/** A document and the variables it is sent with. */
export interface Operation {
  document: string;
  variables: Record<string, unknown>;
}

/** Part of an operation: its text, the variable definitions it needs and their values. */
interface Piece {
  text: string;
  definitions: string[];
  variables: Record<string, unknown>;
}

function joined(pieces: Piece[], separator: string): Piece {
  return {
    text: pieces.map((piece) => piece.text).join(separator),
    definitions: pieces.flatMap((piece) => piece.definitions),
    variables: Object.assign({}, ...pieces.map((piece) => piece.variables)),
  };
}

const NAMES = ['a', 'name', 'feature', 'value', 'id', 'polluted'] as const;

/** A value of no particular type: whatever a client might send anywhere. */
const anyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null),
    fc.constantFrom(99999999999, -2147483649, 1e21, -0, ...INJECTIONS),
    anyText,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...NAMES), tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** A value of the shape `type` expects, with hostile content. */
function fittingValue(type: GraphQLInputType, depth: number): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return fittingValue(type.ofType, depth);
  if (isListType(type)) return fc.array(valueFor(type.ofType, depth + 1), { maxLength: 4 });
  if (isInputObjectType(type)) {
    if (depth > 3) return fc.constant({});
    const fields = Object.fromEntries(Object.values(type.getFields()).map((field) => [field.name, valueFor(field.type, depth + 1)]));
    return fc.record(fields, { requiredKeys: Object.values(type.getFields()).filter((field) => isNonNullType(field.type)).map((field) => field.name) });
  }
  switch (getNamedType(type).name) {
    case 'Int': return fc.oneof(fc.integer({ min: -5, max: 120 }), fc.integer());
    case 'Boolean': return fc.boolean();
    case 'ID': return fc.oneof(fc.integer({ min: 1, max: 600 }).map(String), idLike);
    case 'Money': return fc.constantFrom('140.00', '19.9', '0', 12, '99999999.99', '100000000', '-1', '1.234', 'abc', 140.5, '١٢');
    default: return fc.oneof(fc.constantFrom('Fuzz', ' padded ', '', '\u0000', 'x'.repeat(300), ...INJECTIONS), anyText);
  }
}

/** Mostly a value of the right shape, sometimes one of any type. */
function valueFor(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: fittingValue(type, depth) }, { weight: 1, arbitrary: anyValue });
}

/** A value as a GraphQL literal (object keys as names, strings JSON-escaped: lone surrogates make it a syntax error). */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object' && value !== null) return `{ ${Object.entries(value).map(([key, item]) => `${key}: ${literal(item)}`).join(', ')} }`;
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

const VARIABLE_TYPES = ['ID!', 'ID', 'Int', 'String', 'Boolean', '[ID!]!', 'CreateProductInput!', 'UpdateProductInput', 'Money', 'Product', 'Nope', '[[Int]]'] as const;

/** One argument, inline or as a variable (with its definition and value), or left out. */
function argument(arg: GraphQLField<unknown, unknown>['args'][number], noise: boolean): fc.Arbitrary<Piece | undefined> {
  const inline = valueFor(arg.type).map((value): Piece => ({ text: `${arg.name}: ${literal(value)}`, definitions: [], variables: {} }));
  const variable = fc.record({
    suffix: fc.nat(99),
    type: noise ? fc.oneof({ weight: 4, arbitrary: fc.constant(String(arg.type)) }, { weight: 1, arbitrary: fc.constantFrom(...VARIABLE_TYPES) }) : fc.constant(String(arg.type)),
    value: fc.option(valueFor(arg.type), { nil: undefined, freq: 8 }),
  }).map(({ suffix, type, value }): Piece => {
    const name = `${arg.name}${suffix}`;
    return { text: `${arg.name}: $${name}`, definitions: [`$${name}: ${type}`], variables: value === undefined ? {} : { [name]: value } };
  });
  const required = isNonNullType(arg.type) && !noise;
  return fc.oneof(
    { weight: 3, arbitrary: inline },
    { weight: 2, arbitrary: variable },
    { weight: required ? 0 : 1, arbitrary: fc.constant(undefined) },
  );
}

/** `(name: value, ...)` for a field's arguments; with noise, maybe an unknown one too. */
function argumentsFor(field: GraphQLField<unknown, unknown>, noise: boolean): fc.Arbitrary<Piece> {
  const unknown = noise
    ? fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: anyValue.map((value): Piece => ({ text: `nope: ${literal(value)}`, definitions: [], variables: {} })) })
    : fc.constant(undefined);
  return fc.tuple(fc.tuple(...field.args.map((arg) => argument(arg, noise))), unknown).map(([args, extra]) => {
    const given = joined([...args, extra].filter((piece): piece is Piece => piece !== undefined), ', ');
    return { ...given, text: given.text ? `(${given.text})` : '' };
  });
}

const text = (value: string): Piece => ({ text: value, definitions: [], variables: {} });

const ODDITIES = ['nope', 'nope { id }', '__schema { queryType { name } }', '... on Nope { id }', '...Parts', '...Missing', '... { __typename }', 'id @nope', 'id @include', 'id @skip(if: "yes")', 'id @defer', 'id @cacheControl(maxAge: 1)'] as const;

/** One selection on `type`: a real field (maybe aliased, with arguments and a sub-selection), or with noise something that is not. */
function selectionOn(type: GraphQLObjectType, depth: number, noise: boolean): fc.Arbitrary<Piece> {
  const fields = Object.values(type.getFields());
  const field = fc.constantFrom(...fields).chain((chosen) => {
    const named = getNamedType(chosen.type);
    const children = !isObjectType(named) ? fc.constant(text(''))
      : depth > 0 ? selectionSetOn(named, depth - 1, noise) : fc.constant(text('{ __typename }'));
    return fc.tuple(argumentsFor(chosen, noise), fc.constantFrom('', '', '', ' @include(if: true)', ' @skip(if: false)'), children)
      .map(([args, directive, sub]) => {
        const parts = joined([args, sub], ' ');
        return { ...parts, text: `${chosen.name}${args.text}${directive} ${sub.text}` };
      });
  });
  return noise ? fc.oneof({ weight: 6, arbitrary: field }, { weight: 1, arbitrary: fc.constantFrom(...ODDITIES).map(text) }) : field;
}

/** One to three selections; fields after the first get aliases, so that two with different arguments do not conflict. */
function selectionSetOn(type: GraphQLObjectType, depth: number, noise: boolean): fc.Arbitrary<Piece> {
  return fc.array(selectionOn(type, depth, noise), { minLength: 1, maxLength: 3 }).map((selections) => {
    const aliased = selections.map((selection, i) => (i === 0 || selection.text.startsWith('...') ? selection : { ...selection, text: `f${i}: ${selection.text}` }));
    const set = joined(aliased, ' ');
    return { ...set, text: `{ ${set.text} }` };
  });
}

const FRAGMENTS = ['fragment Parts on Product { id name }', 'fragment Parts on Style { id }', 'fragment Parts on Product { ...Parts }', 'fragment Unused on Nope { x }'] as const;

/** An operation on Query or Mutation; with noise, maybe a subscription (there is none), two operations, or fragments. */
function operationOf(noise: boolean): fc.Arbitrary<Operation> {
  return fc.record({
    kind: fc.constantFrom('query', 'query', 'query', 'mutation', ...(noise ? ['subscription'] : [])),
    depth: fc.integer({ min: 0, max: 2 }),
    extra: noise
      ? fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('{ __typename }', 'query Fuzz { __typename }', ...FRAGMENTS) })
      : fc.constant(undefined),
  }).chain(({ kind, depth, extra }) => {
    const root = kind === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
    return selectionSetOn(root, depth, noise).map((selections) => {
      const definitions = selections.definitions.length ? `(${selections.definitions.join(', ')})` : '';
      const document = `${kind} Fuzz${definitions} ${selections.text}${extra === undefined ? '' : `\n${extra}`}`;
      return { document, variables: selections.variables };
    });
  });
}

/** An operation generated from the schema: mostly valid GraphQL with hostile values, else with noise. */
export const schemaOperation: fc.Arbitrary<Operation> = fc.oneof({ weight: 3, arbitrary: operationOf(false) }, { weight: 2, arbitrary: operationOf(true) });

/** A document with one character inserted, removed or replaced, or cut short: a syntax error, mostly. */
const brokenDocument: fc.Arbitrary<string> = fc.tuple(
  schemaOperation, fc.nat(), fc.constantFrom('insert', 'remove', 'replace', 'cut'), fc.constantFrom(...'{}()[]:$@!".,=|&#\\\u0000\u00a0\ufeff😀'),
).map(([{ document }, at, edit, char]) => {
  const i = at % (document.length + 1);
  if (edit === 'insert') return document.slice(0, i) + char + document.slice(i);
  if (edit === 'remove') return document.slice(0, i) + document.slice(i + 1);
  if (edit === 'replace') return document.slice(0, i) + char + document.slice(i + 1);
  return document.slice(0, i);
});

/**
 * Documents big in one dimension: nesting (selections on a product that does
 * not exist, so nothing runs deep; list or object literals), breadth (aliases,
 * repeated fields), length (a huge literal, a long comment), tokens, variables.
 */
const hugeDocument: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 10, max: 3000 }).map((n) => `{ product(id: "999999") ${'{ related '.repeat(n)}{ id }${' }'.repeat(n)} }`),
  fc.integer({ min: 10, max: 3000 }).map((n) => `{ product(id: ${'['.repeat(n)}"1"${']'.repeat(n)}) { id } }`),
  fc.integer({ min: 10, max: 3000 }).map((n) => `mutation { createProduct(input: ${'{ name: '.repeat(n)}"x"${' }'.repeat(n)}) { id } }`),
  fc.integer({ min: 10, max: 1000 }).map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: product(id: "${(i % 600) + 1}") { id }`).join(' ')} }`),
  fc.integer({ min: 10, max: 400 }).map((n) => `{ ${'product(id: "1") { id } '.repeat(n)}}`),
  fc.integer({ min: 10_000, max: 900_000 }).map((n) => `{ product(id: "${'9'.repeat(n)}") { id } }`),
  fc.integer({ min: 10_000, max: 900_000 }).map((n) => `# ${'x'.repeat(n)}\n{ products(count: 1) { id } }`),
  fc.integer({ min: 1000, max: 50_000 }).map((n) => `{ ${'__typename '.repeat(n)}}`),
  fc.integer({ min: 100, max: 2000 }).map((n) => `query Q(${Array.from({ length: n }, (_, i) => `$v${i}: Int`).join(', ')}) { __typename }`),
);

/** Any document text: from the schema, broken, huge, or plain random text. */
export const anyDocument: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: schemaOperation.map((operation) => operation.document) },
  { weight: 3, arbitrary: brokenDocument },
  { weight: 1, arbitrary: hugeDocument },
  { weight: 1, arbitrary: fc.oneof(anyText, fc.constantFrom('', ' ', '{', '}', '{}', 'query', '# only a comment', 'subscription { x }', ...INJECTIONS)) },
);
