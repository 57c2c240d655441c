// The admin token the benchmarks start the API with (ADMIN_TOKEN): in
// production mode /healthz shows its pid and cache counters, which the
// benchmarks read, only to holders of the token.
import crypto from 'node:crypto';

export const BENCH_ADMIN_TOKEN = crypto.randomBytes(24).toString('base64url');

/** Headers that show a probe the details (harmless for the baseline server, which ignores them). */
export const ADMIN_HEADERS: Readonly<Record<string, string>> = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` };
