// How a fuzzed request goes on the wire: percent-encoding for URLs, content
// types, extra headers, and the body framed by Content-Length or chunked.
import fc from 'fast-check';
import type { RawRequest } from '../support/raw-http.ts';

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes every byte of the UTF-8 text but the unreserved ones (lone surrogates become U+FFFD). */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => {
    const char = String.fromCharCode(byte);
    return byte < 0x80 && UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}

/** Percent sequences that decode to nothing valid (or to a separator). */
const BAD_PERCENT = ['%', '%G1', '%E0%A4', '%FF', '%C0%AF', '%ED%A0%80', '%00', '%2F', '%25', '%%', '%u0041', '%2e%2e', '%3F', '%23'] as const;

/** Printable ASCII an HTTP parser lets through unencoded in a request target. */
const rawAscii = fc.string({ unit: fc.constantFrom(...'!"$&\'()*+,-./:;<=>@[\\]^_`{|}~azAZ09'), maxLength: 12 });

/** Path segments or query values made of `values`: percent-encoded, badly encoded, raw, or pieces of each. */
export function onTheWireAs(values: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.array(fc.oneof(
    { weight: 4, arbitrary: values.map(percentEncode) },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_PERCENT) },
    { weight: 1, arbitrary: rawAscii },
  ), { minLength: 0, maxLength: 3 }).map((parts) => parts.join(''));
}

/** Content types a JSON API may receive: JSON in every spelling and charset, and everything else. */
export const CONTENT_TYPES = [
  'application/json', 'application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset=latin1',
  'application/json; charset=utf-16', 'application/json; charset="utf-8"', 'APPLICATION/JSON', 'application/json ; charset=utf-8',
  'application/json; boundary=x', 'application/vnd.api+json', 'application/merge-patch+json', 'application/jsonx', 'json',
  'text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream',
  'application/graphql', '*/*', '', ';', 'application/json; charset=', 'text/json',
] as const;

/** Printable header text (what an HTTP parser accepts in a header value). */
export const headerText = fc.string({ unit: 'grapheme-ascii', maxLength: 60 });

/** Headers a client may add that change nothing, or should not. */
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

/**
 * Requests to `routes` carrying one of `bodies` (or none), mostly declared as
 * JSON, else with another or no content type, a few odd headers, framed by
 * Content-Length or sent chunked.
 */
export function withBody(routes: fc.Arbitrary<{ method: string; path: string }>, bodies: fc.Arbitrary<Buffer>): fc.Arbitrary<RawRequest> {
  return fc.record({
    route: routes,
    contentType: fc.oneof(
      { weight: 6, arbitrary: fc.constant('application/json') },
      { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    headers: fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(extraHeader, { minLength: 1, maxLength: 2 }) }),
    body: fc.option(bodies, { nil: undefined, freq: 8 }),
    chunkSize: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4096 }) }),
  }).map(({ route, contentType, headers, body, chunkSize }) => {
    const all: [string, string][] = [...(contentType === undefined ? [] : [['content-type', contentType] as [string, string]]), ...headers];
    if (body === undefined) return { method: route.method, target: route.path, headers: all };
    if (chunkSize !== undefined) return { method: route.method, target: route.path, headers: [...all, ['transfer-encoding', 'chunked']], body: chunked(body, chunkSize) };
    return { method: route.method, target: route.path, headers: [...all, ['content-length', String(body.length)]], body };
  });
}
