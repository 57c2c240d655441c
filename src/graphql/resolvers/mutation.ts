// Writes: validate, then the catalogue service (one transaction each).
import type { MutationResolvers } from '../../generated/graphql/resolvers.ts';
import { IdempotencyKeyReused, parseIdempotencyKey } from '../../catalog/idempotency.ts';
import type { ProductCreate } from '../../catalog/service.ts';
import { ValidationError, validateProductWrite } from '../../catalog/validation.ts';
import { badInput, idempotencyKeyReused } from '../errors.ts';
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

export const Mutation: MutationResolvers = {
  createProduct: async (_root, { input, idempotencyKey }, { service, idempotencyKeyHeader }) => {
    const write = validated(() => validateProductWrite(input, 'create'));
    const key = validated(() => idempotencyKey === undefined || idempotencyKey === null
      ? parseIdempotencyKey(idempotencyKeyHeader, 'Idempotency-Key')
      : parseIdempotencyKey(idempotencyKey, 'idempotencyKey'));
    try {
      return (await service.createProduct(write as ProductCreate, { idempotencyKey: key })).product;
    } catch (error) {
      if (error instanceof IdempotencyKeyReused) throw idempotencyKeyReused(error.message);
      throw error;
    }
  },
  updateProduct: (_root, { id, input }, { service }) => service.updateProduct(parseId(id), validated(() => validateProductWrite(input, 'update'))),
  deleteProduct: async (_root, { id }, { service }) => {
    await service.deleteProduct(parseId(id));
    return id;
  },
};
