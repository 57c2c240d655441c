// The shop-mix scenario of `npm run bench`: what a shop's visitors send, in
// one run. 40% REST styles (`GET /products/:id/styles`, the legacy front
// end), 35% the GraphQL product page by POST (ProductPageWithRelatedIds of
// k6/operations.graphql), 10% category pages, 10% searches and 5% facets of a
// search (the bodies of bench/lib/browse-requests.ts, realistic words).
// Products are as popular as Zipf(1) says (the r-th most popular is asked for
// 1/r as often as the first) over the whole catalogue, the popular ones spread
// over it (ranks map to ids by a permutation, not ids 1..k); browse requests
// are drawn the same way from BROWSE_VARIETY distinct bodies of each kind.
//
// The sequence is drawn here, once, into a file of short lines ("s 812734":
// the styles of product 812734; "c 17": the 17th category page body) that
// bench/wrk/shop-mix.lua replays from a random line on (so a measured run
// does not repeat its warm-up's requests), and the SQL sampling reads.
import fs from 'node:fs';
import path from 'node:path';
import { categoryPage, reseedBrowseChoices, searchFacets, searchPage } from './browse-requests.ts';
import { operationText } from './graphql-scenarios.ts';
import { seededRandom } from './product-pages.ts';

export const SHOP_MIX_SCENARIO = 'shop-mix';
/** The GraphQL product page of the mix. */
export const SHOP_PAGE_OPERATION = 'ProductPageWithRelatedIds';

export type ShopRequestKind = 'styles' | 'page' | 'category' | 'search' | 'facets';

/** Each kind's share of the requests, and its letter in the sequence file. */
export const SHOP_MIX: readonly { kind: ShopRequestKind; share: number; letter: string }[] = [
  { kind: 'styles', share: 0.40, letter: 's' },
  { kind: 'page', share: 0.35, letter: 'p' },
  { kind: 'category', share: 0.10, letter: 'c' },
  { kind: 'search', share: 0.10, letter: 'q' },
  { kind: 'facets', share: 0.05, letter: 'f' },
];

/** Requests in a sequence: more than a run sends (two workers, 20 s), so a run seldom wraps around. */
const SEQUENCE_LENGTH = 400_000;
/** Distinct bodies of each browse kind. */
export const BROWSE_VARIETY = 2_000;

// The benches' one seeded generator, re-exported for the shop mix's callers.
export { seededRandom };

/**
 * Ranks 1..n drawn with Zipf(1) probabilities (rank r: (1/r) / H(n)), by
 * rejection-inversion (Hörmann and Derflinger, "Rejection-inversion to
 * generate variates from monotone discrete distributions", 1996), exact and
 * in constant time whatever n; for exponent 1 its H(x) is ln x.
 */
export function zipfRanks(n: number, random: () => number): () => number {
  const hX1 = Math.log(1.5) - 1;
  const hN = Math.log(n + 0.5);
  const s = 2 - Math.exp(Math.log(2.5) - 0.5);
  return () => {
    for (;;) {
      const u = hN + random() * (hX1 - hN);
      const x = Math.exp(u);
      const k = Math.min(n, Math.max(1, Math.floor(x + 0.5)));
      if (k - x <= s || u >= Math.log(k + 0.5) - 1 / k) return k;
    }
  };
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * A permutation of 1..n, rank → id: (rank - 1) × step + offset modulo n, with
 * a step near n/φ coprime to n, so consecutive ranks land far apart and the
 * most popular products are spread over the whole catalogue.
 */
export function spreadIds(n: number): (rank: number) => number {
  let step = Math.max(1, Math.round(n * 0.6180339887));
  while (gcd(step, n) !== 1) step++;
  const offset = Math.floor(n / 3);
  return (rank) => ((((rank - 1) * step + offset) % n) + n) % n + 1;
}

/** The files a shop-mix run reads: the sequence and each browse kind's bodies. */
export interface ShopMixFiles {
  sequence: string;
  category: string;
  search: string;
  facets: string;
}

/** Draws the sequence (ids 1..idMax) and writes it with the browse bodies under `dir`. */
export function writeShopMix(dir: string, idMax: number, seed = 1): ShopMixFiles {
  fs.mkdirSync(dir, { recursive: true });
  const random = seededRandom(seed);
  const product = zipfRanks(idMax, random);
  const idOf = spreadIds(idMax);
  const body = zipfRanks(BROWSE_VARIETY, random);
  const bodyIndex = spreadIds(BROWSE_VARIETY);
  const lines: string[] = [];
  for (let i = 0; i < SEQUENCE_LENGTH; i++) {
    let pick = random();
    const entry = SHOP_MIX.find(({ share }) => (pick -= share) < 0) ?? SHOP_MIX[SHOP_MIX.length - 1]!;
    const browse = entry.kind === 'category' || entry.kind === 'search' || entry.kind === 'facets';
    lines.push(`${entry.letter} ${browse ? bodyIndex(body()) : idOf(product())}`);
  }
  const files: ShopMixFiles = {
    sequence: path.join(dir, 'shop-mix.txt'),
    category: path.join(dir, 'shop-category.jsonl'),
    search: path.join(dir, 'shop-search.jsonl'),
    facets: path.join(dir, 'shop-facets.jsonl'),
  };
  fs.writeFileSync(files.sequence, `${lines.join('\n')}\n`);
  reseedBrowseChoices(seed);
  for (const [kind, make] of [['category', categoryPage], ['search', searchPage], ['facets', searchFacets]] as const) {
    fs.writeFileSync(files[kind], `${Array.from({ length: BROWSE_VARIETY }, make).join('\n')}\n`);
  }
  return files;
}

/** The environment bench/wrk/shop-mix.lua reads. */
export function shopMixEnv(files: ShopMixFiles): Record<string, string> {
  return {
    SHOP_MIX: files.sequence, SHOP_CATEGORY: files.category, SHOP_SEARCH: files.search, SHOP_FACETS: files.facets,
    OPERATION_NAME: SHOP_PAGE_OPERATION, QUERY_JSON: JSON.stringify(operationText(SHOP_PAGE_OPERATION)),
  };
}

/** The request of one line of the sequence (what the Lua script sends for it), from Node: the SQL sampling. */
export function shopMixRequest(baseUrl: string, files: ShopMixFiles, line: string): Promise<Response> {
  const [letter, value] = line.split(' ') as [string, string];
  const kind = SHOP_MIX.find((entry) => entry.letter === letter)?.kind;
  if (kind === 'styles') return fetch(`${baseUrl}/products/${value}/styles`);
  const body = kind === 'page'
    ? JSON.stringify({ operationName: SHOP_PAGE_OPERATION, query: operationText(SHOP_PAGE_OPERATION), variables: { id: value } })
    : fs.readFileSync(files[kind as 'category' | 'search' | 'facets'], 'utf8').split('\n')[Number(value) - 1]!;
  return fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}
