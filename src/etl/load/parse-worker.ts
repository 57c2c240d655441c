// A parse-and-clean thread of the loader (parse-pool.ts): keeps the parent
// ids it is sent before each phase and parses the chunks it is given
// (parse-chunk.ts), handing the results back without copying them.
import { parentPort } from 'node:worker_threads';
import { IdSet } from './id-set.ts';
import { parseChunk } from './parse-chunk.ts';
import type { LoadedIds } from './tables.ts';
import type { WorkerMessage } from './parse-protocol.ts';

const loaded: LoadedIds = { products: new IdSet(), styles: new IdSet() };

parentPort!.on('message', (message: WorkerMessage) => {
  if (message.type === 'parents') {
    loaded.products = IdSet.fromBits(message.products);
    loaded.styles = IdSet.fromBits(message.styles);
    return;
  }
  try {
    const result = parseChunk(message, loaded);
    parentPort!.postMessage({ id: message.id, result }, [result.copy.buffer, result.ids.buffer, result.lines.buffer, result.repaired.buffer]);
  } catch (error) {
    parentPort!.postMessage({ id: message.id, error: (error as Error).message });
  }
});
