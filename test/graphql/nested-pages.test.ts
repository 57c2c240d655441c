// Nested paging: `styles(first:, after:)` and `related(first:, after:)` on a
// product, and on every product of a page (src/catalog/reads/nested-pages.ts). Each
// page is a slice of the unpaged field (which keeps its meaning), walking
// pages by `after` visits the whole list exactly once, several pages of one
// product in one request are told apart, bad arguments are 400s naming the
// argument, and a response is tagged with the products it shows. The
// statement counts are in the query-count contract (query-count.test.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { ProductListPagesDocument } from '../../src/generated/graphql/operations/graphql.ts';
import { productTag } from '../../src/cache/response-cache.ts';
import { CATALOGUE_TAG } from '../../src/http/http-caching.ts';
import { EXECUTORS, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();

interface Lists {
  id: string;
  styles: { id: string; name: string }[];
  related: { id: string; name: string }[];
}

/** Products with the most styles and related products (several pages each), and some without any. */
let ids: string[];

beforeAll(async () => {
  const rows = await catalogue.direct.rows<{ id: number }>(`
    (SELECT p.id FROM products p ORDER BY (SELECT count(*) FROM styles s WHERE s.product_id = p.id) DESC, p.id LIMIT 8)
    UNION (SELECT p.id FROM products p ORDER BY (SELECT count(DISTINCT r.related_product_id) FROM related r WHERE r.current_product_id = p.id) DESC, p.id LIMIT 8)
    UNION (SELECT p.id FROM products p WHERE NOT EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id) ORDER BY p.id LIMIT 2)`);
  ids = rows.map((row) => String(row.id));
});

describe.each(EXECUTORS)('nested pages with $engine', ({ env }) => {
  const client = useTestClient(catalogue, { env });

  /** The unpaged lists: what every page must be a slice of. */
  async function unpaged(): Promise<Map<string, Lists>> {
    const response = await client.post<{ productsByIds: Lists[] }>(
      'query All($ids: [ID!]!) { productsByIds(ids: $ids) { id styles { id name } related { id name } } }', { ids });
    expect(response.body.errors).toBeUndefined();
    return new Map(response.body.data!.productsByIds.map((p) => [p.id, p]));
  }

  it('the data has lists longer than a page, and empty ones', async () => {
    const all = [...(await unpaged()).values()];
    expect(Math.max(...all.map((p) => p.styles.length))).toBeGreaterThanOrEqual(3);
    expect(Math.max(...all.map((p) => p.related.length))).toBeGreaterThanOrEqual(5);
    expect(all.some((p) => p.styles.length === 0)).toBe(true);
  });

  it('first alone is the start of the unpaged list, on every product of one request', async () => {
    const expected = await unpaged();
    for (const first of [1, 2, 3, 100]) {
      const response = await client.post(ProductListPagesDocument, { ids, first });
      expect(response.body.errors).toBeUndefined();
      for (const product of response.body.data!.productsByIds) {
        const whole = expected.get(product!.id)!;
        expect(product!.styles, `styles of ${product!.id}`).toEqual(whole.styles.slice(0, first));
        expect(product!.related, `related of ${product!.id}`).toEqual(whole.related.slice(0, first));
      }
    }
  });

  it('walking pages by after visits every item once, in order, and ends with a short page', async () => {
    const expected = await unpaged();
    for (const id of ids) {
      for (const first of [1, 2]) {
        const styles: { id: string }[] = [];
        const related: { id: string }[] = [];
        let stylesAfter: string | undefined;
        let relatedAfter: string | undefined;
        for (let stylesDone = false, relatedDone = false, pages = 0; !(stylesDone && relatedDone); pages++) {
          expect(pages).toBeLessThan(20);
          const response = await client.post(ProductListPagesDocument, { ids: [id], first, stylesAfter, relatedAfter });
          expect(response.body.errors).toBeUndefined();
          const product = response.body.data!.productsByIds[0]!;
          if (!stylesDone) {
            styles.push(...product.styles);
            stylesDone = product.styles.length < first;
            stylesAfter = product.styles.at(-1)?.id ?? stylesAfter;
          }
          if (!relatedDone) {
            related.push(...product.related);
            relatedDone = product.related.length < first;
            relatedAfter = product.related.at(-1)?.id ?? relatedAfter;
          }
        }
        expect(styles, `styles of ${id}, ${first} a page`).toEqual(expected.get(id)!.styles);
        expect(related, `related of ${id}, ${first} a page`).toEqual(expected.get(id)!.related);
      }
    }
  });

  it('after alone is the rest of the list', async () => {
    const whole = [...(await unpaged()).values()].find((p) => p.related.length >= 3 && p.styles.length >= 2)!;
    expect(whole).toBeDefined();
    const response = await client.post(ProductListPagesDocument, { ids: [whole.id], stylesAfter: whole.styles[0]!.id, relatedAfter: whole.related[1]!.id });
    expect(response.body.data!.productsByIds[0]!.styles).toEqual(whole.styles.slice(1));
    expect(response.body.data!.productsByIds[0]!.related).toEqual(whole.related.slice(2));
  });

  it('several pages of one product in one request are told apart, one statement per list', async () => {
    const whole = [...(await unpaged()).values()].find((p) => p.related.length >= 4 && p.styles.length >= 3)!;
    const query = `query Pages($ids: [ID!]!, $s: ID!, $r: ID!) { productsByIds(ids: $ids) {
      a: styles(first: 1) { id } b: styles(first: 2, after: $s) { id } c: styles { id }
      d: related(first: 1) { id } e: related(first: 2, after: $r) { id } } }`;
    const response = await client.post(query, { ids: [whole.id], s: whole.styles[0]!.id, r: whole.related[1]!.id });
    expect(response.body.errors).toBeUndefined();
    const ids = (list: { id: string }[]) => list.map((item) => ({ id: item.id }));
    expect(response.body.data!.productsByIds[0]).toEqual({
      a: ids(whole.styles.slice(0, 1)), b: ids(whole.styles.slice(1, 3)), c: ids(whole.styles),
      d: ids(whole.related.slice(0, 1)), e: ids(whole.related.slice(2, 4)),
    });
    // the product, the style pages (a and b), all styles (c), the related pages (d and e)
    expect(response.statements).toBe(4);
  });

  it('a product page (styles read with the product) pages the same, with photos', async () => {
    const whole = [...(await unpaged()).values()].find((p) => p.styles.length >= 3)!;
    const selection = `styles(first: 2, after: "${whole.styles[0]!.id}") { id photos { url } skus { size } }`;
    const single = await client.post(`{ product(id: "${whole.id}") { ${selection} } }`);
    const batched = await client.post(`{ productsByIds(ids: ["${whole.id}"]) { ${selection} } }`);
    expect(single.body.errors).toBeUndefined();
    expect(single.body.data!.product).toEqual(batched.body.data!.productsByIds[0]);
    expect(single.body.data!.product.styles.map((s: { id: string }) => s.id)).toEqual(whole.styles.slice(1, 3).map((s) => s.id));
    expect(single.statements).toBe(1);
  });

  it('after a product that is not related, or a style id past the last, is an empty page', async () => {
    const whole = [...(await unpaged()).values()].find((p) => p.related.length > 0 && p.styles.length > 0)!;
    const unrelated = ids.find((id) => id !== whole.id && !whole.related.some((r) => r.id === id))!;
    const response = await client.post(ProductListPagesDocument, { ids: [whole.id], first: 2, stylesAfter: '2147483647', relatedAfter: unrelated });
    expect(response.body.data!.productsByIds[0]).toMatchObject({ styles: [], related: [] });
  });

  it('refuses a first that is not positive or above the maximum page size, and an after that is not an id, naming the argument', async () => {
    const zero = await client.post(ProductListPagesDocument, { ids: [ids[0]!], first: 0 });
    expect(zero.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
    const huge = await client.post(ProductListPagesDocument, { ids: [ids[0]!], first: 101 });
    expect(huge.status).toBe(400);
    expect(huge.body.errors?.[0]?.message).toBe('first must be at most 100 (got 101)');
    expect(huge.statements).toBe(0);
    const bad = await client.post(ProductListPagesDocument, { ids: [ids[0]!], first: 1, stylesAfter: 'abc' });
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
  });

  it('tags a response with the parent and every product a page shows, as the unpaged field does', async () => {
    const whole = [...(await unpaged()).values()].find((p) => p.related.length >= 3)!;
    const tags = async (selection: string) => {
      const response = await client.get(`{ productsByIds(ids: ["${whole.id}"]) { ${selection} } }`);
      expect(response.body.errors).toBeUndefined();
      return new Set(String(response.headers['surrogate-key']).split(' '));
    };
    const paged = await tags('related(first: 2, after: "' + whole.related[0]!.id + '") { id name }');
    expect(paged).toEqual(new Set([...[whole.id, ...whole.related.slice(1, 3).map((r) => r.id)].map((id) => productTag(Number(id))), CATALOGUE_TAG]));
    const styles = await tags('styles(first: 1) { id }');
    expect(styles).toEqual(new Set([productTag(Number(whole.id)), CATALOGUE_TAG]));
  });
});
