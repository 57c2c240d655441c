// The legacy REST routes' contract as Fastify route schemas: the one source of
// request validation (./validation.ts compiles them with Ajv, draft 2020-12),
// response serialization (fast-json-stringify, for the objects the write routes
// send; the read routes send cached JSON text) and the OpenAPI 3.1 document
// (@fastify/swagger publishes them, ./openapi.ts). Shapes in ./shapes.ts,
// contract in ../shared/legacy-api.md.
//
// Responses are described exactly, tightly: every response object has
// `additionalProperties: false`, prices are two-decimal strings, nullability is
// spelled out. Tests run real responses through these schemas
// (test/support/openapi.ts) and schemathesis runs the document against the
// server (test/rest/schemathesis.test.ts), so any drift between code and
// document fails.
//
// Request text rules are spelled out so that any JSON Schema validator agrees
// with the server: lengths in characters (code points), no NUL (Postgres text
// cannot hold it: a pattern), and "blank" means only the whitespace
// String.prototype.trim removes (an explicit list: regular expression engines
// disagree on \s). Text must be Unicode: a lone surrogate (JSON's "\ud800") or
// invalid UTF-8 is refused by the JSON parser (src/http/json-input.ts) before
// validation; the document says so in words, as patterns with surrogates are
// not portable (Rust's regex, used by schemathesis's validator, has none).
import { IDEMPOTENCY_KEY_PATTERN } from '../catalog/writes/idempotency.ts';
import { IF_MATCH_PATTERN } from './entity-tags.ts';
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE } from '../catalog/reads/listing-anchors.ts';
import { POSTGRES_INT_MAX } from '../db/integers.ts';

export interface OpenApiOptions {
  /** `campus` of every product object (config legacyCampus). */
  campus: string;
  /** Largest `count` accepted by GET /products (config maxPageSize). */
  maxPageSize: number;
  /** Styles without photos/skus get null placeholders (config legacyEmptyPlaceholders). */
  emptyPlaceholders: boolean;
  /** Reads need an API key too (config apiKeysForReads = required); writes always do. */
  readsNeedKey?: boolean;
}

/** A JSON Schema (draft 2020-12, the OpenAPI 3.1 dialect). */
export type JsonSchema = { [keyword: string]: unknown } | boolean;

/** Postgres `integer` ids: the largest id a route accepts. */
/** Ids and page numbers: Postgres integers. */
export const MAX_INT = POSTGRES_INT_MAX;
/** Prices are numeric(10,2). */
const MAX_PRICE = 99_999_999.99;

/**
 * The message a request schema gives when a value fails it (the field's name
 * is put in front): a string, or one per failing keyword. Only read by
 * ./validation.ts; an `x-` annotation, which validators ignore.
 */
export const MESSAGE = 'x-message';

/** The whitespace String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator). */
const TRIMMED = '\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** The character text may not hold: NUL. */
const NOT_TEXT = '\\u0000';
/** Any text without NUL. */
export const TEXT_PATTERN = `^[^${NOT_TEXT}]*$`;
/** Such text with at least one character that is not whitespace. */
export const NON_BLANK_PATTERN = `^[${TRIMMED}]*[^${NOT_TEXT}${TRIMMED}][^${NOT_TEXT}]*$`;
/** A price as a string: up to 8 digits and 2 decimals, surrounding whitespace allowed. */
const PRICE_PATTERN = `^[${TRIMMED}]*(0|[1-9][0-9]{0,7})(\\.[0-9]{1,2})?[${TRIMMED}]*$`;

const ref = (name: string) => ({ $ref: `${name}#` });

const EXAMPLE_DATE = '2021-08-13T14:38:44.509Z';

