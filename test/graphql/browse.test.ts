// Browse and search against the real loader's catalogue: every answer is
// compared with a reference computed from the catalogue's own tables
// (products, features, styles, skus), not from the browse read model, so the
// read model, its triggers and the loader's build are checked with the API.
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BrowsePageDocument, BrowsePageWithFacetsDocument, ShopFacetsDocument, SearchProductsDocument, SearchWithFacetsDocument, UpdateProductDocument,
  type BrowsePageQuery, type ShopFacetsQuery, type SearchProductsQuery,
} from '../../src/generated/graphql/operations/graphql.ts';
import { pageStatement, PRICE_BANDS } from '../../src/catalog/browse/browse-statements.ts';
import { PREFIX_EXPANSION } from '../../src/search/dictionary/resolve.ts';
import type { BrowseOrder } from '../../src/catalog/browse/browse-input.ts';
import type { Position } from '../../src/catalog/browse/browse-cursor.ts';
import { MAX_QUERY_CHARACTERS } from '../../src/catalog/browse/browse-input.ts';
import { EXAMPLE_TABS } from '../../src/graphql/ide.ts';
import { useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';
import { NAME_PARTS } from '../../src/etl/generate/vocabulary.ts';

const catalogue = useTestCatalogue();
const client = useTestClient(catalogue);

/** Each product as the catalogue's tables say, with what the filters look at. */
interface Reference {
  id: number;
  category: string;
  price: number;
  onSale: boolean;
  sizes: string[];
}

/** The filters' meaning, written against the catalogue's own tables. */
const REFERENCE = `
  SELECT p.id, p.category, p.default_price::float AS price,
    EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id AND s.sale_price IS NOT NULL) AS "onSale",
    ARRAY(SELECT DISTINCT k.size FROM styles s JOIN skus k ON k.style_id = s.id WHERE s.product_id = p.id AND k.quantity > 0) AS sizes
  FROM products p`;

type Filter = { categories?: string[]; priceMin?: string; priceMax?: string; onSale?: boolean; inStock?: boolean; sizes?: string[] };

function matches(product: Reference, filter: Filter, except: (keyof Filter)[] = []): boolean {
  const use = (part: keyof Filter) => filter[part] !== undefined && !except.includes(part);
  return (!use('categories') || filter.categories!.includes(product.category))
    && (!use('priceMin') || product.price >= Number(filter.priceMin))
    && (!use('priceMax') || product.price <= Number(filter.priceMax))
    && (!use('onSale') || product.onSale === filter.onSale)
    && (!use('inStock') || (product.sizes.length > 0) === filter.inStock)
    && (!use('sizes') || product.sizes.some((size) => filter.sizes!.includes(size)));
}

async function allPages<T>(fetch: (after: string | undefined) => Promise<{ ids: T[]; next: string | null }>): Promise<T[]> {
  const ids: T[] = [];
  let after: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const { ids: more, next } = await fetch(after);
    ids.push(...more);
    if (next === null) return ids;
    after = next;
  }
  throw new Error('more than 1000 pages');
}

function browseIds(api: TestClient, variables: Record<string, unknown>) {
  return allPages(async (after) => {
    const response = await api.post(BrowsePageDocument, { ...variables, after });
    expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
    const connection = (response.body.data as BrowsePageQuery).productConnection;
    return { ids: connection.edges.map((edge) => Number(edge.node.id)), next: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null };
  });
}

let products: Reference[];
let categories: string[];
beforeAll(async () => {
  products = await catalogue.direct.rows<Reference & Record<string, unknown>>(REFERENCE);
  categories = [...new Set(products.map((p) => p.category))].sort();
});

