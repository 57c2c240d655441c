// The client that checks read-your-writes across hosts: a few loops, each
// writing a random product through nginx (PUT /products/:id, a new name and
// features), and as soon as the write is acknowledged (200, ETag "<version>")
// reading it back through nginx, twice (least-connections spreads the two
// reads and the write over different API hosts). A read is stale when its
// ETag names an older version than the write's, or the same version with
// another name. Other writers (the k6 scenario) may have moved the product
// further meanwhile: a newer version is fresh.
import { etagVersion } from '../../../k6/lib/etag.ts';
import { randomProductUpdate } from '../../../k6/lib/product-update.ts';

/** Reads after each acknowledged write. */
const READS_PER_WRITE = 2;
const TIMEOUT_MS = 10_000;

export interface ReadYourWritesResult {
  writes: number;
  reads: number;
  /** Requests that failed: a status other than 200, or no answer. */
  failed: string[];
  stale: string[];
}

export interface ReadYourWritesOptions {
  url: string;
  apiKey: string;
  maxId: number;
  loops: number;
  /** Writes per second, all loops together, at most (each loop paces itself). */
  writesPerSecond: number;
  /** Keeps writing while this says true. */
  running: () => boolean;
}

export async function checkReadYourWrites(options: ReadYourWritesOptions): Promise<ReadYourWritesResult> {
  const result: ReadYourWritesResult = { writes: 0, reads: 0, failed: [], stale: [] };
  const request = async (method: 'GET' | 'PUT', id: number, body?: string) => {
    try {
      const response = await fetch(`${options.url}/products/${id}`, {
        method, body, signal: AbortSignal.timeout(TIMEOUT_MS),
        headers: body === undefined ? {} : { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
      });
      const text = await response.text();
      if (response.status !== 200) result.failed.push(`${method} /products/${id}: ${response.status} ${text.slice(0, 120)}`);
      return response.status === 200 ? { version: etagVersion(response.headers.get('etag')), name: (JSON.parse(text) as { name: string }).name } : undefined;
    } catch (error) {
      result.failed.push(`${method} /products/${id}: ${(error as Error).message}`);
      return undefined;
    }
  };
  /** One write and the reads after it. */
  const cycle = async () => {
    const id = 1 + Math.floor(Math.random() * options.maxId);
    const update = randomProductUpdate();
    const written = await request('PUT', id, JSON.stringify(update));
    if (written?.version === undefined) return;
    result.writes++;
    for (let i = 0; i < READS_PER_WRITE; i++) {
      const read = await request('GET', id);
      if (!read) continue;
      result.reads++;
      if (read.version === undefined || read.version < written.version || (read.version === written.version && read.name !== update.name)) {
        result.stale.push(`product ${id}: wrote version ${written.version} (${update.name}), then read version ${read.version} (${read.name})`);
      }
    }
  };
  const intervalMs = (options.loops / options.writesPerSecond) * 1000;
  await Promise.all(Array.from({ length: options.loops }, async () => {
    while (options.running()) {
      const began = Date.now();
      await cycle();
      await new Promise((r) => setTimeout(r, Math.max(0, began + intervalMs - Date.now())));
    }
  }));
  return result;
}
