// The OpenAPI 3.1 description of the legacy REST routes (./routes.ts, shapes in
// ./shapes.ts, contract in ../shared/legacy-api.md), served at GET /openapi.json.
//
// It describes exactly what the routes send, tightly: every response object
// has `additionalProperties: false`, prices are two-decimal strings, nullability
// is spelled out. Tests run real responses through these schemas
// (test/support/openapi.ts), so any drift between code and document fails.
import type { FastifyInstance } from 'fastify';
import { withAccessControl } from './openapi-access.ts';

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

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, JsonSchema>; parameters: Record<string, unknown>; headers: Record<string, unknown>; responses: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItem = { parameters?: unknown[]; summary?: string; description?: string } & { [M in HttpMethod]?: OperationObject };

export interface OperationObject {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  /** Alternatives: any one entry satisfies it (`{}`: no credentials). */
  security?: Record<string, string[]>[];
}

/** Postgres `integer` ids: the largest id a route accepts. */
const MAX_INT = 2_147_483_647;
/** Prices are numeric(10,2). */
const MAX_PRICE = 99_999_999.99;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });
const paramRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

const EXAMPLE_DATE = '2021-08-13T14:38:44.509Z';

function schemas(options: OpenApiOptions): Record<string, JsonSchema> {
  const product = {
    id: { type: 'integer', minimum: 1, maximum: MAX_INT, description: 'Product id.', examples: [1] },
    campus: { type: 'string', const: options.campus, description: 'Always the configured campus (kept for legacy clients).' },
    name: { type: 'string', examples: ['Camo Onesie'] },
    slogan: { type: 'string', examples: ['Blend in to your crowd'] },
    description: { type: 'string', examples: ['The So Fatigues will wake you up and fit you in.'] },
    category: { type: 'string', examples: ['Jackets'] },
    default_price: ref('Money'),
    created_at: ref('Timestamp'),
    updated_at: ref('Timestamp'),
  };
  const productKeys = Object.keys(product);

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
  const photos = options.emptyPlaceholders
    ? {
      description: 'Photos in photo id order; a style without photos has the single placeholder `[{"thumbnail_url": null, "url": null}]`.',
      oneOf: [{ type: 'array', items: ref('Photo'), minItems: 1 }, ref('PhotosPlaceholder')],
    }
    : { type: 'array', items: ref('Photo'), description: 'Photos in photo id order (empty when the style has none).' };
  const skus = options.emptyPlaceholders
    ? {
      description: 'Skus keyed by sku id; a style without skus has the single placeholder `{"null": {"quantity": null, "size": null}}`.',
      oneOf: [{ ...skuMap, minProperties: 1 }, ref('SkusPlaceholder')],
    }
    : { ...skuMap, description: `${skuMap.description} Empty when the style has none.` };

  const writeFields = {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S', description: 'Trimmed; must not be blank.' },
    slogan: { type: 'string', maxLength: 1000 },
    description: { type: 'string', maxLength: 10_000 },
    category: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S', description: 'Trimmed; must not be blank.' },
    default_price: {
      description: 'From 0 to 99999999.99 with at most two decimals, as a string ("140", "140.5", "140.00") or a number.',
      oneOf: [
        { type: 'string', pattern: '^\\s*(0|[1-9][0-9]{0,7})(\\.[0-9]{1,2})?\\s*$' },
        { type: 'number', minimum: 0, maximum: MAX_PRICE },
      ],
    },
    features: {
      type: 'array',
      maxItems: 100,
      description: 'Replaces all the product\'s features, in this order.',
      items: ref('FeatureInput'),
    },
  };

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
    FeatureInput: {
      type: 'object',
      properties: {
        feature: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
        value: { type: ['string', 'null'], maxLength: 255 },
      },
      required: ['feature'],
      description: 'A missing `value` is stored as null.',
    },
    ProductCreate: {
      type: 'object',
      description: 'Other properties are ignored.',
      properties: writeFields,
      required: ['name', 'slogan', 'description', 'category', 'default_price'],
    },
    ProductUpdate: {
      type: 'object',
      description: 'Any subset of the create fields, at least one. Other properties are ignored; `features` replaces all features.',
      properties: writeFields,
      minProperties: 1,
      anyOf: Object.keys(writeFields).map((key) => ({ required: [key] })),
    },
  };
}

