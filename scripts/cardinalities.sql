-- Children per parent in a loaded catalogue: the numbers behind the GraphQL
-- cost estimate's list sizes (MEASURED_CARDINALITIES in src/graphql/cost.ts,
-- the table in README "GraphQL limits"). Every parent is counted, one without
-- any child as 0. Read-only; about 30 s at full scale (1,000,011 products).
--   psql "$DATABASE_URL" -f scripts/cardinalities.sql
WITH c AS (SELECT p.id, count(f.id) AS n FROM products p LEFT JOIN features f ON f.product_id = p.id GROUP BY p.id)
SELECT 'Product.features' AS list, round(avg(n), 2) AS average, percentile_disc(0.5) WITHIN GROUP (ORDER BY n) AS p50,
  percentile_disc(0.99) WITHIN GROUP (ORDER BY n) AS p99, max(n) AS max FROM c
UNION ALL
SELECT 'Product.styles', round(avg(n), 2), percentile_disc(0.5) WITHIN GROUP (ORDER BY n), percentile_disc(0.99) WITHIN GROUP (ORDER BY n), max(n)
FROM (SELECT p.id, count(s.id) AS n FROM products p LEFT JOIN styles s ON s.product_id = p.id GROUP BY p.id) c
UNION ALL
-- what `related` returns: distinct related products that exist (rows may repeat a pair, or name product 0)
SELECT 'Product.related', round(avg(n), 2), percentile_disc(0.5) WITHIN GROUP (ORDER BY n), percentile_disc(0.99) WITHIN GROUP (ORDER BY n), max(n)
FROM (SELECT p.id, count(DISTINCT q.id) AS n FROM products p LEFT JOIN related r ON r.current_product_id = p.id
      LEFT JOIN products q ON q.id = r.related_product_id GROUP BY p.id) c
UNION ALL
-- what `relatedIds` returns: the rows
SELECT 'Product.relatedIds', round(avg(n), 2), percentile_disc(0.5) WITHIN GROUP (ORDER BY n), percentile_disc(0.99) WITHIN GROUP (ORDER BY n), max(n)
FROM (SELECT p.id, count(r.id) AS n FROM products p LEFT JOIN related r ON r.current_product_id = p.id GROUP BY p.id) c
UNION ALL
SELECT 'Style.photos', round(avg(n), 2), percentile_disc(0.5) WITHIN GROUP (ORDER BY n), percentile_disc(0.99) WITHIN GROUP (ORDER BY n), max(n)
FROM (SELECT s.id, count(ph.id) AS n FROM styles s LEFT JOIN photos ph ON ph.style_id = s.id GROUP BY s.id) c
UNION ALL
SELECT 'Style.skus', round(avg(n), 2), percentile_disc(0.5) WITHIN GROUP (ORDER BY n), percentile_disc(0.99) WITHIN GROUP (ORDER BY n), max(n)
FROM (SELECT s.id, count(k.id) AS n FROM styles s LEFT JOIN skus k ON k.style_id = s.id GROUP BY s.id) c
ORDER BY list;
