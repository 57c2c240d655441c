// Hostile values shared by the REST and GraphQL fuzzers: numbers in every
// spelling an integer parser gets wrong, injection attempts, any Unicode, very
// long text, values of the wrong JSON type, prototype-pollution keys, bytes
// that are not UTF-8, JSON bodies built from them.
import fc from 'fast-check';

/** Spellings that look like (or near) a positive integer id, page or count. */
const NUMBERISH = [
  '0', '-0', '+1', '01', '1.0', '1.5', '-1', '1e3', '1E+2', '1e-2', '0x1f', '0b1', '0o7', 'Infinity', '-Infinity', 'NaN',
  'null', 'undefined', 'true', '[]', '{}', ' 1', '1 ', '\t1', '１', '١', '1\u0000', '٣', 'Ⅻ',
  '2147483647', '2147483648', '4294967296', '9007199254740993', '1'.padEnd(400, '0'),
] as const;

/** Classic injection and template strings: none may reach SQL, a template or a prototype. */
export const INJECTIONS = [
  '1 OR 1=1', '1; DROP TABLE products; --', "1' OR '1'='1", '1 UNION SELECT password FROM users', '$1', "'", '"', '\\',
  '%', '../../etc/passwd', '${7*7}', '{{7*7}}', '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString',
] as const;

/** Any code points (also NUL and astral ones). */
export const anyText = fc.string({ unit: 'binary', maxLength: 40 });

/** Text of `min` to `max` repetitions of one character, ASCII or not. */
export function longText(min: number, max: number): fc.Arbitrary<string> {
  return fc.integer({ min, max }).chain((length) => fc.constantFrom('x', '9', 'é', '😀', '\u0000').map((unit) => unit.repeat(length)));
}

/** Long enough for every length limit, mostly short enough for a URL (16 KB). */
const longValue = longText(256, 3000);

/** A value where a positive integer is expected, mostly wrong, sometimes an existing id. */
export const idLike: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NUMBERISH, ...INJECTIONS),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.integer().map(String),
  fc.double().map(String),
  fc.double({ noNaN: true }).map((n) => n.toExponential()),
  fc.integer({ min: 1, max: 600 }).map(String),
  anyText,
  longValue,
);

/** A JSON value of some other type than the one expected. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(anyText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

/**
 * Text of a string field: mostly plausible (so that later fields get checked
 * too), else empty, blank, Unicode, huge, with NULs, an injection or no string.
 */
export const textField: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('Camo Onesie', 'Jackets', 'A product made by a fuzzer', ' padded ', ...INJECTIONS) },
  { weight: 1, arbitrary: fc.constantFrom('', '   ', '\u0000', 'a\u0000b') },
  { weight: 1, arbitrary: anyText },
  { weight: 1, arbitrary: longValue },
  { weight: 1, arbitrary: wrongType },
);

/** Prices in the spellings a money parser must refuse or normalise. */
export const priceLike: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('140', '140.5', '140.50', '0', '99999999.99', 25, 0.5) },
  { weight: 2, arbitrary: fc.constantFrom('100000000', '12.345', '-1', '1e3', 'NaN', 'Infinity', ' 5 ', '5.', '.5', '0x10', '١٢', '1,00', '', 1e21, -0, 1.005) },
  fc.double(), fc.integer(), wrongType, idLike,
);

/** JSON nested `depth` levels deep: arrays or objects. */
export const deeplyNested: fc.Arbitrary<string> = fc.tuple(fc.integer({ min: 1, max: 100_000 }), fc.boolean()).map(([depth, arrays]) =>
  arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

/** Members that try to reach Object.prototype through a JSON object. */
const POLLUTION = [
  '"__proto__":{"polluted":"yes"}', '"constructor":{"prototype":{"polluted":"yes"}}', '"__proto__":{"toString":"x"}', '"__proto__":null',
] as const;

/** The JSON object texts of `objects`, with a prototype-pollution member spliced in (into `nestedUnder`'s first entry, or at the top). */
export function withPollution(objects: fc.Arbitrary<string>, nestedUnder: string): fc.Arbitrary<string> {
  return fc.tuple(objects, fc.constantFrom(...POLLUTION), fc.boolean()).map(([json, member, nested]) => {
    const insert = nested ? `"${nestedUnder}":[{${member}}]` : member;
    return json === '{}' ? `{${insert}}` : `{${insert},${json.slice(1)}`;
  });
}

/** `texts` cut short at a random place (truncated JSON). */
export function truncated(texts: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(texts, fc.nat()).map(([text, at]) => text.slice(0, at % Math.max(text.length, 1)));
}

/** `texts` as UTF-8 with bytes that are not UTF-8 spliced in at a random place. */
export function withBytesNotUtf8(texts: fc.Arbitrary<string>): fc.Arbitrary<Buffer> {
  const bytes = fc.constantFrom([0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]);
  return fc.tuple(texts, bytes, fc.nat()).map(([text, bad, at]) => {
    const encoded = Buffer.from(text);
    const cut = at % (encoded.length + 1);
    return Buffer.concat([encoded.subarray(0, cut), Buffer.from(bad), encoded.subarray(cut)]);
  });
}

/**
 * Request bodies built around `objects` (JSON object texts of the expected
 * shape, hostile or not): as they are, with prototype-pollution members, cut
 * short, with bytes that are not UTF-8; and random JSON, JSON nested very
 * deep, random bytes, text that is not JSON.
 */
export function hostileBodies(objects: fc.Arbitrary<string>, nestedUnder: string): fc.Arbitrary<Buffer> {
  const utf8 = (texts: fc.Arbitrary<string>) => texts.map((text) => Buffer.from(text));
  return fc.oneof(
    { weight: 6, arbitrary: utf8(objects) },
    { weight: 2, arbitrary: utf8(withPollution(objects, nestedUnder)) },
    { weight: 2, arbitrary: utf8(truncated(objects)) },
    { weight: 2, arbitrary: withBytesNotUtf8(objects) },
    { weight: 1, arbitrary: utf8(fc.json({ maxDepth: 4, stringUnit: 'binary' })) },
    { weight: 1, arbitrary: utf8(deeplyNested) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: utf8(fc.oneof(anyText, fc.constantFrom('null', 'true', '1', '"text"', '[]', 'a=1&b=2', '\uFEFF{"a":1}', '', ...INJECTIONS))) },
  );
}
