// The API key and rate-limit part of the OpenAPI document (src/auth/rest-guard.ts):
// security schemes, which operations need a key, and the 401, 429 and 503
// answers every route can give, with their headers.
import type { HttpMethod, OpenApiDocument } from './openapi-document.ts';
import { isWriteMethod } from '../http/methods.ts';

const KEY_REQUIRED = [{ bearerKey: [] }, { headerKey: [] }];
/** `{}` first: the key is optional. */
const KEY_OPTIONAL = [{}, ...KEY_REQUIRED];

const integerHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': integerHeader('The caller\'s budget per minute (a REST request costs 1).'),
  'RateLimit-Remaining': integerHeader('What is left of it after this request.'),
  'RateLimit-Reset': integerHeader('Seconds until the budget is whole again.'),
};

const errorResponse = (description: string, example: string, headers: Record<string, unknown>) => ({
  description, headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { error: example } } },
});

const RESPONSES = {
  Unauthorized: errorResponse(
    'No API key where one is needed (writes; reads when the server requires keys), or a key that is unknown, revoked or malformed. A wrong key costs 1 of the address\'s anonymous budget (429 once that is spent).',
    'writes need an API key: send it as "Authorization: Bearer <key>" or "x-api-key: <key>"',
    { 'WWW-Authenticate': { description: '`Bearer realm="catalogue"`, with `error="invalid_token"` for a wrong key.', schema: { type: 'string' } } },
  ),
  TooManyRequests: errorResponse(
    'The caller\'s rate limit (per API key, or per address without one or with a key that is not valid) is spent; the message names the limit.',
    'rate limit exceeded: 600 per minute for anonymous clients (per address; this is 203.0.113.7); this request costs 1 and 0 is left; retry in 1 s',
    { 'Retry-After': integerHeader('Seconds until the request would be accepted.'), ...RATE_LIMIT_HEADERS },
  ),
  KeyCheckUnavailable: errorResponse(
    'The API key could not be checked (the database is unavailable); retry shortly.',
    'the API key cannot be checked right now; try again shortly',
    { 'Retry-After': integerHeader('Seconds to wait before retrying.') },
  ),
};

const SECURITY_SCHEMES = {
  bearerKey: { type: 'http', scheme: 'bearer', description: 'An API key (`npm run keys -- create`) as a Bearer token.' },
  headerKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The same API key in the x-api-key header.' },
};

/** Adds keys and rate limits to every operation of the document. */
export function withAccessControl(document: OpenApiDocument, readsNeedKey: boolean): OpenApiDocument {
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [HttpMethod, OpenApiDocument['paths'][string][HttpMethod]][]) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      operation.security = isWriteMethod(method) || readsNeedKey ? KEY_REQUIRED : KEY_OPTIONAL;
      operation.responses = {
        ...operation.responses,
        401: { $ref: '#/components/responses/Unauthorized' },
        429: { $ref: '#/components/responses/TooManyRequests' },
        503: { $ref: '#/components/responses/KeyCheckUnavailable' },
      };
    }
  }
  document.info.description = `${String(document.info.description ?? '')} Writes need an API key${readsNeedKey ? ', and so do reads' : ' (reads take one optionally)'}: \`Authorization: Bearer <key>\` or \`x-api-key: <key>\`; 401 without a valid one (a wrong key is charged to the address). Every request spends 1 of the caller's budget per minute (per key, or per address without one): 429 with Retry-After once it is spent.`;
  document.components.responses = { ...document.components.responses, ...RESPONSES };
  document.components.securitySchemes = SECURITY_SCHEMES;
  return document;
}