const text = (maxLength: number, message: string, extra: Record<string, unknown> = {}) => ({
  type: 'string', maxLength, pattern: TEXT_PATTERN, [MESSAGE]: message, ...extra,
});
const nonBlank = (maxLength: number, message: string, extra: Record<string, unknown> = {}) => ({
  type: 'string', minLength: 1, maxLength, pattern: NON_BLANK_PATTERN, [MESSAGE]: message, ...extra,
});

/** A product's fields as read (the list item's, and the detail's besides its features). */
function productProperties(campus: string) {
  return {
    id: { type: 'integer', minimum: 1, maximum: MAX_INT, description: 'Product id.', examples: [1] },
    campus: { type: 'string', const: campus, description: 'Always the configured campus (kept for legacy clients).' },
    name: { type: 'string', examples: ['Camo Onesie'] },
    slogan: { type: 'string', examples: ['Blend in to your crowd'] },
    description: { type: 'string', examples: ['The So Fatigues will wake you up and fit you in.'] },
    category: { type: 'string', examples: ['Jackets'] },
    default_price: ref('Money'),
    created_at: ref('Timestamp'),
    updated_at: ref('Timestamp'),
  };
}

/** A style's photos and skus, with the live service's placeholders when they are on. */
function stylePhotosAndSkus(emptyPlaceholders: boolean) {
  const photo = {
    type: 'object',
    properties: { thumbnail_url: { type: 'string' }, url: { type: 'string' } },
    required: ['thumbnail_url', 'url'],
    additionalProperties: false,
  };
  const skuKey = '^[1-9][0-9]*$';
  const skuMap = {
    type: 'object',
    description: 'Skus keyed by sku id (a decimal string), in sku id order. Sizes may repeat inside a style.',
    propertyNames: { pattern: skuKey },
    additionalProperties: ref('Sku'),
  };

  // With placeholders on, an empty list or map is never sent: the live
  // service's null placeholder is sent instead.
  const photos = emptyPlaceholders
    ? {
      description: 'Photos in photo id order; a style without photos has the single placeholder `[{"thumbnail_url": null, "url": null}]`.',
      oneOf: [{ type: 'array', items: ref('Photo'), minItems: 1 }, ref('PhotosPlaceholder')],
    }
    : { type: 'array', items: ref('Photo'), description: 'Photos in photo id order (empty when the style has none).' };
  const skus = emptyPlaceholders
    ? {
      description: 'Skus keyed by sku id; a style without skus has the single placeholder `{"null": {"quantity": null, "size": null}}`.',
      oneOf: [{ ...skuMap, minProperties: 1 }, ref('SkusPlaceholder')],
    }
    : { ...skuMap, description: `${skuMap.description} Empty when the style has none.` };
  return { photo, photos, skus };
}

const textRule = 'Unicode text (no lone surrogate such as "\\ud800", no invalid UTF-8) without NUL characters';
const WRITE_FIELDS = {
  name: nonBlank(255, 'must be a string of 1 to 255 characters, not blank, without NUL characters', { description: `${textRule}; trimmed; must not be blank.` }),
  slogan: text(1000, 'must be a string of at most 1000 characters, without NUL characters', { description: `${textRule}; trimmed.` }),
  description: text(10_000, 'must be a string of at most 10000 characters, without NUL characters', { description: `${textRule}; trimmed.` }),
  category: nonBlank(255, 'must be a string of 1 to 255 characters, not blank, without NUL characters', { description: `${textRule}; trimmed; must not be blank.` }),
  default_price: {
    description: 'From 0 to 99999999.99: a string with at most two decimals ("140", "140.5", "140.00"), or a number, which is rounded to the cent (send a string for an exact amount).',
    oneOf: [
      { type: 'string', pattern: PRICE_PATTERN },
      { type: 'number', minimum: 0, maximum: MAX_PRICE },
    ],
    [MESSAGE]: 'must be a price from 0 to 99999999.99: a string with at most two decimals (e.g. "140.00") or a number',
  },
  features: {
    type: 'array',
    maxItems: 100,
    description: 'Replaces all the product\'s features, in this order.',
    items: ref('FeatureInput'),
    [MESSAGE]: 'must be a list of at most 100 {feature, value} objects',
  },
};

