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
// Writes never wait for it: tags are batched for BATCH_MS, up to
// MAX_IN_FLIGHT requests are in flight, MAX_TAGS tags each, and a failed request
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

/** Purge requests in flight at once. */
const MAX_IN_FLIGHT = 4;

export class CdnPurge {
  readonly stats: CdnPurgeStats = { sent: 0, failed: 0, dropped: 0 };
  private readonly options: Required<Omit<CdnPurgeOptions, 'token'>> & { token?: string };
  private readonly queued = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Set<Promise<void>>();
  /** Shutting down: each request is tried once, and waits between retries end at once. */
  private readonly closing = new AbortController();

  constructor(options: CdnPurgeOptions) {
    this.options = { batchMs: BATCH_MS, timeoutMs: 2_000, attempts: 5, firstRetryMs: 200, ...options };
  }

  /** Queues these tags for the next purge request. */
  purge(tags: readonly string[]): void {
    if (this.closing.signal.aborted || tags.length === 0) return;
    for (const tag of tags) this.queued.add(tag);
    this.timer ??= setTimeout(() => { this.timer = undefined; this.flush(); }, this.options.batchMs);
  }

  /** Sends queued tags, MAX_TAGS a request, up to MAX_IN_FLIGHT requests at once. */
  private flush(): void {
    while (this.queued.size > 0 && (this.running.size < MAX_IN_FLIGHT || this.closing.signal.aborted)) {
      const tags = [...this.queued].slice(0, MAX_TAGS);
      for (const tag of tags) this.queued.delete(tag);
      const request: Promise<void> = this.send(tags).finally(() => {
        this.running.delete(request);
        // What arrived meanwhile goes next, without waiting another batch.
        if (this.queued.size > 0) this.flush();
      });
      this.running.add(request);
    }
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
        if (attempt >= this.options.attempts || this.closing.signal.aborted) {
          this.stats.dropped += tags.length;
          this.options.warn(`CDN purge of ${tags.length} tags given up after ${attempt} attempts (CDN copies live until their s-maxage)`, error);
          return;
        }
        await new Promise<void>((resolve) => {
          const stop = () => { clearTimeout(timer); resolve(); };
          const timer = setTimeout(() => { this.closing.signal.removeEventListener('abort', stop); resolve(); }, delay);
          timer.unref();
          this.closing.signal.addEventListener('abort', stop, { once: true });
        });
        delay = Math.min(delay * 2, 5_000);
      }
    }
  }

  /**
   * Sends what is queued, every request at once and tried once more at most,
   * then stops: shutdown waits at most about two request timeouts.
   */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.closing.abort();
    this.flush();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
