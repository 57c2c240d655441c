// The format of an API key, in one place: what src/auth/api-keys.ts mints and
// accepts, and what no log line may keep (src/observability/logging.ts) and
// no request id may be (src/server.ts). A key is the mark `cat_` and 32 random
// bytes in base64url (43 characters, no padding); its first characters (the
// mark and 8 more) are a non-secret prefix that names the key in lists.

/** Marks a string as one of our keys (and helps secret scanners find leaked ones). */
export const API_KEY_MARK = 'cat_';
/** Random bytes in a key: 256 bits, so a plain sha256 of the key is a safe thing to store. */
export const API_KEY_RANDOM_BYTES = 32;
/** base64url characters the random bytes take (no padding). */
export const API_KEY_BODY_LENGTH = Math.ceil((API_KEY_RANDOM_BYTES * 4) / 3);
/** Characters of a key kept as its display prefix: the mark plus 8 random ones (48 bits). */
export const API_KEY_PREFIX_LENGTH = API_KEY_MARK.length + 8;

const BODY = `[A-Za-z0-9_-]{${API_KEY_BODY_LENGTH}}`;
const WHOLE = new RegExp(`^${API_KEY_MARK}${BODY}$`);
/**
 * Key-shaped text anywhere in a string: the mark and at least a key's length
 * of base64url characters, whatever comes before it or is glued after it.
 */
const ANYWHERE = new RegExp(`${API_KEY_MARK}${BODY}[A-Za-z0-9_-]*`, 'g');

/** What stands for a redacted secret in a log line. */
export const REDACTED = '[REDACTED]';

/** Whether `text` is, as a whole, shaped like a key. */
export function isApiKeyShaped(text: string): boolean {
  return WHOLE.test(text);
}

/** Whether `text` holds something shaped like a key anywhere. */
export function containsApiKey(text: string): boolean {
  // indexOf first: most text has no mark at all, and a regex scan costs more.
  if (!text.includes(API_KEY_MARK)) return false;
  ANYWHERE.lastIndex = 0;
  return ANYWHERE.test(text);
}

/**
 * `text` with everything key-shaped replaced by its display prefix and
 * [REDACTED] (`cat_AbCdEfGh[REDACTED]`): the prefix tells an operator which
 * key leaked (to revoke it), the rest of the key is gone.
 */
export function redactApiKeys(text: string): string {
  if (!text.includes(API_KEY_MARK)) return text;
  return text.replace(ANYWHERE, (key) => key.slice(0, API_KEY_PREFIX_LENGTH) + REDACTED);
}
