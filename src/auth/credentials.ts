// Where a client puts its API key: `Authorization: Bearer <key>` (preferred) or
// `x-api-key: <key>`; both may carry it, if they carry the same key (two
// different keys are refused, never one silently preferred: the caller would
// not know which budget and rights it was given). Other Authorization schemes
// are not ours and are ignored.
import type { IncomingHttpHeaders } from 'node:http';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/** What presentedKey answers when `Authorization: Bearer` and `x-api-key` carry different keys. */
export const CONFLICTING_KEYS = Symbol('Authorization and x-api-key carry different keys');

/** The presented key; undefined when the request carries none; CONFLICTING_KEYS when the two headers disagree. */
export function presentedKey(headers: IncomingHttpHeaders): string | typeof CONFLICTING_KEYS | undefined {
  const bearer = BEARER.exec(headers.authorization ?? '')?.[1];
  const header = headers['x-api-key'];
  const value = (Array.isArray(header) ? header[0] : header)?.trim() || undefined;
  if (bearer && value && bearer !== value) return CONFLICTING_KEYS;
  return bearer ?? value;
}
