// The bodies the write benchmark and the mixed soak send (k6/lib/product-update.ts,
// and bench/wrk/rest-update-features.lua in the same shape) are valid updates:
// a new name and 1-4 distinct features, accepted by the API's own validation unchanged.
import { describe, expect, it } from 'vitest';
import { MAX_UPDATE_FEATURES, randomProductUpdate } from '../../k6/lib/product-update.ts';
import { validateProductWrite } from '../../src/catalog/model/validation.ts';

describe('benchmark product updates', () => {
  it('rename the product and replace its features with 1-4 distinct ones, valid as they are', () => {
    const counts = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const update = randomProductUpdate();
      counts.add(update.features.length);
      expect(update.name).toMatch(/^\S.*\S$/);
      expect(new Set(update.features.map((f) => f.feature)).size).toBe(update.features.length);
      expect(validateProductWrite(JSON.parse(JSON.stringify(update)), 'update', { defaultPrice: 'default_price' })).toMatchObject(update);
    }
    expect([...counts].sort()).toEqual(Array.from({ length: MAX_UPDATE_FEATURES }, (_, i) => i + 1));
  });
});
