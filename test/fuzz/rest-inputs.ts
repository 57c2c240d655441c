// Random, mostly malformed requests to the legacy REST routes, as raw HTTP:
// product id path segments, page/count query strings, methods, headers and
// bodies (JSON of the wrong shape, prototype-pollution keys, deep nesting,
// truncated JSON, bytes that are not UTF-8).
import fc from 'fast-check';
import { anyText, deeplyNested, idLike, INJECTIONS, longText, priceLike, textField, wrongType } from './values.ts';

export interface RestRequest {
  method: string;
  /** The request target exactly as written on the wire. */
  target: string;
  headers: [string, string][];
  body?: Buffer;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes every byte of the UTF-8 text but the unreserved ones (lone surrogates become U+FFFD). */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => {
    const char = String.fromCharCode(byte);
    return byte < 0x80 && UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}

/** Percent sequences that decode to nothing valid (or to a separator). */
const BAD_PERCENT = ['%', '%G1', '%E0%A4', '%FF', '%C0%AF', '%ED%A0%80', '%00', '%2F', '%25', '%%', '%u0041', '%2e%2e', '%3F', '%23'] as const;

/** Printable ASCII an HTTP parser lets through unencoded in a request target. */
const rawAscii = fc.string({ unit: fc.constantFrom(...'!"$&\'()*+,-./:;<=>@[\\]^_`{|}~azAZ09'), maxLength: 12 });

/** One path segment or query value as it goes on the wire: encoded, badly encoded or raw. */
const onTheWire: fc.Arbitrary<string> = fc.array(fc.oneof(
  { weight: 4, arbitrary: idLike.map(percentEncode) },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_PERCENT) },
  { weight: 1, arbitrary: rawAscii },
), { minLength: 0, maxLength: 3 }).map((parts) => parts.join(''));

const SUFFIXES = ['', '', '', '/styles', '/related', '/', '/styles/', '//', '/unknown', '/..', '/%2e%2e', '/styles/1'] as const;

/** GET (or HEAD) /products/<segment><suffix>, with an optional query. */
export const productPathRequest: fc.Arbitrary<RestRequest> = fc.record({
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
export const listingRequest: fc.Arbitrary<RestRequest> = fc.record({
  pairs: fc.array(queryPair, { maxLength: 5 }),
  separator: fc.constantFrom('&', '&', '&&', ';'),
  slash: fc.constantFrom('', '', '', '/'),
}).map(({ pairs, separator, slash }) => ({ method: 'GET', target: `/products${slash}?${pairs.join(separator)}`, headers: [] }));

/** Keys that try to reach Object.prototype through a JSON body. */
const POLLUTION = [
  '"__proto__":{"polluted":"yes"}', '"constructor":{"prototype":{"polluted":"yes"}}', '"__proto__":{"toString":"x"}', '"__proto__":null',
] as const;

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

/** A JSON object text with `insert` spliced in as its first member. */
function spliceInto(json: string, insert: string): string {
  return json === '{}' ? `{${insert}}` : `{${insert},${json.slice(1)}`;
}

/** Bytes that are not UTF-8, spliced into text at a random place. */
const notUtf8 = fc.tuple(
  fc.constantFrom([0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]),
  fc.nat(),
);

/** A body: valid-looking JSON of the wrong shape, or something that is not JSON at all. */
export const body: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 6, arbitrary: productBody.map((value) => Buffer.from(JSON.stringify(value))) },
  { weight: 2, arbitrary: fc.tuple(productBody, fc.constantFrom(...POLLUTION), fc.boolean()).map(([value, key, nested]) => {
    const text = JSON.stringify(value);
    return Buffer.from(nested ? spliceInto(text, `"features":[{${key},"feature":"f"}]`) : spliceInto(text, key));
  }) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 4, stringUnit: 'binary' }).map((text) => Buffer.from(text)) },
  { weight: 1, arbitrary: deeplyNested.map((text) => Buffer.from(text)) },
  { weight: 2, arbitrary: fc.tuple(productBody, fc.nat()).map(([value, at]) => {
    const text = JSON.stringify(value);
    return Buffer.from(text.slice(0, at % Math.max(text.length, 1)));
  }) },
  { weight: 2, arbitrary: fc.tuple(productBody, notUtf8).map(([value, [bytes, at]]) => {
    const text = Buffer.from(JSON.stringify(value));
    const cut = at % (text.length + 1);
    return Buffer.concat([text.subarray(0, cut), Buffer.from(bytes), text.subarray(cut)]);
  }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.oneof(anyText, fc.constantFrom('null', 'true', '1', '"text"', '[]', 'name=x&slogan=y', '\uFEFF{"name":"x"}', '', ...INJECTIONS)).map((text) => Buffer.from(text)) },
  { weight: 1, arbitrary: longText(10_000, 400_000).map((text) => Buffer.from(JSON.stringify({ name: 'x', description: text }))) },
);

