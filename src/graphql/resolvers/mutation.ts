// Writes: validate, then the catalogue service (one transaction each). The
// product a write returns primes this request's loaders: fields selected on
// the mutation's result are answered from what the write wrote, not read again.
import type { MutationResolvers } from '../../generated/graphql/resolvers.ts';
import { IdempotencyKeyReused, parseIdempotencyKey } from '../../catalog/writes/idempotency.ts';
import type { CatalogLoaders } from '../../catalog/reads/loaders.ts';
import { type ProductCreate, VersionMismatch, type WrittenProduct } from '../../catalog/writes/service.ts';
import { ValidationError, parseVersion, validateProductWrite } from '../../catalog/model/validation.ts';
import { CatalogueReloading, WriteContention } from '../../db/writes/transaction.ts';
import { badInput, catalogueReloading, idempotencyKeyReused, legacyUnavailable, notFound, versionConflict, writeContention } from '../errors.ts';
import { LegacyAcceptedNotApplied, LegacyRejected, LegacySourceUnavailable } from '../../catalog/writes/source.ts';
import { parseId } from '../ids.ts';

/** Validation problems are the client's to fix: HTTP 400 with the field named. */
function validated<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ValidationError) throw badInput(error.message, error.field);
    throw error;
  }
}

/** Runs a write, turning the failures a client can act on into their GraphQL errors. */
async function write<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof IdempotencyKeyReused) throw idempotencyKeyReused(error.message);
    if (error instanceof VersionMismatch) throw versionConflict(error.message, error.currentVersion);
    if (error instanceof CatalogueReloading) throw catalogueReloading(error.message, error.retryAfterSeconds);
    if (error instanceof WriteContention) throw writeContention(error.message);
    // Sidecar mode: the legacy service refused (its message), or could not be reached (503, nothing written).
    if (error instanceof LegacyRejected) throw error.status === 404 ? notFound(error.message) : badInput(error.message);
    if (error instanceof LegacySourceUnavailable) throw legacyUnavailable(error.message, error.retryAfterSeconds);
    if (error instanceof LegacyAcceptedNotApplied) throw legacyUnavailable(error.message, 1, true);
    throw error;
  }
}

function primed(loaders: CatalogLoaders, { product, features }: WrittenProduct) {
  loaders.product.clear(product.id).prime(product.id, product);
  loaders.features.clear(product.id).prime(product.id, features);
  return product;
}

/** expectedVersion as the service takes it: undefined when not sent; not a version at all is a 400. */
const expected = (version: string | null | undefined) => (version === undefined || version === null ? undefined : [validated(() => parseVersion(version, 'expectedVersion'))]);

export const Mutation: MutationResolvers = {
  createProduct: async (_root, { input, idempotencyKey }, { service, idempotencyKeyHeader, loaders }) => {
    const checked = validated(() => validateProductWrite(input, 'create'));
    const key = validated(() => idempotencyKey === undefined || idempotencyKey === null
      ? parseIdempotencyKey(idempotencyKeyHeader, 'Idempotency-Key')
      : parseIdempotencyKey(idempotencyKey, 'idempotencyKey'));
    return primed(loaders, await write(() => service.createProduct(checked as ProductCreate, { idempotencyKey: key })));
  },
  updateProduct: async (_root, { id, input, expectedVersion }, { service, loaders }) => {
    const checked = validated(() => validateProductWrite(input, 'update'));
    return primed(loaders, await write(() => service.updateProduct(parseId(id), checked, { expected: expected(expectedVersion) })));
  },
  deleteProduct: async (_root, { id, expectedVersion }, { service }) => {
    await write(() => service.deleteProduct(parseId(id), { expected: expected(expectedVersion) }));
    return id;
  },
};