/** The schemas of what the routes answer. */
function readSchemas(options: OpenApiOptions): Record<string, Record<string, unknown>> {
  const product = productProperties(options.campus);
  const productKeys = Object.keys(product);
  const { photo, photos, skus } = stylePhotosAndSkus(options.emptyPlaceholders);
  return {
    Money: {
      type: 'string',
      pattern: '^\\d+\\.\\d{2}$',
      description: 'An amount with exactly two decimals, as a string (never a number).',
      examples: ['140.00'],
    },
    Timestamp: { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$', examples: [EXAMPLE_DATE] },
    ProductListItem: {
      type: 'object',
      description: 'A product as listed by GET /products (no `features`).',
      properties: product,
      required: productKeys,
      additionalProperties: false,
    },
    Feature: {
      type: 'object',
      properties: { feature: { type: 'string', examples: ['Fabric'] }, value: { type: ['string', 'null'], examples: ['Canvas'] } },
      required: ['feature', 'value'],
      additionalProperties: false,
    },
    Product: {
      type: 'object',
      description: 'A product with its features (in feature id order).',
      properties: { ...product, features: { type: 'array', items: ref('Feature') } },
      required: [...productKeys, 'features'],
      additionalProperties: false,
    },
    Photo: photo,
    PhotosPlaceholder: {
      type: 'array',
      description: 'The legacy placeholder for a style without photos.',
      items: {
        type: 'object',
        properties: { thumbnail_url: { type: 'null' }, url: { type: 'null' } },
        required: ['thumbnail_url', 'url'],
        additionalProperties: false,
      },
      minItems: 1,
      maxItems: 1,
    },
    Sku: {
      type: 'object',
      properties: { quantity: { type: 'integer', minimum: 0, examples: [8] }, size: { type: 'string', examples: ['XS'] } },
      required: ['quantity', 'size'],
      additionalProperties: false,
    },
    SkusPlaceholder: {
      type: 'object',
      description: 'The legacy placeholder for a style without skus: one key, the string "null".',
      properties: {
        null: {
          type: 'object',
          properties: { quantity: { type: 'null' }, size: { type: 'null' } },
          required: ['quantity', 'size'],
          additionalProperties: false,
        },
      },
      required: ['null'],
      additionalProperties: false,
    },
    Style: {
      type: 'object',
      properties: {
        style_id: { type: 'integer', minimum: 1, examples: [1] },
        name: { type: 'string', examples: ['Forest Green & Black'] },
        original_price: ref('Money'),
        sale_price: { oneOf: [ref('Money'), { type: 'null' }], description: '`null` when the style is not on sale (never "0" or "null").' },
        'default?': { type: 'boolean' },
        photos,
        skus,
      },
      required: ['style_id', 'name', 'original_price', 'sale_price', 'default?', 'photos', 'skus'],
      additionalProperties: false,
    },
    ProductStyles: {
      type: 'object',
      properties: {
        product_id: { type: 'string', pattern: '^[1-9][0-9]*$', description: 'The product id, as a string.', examples: ['1'] },
        results: { type: 'array', items: ref('Style'), description: 'Styles in style id order; empty for a product without styles.' },
      },
      required: ['product_id', 'results'],
      additionalProperties: false,
    },
    RelatedProducts: {
      type: 'array',
      description: 'Related product ids in related-row order. Duplicates are kept; never 0, never an id that does not exist.',
      items: { type: 'integer', minimum: 1, maximum: MAX_INT },
      examples: [[2, 3, 8, 7]],
    },
    Error: {
      type: 'object',
      properties: { error: { type: 'string', minLength: 1, description: 'A human-readable message.' } },
      required: ['error'],
      additionalProperties: false,
    },
  };
}

/** The schemas of what the writes take. */
function writeSchemas(options: OpenApiOptions): Record<string, Record<string, unknown>> {
  // A product as read carries these too: a PUT of it, edited, ignores them.
  const readOnlyFields = Object.fromEntries(Object.keys(productProperties(options.campus)).filter((key) => !(key in WRITE_FIELDS)).map((key) => [key, { description: 'Read-only: ignored.' }]));
  return {
    FeatureInput: {
      type: 'object',
      properties: {
        feature: nonBlank(255, 'must be a non-empty string of at most 255 characters, without NUL characters'),
        value: { ...text(255, 'must be a string of at most 255 characters without NUL characters, or null'), type: ['string', 'null'] },
      },
      required: ['feature'],
      description: 'A missing `value` is stored as null. Text as for the product fields: Unicode, no NUL characters. Other properties are ignored.',
      [MESSAGE]: 'must be an object {feature, value}',
    },
    ProductCreate: {
      type: 'object',
      description: 'Other properties are ignored.',
      properties: WRITE_FIELDS,
      required: ['name', 'slogan', 'description', 'category', 'default_price'],
      examples: [{
        name: 'Camo Onesie', slogan: 'Blend in to your crowd', description: 'The So Fatigues will wake you up and fit you in.',
        category: 'Jackets', default_price: '140.00', features: [{ feature: 'Fabric', value: 'Canvas' }],
      }],
      [MESSAGE]: { type: 'must be a JSON object' },
    },
    ProductUpdate: {
      type: 'object',
      description: 'Any subset of the create fields, at least one. The read-only fields of a product as read (`id`, `created_at`, …) are ignored, so a product read, edited and sent back is accepted; any other property is refused (400: a misspelt field would otherwise change nothing). `features` replaces all features.',
      properties: { ...WRITE_FIELDS, ...readOnlyFields },
      anyOf: Object.keys(WRITE_FIELDS).map((key) => ({ required: [key] })),
      additionalProperties: false,
      examples: [{ default_price: '120.00' }],
      [MESSAGE]: {
        type: 'must be a JSON object',
        anyOf: `must contain at least one of the fields ${Object.keys(WRITE_FIELDS).join(', ')}`,
        additionalProperties: 'is not a product field',
      },
    },
  };
}

/** The shared schemas (`components.schemas` of the document), each with its `$id`. */
export function componentSchemas(options: OpenApiOptions): Record<string, { $id: string } & Record<string, unknown>> {
  const schemas = { ...readSchemas(options), ...writeSchemas(options) };
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, { $id: name, ...schema }]));
}

