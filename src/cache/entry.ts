// What the response cache keeps for a key, and how it is kept in a store.

export interface CachedResponse {
  /** The body, exactly as sent. */
  body: string;
  status: number;
  tags: string[];
  /** The response's ETag header, when it has one (a product's version). */
  etag?: string;
  /** Its ETags by media type, for an answer sent in more than one (GraphQL: computed once, when stored). */
  etags?: Record<string, string>;
}

/** What the store holds: the response and when its read began (on the freshness clock). */
export interface StoredResponse extends CachedResponse {
  readAt?: number;
}

/** A response read from Postgres, waiting to be stored: the store's invalidation counter and when the read began. */
export interface CacheToken {
  generation: number;
  /** On the feed's clock (the wall clock without a feed). */
  readAt: number;
}

/**
 * How an entry is kept: one line of JSON with everything but the body, then
 * the body as it is. A hit then parses a few bytes of JSON instead of the whole
 * body as an escaped JSON string (a third of a hit's CPU for a product page).
 * JSON.stringify escapes line breaks, so the first newline ends the head.
 */
export function encodeStored({ body, ...head }: StoredResponse): string {
  return `${JSON.stringify(head)}\n${body}`;
}

/** The entry `raw` holds, or undefined when it is not one (another format). */
export function decodeStored(raw: string): StoredResponse | undefined {
  const end = raw.indexOf('\n');
  if (end === -1 || raw.charCodeAt(0) !== 0x7b /* { */) return undefined;
  const head = JSON.parse(raw.slice(0, end)) as Omit<StoredResponse, 'body'>;
  if (typeof head.status !== 'number' || !Array.isArray(head.tags)) return undefined;
  return { ...head, body: raw.slice(end + 1) };
}
