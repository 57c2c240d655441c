// One fixture per dirty-data quirk in legacy-api.md: exactly which rows load,
// with which values, and which are rejected with which reason.
import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, type LoadSummary } from '../../src/etl/load/load.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { writeFixture } from '../support/fixtures.ts';

const URL_A = 'https://images.unsplash.com/photo-1501088430049-71c79fa3283e?ixlib=rb-1.2.1&w=668&q=80';
const URL_B = 'https://images.unsplash.com/photo-1501088430049-71c79fa3283e?ixlib=rb-1.2.1&w=300&q=80';

const fixture = {
  product: [
    '1,"Camo Onesie","Blend in to your crowd","The So Fatigues will wake you up and fit you in.","Jackets",140',
    '2,"Bright Future Sunglasses","You\'ve got to wear shades","Where you\'re going, you might not need roads.","Accessories", 69',
    '3,"Morning Joggers","Make yourself a morning person","Whether you\'re a morning person or not.","Pants",40 ',
    '4,"No Styles Here","Nothing to choose","A product without styles.","Kicks",99',
    '4,"Duplicate Id","x","y","Kicks",10',
    '5,"Bad Price","x","y","Kicks",cheap',
    '6,"Too Few Fields","x"',
    '',
    '7,"Quoted ""Nickname"" Tee","Say ""hi""","Commas, quotes and ""more"".","Shirts",25',
  ],
  features: [
    '1,1,"Fabric","Canvas"',
    '2,1,"Buttons",null',
    '3,2,"UV Protection","null"',
    '4,99,"Lenses","Ultrasheen"',
    '5, 2 ,"Frame","DuraResin"',
  ],
  styles: [
    '1,1,"Forest Green & Black",null,140,1',
    '2,1,"Desert Brown & Tan",100,140,0',
    '3,2,"Black Lenses & Black Frame",null, 69,1',
    '4,98,"Orphan Style",null,10,1',
    '5,3,"Empty Style",null,40,1',
    '6,3,"Sale Is Zero",0,40,0',
    '7,3,"Odd Default",null,40,yes',
  ],
  photos: [
    `1,1,"${URL_A}","${URL_B}"`,
    `2,1,"${URL_A}","${URL_B}`, // unterminated quote at the end: repaired
    `3,2,"${URL_A}","${URL_B}"`, // must not be swallowed by line 3
    `4,2,"${URL_A},"${URL_B}"`, // unterminated quote in the middle: the URLs split one way only, repaired
    `5,3,"${URL_A}","${URL_B}"`, // must not be swallowed by line 5
    `6,4,"${URL_A}","${URL_B}"`, // its style 4 was rejected (orphan)
    `7,77,"${URL_A}","${URL_B}"`, // style 77 never existed
    `9,3,"not a url","${URL_B}"`,
    `10,3,${URL_A}","${URL_B}"`, // opening quote missing (a stray closing one): repaired
    `12,3,"not a url,"${URL_B}"`, // unterminated, and no URL once mended: rejected
  ],
  skus: [
    '1,1,"XS",8',
    '2,1,"XL",16',
    '3,1,"XL", 4',
    '4,2,"7.5",3 ',
    '5,2,"One Size",-2',
    '6,4,"M",1',
  ],
  related: [
    '1,1,2',
    '2,1,3',
    '3,1,2',
    '4,2,0',
    '5,2,1',
    '6,2,999',
    '7,500,1',
  ],
};

