// API keys and rate limits as the configuration asks for them.
import type pg from 'pg';
import type { Config } from '../config.ts';
import { createRateLimiter } from '../ratelimit/create-limiter.ts';
import { throttled } from '../util/throttled.ts';
import { AccessControl } from './access.ts';
import { ApiKeyResolver } from './key-resolver.ts';
import { ApiKeyStore } from './key-store.ts';

export function createAccessControl(
  config: Config,
  database: { pool: pg.Pool },
  warn: (message: string, error: unknown) => void,
): { access: AccessControl; close(): Promise<void> } {
  const store = new ApiKeyStore(database);
  const log = throttled(warn);
  const limiter = createRateLimiter(config, (error) => log('rate limiter: Redis connection problem', error));
  const access = new AccessControl({
    resolver: new ApiKeyResolver((hash) => store.findActive(hash), {
      ttlSeconds: config.apiKeyCacheSeconds,
      negativeTtlSeconds: config.apiKeyNegativeCacheSeconds,
      maxNegativeEntries: config.apiKeyNegativeCacheSize,
      list: (limit) => store.listActive(limit),
    }),
    limiter,
    readsNeedKey: config.apiKeysForReads === 'required',
    anonymousPerMinute: config.rateLimitAnonymousPerMinute,
    keyPerMinute: config.rateLimitKeyPerMinute,
    keyChecksPerMinute: config.rateLimitKeyChecksPerMinute,
    warn: log,
  });
  return { access, close: async () => limiter?.close() };
}
