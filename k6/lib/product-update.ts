// The body of a benchmark or soak write (PUT /products/:id): a new name and
// 1-4 features replacing the product's, from the words the catalogue
// generator uses (src/etl/generate/vocabulary.ts), so written products look like
// the loaded ones. No k6 or Node imports: the k6 scripts and npm run bench's
// sampled requests (bench/lib/sample-requests.ts) both use it;
// bench/wrk/rest-update-features.lua sends bodies of the same shape.
import { ADJECTIVES, CATEGORIES, FEATURES, NOUNS } from '../../src/etl/generate/vocabulary.ts';

export interface ProductUpdate {
  name: string;
  features: { feature: string; value: string | null }[];
}

export const MAX_UPDATE_FEATURES = 4;

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!;
}

export function randomProductUpdate(random: () => number = Math.random): ProductUpdate {
  const category = pick(CATEGORIES, random);
  const count = 1 + Math.floor(random() * MAX_UPDATE_FEATURES);
  // Distinct feature names, as a product's features are.
  const start = Math.floor(random() * FEATURES.length);
  const features = Array.from({ length: count }, (_, i) => {
    const [feature, values] = FEATURES[(start + i) % FEATURES.length]!;
    const value = pick(values, random);
    return { feature, value: value === '' ? null : value };
  });
  return { name: `${pick(ADJECTIVES, random)} ${pick(NOUNS[category], random)}`, features };
}
