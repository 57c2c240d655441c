// What an SSE stream keeps for its life is bounded (issue 45: an undeclared
// variable was kept for the stream's life; 300 streams each with a 900 KB
// junk variable held 617 MB): a request larger than a WebSocket message may
// be (64 KiB) is refused with 413 naming the bound, and one within it keeps
// nothing of what it sent beyond the operation it runs.
import v8 from 'node:v8';
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

const STOCK = `subscription Stock($ids: [ID!]!) { productChanged(ids: $ids) { id product { id name } } }`;
/** Streams opened at once, and the junk each sends: enough to stand out of the noise of the streams themselves. */
const STREAMS = 30;
const JUNK_CHARACTERS = 60_000;

const catalogue = useTestCatalogue();

/** The client's server, listening on a free port; its base URL. */
function listening(client: TestClient): () => string {
  let base = '';
  beforeAll(async () => {
    await client.app.listen({ host: '127.0.0.1', port: 0 });
    const address = client.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  return () => base;
}

/** A full collection (the server runs in this process), then the heap in use. */
function heapAfterCollection(): number {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  gc();
  return v8.getHeapStatistics().used_heap_size;
}

describe('an SSE stream\'s retained state', () => {
  const client = useTestClient(catalogue);
  const base = listening(client);
  let id: string;
  beforeAll(async () => {
    id = String((await catalogue.direct.one<{ id: number }>('SELECT min(id) AS id FROM products')).id);
  });

  const stream = (variables: Record<string, unknown>) => fetch(`${base()}/graphql/stream`, {
    method: 'POST', body: JSON.stringify({ query: STOCK, variables }),
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${client.apiKey}` },
  });

  /** The heap the server holds for STREAMS open streams sending `variables`, after each got its first event. */
  async function heldBy(variables: Record<string, unknown>): Promise<number> {
    const before = heapAfterCollection();
    const responses: Response[] = [];
    try {
      for (let i = 0; i < STREAMS; i++) {
        const response = await stream(variables);
        responses.push(response);
        expect(response.status).toBe(200);
        const reader = response.body!.getReader();
        let text = '';
        while (!text.includes('event: next')) text += new TextDecoder().decode((await reader.read()).value);
        reader.releaseLock();
      }
      return heapAfterCollection() - before;
    } finally {
      await Promise.all(responses.map((response) => response.body?.cancel().catch(() => {})));
      await expect.poll(() => client.server.live!.sse.size, { timeout: 5_000 }).toBe(0);
    }
  }

  it('a request over 64 KiB is refused with 413 naming the bound', async () => {
    const response = await stream({ ids: [id], junk: 'x'.repeat(70_000) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ errors: [{ message: 'a subscription request is at most 65536 bytes (as a graphql-ws message is)', extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('an undeclared variable is not kept for the stream\'s life', async () => {
    const plain = await heldBy({ ids: [id] });
    const junk = await heldBy({ ids: [id], junk: 'x'.repeat(JUNK_CHARACTERS) });
    // Kept, the junk alone would be STREAMS × 60 KB = 1.8 MB more.
    expect(junk - plain, `plain streams held ${plain} bytes, streams with junk ${junk}`).toBeLessThan(STREAMS * JUNK_CHARACTERS / 3);
  });
});
