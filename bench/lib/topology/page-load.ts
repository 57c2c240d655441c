// A light load of the legacy shop's page views through nginx, for the short
// topology test (npm test has no k6): a few loops, each sending a product
// page (detail, styles and related of one random product, at once) or a
// listing page, in k6/lib/shop.ts's mix, one after another. Any answer but
// 200, or none, is a failure.
import { LISTING_COUNT, PRODUCT_PAGE_SHARE } from '../../../k6/lib/shop-mix.ts';

export interface PageLoadResult {
  requests: number;
  failed: string[];
}

export async function pageLoad(options: { url: string; maxId: number; loops: number; running: () => boolean }): Promise<PageLoadResult> {
  const result: PageLoadResult = { requests: 0, failed: [] };
  const get = async (route: string) => {
    try {
      const response = await fetch(`${options.url}${route}`, { signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      result.requests++;
      if (response.status !== 200) result.failed.push(`GET ${route}: ${response.status}`);
    } catch (error) {
      result.failed.push(`GET ${route}: ${(error as Error).message}`);
    }
  };
  await Promise.all(Array.from({ length: options.loops }, async () => {
    while (options.running()) {
      const id = 1 + Math.floor(Math.random() * options.maxId);
      if (Math.random() < PRODUCT_PAGE_SHARE) await Promise.all([`/products/${id}`, `/products/${id}/styles`, `/products/${id}/related`].map(get));
      else await get(`/products?page=${1 + Math.floor(Math.random() * Math.ceil(options.maxId / LISTING_COUNT))}&count=${LISTING_COUNT}`);
    }
  }));
  return result;
}
