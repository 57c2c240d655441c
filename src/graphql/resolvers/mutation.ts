// Writes: validate, then the catalogue service (one transaction each).
import type { MutationResolvers } from '../../generated/graphql/resolvers.ts';
import { type ProductWrite, ValidationError, validateProductWrite } from '../../catalog/validation.ts';
import { badInput } from '../errors.ts';
import { parseId } from '../ids.ts';

/** Validation problems are the client's to fix: HTTP 400 with the field named. */
function validated(input: unknown, mode: 'create' | 'update'): ProductWrite {
  try {
    return validateProductWrite(input, mode);
  } catch (error) {
    if (error instanceof ValidationError) throw badInput(error.message, error.field);
    throw error;
  }
}

export const Mutation: MutationResolvers = {
  createProduct: async (_root, { input }, { service }) => {
    const write = validated(input, 'create');
    return service.createProduct(write as Parameters<typeof service.createProduct>[0]);
  },
  updateProduct: (_root, { id, input }, { service }) => service.updateProduct(parseId(id), validated(input, 'update')),
  deleteProduct: async (_root, { id }, { service }) => {
    await service.deleteProduct(parseId(id));
    return id;
  },
};
