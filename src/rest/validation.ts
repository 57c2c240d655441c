// Request validation of the REST routes from their route schemas
// (./schemas.ts): Fastify's validator compiler for the REST scope, on Ajv's
// draft 2020-12 (the OpenAPI 3.1 dialect, so the document and the server read
// the schemas alike), and the legacy error messages, which name the field:
//
//   400 {"error": "count must be a positive integer (got \"hello\")"}
//   400 {"error": "default_price: must be a price from 0 to 99999999.99: ..."}
//   400 {"error": "If-Match: must be \"*\" or a list of entity tags ..."}
//
// Path and query parameters are text: a value of an integer parameter is
// turned into a number only when it is written as one exactly (`5`, never
// `05`, `5.0`, `1e3` or ` 5`), so the rest of the route sees numbers.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifySchemaCompiler } from 'fastify';
import { BadRequest } from './params.ts';
import { MAX_INT, MESSAGE } from './schemas.ts';

type Schema = Record<string, unknown>;

const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A JSON pointer inside a body as the legacy messages name it: `features[0].feature`. */
function fieldName(pointer: string): string {
  let name = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^(0|[1-9][0-9]*)$/.test(part)) name += `[${part}]`;
    else name += name === '' ? (IDENTIFIER.test(part) ? part : JSON.stringify(part)) : (IDENTIFIER.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`);
  }
  return name === '' ? 'body' : name;
}

/** `if-match` as HTTP spells it: `If-Match`. */
const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_m, dash: string, letter: string) => dash + letter.toUpperCase());

/** The message of an x-message annotation for a failed keyword, if the schema has one. */
function annotated(schema: unknown, keyword: string): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const message = (schema as Schema)[MESSAGE];
  if (typeof message === 'string') return message;
  if (typeof message === 'object' && message !== null) return (message as Record<string, string>)[keyword];
  return undefined;
}

/** A body's or header's first problem, named and explained. */
function describe(errors: ErrorObject[], name: (pointer: string) => string): string {
  const first = errors[0]!;
  if (first.keyword === 'additionalProperties') {
    const extra = (first.params as { additionalProperty: string }).additionalProperty;
    return `${name(`${first.instancePath}/${extra.replace(/~/g, '~0').replace(/\//g, '~1')}`)}: ${annotated(first.parentSchema, first.keyword) ?? 'is not allowed'}`;
  }
  // "At least one of" (anyOf of required): its own message, not its first branch's.
  const atLeastOne = errors.find((error) => error.keyword === 'anyOf' && error.instancePath === first.instancePath && annotated(error.parentSchema, 'anyOf'));
  if (first.keyword === 'required' && atLeastOne) return `${name(first.instancePath)}: ${annotated(atLeastOne.parentSchema, 'anyOf')}`;
  if (first.keyword === 'required') {
    const missing = (first.params as { missingProperty: string }).missingProperty;
    return `${name(`${first.instancePath}/${missing.replace(/~/g, '~0').replace(/\//g, '~1')}`)}: is required`;
  }
  // oneOf/anyOf report their branches' errors first: the message is the one the
  // field's own schema gives, wherever in its errors it comes.
  const same = errors.filter((error) => error.instancePath === first.instancePath);
  for (const error of [...same].reverse()) {
    const message = annotated(error.parentSchema, error.keyword);
    if (message) return `${name(first.instancePath)}: ${message}`;
  }
  return `${name(first.instancePath)}: ${first.message ?? 'is not valid'}`;
}

/** A path or query parameter's problem, in the legacy words. */
function describeParameter(errors: ErrorObject[], raw: Record<string, unknown>, schema: Schema): string {
  const first = errors[0]!;
  const field = first.keyword === 'required' ? (first.params as { missingProperty: string }).missingProperty : first.instancePath.slice(1).split('/')[0]!;
  const value = raw[field];
  if (Array.isArray(value)) return `${field} must be given once`;
  const property = ((schema.properties ?? {}) as Record<string, Schema>)[field] ?? {};
  const maximum = property.maximum;
  if (first.keyword === 'maximum' && typeof maximum === 'number' && maximum < MAX_INT && typeof value === 'string' && Number(value) <= MAX_INT) {
    return `${field} must be at most ${maximum} (got ${Number(value)})`;
  }
  return `${field} must be a positive integer (got ${JSON.stringify(value ?? null)})`;
}

/** Integer parameters given as exact integer text become numbers; everything else stays as it came. */
function coerceParameters(data: unknown, schema: Schema): Record<string, unknown> {
  const input = (data ?? {}) as Record<string, unknown>;
  const output: Record<string, unknown> = { ...input };
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const value = input[name];
    if (property.type === 'integer' && typeof value === 'string' && INTEGER_TEXT.test(value)) output[name] = Number(value);
  }
  return output;
}

/**
 * The validator compiler of the REST scope. `shared` are the component
 * schemas (with their `$id`) the route schemas refer to.
 */
export function restValidatorCompiler(shared: Schema[]): FastifySchemaCompiler<Schema> {
  const ajv = new Ajv2020({
    // Every error's schema, for its x-message; defaults (page, count) filled in.
    verbose: true,
    useDefaults: true,
    allErrors: false,
    // Prices and counts: no coercion beyond coerceParameters' exact one.
    coerceTypes: false,
    strict: true,
    strictRequired: false,
    // `format` is an annotation in 2020-12 (the request schemas use none).
    validateFormats: false,
  });
  ajv.addVocabulary([MESSAGE]);
  for (const schema of shared) ajv.addSchema(schema);

  return ({ schema, httpPart }) => {
    const validate: ValidateFunction = ajv.compile(schema);
    if (httpPart === 'params' || httpPart === 'querystring') {
      return (data: unknown) => {
        const value = coerceParameters(data, schema);
        if (validate(value)) return { value };
        return { error: new BadRequest(describeParameter(validate.errors ?? [], (data ?? {}) as Record<string, unknown>, schema)) };
      };
    }
    const name = httpPart === 'headers' ? (pointer: string) => headerName(pointer.slice(1)) : fieldName;
    return (data: unknown) => {
      if (validate(data)) return { value: data };
      return { error: new BadRequest(describe(validate.errors ?? [], name)) };
    };
  };
}