describe('productConnection: filter and orderBy', () => {
  const ORDERINGS = [
    ['NAME', 'ASC', 'p.name ASC, p.id ASC'],
    ['PRICE', 'DESC', 'p.default_price DESC, p.id DESC'],
    ['CREATED_AT', 'DESC', 'p.created_at DESC, p.id DESC'],
    ['UPDATED_AT', 'ASC', 'p.updated_at ASC, p.id ASC'],
    ['ID', 'DESC', 'p.id DESC'],
  ] as const;

  // Three categories, and one (a category page: compared with `=`, not `= ANY`, in SQL).
  it.each(ORDERINGS.flatMap(([field, direction, sql]) => [3, 1].map((n) => [field, direction, n, sql] as const)))(
    'walks every page in %s %s order, ties by id, for a filter on %i categories', async (field, direction, n, sql) => {
      const filter: Filter = { categories: categories.slice(0, n), onSale: true };
      const wanted = new Set(products.filter((p) => matches(p, filter)).map((p) => p.id));
      const ordered = (await catalogue.direct.rows<{ id: number }>(`SELECT p.id FROM products p ORDER BY ${sql}`)).map((r) => r.id).filter((id) => wanted.has(id));
      expect(ordered.length).toBeGreaterThan(n === 1 ? 7 : 20);
      expect(await browseIds(client, { first: 7, filter, orderBy: { field, direction } })).toEqual(ordered);
    });

  it.each([
    { priceMin: '40.00', priceMax: '80.00' },
    { inStock: false },
    { inStock: true, sizes: ['M', '9.5'] },
    { onSale: false, priceMax: '30.00' },
  ] satisfies Filter[])('filters %j exactly as the catalogue tables say', async (filter) => {
    const expected = products.filter((p) => matches(p, filter)).map((p) => p.id).sort((a, b) => a - b);
    expect(expected.length).toBeGreaterThan(0);
    expect(await browseIds(client, { first: 50, filter })).toEqual(expected);
  });

  it.each([
    { categories: ['first'], inStock: true, priceMin: '30.00' },
    { sizes: ['M'], onSale: true },
    { sizes: ['M', '9', 'One Size'], priceMax: '70.00' },
    // Two sizes: the pair cells, whichever order they come in.
    { categories: ['first'], sizes: ['M', 'L'], onSale: true },
    { sizes: ['S', 'L'], priceMin: '20.00' },
    { categories: ['first'], inStock: false },
    {},
  ] satisfies Filter[])('counts and facets each part of the filter %j over what matches the other parts', async (given) => {
    const filter: Filter = given.categories ? { ...given, categories: [categories[0]!] } : given;
    const response = await client.post(BrowsePageWithFacetsDocument, { first: 3, filter });
    expect(response.body.errors).toBeUndefined();
    const connection = response.body.data!.productConnection;
    const total = products.filter((p) => matches(p, filter)).length;
    expect(connection.totalCount).toBe(total);
    expect(connection.facets.total).toBe(total);
    const byCategory = new Map<string, number>();
    for (const p of products.filter((p) => matches(p, filter, ['categories']))) byCategory.set(p.category, (byCategory.get(p.category) ?? 0) + 1);
    expect(new Map(connection.facets.categories.map((c) => [c.value, c.count]))).toEqual(byCategory);
    if (filter.inStock !== false) expect(connection.facets.categories.length).toBeGreaterThan(1);
    const bySize = new Map<string, number>();
    for (const p of products.filter((p) => matches(p, filter, ['sizes']))) for (const size of p.sizes) bySize.set(size, (bySize.get(size) ?? 0) + 1);
    expect(new Map(connection.facets.sizes.map((s) => [s.value, s.count]))).toEqual(bySize);
    const bands = PRICE_BANDS.map((min, i) => products.filter((p) => matches(p, filter, ['priceMin', 'priceMax'])
      && p.price >= Number(min) && (i + 1 === PRICE_BANDS.length || p.price < Number(PRICE_BANDS[i + 1]))).length);
    expect(connection.facets.priceBands.map((band) => band.count)).toEqual(bands);
    expect(connection.facets.priceBands.map((band) => band.min)).toEqual([...PRICE_BANDS]);
  });

  // A filtered page under an ordering but price walks a window of the
  // ordering and reads every match instead when the window holds too few
  // (pageStatement): with windows of 1 to 40 rows on this catalogue, every
  // page of every filter is the one the catalogue's tables give, whichever
  // of the two reads answered it.
  it.each([
    [{ categories: ['first'], inStock: true, priceMin: '40.00', priceMax: '80.00' }, 'NAME', 'ASC', 'p.name ASC, p.id ASC'],
    [{ categories: ['first'], priceMin: '1000000.00', priceMax: '1000000.00' }, 'CREATED_AT', 'DESC', 'p.created_at DESC, p.id DESC'],
    [{ priceMin: '30.00', priceMax: '31.00' }, 'UPDATED_AT', 'ASC', 'p.updated_at ASC, p.id ASC'],
    [{ inStock: true, sizes: ['M', '9.5'], onSale: true }, 'ID', 'DESC', 'p.id DESC'],
    [{ categories: ['first', 'second'], onSale: false }, 'NAME', 'DESC', 'p.name DESC, p.id DESC'],
    [{ categories: ['first', 'second'], priceMin: '20.00', priceMax: '60.00', inStock: true }, 'CREATED_AT', 'ASC', 'p.created_at ASC, p.id ASC'],
    [{ inStock: false }, 'NAME', 'ASC', 'p.name ASC, p.id ASC'],
  ] as [Filter, string, string, string][])('pages %j by %s %s the same through a walked window or a read of every match', async (given, field, direction, sql) => {
    const filter: Filter = { ...given, categories: given.categories?.map((c) => (c === 'first' ? categories[0]! : categories[1]!)) };
    const wanted = new Set(products.filter((p) => matches(p, filter)).map((p) => p.id));
    const ordered = (await catalogue.direct.rows<{ id: number }>(`SELECT p.id FROM products p ORDER BY ${sql}`)).map((r) => r.id).filter((id) => wanted.has(id));
    const order = { field, direction } as BrowseOrder;
    for (const window of [1, 3, 40]) {
      const ids: number[] = [];
      let after: Position | undefined;
      for (let page = 0; page < 500; page++) {
        const statement = pageStatement(filter, order, after, 6, {}, window);
        const rows = await catalogue.direct.rows<{ id: number; sortKey: string | null }>(statement.text, statement.values);
        ids.push(...rows.map((row) => row.id));
        if (rows.length < 6) break;
        after = { key: rows.at(-1)!.sortKey, id: rows.at(-1)!.id };
      }
      expect(ids, `window ${window}`).toEqual(ordered);
    }
  });

  it('fills an ordering\'s defaults given by variable (field: ID) with graphql-jit as graphql-js does', async () => {
    const ids = products.map((p) => p.id).sort((a, b) => b - a).slice(0, 3);
    const response = await client.post(BrowsePageDocument, { first: 3, orderBy: { direction: 'DESC' } } as never);
    expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
    expect((response.body.data as BrowsePageQuery).productConnection.edges.map((edge) => Number(edge.node.id))).toEqual(ids);
  });

  it('refuses a cursor of another ordering, a forged cursor and a bad filter with BAD_USER_INPUT naming the argument', async () => {
    const first = await client.post(BrowsePageDocument, { first: 2, orderBy: { field: 'NAME', direction: 'ASC' } });
    const cursor = (first.body.data as BrowsePageQuery).productConnection.pageInfo.endCursor;
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ after: cursor, orderBy: { field: 'PRICE', direction: 'ASC' } }, 'after', /NAME ASC ordering.*PRICE ASC/],
      [{ after: cursor }, 'after', /NAME ASC ordering.*ID ASC/],
      [{ after: Buffer.from('PRICE ASC|["1e999",1]').toString('base64url'), orderBy: { field: 'PRICE', direction: 'ASC' } }, 'after', /not a cursor/],
      [{ after: 'bm9wZQ' }, 'after', /not a cursor/],
      [{ filter: { categories: [] } }, 'filter.categories', /empty list/],
      [{ filter: { priceMin: '50.00', priceMax: '10.00' } }, 'filter.priceMax', /below priceMin/],
    ];
    for (const [variables, field, message] of cases) {
      const response = await client.post(BrowsePageDocument, { first: 2, ...variables });
      // A request error, checked before anything executes: 400 under application/json too, no data.
      expect(response.status, JSON.stringify(variables)).toBe(400);
      expect('data' in response.body).toBe(false);
      expect(response.body.errors?.[0]?.extensions?.field).toBe(field);
      expect(response.body.errors?.[0]?.message).toMatch(message);
    }
    // A key of the right format naming no time: refused here, not by Postgres's cast.
    const impossible = await client.post(BrowsePageDocument, { first: 2, orderBy: { field: 'UPDATED_AT', direction: 'ASC' }, after: Buffer.from('UPDATED_AT ASC|["2026-02-30T00:00:00.000Z",5]').toString('base64url') });
    expect(impossible.status).toBe(400);
    expect(impossible.body.errors?.[0]?.message).toMatch(/after is not a cursor/);
    // A null in a list of non-null strings: the variable's coercion error (was a TypeError in the argument caps, a 500).
    const nullSize = await client.post(BrowsePageDocument, { first: 2, filter: { sizes: [null] } } as never);
    expect(nullSize.status).toBe(400);
    expect(nullSize.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    // A variable the Money scalar refuses: a request error, 400.
    const money = await client.post(BrowsePageDocument, { first: 2, filter: { priceMin: '12.345' } });
    expect(money.status).toBe(400);
    expect(money.body.errors?.[0]?.message).toMatch(/Money/);
  });
});

