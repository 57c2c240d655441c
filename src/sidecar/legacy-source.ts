// Sidecar mode's writes: passed through to the legacy service (the source of
// truth) with priority 'interactive', then the product is read back at once
// and applied locally (CatalogService, "through the source").
import type { ProductSource, SourceAnswer, SourceSnapshot } from '../catalog/writes/source.ts';
import { LegacyRejected, LegacySourceUnavailable } from '../catalog/writes/source.ts';
import { LegacyError, LegacyUnavailableError } from '../legacy/errors.ts';
import type { LegacyClient, LegacyResponse } from '../legacy/legacy-client.ts';
import { parseRetryAfter } from '../legacy/backoff.ts';
import type { RecentIds } from './recent-ids.ts';
import { fetchSnapshot } from './sync-worker.ts';

/** When the legacy client gives no hint: how long a writer should wait. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

function unavailable(error: unknown): never {
  if (error instanceof LegacyError) {
    const what = error instanceof LegacyUnavailableError && error.maybeSent
      ? `${error.message}: it may or may not have been applied there; read the product before trying again`
      : error.message;
    throw new LegacySourceUnavailable(`the legacy service (the source of truth) is unavailable: ${what}; nothing was written here`,
      (error.retryAfterMs ?? DEFAULT_RETRY_AFTER_SECONDS * 1000) / 1000, { cause: error });
  }
  throw error;
}

export class LegacySource implements ProductSource {
  private readonly client: LegacyClient;
  private readonly recent: RecentIds;
  constructor(client: LegacyClient, recent: RecentIds) {
    this.client = client;
    this.recent = recent;
  }

  async write(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: string): Promise<SourceAnswer> {
    let answer: LegacyResponse;
    try {
      answer = await this.client.send(method, path, body, body === undefined ? {} : { 'content-type': 'application/json' }, { priority: 'interactive' });
    } catch (error) {
      unavailable(error);
    }
    const contentType = typeof answer.headers['content-type'] === 'string' ? answer.headers['content-type'] : undefined;
    if (answer.status >= 200 && answer.status < 300) return { status: answer.status, body: answer.body, contentType };
    // Busy or down: nothing applied (the client already waited what it could).
    if (answer.status === 429 || answer.status === 502 || answer.status === 503 || answer.status === 504) {
      const hinted = parseRetryAfter(answer.headers['retry-after'], Date.now());
      throw new LegacySourceUnavailable(`the legacy service (the source of truth) answered ${answer.status}; nothing was written here`,
        hinted === undefined ? DEFAULT_RETRY_AFTER_SECONDS : hinted / 1000);
    }
    throw new LegacyRejected(answer.status, answer.body, contentType);
  }

  async fetch(id: number): Promise<SourceSnapshot | null> {
    try {
      return await fetchSnapshot((path) => this.client.get(path, { priority: 'interactive' }), id);
    } catch (error) {
      unavailable(error);
    }
  }

  later(id: number): void {
    this.recent.add(id);
  }
}
