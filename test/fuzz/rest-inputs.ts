// Random, mostly malformed requests to the legacy REST routes, as raw HTTP:
// product id path segments, page/count query strings, methods, headers and
// bodies (JSON of the wrong shape, prototype-pollution keys, deep nesting,
// truncated JSON, bytes that are not UTF-8).
import fc from 'fast-check';
import type { RawRequest } from '../support/raw-http.ts';
import { anyText, hostileBodies, idLike, longText, priceLike, textField, wrongType } from './values.ts';
import { onTheWireAs, percentEncode, withBody } from './wire.ts';


/** A product id, page or count as it goes on the wire. */
const onTheWire = onTheWireAs(idLike);

const SUFFIXES = ['', '', '', '/styles', '/related', '/', '/styles/', '//', '/unknown', '/..', '/%2e%2e', '/styles/1'] as const;

/** GET (or HEAD) /products/<segment><suffix>, with an optional query. */
export const productPathRequest: fc.Arbitrary<RawRequest> = fc.record({
  method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
  segment: onTheWire,
  suffix: fc.constantFrom(...SUFFIXES),
  query: fc.option(onTheWire, { nil: undefined }),
}).map(({ method, segment, suffix, query }) => ({
  method, target: `/products/${segment}${suffix}${query === undefined ? '' : `?${query}`}`, headers: [],
}));

const QUERY_KEYS = [
  'page', 'count', 'page', 'count', 'page[]', 'count[]', 'page[0]', 'count[a]', 'page[__proto__]', '__proto__', '__proto__[polluted]',
  'constructor[prototype][polluted]', 'page.x', 'Page', 'COUNT', '', 'page%00', 'co%75nt',
] as const;

/** One `key=value` pair (or a bare key, or a bare `=`). */
const queryPair = fc.tuple(
  fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: anyText.map(percentEncode) }),
  fc.oneof({ weight: 5, arbitrary: onTheWire.map((value) => `=${value}`) }, { weight: 1, arbitrary: fc.constantFrom('', '=', '==') }),
).map(([key, value]) => `${key}${value}`);

/** GET /products with a random query string: repeated, bracketed, empty and encoded parameters. */
export const listingRequest: fc.Arbitrary<RawRequest> = fc.record({
  pairs: fc.array(queryPair, { maxLength: 5 }),
  separator: fc.constantFrom('&', '&', '&&', ';'),
  slash: fc.constantFrom('', '', '', '/'),
}).map(({ pairs, separator, slash }) => ({ method: 'GET', target: `/products${slash}?${pairs.join(separator)}`, headers: [] }));

const feature = fc.oneof(
  fc.record({ feature: textField, value: fc.oneof(textField, fc.constant(null)) }, { requiredKeys: [] }),
  wrongType,
);

const FIELDS = {
  name: textField, slogan: textField, description: textField, category: textField,
  default_price: priceLike,
  features: fc.oneof(
    fc.array(feature, { maxLength: 4 }),
    fc.constant(Array.from({ length: 101 }, (_, i) => ({ feature: `f${i}`, value: null }))),
    wrongType,
  ),
};
type Field = keyof typeof FIELDS;

const VALID_PRODUCT: Record<Field, unknown> = {
  name: 'Fuzz Tee', slogan: 'Random by design', description: 'Made by the fuzz tests.', category: 'Shirts',
  default_price: '19.90', features: [{ feature: 'Fabric', value: 'Cotton' }],
};

/** A valid product with one field changed to a random value or left out: reaches every field's check. */
const oneFieldChanged = fc.constantFrom(...(Object.keys(FIELDS) as Field[])).chain((field) =>
  fc.option(FIELDS[field] as fc.Arbitrary<unknown>, { nil: undefined, freq: 6 }).map((value) => {
    const body: Record<string, unknown> = { ...VALID_PRODUCT, [field]: value };
    if (value === undefined) delete body[field];
    return body;
  }));

/** A product write body: one field off, or every field random, plus stray keys. */
const productBody = fc.tuple(
  fc.oneof({ weight: 3, arbitrary: oneFieldChanged }, { weight: 1, arbitrary: fc.record(FIELDS, { requiredKeys: [] }) }),
  fc.record({ id: wrongType, campus: textField, created_at: textField, defaultPrice: priceLike }, { requiredKeys: [] }),
).map(([fields, stray]) => ({ ...fields, ...stray }));

/** A body: a product write of the right or wrong shape, or something that is not one at all. */
export const body: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 16, arbitrary: hostileBodies(productBody.map((value) => JSON.stringify(value)), 'features') },
  { weight: 1, arbitrary: longText(10_000, 400_000).map((text) => Buffer.from(JSON.stringify({ name: 'x', description: text }))) },
);

/** A write (POST, PUT, PATCH, DELETE...) with a random body, content type and headers. */
export const writeRequest: fc.Arbitrary<RawRequest> = withBody(fc.oneof(
  { weight: 3, arbitrary: fc.constant({ method: 'POST', path: '/products' }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 600 }).map((id) => ({ method: 'PUT', path: `/products/${id}` })) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('PUT', 'PUT', 'PATCH', 'DELETE', 'POST', 'OPTIONS'), onTheWire).map(([method, segment]) => ({ method, path: `/products/${segment}` })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('PUT', 'PATCH', 'DELETE', 'TRACE', 'SEARCH', 'PROPFIND'), fc.constantFrom('/products', '/products/1/styles')).map(([method, path]) => ({ method, path })) },
), body);

/** Requests an HTTP parser itself must refuse: bad bytes in the request line or headers. */
export const malformedHttpRequest: fc.Arbitrary<RawRequest> = fc.oneof(
  anyText.map((text) => ({ method: 'GET', target: `/products/${text}`, headers: [] })),
  fc.constantFrom('get', 'FOO', 'G ET', 'GET\u0000').map((method) => ({ method, target: '/products/1', headers: [] })),
  fc.tuple(fc.constantFrom('x-bad header', 'content-length', 'transfer-encoding', 'host', ''), fc.constantFrom('\u0001', 'abc', '-1', '1, 2', 'chunked, gzip', 'a\u007fb'))
    .map(([name, value]) => ({ method: 'POST', target: '/products', headers: [[name, value] as [string, string]], body: Buffer.from('{}') })),
);
