// Postgres execution time of the nested page statements (src/catalog/reads/queries.ts
// NESTED_PAGES) against the whole-list reads they sit beside, for the 20
// products of a listing page in the middle of the catalogue: the numbers in
// docs/graphql.md "Nested paging". Read-only (EXPLAIN ANALYZE of SELECTs in a
// read-only session); medians of 50 runs, three rounds.
//   node scripts/nested-pages-timing.ts postgres://…/catalogue_bench
import pg from 'pg';
import { KEYED, NESTED_PAGES } from '../src/catalog/reads/queries.ts';

const client = new pg.Client({ connectionString: process.argv[2] ?? process.env.DATABASE_URL });
await client.connect();
await client.query('SET default_transaction_read_only = on');
const middle = (await client.query<{ id: number }>('SELECT max(id) / 2 AS id FROM products')).rows[0]!.id;
const ids = (await client.query<{ id: number }>('SELECT id FROM products WHERE id > $1 ORDER BY id LIMIT 20', [middle])).rows.map((r) => r.id);
const relatedIds = [...new Set((await client.query(KEYED.relatedByProductIds.text, [ids])).rows.map((r) => (r as unknown as { relatedProductId: number }).relatedProductId))];
const pages = [ids, ids.map(() => 2), ids.map(() => null)];
// Paging the style documents in SQL, the alternative measured and not taken.
const documentPages = `
  SELECT k.n::int AS "pageKey", page.style
  FROM unnest($1::int[], $2::int[], $3::int[]) WITH ORDINALITY AS k(product_id, first, after, n)
  CROSS JOIN LATERAL (
    SELECT e.style, e.position FROM product_style_documents d
    CROSS JOIN LATERAL json_array_elements(d.styles) WITH ORDINALITY AS e(style, position)
    WHERE d.product_id = k.product_id AND (k.after IS NULL OR (e.style->>'id')::int > k.after)
    ORDER BY e.position LIMIT k.first
  ) page ORDER BY k.n, page.position`;
const statements: [string, string, unknown[]][] = [
  ['styles, first 2 (stylePages)', NESTED_PAGES.stylePages, pages],
  ['styles, whole (stylesByProductIds)', KEYED.stylesByProductIds.text, [ids]],
  ['style documents, first 2, paged in SQL (not used)', documentPages, pages],
  ['style documents, whole (styleDocumentsByProductIds)', KEYED.styleDocumentsByProductIds.text, [ids]],
  ['related, first 2 (relatedPages)', NESTED_PAGES.relatedPages, pages],
  ['related rows, whole (relatedByProductIds)', KEYED.relatedByProductIds.text, [ids]],
  ['  and their products (productsByIds)', KEYED.productsByIds.text, [relatedIds]],
];
for (let round = 1; round <= 3; round++) {
  for (const [label, text, values] of statements) {
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
      times.push((rows[0]['QUERY PLAN'] as { 'Execution Time': number }[])[0]!['Execution Time']);
    }
    times.sort((a, b) => a - b);
    console.log(`round ${round}  ${label.padEnd(52)} ${times[25]!.toFixed(3)} ms`);
  }
}
await client.end();
