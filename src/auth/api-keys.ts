// API key secrets: 32 random bytes, shown to their owner once and stored only
// as a sha256 hash. A secret has 256 bits of entropy, so a plain (unsalted)
// hash is enough: nobody can guess their way back to it. The first characters
// are kept as a non-secret prefix, to recognise a key in lists and logs. The
// format itself is src/util/api-key-format.ts.
import crypto from 'node:crypto';
import { API_KEY_MARK, API_KEY_PREFIX_LENGTH, API_KEY_RANDOM_BYTES, isApiKeyShaped } from '../util/api-key-format.ts';

export interface NewApiKey {
  /** The whole key, for its owner only: never stored, never logged. */
  secret: string;
  prefix: string;
  hash: string;
}

/**
 * Whether `secret` could be one of our keys at all. One that cannot is refused
 * without hashing or a lookup (src/auth/access.ts).
 */
export function isWellFormedApiKey(secret: string): boolean {
  return isApiKeyShaped(secret);
}

export function hashApiKey(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

export function generateApiKey(): NewApiKey {
  const secret = API_KEY_MARK + crypto.randomBytes(API_KEY_RANDOM_BYTES).toString('base64url');
  return { secret, prefix: secret.slice(0, API_KEY_PREFIX_LENGTH), hash: hashApiKey(secret) };
}

/** A key the API accepts (unrevoked), as the request path sees it. */
export interface ActiveApiKey {
  id: number;
  name: string;
  prefix: string;
  /** The key's own budget per minute; null: the configured default. */
  ratePerMinute: number | null;
}
