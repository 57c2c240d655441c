// A Redis connection for things Redis helps with but must never block: no
// offline queue and a short command timeout (a call fails fast when Redis is
// down or slow, and the caller carries on without it), and reconnection in
// the background, so the feature resumes on its own when Redis is back.
import { Redis } from 'ioredis';

export interface RedisClientOptions {
  url: string;
  /** Longest a command may take before it counts as a failure. */
  timeoutMs: number;
  onError?: (error: Error) => void;
  /** Send the commands of one event-loop turn (many concurrent requests) in one write. */
  autoPipelining?: boolean;
}

export function connectRedis(options: RedisClientOptions): Redis {
  const client = new Redis(options.url, {
    enableOfflineQueue: false,
    commandTimeout: options.timeoutMs,
    connectTimeout: Math.max(options.timeoutMs * 10, 500),
    maxRetriesPerRequest: 0,
    // Keep trying to come back, at most every 2 s.
    retryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
    lazyConnect: false,
    enableAutoPipelining: options.autoPipelining ?? false,
  });
  client.on('error', (error: Error) => options.onError?.(error));
  return client;
}

/** Runs a command only on a ready connection: otherwise fails at once instead of waiting. */
export function whenReady<T>(client: Redis, command: () => Promise<T>): Promise<T> {
  if (client.status !== 'ready') return Promise.reject(new Error(`Redis is ${client.status}`));
  return command();
}
