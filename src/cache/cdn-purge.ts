// The CDN purge hook (CDN_PURGE_URL): after every committed write, and after
// the response cache dropped its own entries (so a CDN that refetches at once
// gets the new answer), the same tags are POSTed to the configured URL:
//
//   POST <CDN_PURGE_URL>
//   Content-Type: application/json
//   Surrogate-Key: p:1 listing
//   Authorization: Bearer <CDN_PURGE_TOKEN>   (when set)
//
//   {"tags":["p:1","listing"]}
//
// The body is Cloudflare's purge-by-tag request; the header, the bulk purge of
// Fastly-style surrogate-key caches; anything else takes a small adapter.
// Writes never wait for it: tags are batched for BATCH_MS, one request is in
// flight at a time, at most MAX_TAGS tags per request, and a failed request
// (network error, timeout or non-2xx) is retried with backoff, then counted
// and logged as dropped. CDN copies then live at most their s-maxage.
export interface CdnPurgeOptions {
  url: string;
  token?: string;
  warn(message: string, error?: unknown): void;
  /** Defaults suit production; tests shorten them. */
  batchMs?: number;
  timeoutMs?: number;
  attempts?: number;
  firstRetryMs?: number;
}

/** Cloudflare takes at most 30 tags per purge request. */
export const MAX_TAGS = 30;
const BATCH_MS = 20;

export interface CdnPurgeStats {
  /** Purge requests answered 2xx. */
  sent: number;
  /** Failed attempts (each retried until the attempts run out). */
  failed: number;
  /** Tags given up after every attempt failed. */
  dropped: number;
}

export class CdnPurge {
  readonly stats: CdnPurgeStats = { sent: 0, failed: 0, dropped: 0 };
  private readonly options: Required<Omit<CdnPurgeOptions, 'token'>> & { token?: string };
  private readonly queued = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** Shutting down: each request is tried once. */
  private closing = false;

  constructor(options: CdnPurgeOptions) {
    this.options = { batchMs: BATCH_MS, timeoutMs: 2_000, attempts: 5, firstRetryMs: 200, ...options };
  }

  /** Queues these tags for the next purge request. */
  purge(tags: readonly string[]): void {
    if (this.closed || tags.length === 0) return;
    for (const tag of tags) this.queued.add(tag);
    this.timer ??= setTimeout(() => { this.timer = undefined; this.flush(); }, this.options.batchMs);
  }

  private flush(): void {
    if (this.running || this.queued.size === 0) return;
    const tags = [...this.queued].slice(0, MAX_TAGS);
    for (const tag of tags) this.queued.delete(tag);
    this.running = this.send(tags).finally(() => {
      this.running = undefined;
      // What arrived meanwhile goes next, without waiting another batch.
      if (this.queued.size > 0 && !this.closed) this.flush();
    });
  }

  private async send(tags: string[]): Promise<void> {
    let delay = this.options.firstRetryMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await fetch(this.options.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'surrogate-key': tags.join(' '),
            ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
          },
          body: JSON.stringify({ tags }),
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok) {
          this.stats.sent++;
          return;
        }
        throw new Error(`the purge URL answered ${response.status}`);
      } catch (error) {
        this.stats.failed++;
        if (attempt >= this.options.attempts || this.closing) {
          this.stats.dropped += tags.length;
          this.options.warn(`CDN purge of ${tags.length} tags given up after ${attempt} attempts (CDN copies live until their s-maxage)`, error);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
        delay = Math.min(delay * 2, 5_000);
      }
    }
  }

  /** Sends what is queued (one attempt per request from now on), then stops. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.closing = true;
    while (this.running || this.queued.size > 0) {
      if (!this.running) this.flush();
      await this.running;
    }
    this.closed = true;
  }
}
