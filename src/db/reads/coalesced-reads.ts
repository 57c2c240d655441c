// Keyed reads of concurrent requests, merged into one statement.
//
// DataLoader batches the keys of one request into one statement; this batches
// across requests. A keyed read (a named statement taking one array of keys)
// joins the open batch of the same statement and route, and the batch is sent
// once the event loop has read every request that arrived with it
// (setImmediate: after the poll phase, before the next one). So at low load
// a statement goes out at once with one request's keys, and under load one
// statement answers many requests: Postgres parses, executes and answers it
// once, and Node sends, awaits and decodes one reply instead of many (the
// rate it gains over a statement per request: docs/performance.md).
//
// What each request sees is unchanged:
// - its rows, and only its rows: the reply is split by key;
// - its statement count (x-sql-statements, the query-count tests): every
//   request whose keys a statement carried counts that statement once, while
//   the process total (sql_statements_total) counts it once;
// - its route: requests share a statement only when their reads go to the
//   same server (the read router picks per request), so a read after a write
//   still waits for a replica that has the write;
// - its snapshot: the statement starts after every request in it asked.
// Rows may be the same objects in several requests' answers: they are read-only.
import type { ReadRoute, Reads } from './read-routes.ts';
import type { StatementCounter } from '../pool/pool.ts';

/** A statement whose one parameter is an int[] of keys, and how to tell a row's key. */
export interface KeyedStatement<Row> {
  text: string;
  keyOf(row: Row): number;
}

/** Told how many requests' reads each statement carried (1: not coalesced). */
export type CoalescingObserver = (statement: string, requests: number) => void;

/** Keys one statement carries at most; a request bringing more than fit starts the next statement. */
export const MAX_COALESCED_KEYS = 1000;

interface Waiter {
  keys: readonly number[];
  /** The request's statement count; undefined outside requests. */
  counter: { count: number } | undefined;
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
}

interface Batch {
  /** The prepared statement's name. */
  name: string;
  statement: KeyedStatement<unknown>;
  route: ReadRoute;
  keys: Set<number>;
  waiters: Waiter[];
}

export class CoalescedReads {
  private readonly reads: Reads;
  private readonly statements: StatementCounter;
  private readonly observe: CoalescingObserver | undefined;
  /** The batch still taking keys, by route and statement name. */
  private readonly open = new Map<ReadRoute, Map<string, Batch>>();

  constructor(reads: Reads, statements: StatementCounter, observe?: CoalescingObserver) {
    this.reads = reads;
    this.statements = statements;
    this.observe = observe;
  }

  /**
   * The rows of `keys` (distinct, as DataLoader gives them; rows in statement
   * order within each key), from the prepared statement `name`, shared with
   * concurrent requests.
   */
  async read<Row>(name: string, statement: KeyedStatement<Row>, keys: readonly number[]): Promise<Row[]> {
    // The route is chosen in the request's own context (the router remembers its choice per request).
    const route = await this.reads.route();
    const counter = this.statements.current();
    return new Promise<Row[]>((resolve, reject) => {
      const batch = this.batchFor(name, statement as KeyedStatement<unknown>, route, keys.length);
      for (const key of keys) batch.keys.add(key);
      batch.waiters.push({ keys, counter, resolve: resolve as (rows: unknown[]) => void, reject });
    });
  }

  private batchFor(name: string, statement: KeyedStatement<unknown>, route: ReadRoute, adding: number): Batch {
    let byName = this.open.get(route);
    if (!byName) this.open.set(route, byName = new Map());
    const current = byName.get(name);
    if (current && current.keys.size + adding <= MAX_COALESCED_KEYS) return current;
    const batch: Batch = { name, statement, route, keys: new Set(), waiters: [] };
    byName.set(name, batch);
    setImmediate(() => this.send(batch));
    return batch;
  }

  private send(batch: Batch): void {
    const { name, statement, waiters } = batch;
    const byName = this.open.get(batch.route);
    if (byName?.get(name) === batch) byName.delete(name);
    this.observe?.(name, waiters.length);
    // Counted once in the process total here, and once per request below.
    const rows = this.statements.uncharged(() => batch.route.run(async (client) =>
      (await client.query({ name, text: statement.text, values: [[...batch.keys]] })).rows));
    for (const waiter of waiters) if (waiter.counter) waiter.counter.count++;
    rows.then((all) => {
      if (waiters.length === 1) return waiters[0]!.resolve(all);
      const byKey = splitByKey(all, statement.keyOf);
      for (const waiter of waiters) waiter.resolve(waiter.keys.flatMap((key) => byKey.get(key) ?? []));
    }).catch((error: unknown) => {
      // The statement failed (or, never expected, a row had no readable key): every request in it fails.
      for (const waiter of waiters) waiter.reject(error);
    });
  }
}

function splitByKey(rows: unknown[], keyOf: (row: unknown) => number): Map<number, unknown[]> {
  const byKey = new Map<number, unknown[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = byKey.get(key);
    if (list) list.push(row);
    else byKey.set(key, [row]);
  }
  return byKey;
}
