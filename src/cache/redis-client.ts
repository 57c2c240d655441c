// A Redis connection for things Redis helps with but must never block: no
// offline queue and a short command timeout (a call fails fast when Redis is
// down or slow, and the caller carries on without it), and reconnection in
// the background, so the feature resumes on its own when Redis is back.
//
// Redis is one server (REDIS_URL) or a master watched by Sentinels
// (REDIS_SENTINELS): then ioredis asks the Sentinels where the master is at
// every (re)connection, checks the server it reached is the master, and
// follows a failover (Sentinel's +switch-master) at once.
import { type Command, Redis, type RedisOptions } from 'ioredis';
import { CommandDeadlines } from './command-deadlines.ts';
import { SpanKind, childSpan, failed, traces } from '../tracing/spans.ts';
import type { RedisTarget, SentinelAddress } from '../config.ts';

export type { RedisTarget, SentinelAddress };


export interface RedisClientOptions {
  target: RedisTarget;
  /** Longest a command may take before it counts as a failure. */
  timeoutMs: number;
  onError?: (error: Error) => void;
  /** Send the commands of one event-loop turn (many concurrent requests) in one write. */
  autoPipelining?: boolean;
}

/** Keep trying to come back, at most every 2 s (to a server, or to the Sentinels when none answers). */
const reconnectDelay = (attempt: number) => Math.min(100 * attempt, 2_000);

export function connectRedis(options: RedisClientOptions): Redis {
  const common: RedisOptions = {
    enableOfflineQueue: false,
    // Not ioredis's commandTimeout: see ./command-deadlines.ts.
    connectTimeout: Math.max(options.timeoutMs * 10, 500),
    maxRetriesPerRequest: 0,
    retryStrategy: reconnectDelay,
    lazyConnect: false,
    enableAutoPipelining: options.autoPipelining ?? false,
  };
  const { target } = options;
  const client = 'url' in target
    ? new Redis(target.url, common)
    : new Redis({
      ...common,
      sentinels: target.sentinels,
      name: target.masterName,
      password: target.password,
      sentinelPassword: target.sentinelPassword,
      // A Sentinel that does not answer is skipped after the same bound as a command.
      sentinelCommandTimeout: Math.max(options.timeoutMs * 10, 500),
      sentinelRetryStrategy: reconnectDelay,
      // Subscribes to the Sentinels' +switch-master: reconnects to the new
      // master as soon as they announce it, instead of at the next failure.
      failoverDetector: true,
    });
  client.on('error', (error: Error) => options.onError?.(error));
  boundCommands(client, new CommandDeadlines(options.timeoutMs));
  reconnectAfterUnaskedEnd(client, options.onError);
  return client;
}

/**
 * With traces on, a command sent inside a recorded span is a span of its own
 * (its name, never its key or value), ended when Redis answers or the
 * command fails (its deadline included).
 */
function commandSpan(command: Command): void {
  const span = childSpan(command.name.toUpperCase(), { 'db.system.name': 'redis', 'db.operation.name': command.name.toUpperCase() }, SpanKind.CLIENT);
  if (!span) return;
  command.promise.then(() => span.end(), (error: unknown) => {
    failed(span, error);
    span.end();
  });
}

/** Every command the client sends (pipelined ones too: they pass here one by one) fails after the bound. */
function boundCommands(client: Redis, deadlines: CommandDeadlines): void {
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command: Command, ...rest: unknown[]) => {
    deadlines.watch(command);
    if (traces.tracer) commandSpan(command);
    return (send as (command: Command, ...rest: unknown[]) => unknown)(command, ...rest);
  };
}

/**
 * ioredis stops for good (status `end`) when a connection attempt fails
 * outright instead of being retried. With Sentinels it happens in a failover:
 * the master dies, the client reconnects, and the failover detector of the
 * connection that died hears +switch-master while the new attempt is still
 * asking a Sentinel where the master is, and cuts that attempt short (seen in
 * test/faults/redis-sentinel.test.ts: one client in a few runs, then no cache
 * or rate limit on that instance until a restart). Any end the API did not
 * ask for (disconnect()) is followed by a fresh connection.
 */
function reconnectAfterUnaskedEnd(client: Redis, onError: RedisClientOptions['onError']): void {
  let closing = false;
  const disconnect = client.disconnect.bind(client);
  client.disconnect = (reconnect?: boolean) => {
    if (!reconnect) closing = true;
    disconnect(reconnect);
  };
  client.on('end', () => {
    if (closing) return;
    onError?.(new Error('the Redis client gave up its connection (ioredis status "end"): connecting again'));
    setTimeout(() => {
      if (!closing && client.status === 'end') client.connect().catch(() => { /* 'end' again: retried from there */ });
    }, reconnectDelay(1)).unref();
  });
}

/** Runs a command only on a ready connection: otherwise fails at once instead of waiting. */
export function whenReady<T>(client: Redis, command: () => Promise<T>): Promise<T> {
  if (client.status !== 'ready') return Promise.reject(new Error(`Redis is ${client.status}`));
  return command();
}
