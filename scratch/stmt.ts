import { searchFacetsStatement } from '../src/catalog/search-statements.ts';
import pg from 'pg';
const [query, lexemes] = [process.argv[2]!, JSON.parse(process.argv[3]!)];
const st = searchFacetsStatement({}, { query, searched: { terms: [], pairs: [] }, uncorrected: null, typed: null, nameKey: null, corrected: false, beyondTyped: false, wordLexemes: lexemes });
const c = new pg.Client('postgres://postgres@127.0.0.1:55432/catalogue_bench'); await c.connect();
await c.query('SET max_parallel_workers_per_gather = 0');
await c.query(`PREPARE s AS ${st.text}`);
await c.query(`SET plan_cache_mode = force_generic_plan`);
const args = st.values.map((v) => (Array.isArray(v) ? `'{${v.join(',')}}'` : typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`)).join(', ');
for (let i = 0; i < 2; i++) { const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING ON) EXECUTE s(${args})`); if (i === 1) console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n')); }
const t = Date.now(); const r = await c.query(`EXECUTE s(${args})`); console.log(Date.now() - t, 'ms', JSON.stringify(r.rows));
await c.end();