describe('cells under concurrent writers', () => {
  /** Each cell table against a recount of the browse rows (cells at 0 are kept and never shown). */
  const RECOUNTS: Record<string, [cells: string, recount: string]> = {
    facets: [`SELECT category, price, on_sale, in_stock, products FROM browse_facet_cells WHERE products <> 0`,
      `SELECT category, price, on_sale, sizes <> '{}', count(*)::int FROM product_browse GROUP BY 1, 2, 3, 4`],
    sizes: [`SELECT category, price, on_sale, size, products FROM browse_size_cells WHERE products <> 0`,
      `SELECT category, price, on_sale, size, count(*)::int FROM product_browse, unnest(sizes) AS size GROUP BY 1, 2, 3, 4`],
    sizeSets: [`SELECT category, price, on_sale, size_set, products FROM browse_size_set_cells WHERE products <> 0`,
      `SELECT category, price, on_sale, sizes::text, count(*)::int FROM product_browse WHERE sizes <> '{}' GROUP BY 1, 2, 3, 4`],
    sizePairs: [`SELECT size_a, size_b, category, price, on_sale, products FROM browse_size_pair_cells WHERE products <> 0`,
      `SELECT a, b, category, price, on_sale, count(*)::int FROM product_browse, unnest(sizes) AS a, unnest(sizes) AS b WHERE a < b GROUP BY 1, 2, 3, 4, 5`],
  };
  const digest = (sql: string) => `SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, E'\n' ORDER BY t::text), '')) AS digest FROM (${sql}) t`;

  it('40 writers changing stock and sales of products that share cells, at once, leave every cell table equal to a recount', async () => {
    const targets = await catalogue.direct.rows<{ id: number }>(`
      SELECT p.id FROM products p WHERE EXISTS (SELECT 1 FROM styles s JOIN skus k ON k.style_id = s.id WHERE s.product_id = p.id)
      ORDER BY p.category, p.id LIMIT 40`);
    expect(targets.length).toBe(40);
    const pool = new pg.Pool({ connectionString: catalogue.db.url, max: 40 });
    try {
      for (const round of [0, 1]) {
        await Promise.all(targets.map(async ({ id }, i) => {
          for (let attempt = 0; ; attempt++) {
            const client = await pool.connect();
            try {
              await client.query('BEGIN');
              // New sets of sizes in stock (some products lose M, L and 9; others get them back) and sale prices on and off.
              await client.query(`UPDATE skus SET quantity = CASE WHEN size IN ('M', 'L', '9') AND $2 THEN 0 ELSE quantity + 1 END
                WHERE style_id IN (SELECT id FROM styles WHERE product_id = $1)`, [id, (i + round) % 2 === 0]);
              await client.query(`UPDATE styles SET sale_price = CASE WHEN $2 THEN NULL ELSE original_price / 2 END WHERE product_id = $1`, [id, (i + round) % 3 === 0]);
              await client.query('COMMIT');
              return;
            } catch (error) {
              await client.query('ROLLBACK').catch(() => {});
              // A deadlock between two writers' cell locks: run again, as the API's writes do.
              if ((error as { code?: string }).code !== '40P01' || attempt >= 5) throw error;
            } finally {
              client.release();
            }
          }
        }));
      }
    } finally {
      await pool.end();
    }
    for (const [table, [cells, recount]] of Object.entries(RECOUNTS)) {
      expect(await catalogue.direct.one(digest(cells)), table).toEqual(await catalogue.direct.one(digest(recount)));
    }
    // And the browse rows themselves say what the catalogue's tables say.
    const fresh = await catalogue.direct.rows<Reference & Record<string, unknown>>(REFERENCE);
    const browse = new Map((await catalogue.direct.rows<{ id: number; sizes: string[]; onSale: boolean }>(
      'SELECT product_id AS id, sizes, on_sale AS "onSale" FROM product_browse')).map((row) => [row.id, row]));
    for (const { id } of targets) {
      const product = fresh.find((p) => p.id === id)!;
      const row = browse.get(id)!;
      expect({ ...row, sizes: [...row.sizes].sort() }, String(id)).toEqual({ id, sizes: [...product.sizes].sort(), onSale: product.onSale });
    }
  });
});

