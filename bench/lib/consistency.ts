// The soak's final check (npm run bench:soak): every product read through the
// API equals the database. The products the soak wrote are those whose
// version moved past the highest version before it (versions come from one
// sequence, new at every write); each of them, and a random sample of the
// others, is read with GET /products/:id and compared with its row and
// features: name, slogan, description, category, default_price ("x.yy"),
// features [{feature, value}] in id order, and the ETag ("<version>").
import pg from 'pg';

/** What GET /products/:id must show of a product, as the database holds it. */
export interface StoredProduct {
  id: number;
  name: string;
  slogan: string;
  description: string;
  category: string;
  default_price: string;
  features: { feature: string; value: string | null }[];
  version: string;
}

/** An answer of GET /products/:id. */
export interface ApiAnswer {
  status: number;
  etag: string | null;
  body: string;
}

const COMPARED = ['id', 'name', 'slogan', 'description', 'category', 'default_price', 'features'] as const;

const PRODUCTS = `
  SELECT p.id, p.name, p.slogan, p.description, p.category, p.default_price::text AS default_price, p.version::text AS version,
    coalesce((SELECT json_agg(json_build_object('feature', f.feature, 'value', f.value) ORDER BY f.id) FROM features f WHERE f.product_id = p.id), '[]'::json) AS features
  FROM products p WHERE p.id = ANY($1::int[])`;

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The highest product version now: whatever is written later gets a higher one. */
export function highestVersion(url: string): Promise<string> {
  return withClient(url, async (client) => (await client.query<{ v: string }>('SELECT coalesce(max(version), 0)::text AS v FROM products')).rows[0]!.v);
}

/** The products written since `version`, and a random sample of `sample` of the others. */
export function productsToCheck(url: string, version: string, sample: number): Promise<{ written: number[]; unwritten: number[] }> {
  return withClient(url, async (client) => {
    const ids = async (sql: string, params: unknown[]) => (await client.query<{ id: number }>(sql, params)).rows.map((row) => row.id);
    return {
      written: await ids('SELECT id FROM products WHERE version > $1::bigint ORDER BY id', [version]),
      unwritten: await ids('SELECT id FROM (SELECT id FROM products WHERE version <= $1::bigint ORDER BY random() LIMIT $2) s ORDER BY id', [version, sample]),
    };
  });
}

/** The rows of these products (missing ids are left out). */
export function storedProducts(url: string, ids: number[]): Promise<Map<number, StoredProduct>> {
  return withClient(url, async (client) => new Map((await client.query<StoredProduct>(PRODUCTS, [ids])).rows.map((row) => [row.id, row])));
}

const shown = (value: unknown) => JSON.stringify(value);

/** How the API's answer differs from the stored product, as readable lines; none when they agree. */
export function differences(stored: StoredProduct | undefined, id: number, answer: ApiAnswer): string[] {
  if (stored === undefined) return answer.status === 404 ? [] : [`product ${id}: not in the database, but the API answered ${answer.status}`];
  if (answer.status !== 200) return [`product ${id}: the API answered ${answer.status}: ${answer.body.slice(0, 200)}`];
  const found: string[] = [];
  const etag = `"${stored.version}"`;
  if (answer.etag !== etag) found.push(`product ${id}: ETag ${answer.etag} through the API, ${etag} in the database`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.body) as Record<string, unknown>;
  } catch {
    return [...found, `product ${id}: the API's answer is not JSON: ${answer.body.slice(0, 200)}`];
  }
  for (const field of COMPARED) {
    if (shown(body[field]) !== shown(stored[field])) found.push(`product ${id}: ${field} ${shown(body[field])} through the API, ${shown(stored[field])} in the database`);
  }
  return found;
}

/**
 * Reads each product through `read` (GET /products/:id), `concurrency` at a
 * time, and compares it with the database, in chunks so that neither side
 * holds every product at once. The mismatches, as lines.
 */
export async function compareWithDatabase(url: string, ids: number[], read: (id: number) => Promise<ApiAnswer>, concurrency = 8): Promise<string[]> {
  const mismatches: string[] = [];
  const CHUNK = 1000;
  for (let start = 0; start < ids.length; start += CHUNK) {
    const chunk = ids.slice(start, start + CHUNK);
    const stored = await storedProducts(url, chunk);
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(concurrency, chunk.length) }, async () => {
      while (next < chunk.length) {
        const id = chunk[next++]!;
        mismatches.push(...differences(stored.get(id), id, await read(id)));
      }
    }));
  }
  return mismatches;
}

/** `read` for compareWithDatabase: GET /products/:id on a running API. */
export function readThroughApi(baseUrl: string): (id: number) => Promise<ApiAnswer> {
  return async (id) => {
    const response = await fetch(`${baseUrl}/products/${id}`);
    return { status: response.status, etag: response.headers.get('etag'), body: await response.text() };
  };
}
