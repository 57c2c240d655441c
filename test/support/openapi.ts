// Checks real REST responses against the OpenAPI document (src/rest/openapi.ts):
// finds the operation for a concrete method and path, requires the status to be
// documented for it, and validates the JSON body with a draft 2020-12 JSON
// Schema validator (Ajv 2020). A mismatch throws an error listing every
// violation, with the path inside the body and the offending value.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { loadConfig } from '../../src/config.ts';
import { buildOpenApiDocument } from '../../src/rest/openapi-offline.ts';
import { HTTP_METHODS, type HttpMethod, type JsonSchema, type OpenApiDocument, type OperationObject } from '../../src/rest/openapi.ts';

export interface ObservedResponse {
  method: string;
  /** The concrete URL path, e.g. /products/5/styles (a query string is ignored). */
  path: string;
  status: number;
  /** The parsed JSON body; undefined (or '') for a response without one. */
  body: unknown;
  /** When given, must be one of the documented media types (parameters ignored). */
  contentType?: string;
}

const defaultConfig = loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'test' });
/** Built once per test file (by @fastify/swagger from the route schemas, as the server does). */
const DEFAULT_DOCUMENT = await buildOpenApiDocument({ campus: defaultConfig.legacyCampus, maxPageSize: defaultConfig.maxPageSize, emptyPlaceholders: defaultConfig.legacyEmptyPlaceholders });

/** The document the test servers describe: built from the default configuration (a copy). */
export function defaultOpenApiDocument(): OpenApiDocument {
  return structuredClone(DEFAULT_DOCUMENT);
}

/**
 * A new Ajv for OpenAPI 3.1 schemas: draft 2020-12, strict (unknown keywords are
 * errors), formats checked. strictRequired is off, as in the server's validator (src/rest/validation.ts).
 */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  formats.default(ajv);
  return ajv;
}

const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;

/** Rewrites `#/components/schemas/X` to `#/$defs/X`, so a schema can be compiled on its own. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => {
    if (key === '$ref' && typeof inner === 'string') {
      const match = COMPONENT_REF.exec(inner);
      if (!match) throw new Error(`unsupported $ref ${inner} (only #/components/schemas/... refs are supported in schemas)`);
      return [key, `#/$defs/${match[1]}`];
    }
    return [key, rewriteRefs(inner)];
  }));
}

/** A compiled validator for one schema of the document, with all component schemas available to its refs. */
export function compileSchema(document: OpenApiDocument, schema: JsonSchema, ajv: Ajv2020 = createAjv()): ValidateFunction {
  const $defs = rewriteRefs(document.components.schemas) as Record<string, JsonSchema>;
  const root = typeof schema === 'boolean' ? { allOf: [schema] } : (rewriteRefs(schema) as Record<string, unknown>);
  return ajv.compile({ ...root, $defs });
}

/** Follows a local `$ref` (e.g. to #/components/responses/NotFound) to the object it names. */
export function resolveRef<T>(document: OpenApiDocument, value: T | { $ref: string }): T {
  let current: unknown = value;
  for (let hops = 0; hops < 10; hops++) {
    if (typeof current !== 'object' || current === null || !('$ref' in current) || typeof current.$ref !== 'string') return current as T;
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local refs are supported, got ${ref}`);
    current = ref.slice(2).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], document);
    if (current === undefined) throw new Error(`$ref ${ref} does not resolve`);
  }
  throw new Error('$ref chain too long');
}

function templateRegExp(template: string): RegExp {
  const source = template.split(/(\{[^}]+\})/).map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`);
}

