// Sidecar mode's writes: the legacy service stays the source of truth, so a
// create, update or delete is sent there first, and only what it accepted is
// written here: its product is read back at once and applied to the local
// copy (CatalogService.applySourceProduct, the sync's own write). Nothing is
// written here that the legacy service did not accept.
import { fingerprint } from '../catalog/writes/idempotency.ts';
import { NotFoundError, type ProductWrite } from '../catalog/model/validation.ts';
import type { CatalogService, CreateResult, ProductCreate, ProductWrites, WriteConditions, WrittenProduct } from '../catalog/writes/service.ts';
import { LegacyAcceptedNotApplied, LegacyRejected, legacyBody, saysProductGone, type ProductSource, type SourceAnswer } from '../catalog/writes/source.ts';

export class PassThroughWrites implements ProductWrites {
  private readonly service: CatalogService;
  private readonly source: ProductSource;
  /** Creates with the same Idempotency-Key in this process, one at a time. */
  private readonly keyedCreates = new Map<string, Promise<unknown>>();

  constructor(service: CatalogService, source: ProductSource) {
    this.service = service;
    this.source = source;
  }

  /**
   * POST to the source, then its product read back and applied. An
   * Idempotency-Key keeps its meaning: the same key with the same content
   * answers with the product the first create made, without a second POST;
   * with other content, IdempotencyKeyReused (422). Creates with one key are
   * serialized in this process; two instances racing with the same key could
   * both POST (docs/sidecar.md).
   */
  async createProduct(write: ProductCreate, options: { idempotencyKey?: string; sourceBody?: string } = {}): Promise<CreateResult> {
    const key = options.idempotencyKey;
    if (key === undefined) return this.create(write, undefined, options.sourceBody);
    // One at a time per key in this process.
    const before = this.keyedCreates.get(key) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(() => this.create(write, key, options.sourceBody));
    this.keyedCreates.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.keyedCreates.get(key) === mine) this.keyedCreates.delete(key);
    }
  }

  async updateProduct(id: number, write: ProductWrite, options: WriteConditions & { sourceBody?: string } = {}): Promise<WrittenProduct> {
    if (options.expected !== undefined || options.excluded !== undefined) await this.service.checkVersion(id, options);
    const answer = await this.goneThereGoneHere(id, this.source.write('PUT', `/products/${id}`, options.sourceBody ?? legacyBody(write)));
    return this.readBack(id, answer);
  }

  async deleteProduct(id: number, options: WriteConditions = {}): Promise<void> {
    if (options.expected !== undefined || options.excluded !== undefined) await this.service.checkVersion(id, options);
    await this.goneThereGoneHere(id, this.source.write('DELETE', `/products/${id}`));
    // Gone there: gone here, at once.
    await this.service.applySourceProduct(id, null);
  }

  private async create(write: ProductCreate, key: string | undefined, sourceBody: string | undefined): Promise<CreateResult> {
    const requestHash = key === undefined ? '' : fingerprint(write);
    if (key !== undefined) {
      const earlier = await this.keyed(key, requestHash);
      if (earlier) return earlier;
    }
    const answer = await this.source.write('POST', '/products', sourceBody ?? legacyBody(write));
    let id: number | undefined;
    try {
      id = (JSON.parse(answer.body) as { id?: unknown }).id as number;
    } catch { /* below */ }
    if (!Number.isSafeInteger(id)) throw new Error(`the legacy service answered ${answer.status} to a create without a product id`);
    // Remembered before reading back: a retry must not POST again even if the read-back fails.
    if (key !== undefined) {
      await this.service.rememberKeyedProduct(key, requestHash, id!)
        .catch(() => { /* a concurrent create from another instance took it: that one answers its own */ });
    }
    return { ...(await this.readBack(id!, answer)), replayed: false };
  }

  /** The product an earlier create with this key made: here, or (not here yet) as the source shows it now. */
  private async keyed(key: string, requestHash: string): Promise<CreateResult | undefined> {
    const earlierId = await this.service.keyedProduct(key, requestHash);
    if (earlierId === undefined) return undefined;
    const earlier = await this.service.productWithFeatures(earlierId);
    if (earlier) return { ...earlier, replayed: true };
    const applied = await this.service.applySourceProduct(earlierId, await this.source.fetch(earlierId));
    if (!applied.written) throw new NotFoundError(`product ${earlierId}, created with this Idempotency-Key, has been deleted since`);
    return { ...applied.written, replayed: true };
  }

  /** A write the source refused with 404: the product is gone there, so here too (then the refusal goes to the client). */
  private async goneThereGoneHere<T>(id: number, sent: Promise<T>): Promise<T> {
    try {
      return await sent;
    } catch (error) {
      if (error instanceof LegacyRejected && saysProductGone(id, error.status, error.body)) await this.service.applySourceProduct(id, null).catch(() => {});
      throw error;
    }
  }

  /**
   * The product a write the source accepted left there, read back at once and
   * applied here. When it cannot be read back, the source's own answer goes
   * to the client (LegacyAcceptedNotApplied) and the sync verifies the
   * product first.
   */
  private async readBack(id: number, answer: SourceAnswer): Promise<WrittenProduct> {
    try {
      const applied = await this.service.applySourceProduct(id, await this.source.fetch(id));
      if (!applied.written) throw new NotFoundError(`product ${id} not found (deleted in the legacy service meanwhile)`);
      return applied.written;
    } catch (error) {
      if (error instanceof NotFoundError) throw error;
      this.source.later(id);
      throw new LegacyAcceptedNotApplied(id, answer.status, answer.body, answer.contentType, error);
    }
  }
}
