// API key secrets: 32 random bytes, shown to their owner once and stored only
// as a sha256 hash. A secret has 256 bits of entropy, so a plain (unsalted)
// hash is enough: nobody can guess their way back to it. The first characters
// are kept as a non-secret prefix, to recognise a key in lists and logs.
import crypto from 'node:crypto';

/** Marks a string as one of our keys (and helps secret scanners find leaked ones). */
const SECRET_MARK = 'cat_';
/** Characters of the secret kept as its display prefix: the mark plus 8 random ones (48 bits). */
const PREFIX_LENGTH = SECRET_MARK.length + 8;

export interface NewApiKey {
  /** The whole key, for its owner only: never stored, never logged. */
  secret: string;
  prefix: string;
  hash: string;
}

/** The shape of every key generateApiKey makes: the mark and 32 bytes in base64url (43 characters, no padding). */
const KEY_FORMAT = new RegExp(`^${SECRET_MARK}[A-Za-z0-9_-]{43}$`);

/**
 * Whether `secret` could be one of our keys at all. One that cannot is refused
 * without hashing or a lookup (src/auth/access.ts).
 */
export function isWellFormedApiKey(secret: string): boolean {
  return KEY_FORMAT.test(secret);
}

export function hashApiKey(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

export function generateApiKey(): NewApiKey {
  const secret = SECRET_MARK + crypto.randomBytes(32).toString('base64url');
  return { secret, prefix: secret.slice(0, PREFIX_LENGTH), hash: hashApiKey(secret) };
}

/** A key the API accepts (unrevoked), as the request path sees it. */
export interface ActiveApiKey {
  id: number;
  name: string;
  prefix: string;
  /** The key's own budget per minute; null: the configured default. */
  ratePerMinute: number | null;
}