const EXAMPLE_PRODUCT = (campus: string) => ({
  id: 1,
  campus,
  name: 'Camo Onesie',
  slogan: 'Blend in to your crowd',
  description: 'The So Fatigues will wake you up and fit you in. This high energy camo will have you blending in to even the wildest surroundings.',
  category: 'Jackets',
  default_price: '140.00',
  created_at: EXAMPLE_DATE,
  updated_at: EXAMPLE_DATE,
});

/** A response with a JSON body: `examples` as OpenAPI named examples. */
function jsonResponse(description: string, schema: unknown, example?: unknown, extra: { headers?: Record<string, unknown>; examples?: Record<string, unknown> } = {}) {
  const media: Record<string, unknown> = { schema };
  if (example !== undefined) media.example = example;
  if (extra.examples) media.examples = Object.fromEntries(Object.entries(extra.examples).map(([k, v]) => [k, { value: v }]));
  return { description, ...(extra.headers ? { headers: extra.headers } : {}), content: { 'application/json': media } };
}

const errorResponse = (description: string, example: string, headers?: Record<string, unknown>) =>
  jsonResponse(description, ref('Error'), { error: example }, headers ? { headers } : {});

const ETAG_HEADER = {
  description: 'The product\'s version as a strong entity tag: new at every write of the product (its fields or features), never reused.',
  type: 'string',
  pattern: '^"[0-9]+"$',
};

