// The catalogue the scripts draw random ids and pages from. ID_MIN, ID_MAX and
// PRODUCT_COUNT give it; whatever is not given is discovered in setup() from
// the legacy listing, so a script works against any server without knowing
// its data. Random ids cover the whole range (never one hot id); ids in gaps
// answer 404 / null, which the checks accept.
import http from 'k6/http';
import { config } from './config.ts';

export interface Catalogue {
  idMin: number;
  idMax: number;
  /** Products in the catalogue: the listing's last page is ceil(productCount / count). */
  productCount: number;
}

/** The id of the product at this 1-based position in id order, or undefined past the end. */
function idAtPosition(position: number): number | undefined {
  const response = http.get(`${config.baseUrl}/products?page=${position}&count=1`, { tags: { name: 'setup: find the catalogue' } });
  if (response.status !== 200) throw new Error(`discovering the catalogue: GET /products?page=${position}&count=1 failed: ${response.error || `HTTP ${response.status}`}`);
  const page = JSON.parse(response.body as string) as { id: number }[];
  return page[0]?.id;
}

/**
 * Product count and id range, by an exponential then binary search over
 * one-product pages: about 2 log2(n) requests (40 for a million products).
 */
function discover(): Catalogue {
  const idMin = idAtPosition(1);
  if (idMin === undefined) throw new Error(`the catalogue at ${config.baseUrl} is empty: load one (npm run data:load) or start with the sample`);
  let present = 1;
  let absent = 2;
  while (idAtPosition(absent) !== undefined) {
    present = absent;
    absent *= 2;
  }
  while (absent - present > 1) {
    const middle = Math.floor((present + absent) / 2);
    if (idAtPosition(middle) === undefined) absent = middle;
    else present = middle;
  }
  return { idMin, idMax: idAtPosition(present) as number, productCount: present };
}

/** setup(): the catalogue from the environment, discovering only what it lacks. */
export function findCatalogue(): Catalogue {
  const given = config.catalogue;
  if (given.idMin !== undefined && given.idMax !== undefined && given.productCount !== undefined) {
    return { idMin: given.idMin, idMax: given.idMax, productCount: given.productCount };
  }
  const found = discover();
  const catalogue = { idMin: given.idMin ?? found.idMin, idMax: given.idMax ?? found.idMax, productCount: given.productCount ?? found.productCount };
  console.log(`catalogue at ${config.baseUrl}: ${catalogue.productCount} products, ids ${catalogue.idMin} to ${catalogue.idMax}`);
  return catalogue;
}

export function randomId(catalogue: Catalogue): number {
  return catalogue.idMin + Math.floor(Math.random() * (catalogue.idMax - catalogue.idMin + 1));
}

export function lastPage(catalogue: Catalogue, count: number): number {
  return Math.max(1, Math.ceil(catalogue.productCount / count));
}

/** A random listing page, any of them up to the last. */
export function randomPage(catalogue: Catalogue, count: number): number {
  return 1 + Math.floor(Math.random() * lastPage(catalogue, count));
}