const CONTENT_TYPES = [
  'application/json', 'application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset=latin1',
  'application/json; charset=utf-16', 'application/json; charset="utf-8"', 'APPLICATION/JSON', 'application/json ; charset=utf-8',
  'application/json; boundary=x', 'application/vnd.api+json', 'application/merge-patch+json', 'application/jsonx', 'json',
  'text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream',
  'application/graphql', '*/*', '', ';', 'application/json; charset=', 'text/json',
] as const;

/** Printable header text (what an HTTP parser accepts in a header value). */
const headerText = fc.string({ unit: 'grapheme-ascii', maxLength: 60 });

const extraHeader: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.constantFrom<[string, string]>(['accept', 'text/html'], ['accept', '*/*'], ['accept', 'application/xml'], ['content-encoding', 'gzip'],
    ['accept-encoding', 'gzip, br'], ['expect', '100-continue'], ['x-http-method-override', 'DELETE'], ['content-type', 'text/plain']),
  headerText.map((value): [string, string] => ['x-request-id', value]),
  headerText.map((value): [string, string] => ['accept', value]),
);

/** Chunked transfer encoding of `payload`, in chunks of `size` bytes. */
function chunked(payload: Buffer, size: number): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < payload.length; at += size) {
    const piece = payload.subarray(at, at + size);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  return Buffer.concat([...parts, Buffer.from('0\r\n\r\n')]);
}

/** A write (POST, PUT, PATCH, DELETE...) with a random body, content type and headers. */
export const writeRequest: fc.Arbitrary<RestRequest> = fc.record({
  route: fc.oneof(
    { weight: 3, arbitrary: fc.constant({ method: 'POST', path: '/products' }) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 600 }).map((id) => ({ method: 'PUT', path: `/products/${id}` })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('PUT', 'PUT', 'PATCH', 'DELETE', 'POST', 'OPTIONS'), onTheWire).map(([method, segment]) => ({ method, path: `/products/${segment}` })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('PUT', 'PATCH', 'DELETE', 'TRACE', 'SEARCH', 'PROPFIND'), fc.constantFrom('/products', '/products/1/styles')).map(([method, path]) => ({ method, path })) },
  ),
  contentType: fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ),
  headers: fc.array(extraHeader, { maxLength: 2 }),
  body: fc.option(body, { nil: undefined, freq: 8 }),
  chunkSize: fc.option(fc.integer({ min: 1, max: 4096 }), { nil: undefined, freq: 4 }),
}).map(({ route, contentType, headers, body: payload, chunkSize }) => {
  const all: [string, string][] = [...(contentType === undefined ? [] : [['content-type', contentType] as [string, string]]), ...headers];
  if (payload === undefined) return { method: route.method, target: route.path, headers: all };
  if (chunkSize !== undefined) return { method: route.method, target: route.path, headers: [...all, ['transfer-encoding', 'chunked']], body: chunked(payload, chunkSize) };
  return { method: route.method, target: route.path, headers: [...all, ['content-length', String(payload.length)]], body: payload };
});

/** Requests an HTTP parser itself must refuse: bad bytes in the request line or headers. */
export const malformedHttpRequest: fc.Arbitrary<RestRequest> = fc.oneof(
  anyText.map((text) => ({ method: 'GET', target: `/products/${text}`, headers: [] })),
  fc.constantFrom('get', 'FOO', 'G ET', 'GET\u0000').map((method) => ({ method, target: '/products/1', headers: [] })),
  fc.tuple(fc.constantFrom('x-bad header', 'content-length', 'transfer-encoding', 'host', ''), fc.constantFrom('\u0001', 'abc', '-1', '1, 2', 'chunked, gzip', 'a\u007fb'))
    .map(([name, value]) => ({ method: 'POST', target: '/products', headers: [[name, value] as [string, string]], body: Buffer.from('{}') })),
);

/** The text a server could quote back from this request (decoded target and body), for leak checks. */
export function requestText(request: RestRequest): string {
  const target = request.target.replace(/\+/g, ' ');
  let decoded = target;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    decoded = target.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
  return [request.target, target, decoded, request.body?.toString('utf8') ?? ''].join('\n');
}
