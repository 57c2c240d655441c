// Live connections outlast the check of their API key: a WebSocket or an SSE
// stream proved its key once, when it started, and may stay open for days.
// So every key that live connections of this process hold is checked again
// once a period, as a request presenting it would be (AccessControl.stillValid:
// the key cache for API_KEY_CACHE_SECONDS, then Postgres), and when it is no
// longer valid (revoked) every one of them is ended, within the same few
// seconds as that key's plain requests start getting 401. A key is checked
// once per period however many connections hold it; one that cannot be
// checked (Postgres down) is left alone until it can.
import type { IncomingHttpHeaders } from 'node:http';
import type { AccessControl, Caller } from '../../auth/access.ts';

/** How often every held key is checked again (its cache, API_KEY_CACHE_SECONDS, decides when Postgres is asked). */
export const KEY_RECHECK_MS = 1_000;

/** What a live connection does when its key is revoked: close, or end its subscriptions, saying why. */
export type OnRevoked = (message: string) => void;

interface HeldKey {
  /** The credentials of one of the connections (every connection holding the key presents the same secret). */
  headers: IncomingHttpHeaders;
  prefix: string;
  holders: Set<OnRevoked>;
}

/** The message a live connection is ended with when its key was revoked. */
export function revokedMessage(prefix: string): string {
  return `the API key ${prefix} was revoked (or is no longer valid): reconnect with a valid key`;
}

export class KeyWatch {
  private readonly access: AccessControl;
  private readonly keys = new Map<number, HeldKey>();
  private readonly timer: NodeJS.Timeout;
  private checking = false;

  constructor(access: AccessControl, periodMs = KEY_RECHECK_MS) {
    this.access = access;
    this.timer = setInterval(() => void this.check(), periodMs);
    this.timer.unref();
  }

  /** Keys held now. */
  get size(): number {
    return this.keys.size;
  }

  /**
   * Watches the key of a live connection (nothing for an anonymous caller);
   * returns what to call when the connection ends.
   */
  hold(caller: Caller, headers: IncomingHttpHeaders, onRevoked: OnRevoked): () => void {
    const key = caller.key;
    if (!key) return () => {};
    let held = this.keys.get(key.id);
    if (!held) this.keys.set(key.id, held = { headers: credentials(headers), prefix: key.prefix, holders: new Set() });
    held.holders.add(onRevoked);
    return () => {
      held.holders.delete(onRevoked);
      if (held.holders.size === 0 && this.keys.get(key.id) === held) this.keys.delete(key.id);
    };
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** One round: each held key checked; a revoked one's connections ended. Rounds never overlap. */
  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      for (const [id, held] of [...this.keys]) {
        if ((await this.access.stillValid(held.headers)) !== false) continue;
        if (this.keys.get(id) === held) this.keys.delete(id);
        const message = revokedMessage(held.prefix);
        for (const onRevoked of held.holders) onRevoked(message);
      }
    } finally {
      this.checking = false;
    }
  }
}

/** Only the headers that carry a key: all a check needs, and nothing else of the request is kept. */
function credentials(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return { authorization: headers.authorization, 'x-api-key': headers['x-api-key'] };
}