describe('product cards', () => {
  it('show the default style (else the first) with its photos and skus, as the full styles list has it, in one statement for the page (and a search\'s, after its words)', async () => {
    const page = await client.post<{ productConnection: { edges: { node: { id: string; defaultStyle: unknown } }[] } }>(
      '{ productConnection(first: 20, orderBy: { field: PRICE, direction: DESC }) { edges { node { id defaultStyle { id name isDefault photos { thumbnailUrl } skus { size } } } } } }');
    expect(page.body.errors, JSON.stringify(page.body.errors)).toBeUndefined();
    expect(page.statements).toBe(1); // the page, its products' style documents beside them
    // A search's cards the same way: the words resolved, then the page with its style documents.
    const probe = page.body.data!.productConnection.edges[0]!.node;
    const name = (await client.post<{ product: { name: string } }>('query($id: ID!) { product(id: $id) { name } }', { id: probe!.id })).body.data!.product.name;
    const search = await client.post<{ search: { edges: { node: { id: string; defaultStyle: unknown } }[] } }>(
      'query($q: String!) { search(query: $q, first: 20) { edges { node { id defaultStyle { id name isDefault photos { thumbnailUrl } skus { size } } } } } }', { q: name });
    expect(search.body.errors, JSON.stringify(search.body.errors)).toBeUndefined();
    expect(search.statements).toBe(2);
    const found = search.body.data!.search.edges.find((edge) => edge.node.id === probe.id);
    expect(found, `${name} among the first 20 matches`).toBeDefined();
    expect(probe.defaultStyle).not.toBeNull();
    expect(found!.node.defaultStyle).toEqual(probe.defaultStyle);
    for (const { node } of page.body.data!.productConnection.edges) {
      const full = await client.post<{ product: { styles: { id: string; isDefault: boolean }[] } }>(
        'query($id: ID!) { product(id: $id) { styles { id name isDefault photos { thumbnailUrl } skus { size } } } }', { id: node.id });
      const styles = full.body.data!.product.styles;
      expect(node.defaultStyle, node.id).toEqual(styles.find((style) => style.isDefault) ?? styles[0] ?? null);
    }
  });

  it('read only the default style when the page shows no other (the document\'s default_style column), the whole document when it shows styles', () => {
    const order: BrowseOrder = { field: 'PRICE', direction: 'DESC' };
    const cards = pageStatement({}, order, undefined, 21, { defaultStyle: true }).text;
    expect(cards).toContain('d.default_style');
    expect(cards).not.toContain('d.styles');
    expect(pageStatement({}, order, undefined, 21, { styles: true }).text).toContain('d.styles');
  });

  it('the stored default style is the one the resolver picks from the document (marked default, else the first, else none), after writes too', async () => {
    type Doc = { id: number; styles: { id: number; isDefault: boolean }[]; default_style: unknown };
    const pick = (styles: Doc['styles']) => styles.find((style) => style.isDefault) ?? styles[0] ?? null;
    const check = async () => {
      const docs = await catalogue.direct.rows<Doc>('SELECT product_id AS id, styles, default_style FROM product_style_documents');
      expect(docs.length).toBeGreaterThan(0);
      for (const doc of docs) expect(doc.default_style, String(doc.id)).toEqual(pick(doc.styles));
      return docs;
    };
    const docs = await check();
    // A product with two styles loses its default mark, another one its styles: the triggers rewrite the documents.
    const two = docs.find((doc) => doc.styles.length >= 2 && doc.styles.some((style) => style.isDefault))!;
    const bare = docs.find((doc) => doc.id !== two.id && doc.styles.length >= 1)!;
    await catalogue.direct.rows('UPDATE styles SET is_default = false WHERE product_id = $1', [two.id]);
    await catalogue.direct.rows('DELETE FROM skus WHERE style_id IN (SELECT id FROM styles WHERE product_id = $1)', [bare.id]);
    await catalogue.direct.rows('DELETE FROM photos WHERE style_id IN (SELECT id FROM styles WHERE product_id = $1)', [bare.id]);
    await catalogue.direct.rows('DELETE FROM styles WHERE product_id = $1', [bare.id]);
    const after = new Map((await check()).map((doc) => [doc.id, doc]));
    expect((after.get(two.id)!.default_style as { id: number }).id).toBe(two.styles[0]!.id);
    expect(after.get(bare.id)?.default_style ?? null).toBeNull();
  });
});

