// The read replicas the configuration names (DATABASE_REPLICA_URLS), behind
// one ReadRouter that shares the statement counter of the primary's pool.
import type { Redis } from 'ioredis';
import type { Config } from '../../config.ts';
import { countedPool, type Database } from '../pool/pool.ts';
import { withSessionSettings } from '../pool/session-settings.ts';
import { ReadRouter } from './replica-router.ts';
import { Replica, replicaName } from './replica.ts';
import { SharedWritePosition } from './shared-write-position.ts';


export interface ReplicaLog {
  warn(message: string, error?: unknown): void;
  info(message: string): void;
}

/** Connects to every replica and checks each once. `redis` shares write positions between instances. */
export async function connectReadReplicas(config: Config, database: Database, redis: Redis | undefined, log: ReplicaLog): Promise<ReadRouter> {
  const transactionPooler = config.databasePooler === 'transaction';
  const replicas = config.databaseReplicaUrls.map((url) => new Replica(
    replicaName(url),
    countedPool(database.statements, {
      connectionString: withSessionSettings(url, { pgOptions: config.pgOptions, transactionPooler }), max: config.databasePoolSize,
      // A replica that does not accept a connection or answer a statement in
      // time counts as down (its read goes to the primary): a host that vanished
      // must not hold requests for the operating system's TCP timeout.
      connectionTimeoutMillis: config.databaseReplicaConnectTimeoutMs, query_timeout: config.databaseReplicaQueryTimeoutMs,
    }, { unnamedStatements: transactionPooler }),
    (replica, error) => {
      if (replica.healthy) log.info(`read replica ${replica.name} is back: reads go to it again`);
      else log.warn(`read replica ${replica.name} is down: its reads go to the primary`, error);
    },
  ));
  const router = new ReadRouter({
    primary: database.pool,
    replicas,
    statements: database.statements,
    checkIntervalMs: config.databaseReplicaCheckMs,
    shared: redis ? new SharedWritePosition(redis, `${config.cachePrefix}replicas:write-lsn`) : undefined,
    warn: log.warn,
  });
  await router.start();
  return router;
}