/** A strong entity tag of the exact bytes of a read answer (reads other than the detail). */
const BODY_ETAG_HEADER = {
  description: 'A strong entity tag of the answer (a hash of its bytes): send it back in If-None-Match to get a 304 while nothing changed.',
  type: 'string',
  pattern: '^"[A-Za-z0-9_-]+"$',
};

/** What browsers and CDNs may do with a read answer (docs/caching.md, "HTTP caching"). */
const CACHE_HEADERS = {
  'Cache-Control': {
    description: '`no-cache` by default (keep, but revalidate with the ETag every time); `public, max-age=…, s-maxage=…` where configured, never beyond the schema\'s hint for what the answer shows.',
    type: 'string',
  },
  'Surrogate-Key': { description: 'The products the answer shows (`p:<id>`, `listing`; `all` past 64), space-separated: what the CDN purge hook names after a write.', type: 'string' },
  'Cache-Tag': { description: 'The same tags, comma-separated (Cloudflare, Akamai).', type: 'string' },
};

const ifNoneMatchHeaders = {
  type: 'object',
  properties: {
    'If-None-Match': {
      type: 'string',
      description: 'The `ETag`s the client already has: 304 without a body while the answer is still one of them.',
      examples: ['"1000342"'],
    },
  },
};

/** A read's 200 and 304 with their caching headers. */
const cachedRead = (ok: ReturnType<typeof jsonResponse>, etag: unknown) => ({
  200: { ...ok, headers: { ...(ok as { headers?: object }).headers, ETag: etag, ...CACHE_HEADERS } },
  304: { description: 'If-None-Match named the current ETag: what the client has is current. No body.', type: 'null', headers: { ETag: etag, ...CACHE_HEADERS } },
});

const ERRORS = {
  BadRequest: errorResponse('Malformed id, page or count, or an invalid request body or header (the message names it).', 'page must be a positive integer (got "hello")'),
  NotFound: errorResponse('No product with this id.', 'product 1000012 not found'),
  PayloadTooLarge: errorResponse('The request body is too large.', 'request body is too large'),
  UnsupportedMediaType: errorResponse('The request body is not application/json in UTF-8, or is sent with a Content-Encoding other than identity (bodies are never decompressed).', 'request body must be application/json'),
  InternalError: errorResponse('An unexpected error (details are logged, never sent).', 'internal server error'),
  Unavailable: errorResponse(
    'Postgres is unavailable (down, restarting, unreachable, or every connection busy past the queue timeout), or a write waited for its turn on a busy product past DATABASE_LOCK_TIMEOUT_MS and wrote nothing: try again after Retry-After seconds.',
    'database unavailable, try again shortly',
    { 'Retry-After': { description: 'Seconds to wait before trying again.', type: 'integer', minimum: 1 } },
  ),
};

const productIdParams = {
  type: 'object',
  properties: { product_id: { type: 'integer', minimum: 1, maximum: MAX_INT, description: 'A product id: a positive integer.', examples: [1] } },
  required: ['product_id'],
};

const ifMatchHeaders = {
  type: 'object',
  properties: {
    'If-Match': {
      type: 'string',
      pattern: IF_MATCH_PATTERN,
      description: 'Change the product only if it is still at one of these versions: the `ETag` it was read with (a list is allowed; weak tags never match), or `*` for any existing product.',
      examples: ['"1000342"'],
      [MESSAGE]: 'must be "*" or a list of entity tags as ETag gives them, e.g. "1234"',
    },
    'If-None-Match': {
      type: 'string',
      pattern: IF_MATCH_PATTERN,
      description: 'Change the product only if it is at none of these versions (weak tags count too), or, with `*`, never (it exists): a 412 otherwise (RFC 9110 13.1.2).',
      examples: ['"1000342"'],
      [MESSAGE]: 'must be "*" or a list of entity tags as ETag gives them, e.g. "1234"',
    },
  },
};

