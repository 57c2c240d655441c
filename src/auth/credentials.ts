// Where a client puts its API key: `Authorization: Bearer <key>` (preferred) or
// `x-api-key: <key>`. Other Authorization schemes are not ours and are ignored.
import type { IncomingHttpHeaders } from 'node:http';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/** The presented key, or undefined when the request carries none. */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const bearer = BEARER.exec(headers.authorization ?? '')?.[1];
  if (bearer) return bearer;
  const header = headers['x-api-key'];
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  return value ? value : undefined;
}