function errorResponse(description: string, example: string) {
  return { description, content: { 'application/json': { schema: ref('Error'), example: { error: example } } } };
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

export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
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

  const json = (schema: unknown, example?: unknown, examples?: Record<string, unknown>) => ({
    'application/json': {
      schema,
      ...(example !== undefined ? { example } : {}),
      ...(examples ? { examples: Object.fromEntries(Object.entries(examples).map(([k, v]) => [k, { value: v }])) } : {}),
    },
  });

  const readErrors = { 400: responseRef('BadRequest'), 404: responseRef('NotFound'), 500: responseRef('InternalError'), 503: responseRef('Unavailable') };
  const bodyErrors = { 413: responseRef('PayloadTooLarge'), 415: responseRef('UnsupportedMediaType') };
  const conditionalErrors = {
    412: {
      ...errorResponse('If-Match named none of the product\'s current version: someone changed it since it was read. Nothing was written; the `ETag` header gives the current version.',
        'product 1 has changed since version "1000342": it is now at version "1000345"; read it again and reapply your change'),
      headers: { ETag: headerRef('ETag') },
    },
    428: errorResponse('Only when the server requires conditional writes (WRITES_REQUIRE_IF_MATCH=on): the request had no If-Match.',
      'If-Match is required: send the ETag of the product as you last read it (GET /products/:product_id), or "*"'),
  };

  return withAccessControl({
    openapi: '3.1.0',
    info: {
      title: 'Catalogue API: legacy Products REST routes',
      version: '1.0.0',
      description: [
        'The legacy Products API, drop-in compatible with the Atelier front end. Every error is `{"error": "<message>"}`:',
        '400 for a malformed id, `page` or `count` (not a positive integer, or `count` above ' + String(maxPageSize) + ') or an invalid body,',
        '404 for an unknown product, 413/415 for an oversized or non-JSON body, 422 for a reused `Idempotency-Key`,',
        '412 when an `If-Match` no longer matches the product (428 without one, if the server requires it),',
        '503 with `Retry-After` while the database is unavailable or a write could not get its turn on a busy product, 500 (masked) for anything else.',
        'Products carry a strong `ETag` (their version, new at every write): send it back in `If-Match` on PUT and DELETE',
        'to change the product only if nobody else has since (no lost updates), or in `If-None-Match` on GET for a 304.',
        'The same catalogue is served over GraphQL at `/graphql`.',
      ].join(' '),
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: [{ name: 'products', description: 'Products, their styles and related products' }],
    paths: {
      '/products': {
        get: {
          operationId: 'listProducts',
          tags: ['products'],
          summary: 'List products',
          description: 'Products in id order, starting at the `(page-1)*count + 1`-th. A page past the end is `[]`.',
          parameters: [paramRef('page'), paramRef('count')],
          responses: {
            200: { description: 'A page of products (without features).', content: json({ type: 'array', items: ref('ProductListItem') }, [listItem]) },
            400: responseRef('BadRequest'),
            500: responseRef('InternalError'),
            503: responseRef('Unavailable'),
          },
        },
        post: {
          operationId: 'createProduct',
          tags: ['products'],
          summary: 'Create a product',
          description: [
            'With an `Idempotency-Key` header, the product is created at most once per key: a retry with the same key and the same',
            'content (after validation: `"10"` and `10` are the same price) answers 201 with the product the first request created,',
            'as it is now, and the header `Idempotent-Replayed: true`; the same key with other content is a 422. Keys are kept for',
            '24 hours by default (IDEMPOTENCY_KEY_TTL_SECONDS) and shared with the GraphQL `createProduct` mutation.',
          ].join(' '),
          parameters: [paramRef('Idempotency-Key')],
          requestBody: {
            required: true,
            content: json(ref('ProductCreate'), {
              name: 'Camo Onesie', slogan: 'Blend in to your crowd', description: 'The So Fatigues will wake you up and fit you in.',
              category: 'Jackets', default_price: '140.00', features: [{ feature: 'Fabric', value: 'Canvas' }],
            }),
          },
          responses: {
            201: {
              description: 'The created product (or, for a repeated Idempotency-Key, the product the first request created).',
              headers: {
                'Idempotent-Replayed': { description: '`true` when an earlier request with this Idempotency-Key created the product.', schema: { type: 'string', const: 'true' } },
                ETag: headerRef('ETag'),
              },
              content: json(ref('Product'), detail),
            },
            400: responseRef('BadRequest'),
            404: errorResponse('Only with an Idempotency-Key: the product it created has been deleted since.', 'product 1000012, created with this Idempotency-Key, has been deleted since'),
            ...bodyErrors,
            422: errorResponse('The Idempotency-Key was already used for a create with different content.', 'Idempotency-Key "order-42" was already used for a create with different content; send a new key for a new product'),
            500: responseRef('InternalError'),
            503: responseRef('Unavailable'),
          },
        },
      },
      '/products/{product_id}': {
        parameters: [paramRef('product_id')],
        get: {
          operationId: 'getProduct',
          tags: ['products'],
          summary: 'A product with its features',
          parameters: [paramRef('If-None-Match')],
          responses: {
            200: { description: 'The product.', headers: { ETag: headerRef('ETag') }, content: json(ref('Product'), detail) },
            304: { description: 'If-None-Match named the product\'s current ETag: what the client has is current. No body.', headers: { ETag: headerRef('ETag') } },
            ...readErrors,
          },
        },
        put: {
          operationId: 'updateProduct',
          tags: ['products'],
          summary: 'Update a product',
          description: 'Concurrent updates of one product are applied one after the other, each whole. With `If-Match`, only if the product is still at that version.',
          parameters: [paramRef('If-Match')],
          requestBody: { required: true, content: json(ref('ProductUpdate'), { default_price: '120.00' }) },
          responses: {
            200: { description: 'The updated product.', headers: { ETag: headerRef('ETag') }, content: json(ref('Product'), { ...detail, default_price: '120.00' }) },
            ...readErrors,
            ...bodyErrors,
            ...conditionalErrors,
          },
        },
        delete: {
          operationId: 'deleteProduct',
          tags: ['products'],
          summary: 'Delete a product (with its features, styles, photos, skus and related rows)',
          description: 'With `If-Match`, only if the product is still at that version.',
          parameters: [paramRef('If-Match')],
          responses: { 204: { description: 'Deleted; no body.' }, ...readErrors, ...bodyErrors, ...conditionalErrors },
        },
      },
      '/products/{product_id}/styles': {
        parameters: [paramRef('product_id')],
        get: {
          operationId: 'getProductStyles',
          tags: ['products'],
          summary: 'The styles of a product, with photos and skus',
          responses: {
            200: {
              description: 'The product\'s styles (`results` is empty for a product without styles).',
              content: json(ref('ProductStyles'), undefined, {
                styles: { product_id: '1', results: [fullStyle, emptyStyle] },
                noStyles: { product_id: '7', results: [] },
              }),
            },
            ...readErrors,
          },
        },
      },
      '/products/{product_id}/related': {
        parameters: [paramRef('product_id')],
        get: {
          operationId: 'getRelatedProducts',
          tags: ['products'],
          summary: 'Ids of related products',
          responses: { 200: { description: 'Related product ids.', content: json(ref('RelatedProducts'), [2, 3, 8, 7]) }, ...readErrors },
        },
      },
    },
    components: {
      schemas: schemas(options),
      parameters: {
        product_id: {
          name: 'product_id',
          in: 'path',
          required: true,
          description: 'A product id: a positive integer.',
          schema: { type: 'integer', minimum: 1, maximum: MAX_INT },
          example: 1,
        },
        page: {
          name: 'page',
          in: 'query',
          required: false,
          description: 'Page number, from 1.',
          schema: { type: 'integer', minimum: 1, maximum: MAX_INT, default: 1 },
        },
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes a create safe to retry: 1 to 255 visible ASCII characters, e.g. a UUID, the same for every retry of one create.',
          schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
          example: '0b7c1c1e-8d57-4c38-9a4f-5f0e6a1f2c3d',
        },
        'If-Match': {
          name: 'If-Match',
          in: 'header',
          required: false,
          description: 'Change the product only if it is still at one of these versions: the `ETag` it was read with (a list is allowed; weak tags never match), or `*` for any existing product.',
          schema: { type: 'string', pattern: '^\\s*(\\*|(W/)?"[^"]*"(\\s*,\\s*(W/)?"[^"]*")*)\\s*$' },
          example: '"1000342"',
        },
        'If-None-Match': {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'The `ETag`s the client already has: 304 without a body when the product is still at one of them.',
          schema: { type: 'string' },
          example: '"1000342"',
        },
        count: {
          name: 'count',
          in: 'query',
          required: false,
          description: `Products per page, from 1 to ${maxPageSize}.`,
          schema: { type: 'integer', minimum: 1, maximum: maxPageSize, default: 5 },
        },
      },
      headers: {
        ETag: {
          description: 'The product\'s version as a strong entity tag: new at every write of the product (its fields or features), never reused.',
          schema: { type: 'string', pattern: '^"[0-9]+"$' },
          example: '"1000342"',
        },
      },
      responses: {
        BadRequest: errorResponse('Malformed id, page or count, or an invalid request body.', 'page must be a positive integer (got "hello")'),
        NotFound: errorResponse('No product with this id.', 'product 1000012 not found'),
        PayloadTooLarge: errorResponse('The request body is too large.', 'request body is too large'),
        UnsupportedMediaType: errorResponse('The request body is not application/json.', 'request body must be application/json'),
        InternalError: errorResponse('An unexpected error (details are logged, never sent).', 'internal server error'),
        Unavailable: {
          ...errorResponse('Postgres is unavailable (down, restarting, unreachable, or every connection busy past the queue timeout), or a write waited for its turn on a busy product past DATABASE_LOCK_TIMEOUT_MS and wrote nothing: try again after Retry-After seconds.', 'database unavailable, try again shortly'),
          headers: { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } } },
        },
      },
    },
  }, options.readsNeedKey ?? false);
}

/** Serves the document at GET /openapi.json (built and serialised once). */
export function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): void {
  const body = JSON.stringify(buildOpenApiDocument(options));
  app.get('/openapi.json', async (_request, reply) => reply
    .type('application/json; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .send(body));
}