/** The schema of every REST route, by operation id (src/rest/routes.ts registers them). */
export function routeSchemas(options: OpenApiOptions) {
  const { campus, maxPageSize, emptyPlaceholders } = options;
  const listItem = EXAMPLE_PRODUCT(campus);
  const detail = { ...listItem, features: [{ feature: 'Fabric', value: 'Canvas' }, { feature: 'Buttons', value: null }] };
  const fullStyle = {
    style_id: 1,
    name: 'Forest Green & Black',
    original_price: '140.00',
    sale_price: null,
    'default?': true,
    photos: [{ thumbnail_url: 'https://images.example.com/1-thumb.jpg', url: 'https://images.example.com/1.jpg' }],
    skus: { 1: { quantity: 8, size: 'XS' }, 2: { quantity: 16, size: 'S' }, 3: { quantity: 10, size: 'XL' }, 4: { quantity: 3, size: 'XL' } },
  };
  const emptyStyle = {
    style_id: 2,
    name: 'Desert Brown & Tan',
    original_price: '140.00',
    sale_price: '100.00',
    'default?': false,
    photos: emptyPlaceholders ? [{ thumbnail_url: null, url: null }] : [],
    skus: emptyPlaceholders ? { null: { quantity: null, size: null } } : {},
  };

  const readErrors = { 400: ERRORS.BadRequest, 404: ERRORS.NotFound, 500: ERRORS.InternalError, 503: ERRORS.Unavailable };
  const bodyErrors = { 413: ERRORS.PayloadTooLarge, 415: ERRORS.UnsupportedMediaType };
  const conditionalErrors = {
    412: errorResponse('If-Match named none of the product\'s current version: someone changed it since it was read. Nothing was written; the `ETag` header gives the current version.',
      'product 1 has changed since version "1000342": it is now at version "1000345"; read it again and reapply your change', { ETag: ETAG_HEADER }),
    428: errorResponse('Only when the server requires conditional writes (WRITES_REQUIRE_IF_MATCH=on): the request had no If-Match.',
      'If-Match is required: send the ETag of the product as you last read it (GET /products/:product_id), or "*"'),
  };
  const tags = ['products'];

  return {
    listProducts: {
      operationId: 'listProducts',
      tags,
      summary: 'List products',
      description: 'Products in id order, starting at the `(page-1)*count + 1`-th. A page past the end is `[]`.',
      querystring: {
        type: 'object',
        properties: {
          page: { type: 'integer', minimum: 1, maximum: MAX_INT, default: DEFAULT_PAGE, description: 'Page number, from 1.' },
          count: { type: 'integer', minimum: 1, maximum: maxPageSize, default: Math.min(DEFAULT_PAGE_SIZE, maxPageSize), description: `Products per page, from 1 to ${maxPageSize}.` },
        },
      },
      headers: ifNoneMatchHeaders,
      response: {
        ...cachedRead(jsonResponse('A page of products (without features).', { type: 'array', items: ref('ProductListItem') }, [listItem]), BODY_ETAG_HEADER),
        400: ERRORS.BadRequest,
        500: ERRORS.InternalError,
        503: ERRORS.Unavailable,
      },
    },
    createProduct: {
      operationId: 'createProduct',
      tags,
      summary: 'Create a product',
      description: [
        'With an `Idempotency-Key` header, the product is created at most once per key: a retry with the same key and the same',
        'content (after validation: `"10"` and `10` are the same price) answers 201 with the product the first request created,',
        'as it is now, and the header `Idempotent-Replayed: true`; the same key with other content is a 422. Keys are kept for',
        '24 hours by default (IDEMPOTENCY_KEY_TTL_SECONDS) and shared with the GraphQL `createProduct` mutation.',
      ].join(' '),
      headers: {
        type: 'object',
        properties: {
          'Idempotency-Key': {
            type: 'string',
            pattern: IDEMPOTENCY_KEY_PATTERN,
            description: 'Makes a create safe to retry: 1 to 255 visible ASCII characters, e.g. a UUID, the same for every retry of one create.',
            examples: ['0b7c1c1e-8d57-4c38-9a4f-5f0e6a1f2c3d'],
            [MESSAGE]: 'must be 1 to 255 visible ASCII characters (e.g. a UUID), sent once',
          },
        },
      },
      body: { content: { 'application/json': { schema: ref('ProductCreate') } } },
      response: {
        201: jsonResponse('The created product (or, for a repeated Idempotency-Key, the product the first request created).', ref('Product'), detail, {
          headers: {
            'Idempotent-Replayed': { description: '`true` when an earlier request with this Idempotency-Key created the product.', type: 'string', const: 'true' },
            ETag: ETAG_HEADER,
          },
        }),
        400: ERRORS.BadRequest,
        404: errorResponse('Only with an Idempotency-Key: the product it created has been deleted since.', 'product 1000012, created with this Idempotency-Key, has been deleted since'),
        ...bodyErrors,
        422: errorResponse('The Idempotency-Key was already used for a create with different content.', 'Idempotency-Key "order-42" was already used for a create with different content; send a new key for a new product'),
        500: ERRORS.InternalError,
        503: ERRORS.Unavailable,
      },
    },
    getProduct: {
      operationId: 'getProduct',
      tags,
      summary: 'A product with its features',
      params: productIdParams,
      headers: ifNoneMatchHeaders,
      response: {
        ...cachedRead(jsonResponse('The product.', ref('Product'), detail), ETAG_HEADER),
        ...readErrors,
      },
    },
    updateProduct: {
      operationId: 'updateProduct',
      tags,
      summary: 'Update a product',
      description: 'Concurrent updates of one product are applied one after the other, each whole. With `If-Match`, only if the product is still at that version.',
      params: productIdParams,
      headers: ifMatchHeaders,
      body: { content: { 'application/json': { schema: ref('ProductUpdate') } } },
      response: {
        200: jsonResponse('The updated product.', ref('Product'), { ...detail, default_price: '120.00' }, { headers: { ETag: ETAG_HEADER } }),
        ...readErrors,
        ...bodyErrors,
        ...conditionalErrors,
      },
    },
    deleteProduct: {
      operationId: 'deleteProduct',
      tags,
      summary: 'Delete a product (with its features, styles, photos, skus and related rows)',
      description: 'With `If-Match`, only if the product is still at that version. A body, if any, is ignored (an empty one with `Content-Type: application/json` too).',
      params: productIdParams,
      headers: ifMatchHeaders,
      response: { 204: { description: 'Deleted; no body.', type: 'null' }, ...readErrors, ...bodyErrors, ...conditionalErrors },
    },
    getProductStyles: {
      operationId: 'getProductStyles',
      tags,
      summary: 'The styles of a product, with photos and skus',
      params: productIdParams,
      headers: ifNoneMatchHeaders,
      response: {
        ...cachedRead(jsonResponse('The product\'s styles (`results` is empty for a product without styles).', ref('ProductStyles'), undefined, {
          examples: { styles: { product_id: '1', results: [fullStyle, emptyStyle] }, noStyles: { product_id: '7', results: [] } },
        }), BODY_ETAG_HEADER),
        ...readErrors,
      },
    },
    getRelatedProducts: {
      operationId: 'getRelatedProducts',
      tags,
      summary: 'Ids of related products',
      params: productIdParams,
      headers: ifNoneMatchHeaders,
      response: { ...cachedRead(jsonResponse('Related product ids.', ref('RelatedProducts'), [2, 3, 8, 7]), BODY_ETAG_HEADER), ...readErrors },
    },
  };
}
