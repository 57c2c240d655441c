// Sidecar mode as the catalogue service sees it (src/sidecar/ implements it
// over HTTP): a source of truth that takes the writes, what a product looks
// like there, and how a write sent there can fail. REST and GraphQL answer
// these errors (src/rest/routes.ts, src/graphql/resolvers/mutation.ts).
import type { ProductWrite } from '../model/validation.ts';
import type { ProductFields } from '../model/types.ts';

export interface SourceStyle {
  id: number;
  name: string;
  originalPrice: string;
  salePrice: string | null;
  isDefault: boolean;
  photos: { url: string; thumbnailUrl: string }[];
  skus: { id: number; size: string; quantity: number }[];
}

/** One product of the legacy service, ready for CatalogService.applySourceProduct. */
export interface SourceSnapshot extends ProductFields {
  id: number;
  createdAt: string;
  updatedAt: string;
  features: { feature: string; value: string | null }[];
  styles: SourceStyle[];
  /** Related product ids in the legacy order, duplicates kept. */
  related: number[];
  /** sha256 of the three answers' bodies: equal hashes, nothing to write. */
  hash: string;
}

/** A successful legacy answer to a write. */
export interface SourceAnswer {
  status: number;
  body: string;
  contentType: string | undefined;
}

/** Where CatalogService sends writes in sidecar mode. */
export interface ProductSource {
  /** Sends a write; its answer when the legacy service accepted it (2xx); LegacyRejected or LegacySourceUnavailable otherwise. */
  write(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: string): Promise<SourceAnswer>;
  /** The product as the legacy service shows it now (null: gone), read ahead of the sync. */
  fetch(id: number): Promise<SourceSnapshot | null>;
  /** A product the sync should verify first. */
  later(id: number): void;
}

/** The legacy JSON of a validated write (GraphQL's input, in the REST names). */
export function legacyBody(write: ProductWrite): string {
  const body: Record<string, unknown> = {};
  if (write.name !== undefined) body.name = write.name;
  if (write.slogan !== undefined) body.slogan = write.slogan;
  if (write.description !== undefined) body.description = write.description;
  if (write.category !== undefined) body.category = write.category;
  if (write.defaultPrice !== undefined) body.default_price = write.defaultPrice;
  if (write.features !== undefined) body.features = write.features.map((f) => ({ feature: f.feature, value: f.value ?? null }));
  return JSON.stringify(body);
}


/** The legacy service refused the write (a 4xx, or a 5xx after which nothing may have changed): its answer, passed on. */
export class LegacyRejected extends Error {
  readonly status: number;
  /** The legacy body as received. */
  readonly body: string;
  readonly contentType: string;
  constructor(status: number, body: string, contentType: string | undefined) {
    let message = `the legacy service answered ${status}`;
    try {
      const parsed = JSON.parse(body) as { error?: unknown };
      if (typeof parsed?.error === 'string') message = parsed.error;
    } catch { /* not JSON: keep the generic message */ }
    super(message);
    this.name = 'LegacyRejected';
    this.status = status;
    this.body = body;
    this.contentType = contentType ?? 'application/json; charset=utf-8';
  }
}

/** The legacy service could not be reached (down, breaker open, no answer in time): nothing was written here; 503 with Retry-After. */
export class LegacySourceUnavailable extends Error {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'LegacySourceUnavailable';
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

/**
 * The legacy service accepted the write but could not be read back at once:
 * its answer is passed on; the local copy follows at the next sync round
 * (the product is first in its queue).
 */
export class LegacyAcceptedNotApplied extends Error {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
  readonly productId: number;
  constructor(productId: number, status: number, body: string, contentType: string | undefined, cause: unknown) {
    super(`the legacy service accepted the write of product ${productId} but could not be read back yet; it shows here after the next sync round`, { cause });
    this.name = 'LegacyAcceptedNotApplied';
    this.productId = productId;
    this.status = status;
    this.body = body;
    this.contentType = contentType ?? 'application/json; charset=utf-8';
  }
}

/**
 * Whether a legacy answer says product `id` does not exist: a 404 with the
 * contract's body (`{"error": "product 12 not found"}`). Any other 404 (a
 * gateway's HTML page, a proxy between deploys) proves nothing, and nothing
 * is deleted for it.
 */
export function saysProductGone(id: number, status: number, body: string): boolean {
  if (status !== 404) return false;
  try {
    const parsed = JSON.parse(body) as { error?: unknown } | null;
    return typeof parsed?.error === 'string' && parsed.error.includes(`product ${id} `);
  } catch {
    return false;
  }
}