/** The path template matching a concrete path: a literal template wins over a templated one (OpenAPI's rule). */
export function findPathTemplate(document: OpenApiDocument, concretePath: string): string | undefined {
  const pathOnly = concretePath.split(/[?#]/)[0] ?? concretePath;
  const matches = Object.keys(document.paths).filter((template) => templateRegExp(template).test(pathOnly));
  return matches.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0];
}

export function findOperation(document: OpenApiDocument, method: string, concretePath: string): { template: string; method: HttpMethod; operation: OperationObject } {
  const template = findPathTemplate(document, concretePath);
  if (!template) throw new Error(`OpenAPI: no path in the document matches ${concretePath} (paths: ${Object.keys(document.paths).join(', ')})`);
  const lower = method.toLowerCase() as HttpMethod;
  const item = document.paths[template]!;
  const operation = HTTP_METHODS.includes(lower) ? item[lower] : undefined;
  if (!operation) {
    const documented = HTTP_METHODS.filter((m) => item[m]).map((m) => m.toUpperCase());
    throw new Error(`OpenAPI: ${method.toUpperCase()} ${template} is not documented (documented methods: ${documented.join(', ')})`);
  }
  return { template, method: lower, operation };
}

interface ResponseObject {
  description: string;
  content?: Record<string, { schema?: JsonSchema }>;
}

function formatErrors(errors: ErrorObject[], body: unknown): string {
  return errors.map((error) => {
    const at = error.instancePath === '' ? '(body)' : error.instancePath;
    const value = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], body);
    const extra = error.keyword === 'additionalProperties' ? ` "${String((error.params as { additionalProperty: string }).additionalProperty)}"` : '';
    const shown = JSON.stringify(value);
    return `  - ${at} ${error.message ?? error.keyword}${extra} (schema ${error.schemaPath}; value ${shown === undefined ? 'undefined' : shown.length > 120 ? `${shown.slice(0, 117)}...` : shown})`;
  }).join('\n');
}

const validators = new WeakMap<OpenApiDocument, Map<string, ValidateFunction>>();
let defaultDocument: OpenApiDocument | undefined;

/**
 * Throws unless `response` is what the document promises: the operation exists,
 * the status is documented for it (exactly, or by range like 4XX, or `default`),
 * and the body validates against that status's schema (no body when none is documented).
 */
export function assertMatchesOpenApi(response: ObservedResponse, document: OpenApiDocument = (defaultDocument ??= defaultOpenApiDocument())): void {
  const { template, method, operation } = findOperation(document, response.method, response.path);
  const label = `${method.toUpperCase()} ${response.path} (${template}) -> ${response.status}`;
  const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((key) => key in operation.responses);
  if (!statusKey) {
    throw new Error(`OpenAPI: ${label}: status ${response.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
  }
  const documented = resolveRef<ResponseObject>(document, operation.responses[statusKey] as ResponseObject);
  const mediaTypes = Object.keys(documented.content ?? {});
  if (mediaTypes.length === 0) {
    if (response.body !== undefined && response.body !== '' && response.body !== null) {
      throw new Error(`OpenAPI: ${label}: no body is documented, got ${JSON.stringify(response.body)}`);
    }
    return;
  }
  if (response.contentType !== undefined) {
    const essence = response.contentType.split(';')[0]!.trim().toLowerCase();
    if (!mediaTypes.includes(essence)) throw new Error(`OpenAPI: ${label}: content type ${response.contentType} is not documented (documented: ${mediaTypes.join(', ')})`);
  }
  const mediaType = mediaTypes.includes('application/json') ? 'application/json' : mediaTypes[0]!;
  const schema = documented.content![mediaType]!.schema;
  if (schema === undefined) return;

  let cache = validators.get(document);
  if (!cache) validators.set(document, (cache = new Map()));
  const key = `${method} ${template} ${statusKey} ${mediaType}`;
  let validate = cache.get(key);
  if (!validate) cache.set(key, (validate = compileSchema(document, schema)));
  if (!validate(response.body)) {
    const errors = validate.errors ?? [];
    throw new Error(`OpenAPI: ${label}: the body does not match the documented schema (${errors.length} violation${errors.length === 1 ? '' : 's'}):\n${formatErrors(errors, response.body)}\nbody: ${truncate(JSON.stringify(response.body))}`);
  }
}

function truncate(text: string | undefined, max = 2000): string {
  if (text === undefined) return 'undefined';
  return text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;
}
