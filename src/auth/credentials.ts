// Where a client puts its API key: `Authorization: Bearer <key>` (preferred) or
// `x-api-key: <key>`; both may carry it, if they carry the same key (two
// different keys are refused, never one silently preferred: the caller would
// not know which budget and rights it was given). Other Authorization schemes
// are not ours and are ignored; a Bearer credential that is not one token
// (`Bearer a b`, `Bearer` alone) is still a presented key, refused as
// malformed, never read as an anonymous request: the caller meant a key.
import type { IncomingHttpHeaders } from 'node:http';

const BEARER_SCHEME = /^Bearer(?=\s|$)/i;

/** What presentedKey answers when `Authorization: Bearer` and `x-api-key` carry different keys. */
export const CONFLICTING_KEYS = Symbol('Authorization and x-api-key carry different keys');

/** The presented key; undefined when the request carries none; CONFLICTING_KEYS when the two headers disagree. */
export function presentedKey(headers: IncomingHttpHeaders): string | typeof CONFLICTING_KEYS | undefined {
  const authorization = headers.authorization ?? '';
  const bearer = BEARER_SCHEME.test(authorization) ? authorization.slice('Bearer'.length).trim() : undefined;
  const header = headers['x-api-key'];
  const value = (Array.isArray(header) ? header[0] : header)?.trim() || undefined;
  if (bearer !== undefined && value && bearer !== value) return CONFLICTING_KEYS;
  return bearer ?? value;
}
