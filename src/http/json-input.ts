// JSON input: the body parser for application/json, and the checks of its
// text and depth, for bodies and for GET /graphql's parameters alike.
//
// Text that is not Unicode, and JSON nested deeper than MAX_JSON_DEPTH, never
// reach the catalogue. Unchecked, invalid UTF-8 bytes would be decoded as
// U+FFFD and lone surrogates (JSON's "\ud800") passed on to Postgres, which
// stores them as U+FFFD too: a 201 with other text than was sent. So a JSON
// body (REST writes, POST /graphql) is checked before and after JSON.parse,
// and GET /graphql's parameters likewise: a 400 naming the field.
//
// JSON.parse takes any depth, but every recursive walk after it (the result
// cache's key, JSON.stringify, graphql-js's coercion) overflows the stack
// somewhere between 3,000 and 6,000 levels: an outside run got a 500 from 12
// KB of brackets in a GraphQL variable. A body nested deeper than any request
// the API takes is refused here, once, before anything else reads it.
//
// The JSON parser replaces Fastify's default for application/json (same
// limits, same prototype-poisoning protection, same errors for empty and
// malformed bodies), and refuses a compressed body (Content-Encoding). Valid
// UTF-8 without any \u escape of a surrogate costs one native UTF-8 check and
// a regular-expression scan; only the others are walked.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';

/**
 * 400: a string (or the body) that is not valid Unicode text, or a value
 * nested deeper than MAX_JSON_DEPTH; `field` names where.
 */
export class InvalidText extends Error {
  readonly statusCode = 400;
  readonly code: string;
  /** Where: `name`, `features[0].feature`, `variables.input.name`, `body`. */
  readonly field: string;
  constructor(field: string, message: string, code = 'CATALOGUE_INVALID_TEXT') {
    super(`${field}: ${message}`);
    this.field = field;
    this.code = code;
  }
}

/**
 * How deep a JSON body may nest, the body itself being level 1 (GET
 * /graphql's `variables` and `extensions` count as level 2, as in a body).
 * The deepest request the API takes is 5 (a mutation's body, `variables`, an
 * input, its `features`, a feature); every walk over 32 levels is safe.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Where a parsed JSON value nests deeper than MAX_JSON_DEPTH (its own level
 * being `depth`): the path of the property whose value does, without the
 * array indexes inside it (`variables.ids`, not `variables.ids[0][0]…`);
 * undefined when it does not. Recursive, but never below MAX_JSON_DEPTH + 1
 * levels: it stops there.
 */
export function nestedTooDeep(value: unknown, root = '', depth = 1): string | undefined {
  const keys = deepestKeys(value, depth);
  if (keys === undefined) return undefined;
  let named = keys.length;
  while (named > 0 && typeof keys[named - 1] === 'number') named--;
  let path = root;
  for (const key of keys.slice(0, named)) path = childPath(path, key);
  return path || 'body';
}

/** The keys down to the first container past the limit, innermost last; undefined when there is none. */
function deepestKeys(value: unknown, depth: number): (string | number)[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (depth > MAX_JSON_DEPTH) return [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const keys = deepestKeys(value[i], depth + 1);
      if (keys) return [i, ...keys];
    }
    return undefined;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const keys = deepestKeys((value as Record<string, unknown>)[key], depth + 1);
    if (keys) return [key, ...keys];
  }
  return undefined;
}

function tooDeep(field: string): InvalidText {
  return new InvalidText(field, `is nested more than ${MAX_JSON_DEPTH} levels deep`, 'CATALOGUE_NESTED_TOO_DEEP');
}

const NOT_UTF8 = 'is not valid UTF-8 text';
const LONE_SURROGATE = 'must be valid Unicode text (lone surrogate)';

/** A JSON \u escape of a surrogate (may also match an escaped backslash before "ud8..": then the walk finds nothing). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Length of the valid UTF-8 sequence at `i` (Unicode table 3-7), 0 when the bytes there are not one. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const first = bytes[i] as number;
  const cont = (at: number, low = 0x80, high = 0xbf) => at < bytes.length && (bytes[at] as number) >= low && (bytes[at] as number) <= high;
  if (first < 0x80) return 1;
  if (first >= 0xc2 && first <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (first >= 0xe0 && first <= 0xef) {
    const [low, high] = first === 0xe0 ? [0xa0, 0xbf] : first === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return cont(i + 1, low, high) && cont(i + 2) ? 3 : 0;
  }
  if (first >= 0xf0 && first <= 0xf4) {
    const [low, high] = first === 0xf0 ? [0x90, 0xbf] : first === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return cont(i + 1, low, high) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

/**
 * Decodes bytes that are not all valid UTF-8, turning each byte of an invalid
 * sequence into a lone surrogate (U+DC80 + byte, as Python's
 * "surrogateescape"): then JSON.parse still finds the structure, and the walk
 * below the string that held them.
 */