describe('loading the legacy quirks', () => {
  let db: TestDatabase;
  let client: pg.Client;
  let summary: LoadSummary;
  let fixtureDir: string | undefined;
  const q = async (sql: string) => (await client.query(sql)).rows;

  beforeAll(async () => {
    db = await createTestDatabase();
    fixtureDir = writeFixture(fixture);
    summary = await loadCatalogue({ databaseUrl: db.url, dir: fixtureDir, replace: false });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
    if (fixtureDir) fs.rmSync(fixtureDir, { recursive: true, force: true });
  });

  const rejects = async (file: string) =>
    q(`SELECT line::int, reason FROM load_rejects WHERE run_id = ${summary.runId} AND file = '${file}' ORDER BY line`);

  it('trims stray whitespace around numbers and keeps quoted text exactly', async () => {
    expect(await q('SELECT id, name, slogan, description, default_price::text AS price FROM products ORDER BY id')).toEqual([
      { id: 1, name: 'Camo Onesie', slogan: 'Blend in to your crowd', description: 'The So Fatigues will wake you up and fit you in.', price: '140.00' },
      { id: 2, name: 'Bright Future Sunglasses', slogan: "You've got to wear shades", description: "Where you're going, you might not need roads.", price: '69.00' },
      { id: 3, name: 'Morning Joggers', slogan: 'Make yourself a morning person', description: "Whether you're a morning person or not.", price: '40.00' },
      { id: 4, name: 'No Styles Here', slogan: 'Nothing to choose', description: 'A product without styles.', price: '99.00' },
      { id: 7, name: 'Quoted "Nickname" Tee', slogan: 'Say "hi"', description: 'Commas, quotes and "more".', price: '25.00' },
    ]);
  });

  it('rejects duplicate ids, bad prices, short rows and empty lines with their line numbers', async () => {
    expect(await rejects('product.csv')).toEqual([
      { line: 6, reason: 'duplicate id 4' },
      { line: 7, reason: 'default_price "cheap" is not a price' },
      { line: 8, reason: 'expected 6 fields, found 3' },
      { line: 9, reason: 'expected 6 fields, found 1' },
    ]);
  });

  it('reads the bare word null as NULL and the quoted "null" as text', async () => {
    expect(await q('SELECT id, product_id, feature, value FROM features ORDER BY id')).toEqual([
      { id: 1, product_id: 1, feature: 'Fabric', value: 'Canvas' },
      { id: 2, product_id: 1, feature: 'Buttons', value: null },
      { id: 3, product_id: 2, feature: 'UV Protection', value: 'null' },
      { id: 5, product_id: 2, feature: 'Frame', value: 'DuraResin' },
    ]);
    expect(await rejects('features.csv')).toEqual([{ line: 5, reason: 'product 99 does not exist' }]);
  });

  it('maps default_style 0/1 to booleans and null or 0 sale prices to NULL', async () => {
    expect(await q('SELECT id, product_id, sale_price::text AS sale, original_price::text AS original, is_default FROM styles ORDER BY id')).toEqual([
      { id: 1, product_id: 1, sale: null, original: '140.00', is_default: true },
      { id: 2, product_id: 1, sale: '100.00', original: '140.00', is_default: false },
      { id: 3, product_id: 2, sale: null, original: '69.00', is_default: true },
      { id: 5, product_id: 3, sale: null, original: '40.00', is_default: true },
      { id: 6, product_id: 3, sale: null, original: '40.00', is_default: false },
    ]);
    expect(await rejects('styles.csv')).toEqual([
      { line: 5, reason: 'product 98 does not exist' },
      { line: 8, reason: 'default_style "yes" is not 0 or 1' },
    ]);
  });

  it('repairs URL fields with a lost or stray quote, rejects what cannot be mended, and never swallows a neighbour', async () => {
    expect(await q('SELECT id, style_id, url, thumbnail_url FROM photos ORDER BY id')).toEqual([
      { id: 1, style_id: 1, url: URL_A, thumbnail_url: URL_B },
      { id: 2, style_id: 1, url: URL_A, thumbnail_url: URL_B },
      { id: 3, style_id: 2, url: URL_A, thumbnail_url: URL_B },
      { id: 4, style_id: 2, url: URL_A, thumbnail_url: URL_B },
      { id: 5, style_id: 3, url: URL_A, thumbnail_url: URL_B },
      { id: 10, style_id: 3, url: URL_A, thumbnail_url: URL_B },
    ]);
    const photoRejects = await rejects('photos.csv');
    expect(photoRejects.map((r) => r.line)).toEqual([7, 8, 9, 11]);
    expect(photoRejects.slice(0, 3)).toEqual([
      { line: 7, reason: 'style 4 does not exist' },
      { line: 8, reason: 'style 77 does not exist' },
      { line: 9, reason: 'url is not an http(s) URL' },
    ]);
    expect(photoRejects[3].reason).toMatch(/^unterminated quote/);
    const [kept] = await q(`SELECT raw FROM load_rejects WHERE run_id = ${summary.runId} AND file = 'photos.csv' AND line = 11`);
    expect(kept.raw).toBe(fixture.photos[9]);
    expect(summary.files.find((f) => f.file === 'photos.csv')).toMatchObject({ read: 10, loaded: 6, rejected: 4, repaired: 3 });
  });

  it('keeps repeated sizes, half sizes and trims quantities; rejects negative ones and orphans', async () => {
    expect(await q('SELECT id, style_id, size, quantity FROM skus ORDER BY id')).toEqual([
      { id: 1, style_id: 1, size: 'XS', quantity: 8 },
      { id: 2, style_id: 1, size: 'XL', quantity: 16 },
      { id: 3, style_id: 1, size: 'XL', quantity: 4 },
      { id: 4, style_id: 2, size: '7.5', quantity: 3 },
    ]);
    expect(await rejects('skus.csv')).toEqual([
      { line: 6, reason: 'quantity "-2" is not a non-negative integer' },
      { line: 7, reason: 'style 4 does not exist' },
    ]);
  });

  it('keeps duplicate related pairs, rejects 0 and missing products', async () => {
    expect(await q('SELECT id, current_product_id AS c, related_product_id AS r FROM related ORDER BY id')).toEqual([
      { id: 1, c: 1, r: 2 },
      { id: 2, c: 1, r: 3 },
      { id: 3, c: 1, r: 2 },
      { id: 5, c: 2, r: 1 },
    ]);
    expect(await rejects('related.csv')).toEqual([
      { line: 5, reason: 'related_product_id is 0' },
      { line: 7, reason: 'related product 999 does not exist' },
      { line: 8, reason: 'product 500 does not exist' },
    ]);
  });

  it('keeps the raw text of every rejected row', async () => {
    const [row] = await q(`SELECT raw FROM load_rejects WHERE run_id = ${summary.runId} AND file = 'related.csv' AND line = 5`);
    expect(row.raw).toBe('4,2,0');
  });

  it('loads products without styles and styles without photos or skus', async () => {
    expect(await q('SELECT count(*)::int AS n FROM styles WHERE product_id = 4')).toEqual([{ n: 0 }]);
    expect(await q('SELECT count(*)::int AS n FROM photos WHERE style_id = 6')).toEqual([{ n: 0 }]);
    expect(await q('SELECT count(*)::int AS n FROM skus WHERE style_id = 5')).toEqual([{ n: 0 }]);
  });

  it('resets the id sequences past the loaded ids', async () => {
    const [row] = await q(`INSERT INTO products (name, slogan, description, category, default_price) VALUES ('n', 's', 'd', 'c', 1) RETURNING id`);
    expect(row.id).toBe(8);
  });

  it('records the run and its summary', async () => {
    const [run] = await q(`SELECT status, summary FROM load_runs WHERE id = ${summary.runId}`);
    expect(run.status).toBe('succeeded');
    expect(run.summary.counts).toEqual({ products: 5, features: 4, styles: 5, photos: 6, skus: 4, related: 4 });
  });
});