describe('search', () => {
  /** Products whose searched text has every word (the last as a prefix), from the catalogue tables. */
  async function referenceSearch(words: string[]): Promise<Set<number>> {
    const query = words.map((w, i) => (i === words.length - 1 ? `${w}:*` : w)).join(' & ');
    const rows = await catalogue.direct.rows<{ id: number }>(`
      SELECT p.id FROM products p
      WHERE to_tsvector('english', concat_ws(' ', p.name, p.category, p.slogan, p.description,
        (SELECT string_agg(f.value, ' ') FROM features f WHERE f.product_id = p.id))) @@ to_tsquery('english', $1)`, [query]);
    return new Set(rows.map((r) => r.id));
  }

  async function searchAll(query: string, filter?: Filter) {
    const edges: SearchProductsQuery['search']['edges'] = [];
    let searched: string | null | undefined;
    await allPages(async (after) => {
      const response = await client.post(SearchProductsDocument, { query, first: 10, after, filter });
      expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
      const search = (response.body.data as SearchProductsQuery).search;
      searched = search.searched;
      edges.push(...search.edges);
      return { ids: search.edges, next: search.pageInfo.hasNextPage ? search.pageInfo.endCursor : null };
    });
    return { edges, searched };
  }

  let noun: string;
  beforeAll(async () => {
    // The last word of a product name: a noun of the catalogue (e.g. Onesie).
    const [row] = await catalogue.direct.rows<{ name: string }>('SELECT name FROM products ORDER BY id LIMIT 1');
    noun = row!.name.split(' ').at(-1)!.toLowerCase();
  });

  it('finds exactly the products holding every word, name matches first, ties by popularity then id, with snippets', async () => {
    const { edges, searched } = await searchAll(noun);
    // The last word as a prefix: the few lexemes it completes to, ORed (not the names' pair lexemes, which hold a space).
    const { completions } = await catalogue.direct.one<{ completions: string[] }>(`
      SELECT ARRAY(SELECT l.lexeme FROM search_lexemes l WHERE starts_with(l.lexeme, (tsvector_to_array(to_tsvector('english', $1)))[1])
        AND strpos(l.lexeme, ' ') = 0 ORDER BY l.lexeme) AS completions`, [noun]);
    expect(completions.length).toBeGreaterThan(0);
    expect(completions.length).toBeLessThanOrEqual(PREFIX_EXPANSION);
    expect(searched?.split(/[\s|()]+/).filter(Boolean).sort()).toEqual(completions.map((c) => `'${c}'`).sort());
    const expected = await referenceSearch([noun]);
    expect(new Set(edges.map((e) => Number(e.node.id)))).toEqual(expected);
    const ranks = edges.map((e) => e.rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    // Within a rank: the most popular first (how many related rows name it), then the lowest id.
    const popularity = new Map((await catalogue.direct.rows<{ id: number; n: number }>(
      'SELECT related_product_id AS id, count(*)::int AS n FROM related GROUP BY 1')).map((r) => [r.id, r.n]));
    for (const rank of new Set(ranks)) {
      const ids = edges.filter((e) => e.rank === rank).map((e) => Number(e.node.id));
      expect(ids).toEqual([...ids].sort((a, b) => (popularity.get(b) ?? 0) - (popularity.get(a) ?? 0) || a - b));
    }
    // Names holding the word come before any other match.
    const inName = edges.map((e) => e.node.name.toLowerCase().includes(noun.slice(0, 4)));
    expect(inName[0]).toBe(true);
    expect(inName).toEqual([...inName].sort((a, b) => Number(b) - Number(a)));
    for (const edge of edges) expect(edge.snippet).toMatch(/«[^»]+»/);
  });

  it('takes the last word as a prefix, corrects a typo, and filters like productConnection', async () => {
    const prefix = await searchAll(noun.slice(0, 4));
    expect(new Set(prefix.edges.map((e) => Number(e.node.id)))).toEqual(await referenceSearch([noun.slice(0, 4)]));
    // Two letters swapped in the middle.
    const typo = `${noun.slice(0, 2)}${noun[3]}${noun[2]}${noun.slice(4)}`;
    const corrected = await searchAll(`${typo} ${categories[0]!.toLowerCase()}`);
    expect(corrected.searched).not.toContain(typo);
    // A bare number is not a typo: kept as it is, though a near number is a lexeme.
    await catalogue.direct.rows(`INSERT INTO search_lexemes (lexeme) VALUES ('98764') ON CONFLICT DO NOTHING`);
    try {
      expect((await searchAll(`98765 ${noun}`)).searched).toContain(`'98765'`);
      expect((await searchAll(`98764 ${noun}`)).searched).toContain(`'98764'`);
    } finally {
      await catalogue.direct.rows(`DELETE FROM search_lexemes WHERE lexeme = '98764'`);
    }
    const filter: Filter = { onSale: true, sizes: ['M', 'L', '9'] };
    const filtered = await searchAll(noun, filter);
    const wanted = new Set(products.filter((p) => matches(p, filter)).map((p) => p.id));
    expect(new Set(filtered.edges.map((e) => Number(e.node.id)))).toEqual(new Set([...await referenceSearch([noun])].filter((id) => wanted.has(id))));
  });

  it('corrects two swapped letters to the word meant, for nearly every noun of the catalogue', async () => {
    // The bench's typo: the third and fourth letters swapped. Trigram distance
    // alone picked the right word for 31 of 49 such nouns at full scale.
    // The generator's category nouns (a name's last word can also be a brand or a model suffix).
    const generatorNouns = new Set(Object.values(NAME_PARTS.nouns).flat().map((noun) => noun.split(' ').at(-1)!.toLowerCase()));
    const nouns = [...new Set(products.length > 0 ? (await catalogue.direct.rows<{ noun: string }>(
      `SELECT DISTINCT lower(split_part(name, ' ', -1)) AS noun FROM products`)).map((row) => row.noun) : [])]
      .filter((word) => /^[a-z]{5,}$/.test(word) && generatorNouns.has(word));
    expect(nouns.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const word of nouns) {
      const typo = `${word.slice(0, 2)}${word[3]}${word[2]}${word.slice(4)}`;
      const { stem } = await catalogue.direct.one<{ stem: string }>(`SELECT (tsvector_to_array(to_tsvector('english', $1)))[1] AS stem`, [word]);
      const response = await client.post(SearchProductsDocument, { query: typo, first: 1 });
      const searched = (response.body.data as SearchProductsQuery).search.searched ?? '';
      if (!searched.includes(`'${stem}'`)) wrong.push(`${typo} -> ${searched} (meant ${stem})`);
    }
    // On the realistic vocabulary (thousands of words, so more near neighbours
    // by trigrams) 10 of the test catalogue's 80 nouns go to another word
    // ("shrots" -> 'shoe'): the bar is where the correction is today, so it
    // still catches a regression; issue 33's typo rule is what raises it.
    expect(wrong.length, wrong.join('; ')).toBeLessThanOrEqual(Math.floor(nouns.length * 0.15));
  });

  it('searches a prefix as the lexemes it completes to, or as a prefix past PREFIX_EXPANSION of them, compounds included', async () => {
    const spread = Array.from({ length: PREFIX_EXPANSION + 1 }, (_, i) => `zqv${'abcdefghijklmnop'.slice(i, i + 3)}x`).join(' ');
    const { id } = await catalogue.direct.one<{ id: number }>(`
      INSERT INTO products (name, slogan, description, category, default_price)
      VALUES ('Prefix Probe', 'Qwuxing-gear for o''neil, mail zqxv@zqxvmail.example', $1 || ' Ωμέγα', 'Probes', 10) RETURNING id`, [spread]);
    try {
      const many = await searchAll('zqv');
      expect(many.searched).toBe(`'zqv':*`);
      expect(many.edges.map((e) => Number(e.node.id))).toEqual([id]);
      const one = await searchAll('zqvab');
      expect(one.searched).toBe(`'zqvabcx'`);
      expect(one.edges.map((e) => Number(e.node.id))).toEqual([id]);
      // "Qwuxing-gear" is the lexemes 'qwuxing-gear', 'qwux' and 'gear': only the compound starts with "qwuxi".
      // Capitals are Postgres's to lower-case, as it did the documents (under a C ctype "Ωμέγα" stays as it is).
      for (const word of ['qwuxi', 'neil', 'o', 'Ωμέγα']) {
        const found = await searchAll(`probe ${word}`);
        expect(new Set(found.edges.map((e) => Number(e.node.id))), `${word}: ${found.searched}`).toEqual(await referenceSearch(['probe', word]));
        expect(found.edges.map((e) => Number(e.node.id))).toContain(id);
      }
      // A misspelt word is corrected to a word, never to an address the documents hold.
      const typo = await searchAll('zqxvmial');
      expect(typo.searched ?? '').not.toContain('@');
    } finally {
      await catalogue.direct.rows('DELETE FROM products WHERE id = $1', [id]);
    }
  });

  it('counts and facets the matches', async () => {
    const response = await client.post(SearchWithFacetsDocument, { query: noun, first: 2 });
    const expected = await referenceSearch([noun]);
    expect(response.body.data?.search.totalCount).toBe(expected.size);
    expect(response.body.data?.search.facets.exact).toBe(true); // a few matches: counted, not estimated
    const categoryCounts = new Map<string, number>();
    for (const p of products.filter((p) => expected.has(p.id))) categoryCounts.set(p.category, (categoryCounts.get(p.category) ?? 0) + 1);
    expect(new Map(response.body.data!.search.facets.categories.map((c) => [c.value, c.count]))).toEqual(categoryCounts);
    const remembered = client.server.memo!.snapshot().hits;
    const facets = await client.post(ShopFacetsDocument, { query: noun });
    expect((facets.body.data as ShopFacetsQuery).productFacets).toEqual(response.body.data!.search.facets);
    // The counts, after the words unless the memo had them (as resolved by the search just before).
    expect(facets.statements).toBe(client.server.memo!.snapshot().hits > remembered ? 1 : 2);
  });

  it('finds nothing for stop words only, and refuses bad input with BAD_USER_INPUT naming query, never a tsquery error', async () => {
    const stop = await client.post(SearchProductsDocument, { query: 'the and of' });
    expect(stop.status).toBe(200);
    expect((stop.body.data as SearchProductsQuery).search).toMatchObject({ searched: null, edges: [] });
    const bad: [string, RegExp][] = [
      ['', /at least one word/],
      ['   ', /at least one word/],
      ['?!,.', /query syntax|at least one word/],
      ['x'.repeat(10_000), new RegExp(`at most ${MAX_QUERY_CHARACTERS} characters`)],
      ['jacket & !camo', /query syntax: remove "&"/],
      ["jacket:* | 'x'", /query syntax/],
      ['jack\u0000et', /NUL/],
      ['jacket\u0007', /control characters/],
      ['a b c d e f g h i', /at most 8 words/],
    ];
    for (const [query, message] of bad) {
      for (const response of [await client.post(SearchProductsDocument, { query }), await client.post(ShopFacetsDocument, { query })]) {
        expect(response.status, JSON.stringify(query)).toBe(400);
        expect('data' in response.body).toBe(false);
        expect(response.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'query' });
        expect(response.body.errors?.[0]?.message).toMatch(message);
      }
    }
    // Bytes that are not UTF-8 (in a JSON body, in a GET's URL) and a lone surrogate: a 400 naming the variable (src/http/unicode.ts).
    const operation = 'query($q: String!) { search(query: $q) { searched } }';
    const body = Buffer.concat([Buffer.from(`{"query":${JSON.stringify(operation)},"variables":{"q":"jack`), Buffer.from([0xff, 0xfe]), Buffer.from('et"}}')]);
    const posted = await client.app.inject({ method: 'POST', url: '/graphql', payload: body, headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' } });
    const got = await client.app.inject({ method: 'GET', url: `/graphql?query=${encodeURIComponent(operation)}&variables=${encodeURIComponent('{"q":"jack').replace(/$/, '%FF%FE')}${encodeURIComponent('et"}')}`, headers: { accept: 'application/graphql-response+json' } });
    const surrogate = await client.app.inject({ method: 'POST', url: '/graphql', payload: `{"query":${JSON.stringify(operation)},"variables":{"q":"jack\\ud800et"}}`, headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' } });
    for (const response of [posted, got, surrogate]) {
      expect(response.statusCode, response.body).toBe(400);
      const errors = (JSON.parse(response.body) as { errors: { message: string; extensions: Record<string, unknown> }[] }).errors;
      expect(errors[0]!.message, response.body).toMatch(/UTF-8|Unicode/);
      // A GET names the parameter whose percent-encoded bytes are not UTF-8.
      expect(errors[0]!.extensions.field, response.body).toBe(response === got ? 'variables' : 'variables.q');
    }
    const cursor = await client.post(SearchProductsDocument, { query: noun, after: Buffer.from('product:1').toString('base64url') });
    expect(cursor.status).toBe(400);
    expect(cursor.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    // Written into the document rather than sent as a variable: the same 400, and nothing read.
    // A request error whichever media type: no data, nothing read. Its status is
    // 400 under application/graphql-response+json (what Apollo Client accepts
    // first); plain application/json keeps 200, as GraphQL over HTTP asks for
    // every well-formed request there (src/graphql/http-status.ts).
    for (const [accept, status] of [['application/graphql-response+json', 400], ['application/json', 200]] as const) {
      const literal = await client.post('{ search(query: "jacket & !camo") { searched } }', undefined, { headers: { accept } });
      expect(literal.status, accept).toBe(status);
      expect('data' in literal.body).toBe(false);
      expect(literal.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/query syntax: remove "&"/), extensions: { code: 'BAD_USER_INPUT', field: 'query' } });
      expect(literal.statements).toBe(0);
    }
  });
});

describe('the IDE\'s examples', () => {
  it('run without errors and show something', async () => {
    for (const query of EXAMPLE_TABS) {
      const response = await client.post(query);
      expect(response.body.errors, query).toBeUndefined();
      expect(JSON.stringify(response.body.data)).toMatch(/"id":"\d+"/);
    }
  });
});

describe('after writes', () => {
  const cached = useTestClient(catalogue, { env: { CACHE: 'on' } });

  it('a rename moves a product into a search, and a price change across the facets, through the response cache', async () => {
    const word = 'zzyzx';
    const before = await cached.post(SearchProductsDocument, { query: word });
    expect((before.body.data as SearchProductsQuery).search.edges).toEqual([]);
    const again = await cached.post(SearchProductsDocument, { query: word });
    expect(again.headers['x-cache']).toBe('hit');
    const facetsBefore = (await cached.post(ShopFacetsDocument, { filter: { priceMin: '99999.00' } })).body.data as ShopFacetsQuery;
    expect(facetsBefore.productFacets.total).toBe(0);
    const [target] = await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id DESC LIMIT 1');
    const update = await cached.post(UpdateProductDocument, { id: String(target!.id), input: { name: 'Zzyzx Parka', defaultPrice: '99999.50' } });
    expect(update.body.errors).toBeUndefined();
    const after = await cached.post(SearchProductsDocument, { query: word });
    expect(after.headers['x-cache']).not.toBe('hit');
    expect((after.body.data as SearchProductsQuery).search.edges.map((e) => e.node.id)).toEqual([String(target!.id)]);
    const facetsAfter = (await cached.post(ShopFacetsDocument, { filter: { priceMin: '99999.00' } })).body.data as ShopFacetsQuery;
    expect(facetsAfter.productFacets.total).toBe(1);
    expect(facetsAfter.productFacets.priceBands.at(-1)!.count).toBe(1);
  });

  it('stock and sale changes (styles and skus, as sidecar mode writes them) reach the filters and facets in the same transaction', async () => {
    const [product] = await catalogue.direct.rows<{ id: number }>(`
      SELECT s.product_id AS id FROM styles s JOIN skus k ON k.style_id = s.id WHERE k.quantity > 0 GROUP BY 1 ORDER BY 1 LIMIT 1`);
    const id = product!.id;
    await catalogue.direct.rows('UPDATE skus SET quantity = 0 WHERE style_id IN (SELECT id FROM styles WHERE product_id = $1)', [id]);
    await catalogue.direct.rows('UPDATE styles SET sale_price = NULL WHERE product_id = $1', [id]);
    const fresh = await catalogue.direct.rows<Reference & Record<string, unknown>>(REFERENCE);
    for (const filter of [{ inStock: false }, { onSale: false }, { sizes: ['M', 'L', '9', 'One Size'] }] satisfies Filter[]) {
      const expected = fresh.filter((p) => matches(p, filter)).map((p) => p.id).sort((a, b) => a - b);
      if (!filter.sizes) expect(expected).toContain(id);
      else expect(expected).not.toContain(id);
      expect(await browseIds(client, { first: 50, filter })).toEqual(expected);
      const facets = (await client.post(ShopFacetsDocument, { filter })).body.data as ShopFacetsQuery;
      expect(facets.productFacets.total).toBe(expected.length);
    }
    const cells = await catalogue.direct.one<{ cells: number; products: number }>('SELECT sum(products)::int AS cells, (SELECT count(*)::int FROM products) AS products FROM browse_facet_cells');
    expect(cells.cells).toBe(cells.products);
    // The size set cells count every product with a size in stock once.
    const sets = await catalogue.direct.one<{ cells: number; stocked: number }>(`
      SELECT sum(products)::int AS cells, (SELECT count(*)::int FROM product_browse WHERE sizes <> '{}') AS stocked FROM browse_size_set_cells`);
    expect(sets.cells).toBe(sets.stocked);
    expect(sets.stocked).toBe(fresh.filter((p) => p.sizes.length > 0).length);
  });
});