function decodeMarkingInvalid(bytes: Buffer): string {
  let text = '';
  let start = 0;
  for (let i = 0; i < bytes.length;) {
    const length = sequenceLength(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    text += bytes.toString('utf8', start, i) + String.fromCharCode(0xdc00 + (bytes[i] as number));
    start = ++i;
  }
  return text + bytes.toString('utf8', start);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
  if (path === '') return name;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${name}]`;
}

/**
 * The first string (or property name) of a parsed JSON value that is not
 * well-formed Unicode, with its path under `root` ('' for the body itself,
 * reported as `body`); undefined when all are. Iterative: a body nested as
 * deeply as JSON.parse allows cannot overflow the stack.
 */
export function illFormedText(value: unknown, root = ''): { field: string; propertyName: boolean } | undefined {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [current, path] = stack.pop() as [unknown, string];
    if (typeof current === 'string') {
      if (!current.isWellFormed()) return { field: path || 'body', propertyName: false };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], childPath(path, i)]);
    } else if (current !== null && typeof current === 'object') {
      const keys = Object.keys(current);
      for (const key of keys) if (!key.isWellFormed()) return { field: path || 'body', propertyName: true };
      for (let i = keys.length - 1; i >= 0; i--) stack.push([(current as Record<string, unknown>)[keys[i] as string], childPath(path, keys[i] as string)]);
    }
  }
  return undefined;
}

function invalidText(found: { field: string; propertyName: boolean }, notUtf8: boolean): InvalidText {
  const problem = notUtf8 ? NOT_UTF8 : LONE_SURROGATE;
  return new InvalidText(found.field, found.propertyName ? `a property name ${problem}` : problem);
}

/** Whether `text` holds more than `max` brackets and braces (strings' included): only then can it nest deeper. */
function moreOpenersThan(text: string, max: number): boolean {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if ((char === 0x5b || char === 0x7b) && ++count > max) return true;
  }
  return false;
}

/**
 * Checks JSON text (GET /graphql's `variables` and `extensions`, at level 2
 * as in a body); throws InvalidText naming the field. Parsed here only when it
 * might be at fault: Apollo parses it again.
 */
export function checkJsonText(text: string, root: string): void {
  const surrogates = SURROGATE_ESCAPE.test(text);
  const deep = moreOpenersThan(text, MAX_JSON_DEPTH - 1);
  if (!surrogates && !deep) return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return; // not JSON: the GraphQL server says so itself
  }
  const found = surrogates ? illFormedText(value, root) : undefined;
  if (found) throw invalidText(found, false);
  const tooDeepAt = deep ? nestedTooDeep(value, root, 2) : undefined;
  if (tooDeepAt !== undefined) throw tooDeep(tooDeepAt);
}

/** A JSON body declared in a charset other than UTF-8: 415. */
export class UnsupportedCharset extends Error {
  readonly statusCode = 415;
  constructor(charset: string) {
    super(`request body must be application/json in UTF-8 (got charset ${JSON.stringify(charset)})`);
  }
}

/**
 * A body sent with a Content-Encoding other than identity: 415. Bodies are
 * read as sent, never decompressed (a request body is at most 1 MiB, and
 * decompressing one is a bomb's way in): a body labelled with a coding is
 * refused rather than read as if it were plain.
 */
export class UnsupportedContentEncoding extends Error {
  readonly statusCode = 415;
  constructor(encoding: string) {
    super(`request body must not be compressed: Content-Encoding ${JSON.stringify(encoding)} is not supported (send it as is, without Content-Encoding)`);
  }
}

/** The Content-Encoding of a body, unless none or identity (the body as is). */
function contentEncoding(header: string | undefined): string | undefined {
  const codings = header?.split(',').map((coding) => coding.trim()).filter((coding) => coding !== '' && coding.toLowerCase() !== 'identity');
  return codings && codings.length > 0 ? codings.join(', ') : undefined;
}

/**
 * Replaces the application/json parser of `app` (call before registering
 * routes): bodies must be UTF-8 and their strings well-formed Unicode, else
 * InvalidText (400; REST answers {"error": message}, GraphQL BAD_USER_INPUT).
 * Also for an encapsulated scope (the REST routes: they ignore unknown
 * properties, so they drop prototype keys rather than refuse the body).
 */
export function registerJsonParser(app: FastifyInstance, options: { prototypeKeys?: 'error' | 'remove' } = {}): void {
  // `__proto__` keys (and `constructor` holding `prototype`) are refused, or
  // with `remove` dropped, never assigned.
  const action = options.prototypeKeys ?? 'error';
  const parse = app.getDefaultJsonParser(action, action);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const encoding = contentEncoding(request.headers['content-encoding']);
    if (encoding !== undefined) {
      done(new UnsupportedContentEncoding(encoding), undefined);
      return;
    }
    // JSON is UTF-8 (RFC 8259): a body declared as another charset is not read as if it were.
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(new UnsupportedCharset(charset), undefined);
      return;
    }
    const bytes = body as Buffer;
    // A DELETE has no content to parse: an empty body labelled JSON is no body.
    if (bytes.length === 0 && request.method === 'DELETE') {
      done(null, undefined);
      return;
    }
    const utf8 = isUtf8(bytes);
    const text = utf8 ? bytes.toString('utf8') : decodeMarkingInvalid(bytes);
    parse(request, text, (error: Error | null, value?: unknown) => {
      if (error) {
        done(utf8 ? error : new InvalidText('body', 'the request body is not valid UTF-8'), undefined);
        return;
      }
      const found = !utf8 || SURROGATE_ESCAPE.test(text) ? illFormedText(value) : undefined;
      if (found) {
        done(invalidText(found, !utf8), undefined);
        return;
      }
      const deep = nestedTooDeep(value);
      if (deep !== undefined) done(tooDeep(deep), undefined);
      else done(null, value);
    });
  });
}

/** The bytes a percent-encoded query string component stands for ('+' is a space). */
function percentDecodedBytes(component: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < component.length; i++) {
    const char = component.charCodeAt(i);
    if (char === 0x25 && /^[0-9a-fA-F]{2}$/.test(component.slice(i + 1, i + 3))) {
      bytes.push(parseInt(component.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (char === 0x2b) {
      bytes.push(0x20);
    } else if (char <= 0xff) {
      bytes.push(char);
    } else {
      bytes.push(...Buffer.from(component[i] as string, 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

/** Whether a percent-encoded query string component stands for UTF-8 text. */
function encodesUtf8(component: string): boolean {
  // The common case without building the bytes: ASCII whose %XX escapes
  // decodeURIComponent accepts (it refuses exactly the escapes that are not
  // UTF-8: stray continuation bytes, overlong forms, surrogates).
  if (ASCII.test(component)) {
    try {
      decodeURIComponent(component);
      return true;
    } catch {
      // a malformed escape ("%zz", read as it stands) or bytes that are not UTF-8: decided below
    }
  }
  return isUtf8(percentDecodedBytes(component));
}

const ASCII = /^[\x00-\x7f]*$/;
/** A character beyond ASCII, or an escape of a byte beyond it. */
const NOT_ASCII_OR_HIGH_ESCAPE = /[^\x00-\x7f]|%[89a-fA-F][0-9a-fA-F]/;

/**
 * GET /graphql: its parameters (`names`) must be percent-encoded UTF-8, and
 * the JSON ones (`json`) hold no lone surrogate; throws InvalidText naming the
 * parameter (and the variable).
 */
export function checkQueryText(url: string, names: readonly string[], json: Record<string, unknown>): void {
  const query = url.indexOf('?');
  if (query < 0) return;
  const text = url.slice(query + 1);
  // The common cases at once (a persisted query's hit spent 7% of its CPU in
  // the per-parameter reading below): ASCII with no escape of a byte above
  // 0x7f stands for ASCII bytes (a malformed escape is read as it stands);
  // else ASCII whose escapes decode as a whole: then every parameter's do
  // (an escape that is not UTF-8, or is cut short at a '&', fails the whole
  // string too).
  if (!NOT_ASCII_OR_HIGH_ESCAPE.test(text)) return checkJsonValues(json);
  if (!ASCII.test(text) || !decodesAsWhole(text)) checkEachParameter(text, names);
  checkJsonValues(json);
}

function checkJsonValues(json: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(json)) if (typeof value === 'string') checkJsonText(value, name);
}

function decodesAsWhole(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

function checkEachParameter(text: string, names: readonly string[]): void {
  for (const part of text.split('&')) {
    const equals = part.indexOf('=');
    const name = percentDecodedBytes(equals < 0 ? part : part.slice(0, equals)).toString('utf8');
    if (!names.includes(name) || equals < 0) continue;
    const value = part.slice(equals + 1);
    if (!encodesUtf8(value)) throw new InvalidText(name, `${NOT_UTF8} (percent-encoded bytes)`);
  }
}
